// The Race to the Finish: the track of 12 coloured cards between the start and the Finish with every piece
// (two a seat in the two-seat game; a sidetracked piece beside its card), trump, the trick in play, your hand
// (click a playable card to play it; any seat's hand as plain cards for the broadcast view's Hands panel) and
// the piece choices of the two-seat game. Everything drawn comes from the view or the legal list.

import { h } from "../dom.js";
import { cardName as nameOf } from "../sentences.js";
import { joinWords } from "../words.js";
import { actionButton, lastEvents, lastNote } from "./generic.js";

const SUITS = { R: "red", B: "blue", O: "orange", G: "green" };
const SUIT_ORDER = ["R", "B", "O", "G"];
const SUIT_YOURSELF = "SY";
const SIDETRACKED = "ST";

// "red 7", "Suit Yourself": the game's card names (rules/race_to_the_finish/words.py, served as /words.json)
export function cardName(card) {
  return nameOf("race_to_the_finish", card);
}

function suitOf(card) {
  return card === SUIT_YOURSELF || card === SIDETRACKED ? null : card[0];
}

function face(card) {
  if (card === SUIT_YOURSELF) return [h("span", { class: "rank" }, "★"), h("span", { class: "suit" }, "suit yourself")];
  // "side-tracked" may break at its soft hyphen: the word alone is wider than a card, on a phone or not
  if (card === SIDETRACKED) return [h("span", { class: "rank" }, "↷"), h("span", { class: "suit" }, "side\u00adtracked")];
  return [h("span", { class: "rank" }, card.slice(1)), h("span", { class: "suit" }, SUITS[card[0]])];
}

function cardClass(card, extra = "") {
  return `card rf-card rf-${suitOf(card) || card}${extra ? " " + extra : ""}`;
}

function card(code, extra = "") {
  return h("span", { class: cardClass(code, extra), title: cardName(code), role: "img", "aria-label": cardName(code),
                     "data-card": code }, face(code));
}

function sortHand(hand) {
  const rank = (c) => (suitOf(c) ? SUIT_ORDER.indexOf(c[0]) * 100 + Number(c.slice(1)) : c === SUIT_YOURSELF ? 1000 : 2000);
  return [...hand].sort((a, b) => rank(a) - rank(b));
}

// A seat's hand as plain cards in the order its player sees them (by suit, then Suit Yourself and
// Sidetracked): the broadcast view's Hands panel (js/table.js).
export function handCards(hand) {
  return sortHand(hand).map((code) => card(code));
}

function finish(view) {
  return view.track.length + 1;
}

function place(view, position) {
  if (position === 0) return "the start";
  if (position >= finish(view)) return "the Finish";
  return `track card ${position} (${SUITS[view.track[position - 1]]})`;
}

// "Ana" or, in the two-seat game, "Ana's piece 2".
function pieceName(ctx, seat, piece) {
  const two = ctx.view.pieces[seat].length > 1;
  const owner = seat === ctx.seat ? "Your" : `${ctx.who(seat)}'s`;
  return two ? `${owner} piece ${piece + 1}` : `${owner} piece`;
}

// A piece's label: "You", else the first letters of the seat's name, or its initial and number when two
// seats' names start alike.
function shortName(ctx, seat) {
  if (seat === ctx.seat) return "You";
  const short = (s) => ctx.who(s).slice(0, 3);
  const alike = ctx.view.pieces.some((_, other) => other !== seat && other !== ctx.seat && short(other) === short(seat));
  return alike ? `${ctx.who(seat).charAt(0)}${seat + 1}` : short(seat);
}

function token(ctx, seat, piece, off) {
  const { view } = ctx;
  const two = view.pieces[seat].length > 1;
  const text = shortName(ctx, seat) + (two ? ` ${piece + 1}` : "");
  const where = place(view, view.pieces[seat][piece]);
  const moved = lastEvents(ctx, "piece_moved").some((e) => e.seat === seat && e.piece === piece && e.how !== "stays");
  return h("span", {
    class: `rf-piece rf-seat-${seat}${off ? " rf-off" : ""}${seat === ctx.seat ? " mine" : ""}${moved ? " last-move" : ""}`,
    "data-seat": seat, "data-piece": piece, role: "img",
    "aria-label": `${pieceName(ctx, seat, piece)}${off ? ", sidetracked beside" : " at"} ${where}`,
    title: `${pieceName(ctx, seat, piece)}${off ? ", sidetracked beside" : " at"} ${where}`,
  }, text);
}

// ------------------------------------------------------------------ the board

export function board(ctx) {
  const { view } = ctx;
  const legal = ctx.legal || [];
  return h("section", { class: "race-finish" },
    h("p", { class: "rf-info" }, infoLine(ctx)),
    trackView(ctx),
    h("div", { class: "rf-middle" }, trumpPanel(view), trickPanel(ctx)),
    choicePanel(ctx, legal),
    view.hand ? handPanel(ctx, legal) : null,
    seatsPanel(ctx));
}

function infoLine(ctx) {
  const { view } = ctx;
  if (view.phase === "over") {
    return `${ctx.who(view.winner)} reached the Finish first. The scores count how far each seat's pieces came ` +
      `(the number of the track card${view.pieces.length === 2 ? "s, both pieces added" : ""}; the Finish counts ` +
      `${finish(view)}): higher is better.`;
  }
  const two = view.pieces.length === 2 ? " · two pieces each: both must reach the Finish" : "";
  const deal = view.deals ? `Deal ${view.deals}, dealt by ${ctx.who(view.dealer)}` : "Cutting for the deal";
  return `${deal} · ${view.cards_played} cards in tricks this deal · ${view.sidetracked_played} Sidetracked played` +
    ` · ${view.out_of_play} out of play${two}`;
}

function trackView(ctx) {
  const { view } = ctx;
  const end = finish(view);
  const at = (position) => {
    const here = [];
    view.pieces.forEach((pieces, seat) => pieces.forEach((pos, piece) => {
      if (pos === position) here.push({ seat, piece, off: view.sidetracked[seat][piece] });
    }));
    return here;
  };
  const spot = (position, cls, title, sub) => {
    const here = at(position);
    const on = here.filter((p) => !p.off || position === 0 || position === end);
    const off = here.filter((p) => p.off && position !== 0 && position !== end);
    return h("li", { class: `rf-spot ${cls}`, "data-position": position, "aria-label": `${title}: ` +
        (here.length ? here.map((p) => pieceName(ctx, p.seat, p.piece) + (p.off ? " (sidetracked)" : "")).join(", ")
          : "empty") },
      h("span", { class: "rf-spot-name" }, title), sub ? h("span", { class: "rf-spot-sub" }, sub) : null,
      h("span", { class: "rf-pieces" }, on.map((p) => token(ctx, p.seat, p.piece, p.off))),
      off.length ? h("span", { class: "rf-aside" }, off.map((p) => token(ctx, p.seat, p.piece, true))) : null);
  };
  return h("ol", { class: "rf-track", "aria-label": "the track, from the start to the Finish" },
    spot(0, "rf-start", "Start", null),
    view.track.map((suit, i) => spot(i + 1, `rf-track-card rf-${suit}`, String(i + 1), SUITS[suit])),
    spot(end, "rf-finish", "Finish", "🏁"));
}

function trumpPanel(view) {
  return h("div", { class: "rf-panel rf-trump" }, h("h3", {}, "Trump"),
    view.trump ? h("span", { class: `rf-swatch rf-${view.trump}` }, SUITS[view.trump]) : h("span", { class: "empty" }, "none yet"),
    h("p", { class: "rf-note" }, "The colour of the track card under the leading piece (sidetracked pieces don't count)."));
}

function trickPanel(ctx) {
  const { view } = ctx;
  const lead = view.trick.length ? view.trick[0] : null;
  const asked = lead === null ? null : suitOf(lead) || view.trump;
  const note = lead === null
    ? (view.turn !== null && view.turn !== undefined ? `${ctx.who(view.turn)} ${view.turn === ctx.seat ? "lead" : "leads"} the trick.` : "")
    : `Led: ${cardName(lead)}. Follow ${asked ? SUITS[asked] : "suit"} if you can` +
      (suitOf(lead) ? "" : " (trump is asked for)") + "; Suit Yourself and Sidetracked may always be played.";
  return h("div", { class: "rf-panel rf-trick" }, h("h3", {}, "The trick"),
    h("ol", { class: "rf-trick-cards", "aria-label": "the trick in play" },
      view.trick.length ? view.trick.map((c, i) => h("li", {
        class: lastEvents(ctx, "played").some((e) => e.seat === view.trick_seats[i] && e.card === c) ? "last-move" : "",
        "data-seat": view.trick_seats[i] }, card(c), h("span", { class: "rf-by" },
        ctx.who(view.trick_seats[i])))) : h("li", { class: "empty" }, "no card played yet")),
    h("p", { class: "rf-note" }, note));
}

function choicePanel(ctx, legal) {
  const { view } = ctx;
  const choices = legal.filter((a) => a.type === "move" || a.type === "sidetrack");
  if (view.phase !== "move" && view.phase !== "sidetrack") return null;
  const mover = view.mover;
  const words = view.phase === "move"
    ? `${ctx.who(mover)} won the trick: ${mover === ctx.seat ? "choose the piece" : `${ctx.who(view.chooser)} ${view.chooser === ctx.seat ? "choose" : "chooses"} the piece`} that moves.`
    : `${ctx.who(mover)} won a trick with a Sidetracked card in it: ` +
      `${view.chooser === ctx.seat ? "you choose" : `${ctx.who(view.chooser)} chooses`} which of ${mover === ctx.seat ? "your" : `${ctx.who(mover)}'s`} pieces is sidetracked.`;
  return h("div", { class: "rf-panel rf-choice", role: "group", "aria-label": "the piece choice" },
    h("p", { class: "rf-prompt" }, words),
    choices.length ? h("div", { class: "moves" }, choices.map((a) => {
      const pos = view.pieces[mover][a.piece];
      const off = view.sidetracked[mover][a.piece];
      const text = a.type === "move"
        ? `Move piece ${a.piece + 1} (${off ? "sidetracked beside" : "at"} ${place(view, pos)})`
        : `Sidetrack ${pieceName(ctx, mover, a.piece).replace("Your", "your")} (at ${place(view, pos)})`;
      return actionButton(ctx, a, text, { class: `rf-${a.type}` });
    })) : null);
}

function handPanel(ctx, legal) {
  const { view } = ctx;
  const plays = new Map(legal.filter((a) => a.type === "play").map((a) => [a.card, a]));
  const hand = sortHand(view.hand);
  const seen = new Set();
  return h("div", { class: "hand" },
    h("h3", {}, `Your hand (${hand.length})` + (plays.size ? ": click a card to play it" : "")),
    h("div", { class: "cards", role: "group", "aria-label": "your hand" }, hand.length ? hand.map((c) => {
      const action = plays.get(c);
      if (!action || seen.has(c)) return card(c, action ? "" : plays.size ? "rf-unplayable" : "");
      seen.add(c); // Sidetracked and Suit Yourself come several times: one button per legal move
      return actionButton(ctx, action, [face(c), h("span", { class: "verb" }, "play")],
                          { class: cardClass(c), title: `play ${cardName(c)}`, "data-card": c,
                            "aria-label": `play ${cardName(c)}` });
    }) : h("span", { class: "empty" }, "no cards")));
}

function seatsPanel(ctx) {
  const { view } = ctx;
  return h("ul", { class: "rf-seats", "aria-label": "the seats" }, view.pieces.map((pieces, seat) => {
    const acting = view.turn === seat || view.chooser === seat;
    const where = pieces.map((pos, piece) => (pieces.length > 1 ? `piece ${piece + 1} ` : "") +
      (view.sidetracked[seat][piece] ? "sidetracked beside " : "at ") + place(view, pos));
    return h("li", { class: `rf-seat${acting ? " acting" : ""}${seat === ctx.seat ? " mine" : ""}`, "data-seat": seat },
      h("span", { class: `rf-piece rf-seat-${seat}`, "aria-hidden": "true" }, " "),
      h("strong", {}, ctx.who(seat)),
      ` · ${view.hand_counts[seat]} in hand · ${view.tricks_won[seat]} trick${view.tricks_won[seat] === 1 ? "" : "s"} won · `,
      joinWords(where), view.winner === seat ? h("strong", {}, " · reached the Finish first!") : null,
      lastNote(ctx, seat));
  }));
}

