// Flush (Arena and Elimination): the Mimic, the pile, every seat's Bases (face-up tops, Blind cards face
// down), your hand and your Bases (and any seat's hand, as plain cards, for the broadcast view's Hands panel).
// A declaration is built by selecting hand cards and Base tops, then confirmed: only a selection that is one of
// the legal `release` actions of the last update (compared as a multiset, in any order) can be sent. `blind`,
// `stop` and `pass_base` are buttons. Everything drawn comes from the view or the legal list; a move that picks
// the pile up says so.

import { h } from "../dom.js";
import { cardName as nameOf } from "../sentences.js";
import { joinWords } from "../words.js";
import { actionButton, lastNote } from "./generic.js";

const FLUSH = "F";
const GOLD = "G";
const RECENT_PLAYS = 5; // the pile's last plays shown in full; older ones fold away

// A new round deals new Bases and an empty pile: the last moves of the round before are no longer on the table.
export const freshStart = ["round_dealt"];

// ------------------------------------------------------------------ cards

export function valueOf(card) {
  return card === FLUSH || card === GOLD ? FLUSH : card.replace(/[SB]$/, "");
}

// "7 Skip", "Gold Flush": the game's card names (rules/flush/words.py, served as /words.json)
export function cardName(card) {
  return nameOf("flush", card);
}

function valueWords(value) {
  return value === FLUSH ? "Flush" : value;
}

// Like rules/flush/game.py is_pickup: a value higher than the pile's top picks the pile up.
export function isPickup(top, value) {
  return value !== FLUSH && top !== null && top !== undefined && Number(value) > Number(top);
}

function kind(card) {
  if (card === GOLD) return "gold";
  if (card === FLUSH) return "flush";
  if (card.endsWith("S")) return "skip";
  if (card.endsWith("B")) return "bonus";
  return "plain";
}

const TAGS = { gold: "gold", flush: "flush", skip: "skip", bonus: "bonus", plain: "" };

function face(card, mimic) {
  const k = kind(card);
  const tag = mimic && valueOf(card) === mimic ? `${TAGS[k]} mimic`.trim() : TAGS[k];
  return [h("span", { class: "rank" }, k === "gold" || k === "flush" ? "F" : valueOf(card)),
          h("span", { class: "suit" }, tag || " ")];
}

function classes(card, mimic, extra = "") {
  const m = mimic && valueOf(card) === mimic ? " fl-mimic" : "";
  return `card fl-card fl-${kind(card)}${m}${extra ? " " + extra : ""}`;
}

function label(card, mimic) {
  return cardName(card) + (mimic && valueOf(card) === mimic ? " (Mimic)" : "");
}

function card(code, mimic, extra = "") {
  return h("span", { class: classes(code, mimic, extra), title: label(code, mimic), "data-card": code,
                     role: "img", "aria-label": label(code, mimic) }, face(code, mimic));
}

// A seat's hand as plain cards, as its player sees the cards it cannot select (the Mimic's marked): the broadcast
// view's Hands panel (js/table.js). `view`: the table's view, for this round's Mimic.
export function handCards(hand, view) {
  return hand.map((code) => card(code, view.mimic));
}

function blindBack(extra = "") {
  return h("span", { class: `card fl-back ${extra}`, role: "img", "aria-label": "a Blind card, face down",
                     title: "a Blind card, face down" }, h("span", { class: "suit" }, "blind"));
}

// ------------------------------------------------------------------ multisets of cards

function counts(cards) {
  const out = new Map();
  for (const c of cards) out.set(c, (out.get(c) || 0) + 1);
  return out;
}

function covers(big, small) {
  const have = counts(big);
  for (const [c, n] of counts(small)) if ((have.get(c) || 0) < n) return false;
  return true;
}

function sameCards(a, b) {
  return a.length === b.length && covers(a, b);
}

function sameBases(a, b) {
  return a.length === b.length && a.every((base) => b.includes(base));
}

// ------------------------------------------------------------------ the selection

// The cards and Base tops selected for a declaration; forgotten whenever the legal moves change.
function selection(ctx) {
  const s = ctx.state;
  const legalKey = JSON.stringify(ctx.legal);
  if (!s.flush || s.flush.legalKey !== legalKey) s.flush = { legalKey, hand: [], bases: [] };
  return s.flush;
}

function rerender(ctx) {
  if (ctx.render) ctx.render();
}

function toggle(ctx, list, item) {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
  else list.push(item);
  rerender(ctx);
}

// What the selection allows: the legal releases it could still grow into, and the ones it is exactly.
export function analyse(releases, handCards, bases) {
  const growing = releases.filter((r) => covers(r.hand, handCards) && bases.every((b) => r.bases.includes(b)));
  const exact = growing.filter((r) => sameCards(r.hand, handCards) && sameBases(r.bases, bases));
  return { growing, exact };
}

// ------------------------------------------------------------------ the board

export function board(ctx) {
  const { view } = ctx;
  const legal = ctx.legal || [];
  const mine = ctx.seat !== null && ctx.seat !== undefined && view.hand ? ctx.seat : null;
  return h("section", { class: "flush" },
    h("p", { class: "fl-info" }, infoLine(ctx)),
    h("div", { class: "fl-middle" }, mimicPanel(view), pilePanel(ctx)),
    h("div", { class: "fl-seats" }, view.tops.map((_, seat) => seatPanel(ctx, seat, mine))),
    mine !== null ? handPanel(ctx, legal) : null,
    scoreTable(ctx));
}

function infoLine(ctx) {
  const { view } = ctx;
  const options = (ctx.state.info && ctx.state.info.options) || {};
  const format = view.format === "arena"
    ? `Arena: ${view.rounds} round${view.rounds === 1 ? "" : "s"}, lowest total wins`
    : `Elimination: out at ${options.limit ?? 150} points, the last seat in wins`;
  const round = view.round ? `round ${view.round}${view.format === "arena" ? ` of ${view.rounds}` : ""}` : "";
  const doubled = view.format === "arena" && options.double_last !== false && view.round === view.rounds
    && view.rounds > 1 ? " (scores double)" : "";
  const turns = view.phase === "play" ? `turn ${view.turns + 1} (the round ends after ${view.turn_limit})` : "";
  return [format, round + doubled, turns, view.phase === "over" ? "game over" : ""].filter(Boolean).join(" · ");
}

function mimicPanel(view) {
  return h("div", { class: "fl-panel fl-mimic-panel" }, h("h3", {}, "Mimic"),
    view.mimic_card ? card(view.mimic_card, view.mimic) : h("span", { class: "empty" }, "not turned yet"),
    h("p", { class: "fl-note" }, view.mimic
      ? `Every ${view.mimic} can stand in for any value; a ${view.mimic} left in hand scores triple.`
      : view.mimic_card ? "A Flush card was turned: no Mimic this round." : ""));
}

function pilePanel(ctx) {
  const { view } = ctx;
  const plays = view.pile;
  const older = plays.slice(0, Math.max(0, plays.length - RECENT_PLAYS));
  const recent = plays.slice(older.length);
  const pileCards = plays.reduce((n, p) => n + p.cards.length, 0);
  const top = view.top_value;
  const rule = top === null || top === undefined
    ? "Empty: any value may start it."
    : `Top: ${view.run} × ${valueWords(top)}. Release ${top} or lower; a higher value picks up the pile ` +
      `(${pileCards} card${pileCards === 1 ? "" : "s"}). Four of a value flush it.`;
  // the other seats' last moves: the latest play on the pile of each seat whose last turn released or flipped
  const latest = new Map();
  plays.forEach((p, i) => latest.set(p.seat, i));
  const marked = new Set([...latest].filter(([seat]) => {
    const last = ctx.last && ctx.last.get(seat);
    return last && last.events.some((e) => e.type === "released" || e.type === "blind_flipped");
  }).map(([, i]) => i));
  const play = (p, i) => h("li", { class: `fl-play${marked.has(i) ? " last-move" : ""}`, "data-seat": p.seat },
    h("span", { class: "fl-play-who" }, `${ctx.who(p.seat)}: ${p.cards.length} × ${valueWords(p.value)}`),
    h("span", { class: "cards" }, p.cards.map((c) => card(c, view.mimic, "small"))));
  return h("div", { class: "fl-panel fl-pile" }, h("h3", {}, `Pile (${pileCards} card${pileCards === 1 ? "" : "s"}${plays.length > 1 ? ", the latest play last" : ""})`),
    older.length ? h("details", { class: "fl-older" },
      h("summary", {}, `${older.length} earlier play${older.length === 1 ? "" : "s"}`),
      h("ol", { class: "fl-plays" }, older.map(play))) : null,
    recent.length ? h("ol", { class: "fl-plays", "aria-label": "the pile, the last play at the bottom" },
      recent.map((p, i) => play(p, older.length + i)))
      : null,
    h("p", { class: "fl-note" }, rule),
    h("p", { class: "fl-note" }, `${view.flushed} flushed out of the round · ${view.unused} unused`));
}

function seatPanel(ctx, seat, mine) {
  const { view } = ctx;
  const out = !view.active.includes(seat);
  const acting = view.turn === seat;
  const bases = view.tops[seat].map((top, base) => ({ base, top, blind: view.blinds[seat][base] }))
    .filter((b) => b.top || b.blind);
  return h("div", { class: `fl-seat${acting ? " acting" : ""}${seat === ctx.seat ? " mine" : ""}${out ? " out" : ""}`,
                    "data-seat": seat },
    h("div", { class: "who" }, h("strong", {}, ctx.who(seat)),
      h("span", {}, ` · ${view.hand_counts[seat]} in hand · total ${view.totals[seat] ?? 0}`),
      out ? h("span", { class: "fl-out" }, " · out of the game") : null,
      acting ? h("span", {}, " · to play") : null, lastNote(ctx, seat)),
    seat === mine ? h("p", { class: "fl-note" }, `Your Bases are under your hand.`)
      : h("div", { class: "fl-bases", "aria-label": `${ctx.who(seat)}'s Bases` },
        bases.length ? bases.map((b) => baseView(view, b, seat)) : h("span", { class: "empty" }, out ? "" : "no Bases left")));
}

function baseView(view, b, seat, control = null) {
  return h("div", { class: "fl-base", "data-base": b.base, "data-seat": seat },
    h("span", { class: "fl-base-name" }, `Base ${b.base + 1}`),
    h("div", { class: "fl-stack" },
      b.blind ? blindBack("small") : null,
      control || (b.top ? card(b.top, view.mimic, "small fl-top") : null)));
}

// ------------------------------------------------------------------ your hand, your Bases, your declaration

function handPanel(ctx, legal) {
  const { view } = ctx;
  const releases = legal.filter((a) => a.type === "release");
  const pick = selection(ctx);
  const hand = view.hand;
  const chosen = pick.hand.map((i) => hand[i]);
  const { growing, exact } = analyse(releases, chosen, pick.bases);
  const pickupOf = (r) => (view.flipped ? view.pickup : isPickup(view.top_value, r.value));

  const handButtons = hand.map((c, i) => {
    const selected = pick.hand.includes(i);
    const could = releases.filter((r) => covers(r.hand, [c]));
    const addable = selected || analyse(growing, [...chosen, c], pick.bases).growing.length > 0;
    const upOnly = could.length > 0 && could.every(pickupOf);
    if (!could.length) return card(c, view.mimic);
    const name = label(c, view.mimic);
    return h("button", {
      type: "button", class: `${classes(c, view.mimic, "fl-pick")}${selected ? " selected" : ""}${upOnly ? " fl-up" : ""}`,
      "data-key": `fl-hand-${i}`, "data-card": c, "aria-pressed": selected ? "true" : "false", disabled: !addable,
      title: `${selected ? "unselect" : "select"} ${name}${upOnly ? " (higher than the pile: picks it up)" : ""}`,
      "aria-label": `${name}${upOnly ? ", picks up the pile" : ""}`,
      onclick: () => toggle(ctx, pick.hand, i),
    }, face(c, view.mimic), h("span", { class: "verb" }, selected ? "selected" : upOnly ? "↑ pick up" : "select"));
  });

  const bases = view.tops[ctx.seat].map((top, base) => ({ base, top, blind: view.blinds[ctx.seat][base] }))
    .filter((b) => b.top || b.blind);
  const baseItems = bases.map((b) => {
    const flip = legal.find((a) => a.type === "blind" && a.base === b.base);
    const pass = legal.find((a) => a.type === "pass_base" && a.base === b.base);
    let control = null;
    if (b.top && releases.some((r) => r.bases.includes(b.base))) {
      const selected = pick.bases.includes(b.base);
      const addable = selected || analyse(growing, chosen, [...pick.bases, b.base]).growing.length > 0;
      const name = `${label(b.top, view.mimic)}, the top of Base ${b.base + 1}`;
      control = h("button", {
        type: "button", class: `${classes(b.top, view.mimic, "small fl-pick fl-top")}${selected ? " selected" : ""}`,
        "data-key": `fl-base-${b.base}`, "data-card": b.top, "data-base": b.base,
        "aria-pressed": selected ? "true" : "false", disabled: !addable, "aria-label": name,
        title: `${selected ? "unselect" : "select"} ${name}`, onclick: () => toggle(ctx, pick.bases, b.base),
      }, face(b.top, view.mimic), h("span", { class: "verb" }, selected ? "selected" : "select"));
    }
    return h("div", { class: "fl-base-slot" }, baseView(view, b, ctx.seat, control),
      flip ? flipButton(ctx, flip) : null,
      pass ? actionButton(ctx, pass, `Pass Base ${b.base + 1} to ${whom(ctx, view.previous)}`, { class: "fl-pass" }) : null);
  });

  return h("div", { class: "fl-mine" },
    h("div", { class: "hand" },
      h("h3", {}, `Your hand (${hand.length})`),
      h("div", { class: "cards", role: "group", "aria-label": "your hand" },
        hand.length ? handButtons : h("span", { class: "empty" }, view.phase === "play" ? "empty: play your Bases" : "empty"))),
    h("div", { class: "fl-my-bases" }, h("h3", {}, "Your Bases"),
      h("div", { class: "fl-bases", role: "group", "aria-label": "your Bases" },
        baseItems.length ? baseItems : h("span", { class: "empty" }, "no Bases left"))),
    declarePanel(ctx, legal, releases, pick, chosen, exact, pickupOf));
}

// " (the 7 as a 4)": a Mimic that stands in for another value says so.
function mimicWords(view, release) {
  if (!view.mimic || release.value === view.mimic) return "";
  const cards = [...release.hand, ...release.bases.map((b) => view.tops[view.seat][b])];
  const mimics = cards.filter((c) => valueOf(c) === view.mimic);
  return mimics.length ? ` (${joinWords(mimics.map(cardName))} as ${valueWords(release.value)})` : "";
}

function flipButton(ctx, flip) {
  return actionButton(ctx, flip, "Flip Blind card", { class: "fl-flip",
    title: `Flip the Blind card of Base ${flip.base + 1} onto the pile (nobody knows what it is)`,
    "aria-label": `Flip the Blind card of Base ${flip.base + 1}` });
}

function declarePanel(ctx, legal, releases, pick, chosen, exact, pickupOf) {
  const { view } = ctx;
  const stop = legal.find((a) => a.type === "stop");
  const passing = legal.filter((a) => a.type === "pass_base");
  const blinds = legal.filter((a) => a.type === "blind");
  if (!legal.length) return null;
  const lines = [];
  if (passing.length) {
    lines.push(h("p", { class: "fl-prompt" },
      `Super Flush! Pass one of your Bases to ${whom(ctx, view.previous)}: choose it above.`));
    return h("div", { class: "fl-declare", role: "group", "aria-label": "your move" }, lines);
  }
  if (view.flipped) {
    lines.push(h("p", { class: "fl-prompt" },
      `Your Blind card is a ${valueWords(view.top_value)}` + (view.pickup ? " (higher than the pile: you pick it up)" : "") +
      `. Add more ${valueWords(view.top_value)}s, or stop.`));
  } else if (blinds.length && !releases.length) {
    lines.push(h("p", { class: "fl-prompt" }, "Flip one of your Blind cards."));
  } else {
    lines.push(h("p", { class: "fl-prompt" }, "Select cards of one value from your hand and your Base tops " +
      (view.mimic ? `(a ${view.mimic}, the Mimic, joins any value) ` : "") + "then release them." +
      (blinds.length ? " Or flip a Blind card first." : "")));
  }
  const parts = [...chosen.map((c) => label(c, view.mimic)),
                 ...pick.bases.map((b) => `Base ${b + 1} top (${cardName(view.tops[ctx.seat][b])})`)];
  if (parts.length) lines.push(h("p", { class: "fl-selected" }, `Selected: ${joinWords(parts)}.`));
  const buttons = exact.map((r) => {
    const n = r.hand.length + r.bases.length;
    const up = pickupOf(r);
    const pileCards = view.pile.reduce((k, p) => k + p.cards.length, 0);
    const text = (r.value === FLUSH ? `Flush! Release ${n} × Flush` : `Release ${n} × ${r.value}`) +
      (view.flipped ? " with your Blind card" : "") + mimicWords(view, r) +
      (up ? ` — higher than the pile: you pick it up (${pileCards} card${pileCards === 1 ? "" : "s"})` : "");
    return actionButton(ctx, r, text, { class: `primary fl-release${up ? " fl-pickup" : ""}`, title: text });
  });
  if (releases.length && !buttons.length) {
    buttons.push(h("button", { type: "button", class: "move fl-release", disabled: true, "data-key": "fl-none" },
      parts.length ? "Not a declaration you can make: change the selection" : "Release: select cards first"));
  }
  if (stop) buttons.push(actionButton(ctx, stop, "Stop: leave the Blind card as it lies", { class: "fl-stop" }));
  if (parts.length) {
    buttons.push(h("button", { type: "button", class: "fl-clear", "data-key": "fl-clear",
                                onclick: () => { pick.hand.length = 0; pick.bases.length = 0; rerender(ctx); } },
      "Clear the selection"));
  }
  return h("div", { class: "fl-declare", role: "group", "aria-label": "your move" }, lines,
    h("div", { class: "moves" }, buttons));
}

// ------------------------------------------------------------------ scores

function scoreTable(ctx) {
  const { view } = ctx;
  if (!view.round_scores.length) return null;
  const seats = view.totals.map((_, seat) => seat);
  return h("div", { class: "fl-panel fl-scores" },
    h("h3", {}, "Points per round (lower is better)"),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Seat"), view.round_scores.map((_, i) => h("th", {}, `R${i + 1}`)),
        h("th", {}, "Total"))),
      h("tbody", {}, seats.map((seat) => h("tr", { class: view.winners.includes(seat) ? "fl-winner" : "" },
        h("th", {}, ctx.who(seat) + (view.active.includes(seat) ? "" : " (out)")),
        view.round_scores.map((scores) => h("td", {}, scores[seat])),
        h("td", {}, h("strong", {}, view.totals[seat])))))));
}

// ------------------------------------------------------------------ seats

function whom(ctx, seat) {
  return seat === ctx.seat ? "you" : ctx.who(seat);
}

