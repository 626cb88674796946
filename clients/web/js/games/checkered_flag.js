// Checkered Flag: the track of the view drawn as an SVG loop (white straightaway, salmon danger zones with
// their curves, striped narrow track, the start/finish line), the cars on it, each car's gear, crashes and
// lost turns, the last spin, and the plan of a spun move (the spaces a brake may stop on, clickable on the
// track). Only what the view holds is drawn, and only the legal actions of the last update can be clicked.

import { h, svg } from "../dom.js";
import { capital, gameWords, sayAction } from "../sentences.js";
import { scoreList } from "../words.js";
import { actionButton, lastEvents, lastNote, markPending } from "./generic.js";

const GEARS = [0, 1, 2, 3];

// "Neutral", "1st": the gears' names (rules/checkered_flag/words.py, served as /words.json)
function gearName(gear) {
  return ((gameWords("checkered_flag").names || {}).gear_short || {})[gear] ?? String(gear);
}
const GEAR_HELP = [
  "stay put this turn",
  "move the lesser spinner; never crashes",
  "move the greater spinner; a danger zone crashes on B = 1",
  "move the sum; a danger zone crashes on B ≤ 2",
];
const CELL = 24; // length of one space along the track's middle line, in SVG units
const WIDTH = 34; // the track's width
const TARGET = 12; // a clickable space's radius: 24 units (at least 24 px: the track is never drawn smaller)

const s = svg; // an SVG element, as dom.js's h() is an HTML one

// ------------------------------------------------------------------ the track's geometry

// A stadium loop (two straights, two half circles) long enough for every space; the start/finish line is
// in the middle of the bottom straight and the cars run to the right, up the right bend, back along the top.
function geometry(spaces) {
  const length = Math.max(spaces * CELL, 40 * CELL);
  const cell = length / spaces;
  const radius = length / (4 * 1.6 + 2 * Math.PI); // the straights 1.6 times the bend's diameter
  const straight = (length - 2 * Math.PI * radius) / 2;
  const half = straight / 2;
  const bend = Math.PI * radius;
  const at = (distance) => {
    let d = ((distance % length) + length) % length;
    if (d < half) return [d, radius];
    d -= half;
    if (d < bend) { const a = d / radius; return [half + radius * Math.sin(a), radius * Math.cos(a)]; }
    d -= bend;
    if (d < straight) return [half - d, -radius];
    d -= straight;
    if (d < bend) { const a = d / radius; return [-half - radius * Math.sin(a), -radius * Math.cos(a)]; }
    return [-half + (d - bend), radius];
  };
  // The point ``offset`` away from the middle line, outwards (positive) or inwards.
  const point = (distance, offset = 0) => {
    const [x0, y0] = at(distance - 0.5), [x1, y1] = at(distance + 0.5);
    const [x, y] = at(distance);
    const norm = Math.hypot(x1 - x0, y1 - y0) || 1;
    return [x - (y1 - y0) / norm * offset, y + (x1 - x0) / norm * offset];
  };
  return { length, cell, radius, straight, half, point };
}

// The outline of lap space ``space`` (1..spaces) as an SVG path.
function spacePath(geo, space) {
  const from = (space - 1) * geo.cell, to = space * geo.cell, steps = 3;
  const outer = [], inner = [];
  for (let i = 0; i <= steps; i++) {
    const d = from + (to - from) * i / steps;
    outer.push(geo.point(d, WIDTH / 2));
    inner.unshift(geo.point(d, -WIDTH / 2));
  }
  return "M" + [...outer, ...inner].map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join("L") + "Z";
}

function lapSpace(track, position) {
  return ((position - 1) % track.spaces) + 1;
}

function finishOf(track) {
  return track.spaces * track.laps;
}

// ------------------------------------------------------------------ words

function low(name) {
  return name === "You" ? "you" : name;
}

function where(track, position) {
  if (position <= 0) return "the start line";
  if (position > finishOf(track)) return "past the finish line";
  const lap = track.laps > 1 ? ` (lap ${Math.floor((position - 1) / track.spaces) + 1})` : "";
  return `space ${lapSpace(track, position)}${lap}`;
}

function rangeText([first, last]) {
  return first === last ? `${first}` : `${first}-${last}`;
}

// ------------------------------------------------------------------ the board

export function board(ctx) {
  const { view, legal = [] } = ctx;
  const track = view.track;
  const shifts = legal.filter((a) => a.type === "shift");
  const go = legal.find((a) => a.type === "go");
  const brakes = new Map(legal.filter((a) => a.type === "brake").map((a) => [a.stop, a]));
  return h("section", { class: "checkered-flag" },
    h("p", { class: "cf-race" }, `${track.name}: ${track.spaces} spaces`,
      track.laps > 1 ? ` × ${track.laps} laps` : "", ` · turn ${view.turns} (limit ${view.turn_limit})`,
      view.order.length ? ` · order: ${view.order.map((seat) => low(ctx.who(seat))).join(", ")}` : ""),
    view.winner !== null && view.winner !== undefined ? h("p", { class: "cf-winner" },
      view.positions[view.winner] > finishOf(track) ? `${ctx.who(view.winner)} crossed the finish line first. `
        : `${ctx.who(view.winner)} went furthest before the turn limit. `,
      "Spaces reached: ", scoreList(view.positions, ctx.who), " (further is better).")
      : null,
    trackSvg(ctx, track, go, brakes),
    controls(ctx, track, shifts, go, brakes),
    spinPanel(ctx, track),
    cars(ctx, track),
    legend(track));
}

function trackSvg(ctx, track, go, brakes) {
  const { view } = ctx;
  const geo = geometry(track.spaces);
  const margin = 30;
  const w = geo.straight + 2 * geo.radius + WIDTH + 2 * margin;
  const hgt = 2 * geo.radius + WIDTH + 2 * margin;
  const plan = view.phase === "over" ? null : view.plan;
  const mover = view.turn;
  const path = new Set();
  if (plan) for (let p = plan.start + 1; p <= Math.min(plan.end, finishOf(track)); p++) path.add(lapSpace(track, p));
  // the other seats' last moves: the spaces each car just covered (its trail), and the car itself
  const trail = new Set();
  const movedCars = new Set();
  for (const e of lastEvents(ctx, "moved")) {
    if (e.end === e.start) continue;
    movedCars.add(e.seat);
    for (let p = e.start + 1; p <= Math.min(e.end, finishOf(track)); p++) trail.add(lapSpace(track, p));
  }
  const cells = [];
  for (let space = 1; space <= track.spaces; space++) {
    const kind = track.kinds[space];
    const curve = kind === "danger" && track.danger[track.zone[space]].length > 1 ? track.curve[space] % 2 : 0;
    cells.push(s("path", {
      d: spacePath(geo, space), class: `cf-space ${kind}${kind === "danger" ? ` curve-${curve}` : ""}` +
        (path.has(space) ? " cf-path" : "") + (trail.has(space) ? " cf-trail" : ""),
      "data-space": space,
    }, s("title", {}, `space ${space}: ${kind === "white" ? "straightaway" : kind === "danger" ? "danger zone" : "narrow, no passing"}`)));
  }
  // curve boundaries inside a zone of several curves, and every section's edges
  const edges = [];
  for (let space = 1; space < track.spaces; space++) {
    const a = track.kinds[space], b = track.kinds[space + 1];
    const curveEdge = a === "danger" && b === "danger" && track.curve[space] !== track.curve[space + 1];
    if (a !== b || curveEdge) {
      const [x0, y0] = geo.point(space * geo.cell, WIDTH / 2 + (curveEdge ? 4 : 0));
      const [x1, y1] = geo.point(space * geo.cell, -WIDTH / 2 - (curveEdge ? 4 : 0));
      edges.push(s("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: curveEdge ? "cf-curve-edge" : "cf-edge" }));
    }
  }
  const labels = [];
  for (let space = 1; space <= track.spaces; space++) {
    const first = space === 1 || track.kinds[space] !== track.kinds[space - 1];
    if (space % 5 && !first) continue;
    const [x, y] = geo.point((space - 0.5) * geo.cell, WIDTH / 2 + 10);
    labels.push(s("text", { x, y, class: "cf-label" }, space));
  }
  const [sx0, sy0] = geo.point(0, WIDTH / 2 + 2), [sx1, sy1] = geo.point(0, -WIDTH / 2 - 2);
  const line = s("g", { class: "cf-finish-line" },
    s("line", { x1: sx0, y1: sy0, x2: sx1, y2: sy1, class: "cf-checker-a" }),
    s("line", { x1: sx0, y1: sy0, x2: sx1, y2: sy1, class: "cf-checker-b" }),
    s("text", { x: 0, y: geo.radius - WIDTH / 2 - 8, class: "cf-line-label" },
      track.laps > 1 ? `start / finish (${track.laps} laps) →` : "start / finish →"));
  const targets = [];
  if (plan) {
    for (const stop of plan.stops) targets.push(target(ctx, geo, track, stop, brakes.get(stop), "brake"));
    if (plan.end <= finishOf(track)) targets.push(target(ctx, geo, track, plan.end, go, "go"));
  }
  const carMarks = view.positions.map((position, seat) => car(ctx, geo, track, seat, position, mover, movedCars.has(seat)));
  return h("figure", { class: "cf-track" },
    s("svg", {
      viewBox: `${-w / 2} ${-hgt / 2} ${w} ${hgt}`, role: "img", class: "cf-svg",
      style: { minWidth: `${Math.ceil(w)}px` }, // never below one px a unit: a target stays 24 px across
      "aria-label": `${track.name}: the track and the cars`,
    },
    s("defs", {}, s("pattern", { id: "cf-narrow", width: 6, height: 6, patternUnits: "userSpaceOnUse",
      patternTransform: "rotate(45)" }, s("rect", { width: 6, height: 6, fill: "#e4e4e4" }),
    s("rect", { width: 3, height: 6, fill: "#9a9a9a" }))),
    s("g", { class: "cf-spaces" }, cells), edges, labels, line, targets, carMarks),
    h("figcaption", { class: "cf-caption" }, trackWords(ctx, track)));
}

// The cars in words, for a screen reader and for anyone who wants the exact spaces.
function trackWords(ctx, track) {
  return ctx.view.positions.map((p, seat) => `${ctx.who(seat)}: ${where(track, p)}`).join("; ") + ".";
}

function car(ctx, geo, track, seat, position, mover, moved) {
  let x, y;
  const row = (k) => [-62 - k * 24, geo.radius - WIDTH / 2 - 18]; // the start line's grid, in the infield
  if (position <= 0) [x, y] = row(seat);
  else if (position > finishOf(track)) [x, y] = [78 + seat * 24, geo.radius - WIDTH / 2 - 24]; // past the line
  else [x, y] = geo.point((lapSpace(track, position) - 0.5) * geo.cell, 0);
  const crashed = ctx.view.lost[seat] > 0;
  return s("g", {
    class: `cf-car cf-seat-${seat % 6}${seat === mover ? " acting" : ""}${seat === ctx.seat ? " mine" : ""}${crashed ? " crashed" : ""}` +
      (moved ? " last-move" : ""),
    transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`, "data-seat": seat, "data-position": position,
  },
  s("title", {}, `${ctx.who(seat)}'s car, ${where(track, position)}, ${gearName(ctx.view.gears[seat])}`),
  moved ? s("circle", { r: 17, class: "cf-last-ring" }) : null,
  seat === mover ? s("circle", { r: 14, class: "cf-car-ring" }) : null,
  s("rect", { x: -10, y: -10, width: 20, height: 20, rx: 5, class: "cf-car-body" }),
  s("text", { class: "cf-car-number", y: 4.5 }, seat + 1),
  crashed ? s("text", { class: "cf-crash-mark", x: 9, y: -7 }, "✶") : null,
  position > finishOf(track) ? s("text", { class: "cf-flag-mark", y: -14 }, "⚑ home") : null);
}

// A space a spun move may end on: a brake stop or where going on ends. Clickable when it is a legal move.
function target(ctx, geo, track, position, action, kind) {
  const [x, y] = geo.point((lapSpace(track, position) - 0.5) * geo.cell, -WIDTH / 2 - 14);
  const label = kind === "brake" ? `Brake: stop on space ${lapSpace(track, position)}`
    : `Go on to space ${lapSpace(track, position)}`;
  const mark = s("g", {
    class: `cf-target ${kind}${action ? " move" : ""}`,
    transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`, "data-stop": position,
    role: action ? "button" : null, tabindex: action ? 0 : null, "aria-label": action ? label : null,
    "data-key": action ? ctx.key(action) : null,
    onclick: action ? () => ctx.act(action) : null,
    onkeydown: action ? (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); ctx.act(action); } } : null,
  }, s("title", {}, label), s("circle", { r: TARGET }), s("text", { y: 4 }, kind === "brake" ? "B" : "▶"));
  return action && ctx.isPending(action) ? markPending(mark) : mark;
}

// ------------------------------------------------------------------ controls and panels

function controls(ctx, track, shifts, go, brakes) {
  const { view } = ctx;
  if (shifts.length) {
    const gear = view.gears[ctx.seat];
    return h("div", { class: "cf-controls", role: "group", "aria-label": "your moves" },
      h("h3", {}, `Choose your gear (you are in ${gearName(gear)})`),
      h("div", { class: "moves" }, shifts.map((a) => actionButton(ctx, a,
        [h("strong", {}, capital(sayAction("checkered_flag", a, { me: ctx.seat, name: ctx.who, extra: { now: gear } }))),
         h("small", {}, GEAR_HELP[a.gear])], { class: `cf-gear gear-${a.gear}` }))));
  }
  if (go || brakes.size) {
    const plan = view.plan;
    return h("div", { class: "cf-controls", role: "group", "aria-label": "your moves" },
      h("h3", {}, `You move ${plan.move}: go on, or brake before the danger zone`),
      h("div", { class: "moves" },
        go ? actionButton(ctx, go, [h("strong", {}, plan.end > finishOf(track) ? "Go: cross the finish line"
          : `Go on to space ${lapSpace(track, plan.end)}`),
          h("small", {}, plan.forced ? "braking behind a car on narrow track" : "enter the danger zone")],
        { class: "cf-go" }) : null,
        [...brakes.values()].map((a) => actionButton(ctx, a,
          [h("strong", {}, `Brake: stop on space ${lapSpace(track, a.stop)}`),
           h("small", {}, `brakes ${plan.start + plan.move - a.stop} space(s)`)], { class: "cf-brake" }))));
  }
  return null;
}

function spinPanel(ctx, track) {
  const { view } = ctx;
  const last = ctx.state.cfSpin;
  const plan = view.phase === "over" ? null : view.plan;
  return h("div", { class: "cf-spin", "aria-label": "the spinners" },
    last ? [
      h("span", { class: "cf-spinner", title: "spinner A" }, h("small", {}, "A"), h("b", {}, last.a)),
      h("span", { class: "cf-spinner", title: "spinner B" }, h("small", {}, "B"), h("b", {}, last.b)),
      h("span", { class: "cf-spin-words" },
        `${ctx.who(last.seat)} spun ${last.a} and ${last.b}: move ${last.move}`,
        last.gear ? ` in ${gearName(last.gear)}` : "", ".",
        last.checks.map((c) => ` Crash check (${c.reason === "danger" ? "danger zone" : "braking"}): B shows ${c.b}, ` +
          (c.crashed ? "CRASH." : "safe.")))]
      : h("span", { class: "cf-spin-words" }, plan ? `Spun: move ${plan.move}.` : "No spin yet."),
    plan ? h("p", { class: "cf-plan" }, `Plan: from ${where(track, plan.start)} by ${plan.move}: ` +
      (plan.end > finishOf(track) ? "across the finish line" : `going on ends on ${where(track, plan.end)}`) +
      (plan.forced ? " (forced to brake behind a car on narrow track)" : "") +
      (plan.stops.length ? `; a brake may stop on ${plan.stops.map((p) => lapSpace(track, p)).join(" or ")}` : "") + ".")
      : null);
}

function cars(ctx, track) {
  const { view } = ctx;
  return h("ul", { class: "cf-cars", "aria-label": "the cars" }, view.positions.map((position, seat) => h("li", {
    class: `cf-car-row${seat === view.turn ? " acting" : ""}${seat === ctx.seat ? " mine" : ""}`, "data-seat": seat,
  },
  h("span", { class: `cf-swatch cf-seat-${seat % 6}` }, seat + 1),
  h("strong", {}, ctx.who(seat)), ` · ${where(track, position)}`,
  h("span", { class: "cf-gearbox", "aria-label": `gear ${gearName(view.gears[seat])}` },
    GEARS.map((gear) => h("span", { class: `cf-gearbox-slot${gear === view.gears[seat] ? " on" : ""}` },
      gear ? gear : "N"))),
  view.lost[seat] ? h("span", { class: "cf-lost" }, ` crashed: sits out ${view.lost[seat]} more turn(s)`) : null,
  view.crashes[seat] ? h("span", { class: "cf-crashes" }, ` · ${view.crashes[seat]} crash(es)`) : null,
  lastNote(ctx, seat))));
}

function legend(track) {
  const zones = track.danger.map((curves) => curves.map(rangeText).join(" + ") +
    (curves.length > 1 ? ` (${curves.length} curves: a check each)` : ""));
  return h("p", { class: "cf-legend" },
    h("span", { class: "cf-key white" }), " straightaway ",
    h("span", { class: "cf-key danger" }), " danger zone (the dashed line parts its curves) ",
    h("span", { class: "cf-key narrow" }), " narrow track, no passing. ",
    `Danger zones: ${zones.join("; ") || "none"}. Narrow: ${track.narrow.map(rangeText).join(", ") || "none"}. ` +
    `The finish line is after space ${track.spaces}` + (track.laps > 1 ? ` of lap ${track.laps}.` : "."));
}

// ------------------------------------------------------------------ the spinner panel's memory

// The last spin and the crash checks that followed it, for the spinner panel.
export function remember(e, state) {
  if (e.type === "shifted") state.cfGear = e.gear;
  if (e.type === "spun") state.cfSpin = { seat: e.seat, a: e.a, b: e.b, move: e.move, gear: state.cfGear, checks: [] };
  if (e.type === "crash_check" && state.cfSpin) state.cfSpin.checks.push(e);
}


// ------------------------------------------------------------------ a phone's view of the track

// On a screen narrower than the track (it is never drawn smaller than its units: a target stays 24 px), the
// track scrolls sideways in its frame: at each new turn or plan it is scrolled to what matters now (a space
// to click, else the car to move), and again when the frame's width changes (a phone turned, a window narrowed:
// a frame once wide enough had its scroll reset), and otherwise left where the player put it.
export function afterRender(root, ctx) {
  const frame = root.querySelector(".cf-track");
  if (!frame || frame.scrollWidth <= frame.clientWidth) return;
  const view = ctx.view;
  const key = `${frame.clientWidth}:${view.turns}:${view.turn}:${view.plan ? view.plan.end : ""}:${view.phase}`;
  if (frame.cfCentred === key) return;
  frame.cfCentred = key;
  const spot = root.querySelector(".cf-target.move") || root.querySelector(".cf-car.acting") ||
    root.querySelector(".cf-car.mine");
  if (!spot) return;
  const box = spot.getBoundingClientRect(), outer = frame.getBoundingClientRect();
  frame.scrollLeft += box.left + box.width / 2 - (outer.left + outer.width / 2);
}
