// Flag Finish: each seat's row 0..10 then the flag, the open discard pile, the draw pile and your hand.
// Only what the view holds is drawn, and only the legal actions of the last update can be clicked. Its events
// are said from the game's words (js/sentences.js), as the terminal says them. Any seat's hand is drawn as
// plain cards too, for the broadcast view's Hands panel.

import { h } from "../dom.js";
import { gameWords, cardName as nameOf } from "../sentences.js";
import { scoreList } from "../words.js";
import { actionButton, lastEvents, lastKey, lastNote } from "./generic.js";

// A new race clears the table: the last moves of the race before are no longer on it.
export const freshStart = ["race_dealt"];

const COLOURS = { G: "green", R: "red", B: "blue", Y: "yellow", O: "orange", P: "purple" };

// "green 5", "flag": the game's card names (rules/flag_finish/words.py, served as /words.json)
export function cardName(card) {
  return nameOf("flag_finish", card);
}

function face(card) {
  return card === "F"
    ? [h("span", { class: "rank" }, "⚑"), h("span", { class: "suit" }, "flag")]
    : [h("span", { class: "rank" }, card.slice(1)), h("span", { class: "suit" }, COLOURS[card[0]])];
}

function card(code, extra = "") {
  return h("span", { class: `card c-${code[0]} ${extra}`, title: cardName(code), "data-card": code }, face(code));
}

// A seat's hand as plain cards, as its player sees them with no move to make (a card of the board's hand is
// drawn so while its move is not legal): the broadcast view's Hands panel (js/table.js).
export function handCards(hand) {
  return hand.map((code) => card(code));
}

// A card of the discard pile or of your hand: the button of its move (take, play or discard), with the card's
// face and the move's word, disabled while that move is not legal (drawn then as a plain card). So a card that
// becomes a move, or stops being one, stays one element whose class and disabled change: at each take or
// discard in Challenge Mode some twenty cards turn, and making and removing an element for each was most of
// the page's redraw (bench/README.md, Browser). `small`: the card's size while it is not a move.
function cardMove(ctx, code, action, offered, small = "", extra = "") {
  const verb = action.type;
  return actionButton(ctx, action, [face(code), h("span", { class: "verb" }, verb)],
                      { class: `card c-${code[0]}${offered ? "" : small}${extra}`, title: cardName(code), "data-card": code,
                        "aria-label": `${verb} ${cardName(code)}` }, offered);
}

// Which race this is: past the last one, a race the tied totals added (RULES.md: "race again until someone wins");
// clients/render.py's race_words says the same.
export function raceWords(view) {
  return view.race > view.races ? `Race ${view.race}, a tiebreak after ${view.races}` : `Race ${view.race} of ${view.races}`;
}

export function board(ctx) {
  const { view, legal = [] } = ctx;
  const byKind = (type) => new Map(legal.filter((a) => a.type === type).map((a) => [a.card, a]));
  const takes = byKind("take"), plays = byKind("play"), discards = byKind("discard");
  const draw = legal.find((a) => a.type === "draw");
  const mode = view.mode === "challenge" ? "Challenge Mode: everyone at once" : "Warm-up: one at a time";
  // the other seats' last moves: the card each played (the last of its row), the cards discarded (the top-most
  // of each on the pile)
  const played = new Map(lastEvents(ctx, "played").map((e) => [e.seat, e.card]));
  const discarded = new Set(lastEvents(ctx, "discarded").map((e) => e.card));
  const lastDiscard = new Set([...discarded].map((c) => view.discard.lastIndexOf(c)).filter((i) => i >= 0));
  return h("section", { class: "flag-finish" },
    h("p", { class: "race" }, `${raceWords(view)} · ${mode} · ${phaseWords(view.phase)}`),
    h("div", { class: "rows" }, view.rows.map((row, seat) => h("div", {
      class: `seat-row${view.to_act.includes(seat) ? " acting" : ""}${seat === ctx.seat ? " mine" : ""}`,
      "data-seat": seat,
      memo: JSON.stringify([row, view.to_act.includes(seat), seat === ctx.seat, ctx.who(seat), view.hand_counts[seat],
                            view.totals[seat], view.finishers.includes(seat), view.must_discard[seat],
                            lastKey(ctx, seat), played.get(seat)]),
    },
      h("div", { class: "who" }, h("strong", {}, ctx.who(seat)),
        h("span", {}, ` · ${view.hand_counts[seat]} in hand · total ${view.totals[seat] ?? 0}`),
        view.finishers.includes(seat) ? h("span", { class: "flag" }, " · finished ⚑") : null,
        view.must_discard[seat] ? h("span", {}, " · must discard") : null, lastNote(ctx, seat)),
      h("div", { class: "cards row-cards", "aria-label": `${ctx.who(seat)}'s row` },
        row.length ? row.map((c, i) => card(c, "small" + (i === row.length - 1 && played.get(seat) === c ? " last-move" : "")))
          : h("span", { class: "empty" }, "no cards yet; needs a 0"))))),
    h("div", { class: "piles" },
      h("div", { class: "pile" }, h("h3", {}, "Draw pile"),
        draw ? actionButton(ctx, draw, `Draw (${view.draw_count} left)`, { class: "draw" })
          : h("span", { class: "card back" }, `${view.draw_count} cards`)),
      h("div", { class: "pile discard" }, h("h3", {}, `Discard pile (${view.discard.length}), open`),
        h("div", { class: "cards", "aria-label": "discard pile" }, view.discard.map((c, i) =>
          cardMove(ctx, c, takes.get(c) || { type: "take", card: c }, takes.has(c), " small",
                   lastDiscard.has(i) ? " last-move" : ""))))),
    view.hand ? h("div", { class: "hand" },
      h("h3", {}, "Your hand" + (view.drawn ? ` (you took ${cardName(view.drawn)}: discard one)` : "")),
      h("div", { class: "cards", "aria-label": "your hand" }, view.hand.map((c) =>
        cardMove(ctx, c, plays.get(c) || discards.get(c) || { type: "discard", card: c },
                 plays.has(c) || discards.has(c))))) : null,
    view.race_scores.length ? h("p", { class: "race-scores" },
      "Races: " + view.race_scores.map((scores, i) => `#${i + 1} ` + scoreList(scores, ctx.who)).join(" · ")) : null);
}

// "racing", "photo-finish window open": the game's words (rules/flag_finish/words.py), as the terminal says them
function phaseWords(phase) {
  return ((gameWords("flag_finish").names || {}).phase || {})[phase] || phase;
}


// A Challenge race lost: the card went to someone else first.
export function refusal(action, error, ctx) {
  if (action.type === "take" && error.code === "card_not_in_discard") {
    const taker = ctx.state.took.get(action.card);
    return taker !== undefined && taker !== ctx.seat
      ? `${ctx.who(taker)} got ${cardName(action.card)} first.`
      : `${cardName(action.card)} is no longer on the discard pile.`;
  }
  return null;
}

export function remember(e, state) {
  if (e.type === "took") state.took.set(e.card, e.seat);
}
