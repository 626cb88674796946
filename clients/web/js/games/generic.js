// Any game without a screen of its own: its view as readable text and its legal moves as buttons.

import { addClass, create, h, setAttr } from "../dom.js";
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

// attrs: its class (besides "move"), title and any other attribute (a card's data-card, an aria-label).
// offered: false draws the same button disabled, not a move (a screen whose cards are moves now and then keeps
// each card one element: turning it into a move and back changes its class and disabled, nothing else).
export function actionButton(ctx, action, text, attrs = {}, offered = true) {
  const button = h("button", {
    ...attrs, type: "button", class: `${offered ? "move " : ""}${attrs.class || ""}`, disabled: !offered,
    "data-key": ctx.key(action), "data-action": describeAction(action), "data-pending-note": " (sent...)",
    title: attrs.title, onclick: () => ctx.act(action),
  }, text);
  return offered && ctx.isPending(action) ? markPending(button) : button;
}

// A move sent and not yet answered (any element with the move's data-key): shown the same whether a whole
// render draws it or the click marks it at once (TablePage.act marks the clicked move alone: a click costs the
// page no redraw of the table, which would hold the page's one thread while the answer comes in). A move whose
// element has a data-pending-note says it in words too. `element`: a live element or a description (dom.js).
export function markPending(element) {
  addClass(element, "pending");
  setAttr(element, "aria-busy", "true");
  if (!(element instanceof Node)) {
    const note = element.attrs["data-pending-note"];
    if (note) element.children.push(h("span", { class: "pending-mark" }, note));
  } else if (element.dataset.pendingNote && !element.querySelector(".pending-mark")) {
    element.append(create(h("span", { class: "pending-mark" }, element.dataset.pendingNote)));
  }
  return element;
}

// ------------------------------------------------------------------ the other seats' last moves

// The events of type `type` in the other seats' last turns (js/table.js keeps them in ctx.last, by the seat that
// acted), each with that seat as `by`.
export function lastEvents(ctx, type) {
  const out = [];
  for (const [by, last] of ctx.last || []) {
    for (const event of last.events) if (event.type === type) out.push({ ...event, by });
  }
  return out;
}

// A seat's last turn in words (its lines of the feed), beside its name on the board; null for none.
export function lastNote(ctx, seat) {
  const last = ctx.last && ctx.last.get(seat);
  if (!last || !last.words.length) return null;
  return h("span", { class: "last-note", "data-seat": seat, title: "this seat's last move" }, ` · last: ${last.words.join(" ")}`);
}

// What a memo of a part showing a seat's last move must hold: the seq of its last turn.
export function lastKey(ctx, seat) {
  const last = ctx.last && ctx.last.get(seat);
  return last ? last.seq : null;
}
