// Any game without a screen of its own: its view as readable text and its legal moves as buttons.

import { h } from "../dom.js";
import { describeAction, readable } from "../words.js";

export function board(ctx) {
  return h("section", { class: "generic" },
    moves(ctx, ctx.legal),
    ctx.view ? h("pre", { class: "view-text", "aria-label": "the table as text" }, readable(ctx.view)) : null);
}

// The legal actions as buttons (labelled as the terminal client lists them), or null when there are none.
export function moves(ctx, legal, label = describeAction) {
  if (!legal || !legal.length) return null;
  return h("div", { class: "moves", role: "group", "aria-label": "your moves" },
    legal.map((action) => actionButton(ctx, action, label(action))));
}

export function actionButton(ctx, action, text, attrs = {}) {
  const button = h("button", {
    type: "button", class: `move ${attrs.class || ""}`, "data-key": ctx.key(action),
    "data-action": describeAction(action), "data-pending-note": " (sent...)", title: attrs.title,
    onclick: () => ctx.act(action),
  }, text);
  return ctx.isPending(action) ? markPending(button) : button;
}

// A move sent and not yet answered (any element with the move's data-key): shown the same whether a whole
// render draws it or the click marks it at once (TablePage.act marks the clicked move alone: a click costs the
// page no redraw of the table, which would hold the page's one thread while the answer comes in). A move whose
// element has a data-pending-note says it in words too.
export function markPending(element) {
  element.classList.add("pending");
  element.setAttribute("aria-busy", "true");
  const note = element.dataset.pendingNote;
  if (note && !element.querySelector(".pending-mark")) element.append(h("span", { class: "pending-mark" }, note));
  return element;
}
