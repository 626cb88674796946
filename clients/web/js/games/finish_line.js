// Finish Line: the dealt board as the zigzag path of cards (clients/render.py's layout: six rows of eight,
// a wing card at the end of each, the start square below the bottom row's right end, the finish card top
// right), every seat's three markers on it, the red and black dice, the stop value and an activated card's
// choice. A move is a marker and a die: click the marker, then the die (or the die, then the marker), or
// one of the listed moves. Only what the view holds is drawn; only the last update's legal actions act.

import { h } from "../dom.js";
import { cardName as nameOf } from "../sentences.js";
import { scoreList } from "../words.js";
import { actionButton, lastEvents, lastNote, markPending } from "./generic.js";

const ROWS = 6, ROW_LENGTH = 8;
const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const VALUES = { A: 1, J: 11, Q: 12, K: 13 };
const POWERS = {
  A: "an ace, if activated, moves the marker on to the next wing card",
  2: "a two, if activated, moves the marker two cards on",
  J: "a jack, if activated, pulls the nearest opposing marker ahead back onto it",
  Q: "a queen, if activated, brings one of your markers behind it onto it",
  K: "a king, if activated, moves the marker on to the next king",
};
const DICE = ["red", "black"];

function rankOf(card) {
  return card && !card.startsWith("X") ? card.slice(0, -1) : null;
}

function valueOf(card) {
  const rank = rankOf(card);
  return rank === null ? null : VALUES[rank] || Number(rank);
}

// "the queen of hearts", "a joker": the game's card names (rules/finish_line/words.py, served as /words.json)
export function cardName(card) {
  return card ? nameOf("finish_line", card) : "the starting square";
}

function finishOf(view) {
  return view.board.length - 1;
}

function squareWords(view, position) {
  if (position === 0) return "the start";
  if (position === finishOf(view)) return "home";
  return view.board.length ? `square ${position} (${cardName(view.board[position])})` : `square ${position}`;
}

function low(name) {
  return name === "You" ? "you" : name;
}

function whose(who, seat, lower = false) {
  const name = who(seat);
  return name === "You" ? (lower ? "your" : "Your") : `${name}'s`;
}

// Where path index ``i`` lies on the grid: [row from the top (1..6), column (1..10)]. Row 0 (the bottom)
// runs right to left with its wing on the left; the next row left to right with its wing on the right.
function cell(i) {
  const row = Math.floor((i - 1) / (ROW_LENGTH + 1)), k = (i - 1) % (ROW_LENGTH + 1);
  const even = row % 2 === 0;
  const column = k === ROW_LENGTH ? (even ? 1 : ROW_LENGTH + 2) : (even ? ROW_LENGTH + 1 - k : k + 2);
  return [ROWS - row, column];
}

// ------------------------------------------------------------------ selection (marker and die)

function selection(ctx) {
  const key = JSON.stringify(ctx.legal || []);
  const state = ctx.state;
  if (!state.fline || state.fline.key !== key) state.fline = { key, marker: null, die: null };
  return state.fline;
}

function moveFor(ctx, marker, die) {
  return (ctx.legal || []).find((a) => a.type === "move" && a.marker === marker && a.die === die);
}

// ------------------------------------------------------------------ the board

export function board(ctx) {
  const { view, legal = [] } = ctx;
  const moves = legal.filter((a) => a.type === "move");
  const picks = legal.filter((a) => a.type === "pick");
  const chosen = selection(ctx);
  return h("section", { class: "finish-line" },
    h("p", { class: "fline-status" }, `Turn ${view.turns + 1} (limit ${view.turn_limit})`,
      view.turn !== null && view.turn !== undefined ? ` · ${ctx.who(view.turn)} to play` : "",
      view.finished.length ? ` · home: ${view.finished.map((seat) => low(ctx.who(seat))).join(", ")}` : ""),
    view.places.length ? h("p", { class: "fline-places" }, "Places: ",
      scoreList(view.places, ctx.who, ordinal),
      " (lower is better: 1st wins).") : null,
    h("div", { class: "fline-top" }, dicePanel(ctx, moves, chosen), choicePanel(ctx, picks)),
    grid(ctx, moves, picks, chosen),
    moves.length ? moveList(ctx, moves) : null,
    seats(ctx),
    h("p", { class: "fline-legend" },
      "The path starts below the bottom row's right end and zigzags up: the bottom row right to left, up its ",
      "wing, the next row left to right, and so on, to the finish card at the top right (reach it exactly). ",
      h("span", { class: "fline-key wing" }, "wing / joker: safe"), " ",
      h("span", { class: "fline-key special" }, "★ special card"), " ",
      h("span", { class: "fline-key stop" }, "stop card"), " (a marker stops on the first card of the stop value it reaches)."));
}

function ordinal(n) {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;
}

// The marker and die buttons mirror the selection: pressed, and offered only where a legal move remains.
function markerUsable(ctx, chosen, marker) {
  return DICE.some((die) => moveFor(ctx, marker, die) && (chosen.die === null || chosen.die === die));
}

function dieUsable(ctx, chosen, die) {
  return [0, 1, 2].some((m) => moveFor(ctx, m, die) && (chosen.marker === null || chosen.marker === m));
}

function hintWords(chosen) {
  return chosen.marker !== null ? `Marker ${chosen.marker + 1} chosen: now click a die.`
    : chosen.die !== null ? `The ${chosen.die} die chosen: now click one of your markers.`
      : "Click one of your markers, then a die (or a die, then a marker), or a move below.";
}

function choose(ctx, chosen, what, value) {
  chosen[what] = chosen[what] === value ? null : value;
  const action = chosen.marker !== null && chosen.die !== null ? moveFor(ctx, chosen.marker, chosen.die) : null;
  if (action) {
    chosen.marker = chosen.die = null;
    ctx.act(action); // marks the move pending; the redraw below lets go of the marker and die
  }
  if (ctx.render) ctx.render();
}

function dicePanel(ctx, moves, chosen) {
  const { view } = ctx;
  if (!view.dice.length) return h("div", { class: "fline-dice" }, h("p", {}, "No dice rolled yet."));
  return h("div", { class: "fline-dice", role: "group", "aria-label": "the dice" },
    DICE.map((die, index) => {
      const used = view.used[index];
      const words = `${die} die ${view.dice[index]}${used ? ", used" : ""}`;
      const face = [pips(view.dice[index]), h("span", { class: "fline-die-label" }, `${die} ${view.dice[index]}${used ? " · used" : ""}`)];
      return moves.length && !used
        ? h("button", { type: "button", class: `fline-die ${die}`, "data-die": die, "data-key": `fline-die-${die}`,
                        "aria-label": `use the ${words}`, "aria-pressed": String(chosen.die === die),
                        disabled: !dieUsable(ctx, chosen, die), onclick: () => choose(ctx, chosen, "die", die) }, face)
        : h("span", { class: `fline-die ${die}${used ? " used" : ""}`, "aria-label": words, role: "img" }, face);
    }),
    view.phase === "over" ? h("p", { class: "fline-stop" }, "The last roll.") : h("p", { class: "fline-stop" }, h("strong", {}, `Stop value ${view.stop}`),
      ` (${view.dice[0]} + ${view.dice[1]}): a marker stops on any ${stopName(view.stop)} it reaches.`),
    moves.length ? h("p", { class: "fline-hint", "aria-live": "polite" }, hintWords(chosen)) : null);
}

function stopName(stop) {
  return { 1: "ace", 11: "jack", 12: "queen", 13: "king" }[stop] || String(stop);
}

// A die face: its pips on a 3 x 3 grid.
function pips(n) {
  const on = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] }[n] || [];
  return h("span", { class: "fline-pips", "aria-hidden": "true" },
    [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => h("i", { class: on.includes(i) ? "pip" : "" })));
}

function choicePanel(ctx, picks) {
  const { view } = ctx;
  const choice = view.choice;
  if (!choice) return null;
  const card = view.board[view.markers[view.turn][choice.marker]];
  const asker = ctx.who(view.turn);
  const text = choice.kind === "queen"
    ? `${asker === "You" ? "Your" : `${asker}'s`} queen (${cardName(card)}) is activated: which marker joins it?`
    : `${asker === "You" ? "Your" : `${asker}'s`} jack (${cardName(card)}) is activated: which opposing marker is pulled back?`;
  return h("div", { class: "fline-choice", role: "group", "aria-label": "the special card's choice" },
    h("h3", {}, text),
    picks.length ? h("div", { class: "moves" }, picks.map((a) => actionButton(ctx, a,
      `${choice.kind === "queen" ? "Bring" : "Pull"} ${whose(ctx.who, a.seat, true)} marker ${a.marker + 1} ` +
      `(${squareWords(view, view.markers[a.seat][a.marker])})`, { class: "fline-pick" })))
      : h("p", {}, "Waiting for the choice: ", choice.candidates.map(([seat, m]) =>
        `${whose(ctx.who, seat, true)} marker ${m + 1}`).join(" or "), "."));
}

function moveList(ctx, moves) {
  const { view } = ctx;
  return h("details", { class: "fline-moves", open: true },
    h("summary", {}, "Your moves"),
    h("div", { class: "moves", role: "group", "aria-label": "your moves" }, moves.map((a) => actionButton(ctx, a,
      `Marker ${a.marker + 1} (${squareWords(view, view.markers[ctx.seat][a.marker])}) by ${a.die} ${view.dice[a.die === "red" ? 0 : 1]}`,
      { class: `fline-move ${a.die}` }))));
}

function grid(ctx, moves, picks, chosen) {
  const { view } = ctx;
  const finish = finishOf(view);
  const here = new Map(); // path index -> [[seat, marker], ...]
  view.markers.forEach((markers, seat) => markers.forEach((p, m) => {
    if (!here.has(p)) here.set(p, []);
    here.get(p).push([seat, m]);
  }));
  const pickBy = new Map(picks.map((a) => [`${a.seat}:${a.marker}`, a]));
  // the other seats' last moves: each marker moved, the square it left and the one it reached
  const movedMarkers = lastEvents(ctx, "marker_moved").filter((e) => e.start !== e.end);
  const moved = new Set(movedMarkers.map((e) => `${e.seat}:${e.marker}`));
  const from = new Set(movedMarkers.map((e) => e.start)), to = new Set(movedMarkers.map((e) => e.end));
  const token = ([seat, marker]) => markerToken(ctx, seat, marker, moves, pickBy, chosen, moved.has(`${seat}:${marker}`));
  const cells = [];
  for (let i = 1; i <= finish; i++) {
    const card = view.board[i];
    const [row, column] = cell(i);
    const rank = rankOf(card);
    const wing = view.wings.includes(i);
    const classes = ["fline-card", card && card.startsWith("X") ? "joker" : ["H", "D"].includes(card.slice(-1)) ? "red" : "black"];
    if (wing || !rank) classes.push("safe");
    if (rank && POWERS[rank]) classes.push("special");
    if (view.dice.length && view.phase !== "over" && valueOf(card) === view.stop) classes.push("stop");
    if (i === finish) classes.push("finish");
    if (from.has(i)) classes.push("last-from");
    if (to.has(i)) classes.push("last-to");
    const title = `${i === finish ? "finish: " : ""}square ${i}: ${cardName(card)}` + (wing ? " (wing: safe)" : "") +
      (!rank ? " (safe)" : "") + (rank && POWERS[rank] ? `; ${POWERS[rank]}` : "");
    cells.push(at(row, column, h("div", { class: classes.join(" "), "data-index": i, "data-card": card, title },
      h("span", { class: "fline-face" }, card.startsWith("X") ? "Joker" : [rank, h("span", { class: "fline-suit" }, SUITS[card.slice(-1)][0])]),
      rank && POWERS[rank] ? h("span", { class: "fline-star", "aria-hidden": "true" }, "★") : null,
      h("span", { class: "fline-index" }, i === finish ? "finish" : i),
      h("span", { class: "fline-tokens" }, (here.get(i) || []).map(token)))));
  }
  for (let row = 0; row < ROWS; row++) { // the side without a wing: which way the row runs
    const even = row % 2 === 0;
    cells.push(at(ROWS - row, even ? ROW_LENGTH + 2 : 1,
      h("div", { class: "fline-arrow", "aria-hidden": "true" }, even ? "←" : "→")));
  }
  cells.push(at(ROWS + 1, "5 / span 6", h("div", { class: `fline-start${from.has(0) ? " last-from" : ""}`, "data-index": 0 },
    h("span", { class: "fline-index" }, "start ↑"), h("span", { class: "fline-tokens" }, (here.get(0) || []).map(token)))));
  return h("div", { class: "fline-board", role: "group", "aria-label": "the board" }, cells);
}

// A grid cell placed through the CSSOM (dom.js: the page's Content-Security-Policy refuses style attributes).
function at(row, column, element) {
  element.style = { ...element.style, gridRow: String(row), gridColumn: String(column) };
  return element;
}

function markerToken(ctx, seat, marker, moves, pickBy, chosen, moved = false) {
  const { view } = ctx;
  const where = `marker ${marker + 1}, ${squareWords(view, view.markers[seat][marker])}`;
  const label = `${whose(ctx.who, seat)} ${where}`, inner = `${whose(ctx.who, seat, true)} ${where}`;
  const attrs = { class: `fline-marker cf-seat-${seat % 6}${seat === ctx.seat ? " mine" : ""}${moved ? " last-move" : ""}`,
                  "data-seat": seat, "data-marker": marker, title: label };
  const pick = pickBy.get(`${seat}:${marker}`);
  if (pick) {
    const button = h("button", { ...attrs, type: "button", class: `${attrs.class} move pick`, "data-key": ctx.key(pick),
                                 "aria-label": `choose ${inner}`, onclick: () => ctx.act(pick) }, marker + 1);
    return ctx.isPending(pick) ? markPending(button) : button;
  }
  if (seat === ctx.seat && moves.some((a) => a.marker === marker)) {
    return h("button", { ...attrs, type: "button", "data-key": `fline-marker-${marker}`, "aria-label": `move ${inner}`,
                         "aria-pressed": String(chosen.marker === marker), disabled: !markerUsable(ctx, chosen, marker),
                         onclick: () => choose(ctx, chosen, "marker", marker) },
      marker + 1);
  }
  return h("span", { ...attrs, role: "img", "aria-label": label }, marker + 1);
}

function seats(ctx) {
  const { view } = ctx;
  return h("ul", { class: "fline-seats", "aria-label": "the markers" }, view.markers.map((markers, seat) => h("li", {
    class: `${seat === view.turn ? "acting" : ""}${seat === ctx.seat ? " mine" : ""}`, "data-seat": seat,
  },
  h("span", { class: `fline-swatch cf-seat-${seat % 6}` }),
  h("strong", {}, ctx.who(seat)), ": ",
  markers.map((p, m) => `${m + 1}: ${p === finishOf(view) ? "home" : p === 0 ? "start" : `square ${p} (${shortCard(view.board[p])})`}`).join(" · "),
  view.finished.includes(seat) ? ` · all home, place ${view.finished.indexOf(seat) + 1}` : "", lastNote(ctx, seat))));
}

function shortCard(card) {
  return card.startsWith("X") ? "joker" : `${rankOf(card)}${SUITS[card.slice(-1)][0]}`;
}

