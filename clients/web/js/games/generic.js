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
  const pending = ctx.isPending(action);
  return h("button", {
    type: "button", class: `move${pending ? " pending" : ""} ${attrs.class || ""}`, "data-key": ctx.key(action),
    "data-action": describeAction(action), "aria-busy": pending ? "true" : null, title: attrs.title,
    onclick: () => ctx.act(action),
  }, text, pending ? h("span", { class: "pending-mark" }, " (sent...)") : null);
}
