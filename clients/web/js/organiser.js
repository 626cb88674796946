// The organiser's actions on the organiser page (server/PROTOCOL.md "repair_round" .. "reenter", docs/organisers.md
// "Fixing an event"): for a round seated and waiting to begin (`pairings_first`), re-pair it (pairs kept apart,
// chosen by name) or swap two players, then begin it; end the round now; cancel the event (confirmed: it cannot be
// undone); per player a penalty (points off or a game loss at a finished table of theirs), a disqualification
// (confirmed), undoing a drop and a re-entry (when the settings allow). Every action asks for a reason. And, for
// every page, the organiser's decisions (`actions`) as sentences with their reasons, the latest first.
//
// Each function draws part of a TournamentPage (js/tournament.js) from its `data` (the last `tournament` message):
// what is typed or picked lives in `page.typed`, so a redraw gives it back and a refusal leaves it as it was.

import { h } from "./dom.js";
import { ordinal, pointsText } from "./figures.js";
import { andList } from "./reported.js";

// ------------------------------------------------------------------ the decisions, for everyone

// One decision as a sentence, players by name.
export function decisionText(action, name) {
  const who = (action.players || []).map(name);
  const pairs = [];
  for (let i = 0; i + 1 < who.length; i += 2) pairs.push(`${who[i]} and ${who[i + 1]}`);
  switch (action.kind) {
    case "corrected": return `Table ${action.table} corrected` +
      ((action.places || []).length ? ` (places by seat: ${action.places.map(ordinal).join(", ")})` : "");
    case "dropped": return `${who[0]} dropped`;
    case "repaired": return `Round ${action.round} re-paired` + (pairs.length ? `, keeping apart ${andList(pairs)}` : "");
    case "swapped": return `${who[0]} and ${who[1]} swapped places`;
    case "round_begun": return `Round ${action.round} began`;
    case "round_ended": return `Round ${action.round} ended early`;
    case "penalised": return action.table ? `${who[0]}: a game loss at ${action.table}`
      : `${who[0]}: ${pointsText(action.points)} point${action.points === 1 ? "" : "s"} off`;
    case "disqualified": return `${who[0]} disqualified`;
    case "undropped": return `${who[0]}'s drop undone`;
    case "reentered": return `${who[0]} entered again as ${who[1]}`;
    case "cancelled": return "The event was cancelled";
    default: return action.kind;
  }
}

// A list of decisions with their reasons, the latest first (null when there are none).
export function decisionList(page, actions, title) {
  if (!actions.length) return null;
  return h("div", { class: "decisions" }, title ? h("h3", {}, title) : null,
    h("ul", {}, actions.slice().reverse().map((a) => h("li", { class: "decision", "data-kind": a.kind },
      h("span", { class: "what" }, decisionText(a, (p) => page.name(p))),
      a.reason ? h("span", { class: "why" }, ` · “${a.reason}”`) : null))));
}

// ------------------------------------------------------------------ the organiser's actions

// A text field kept across redraws.
function input(page, key, attrs = {}) {
  return h("input", { name: key, "data-key": key, value: page.field(key), oninput: page.keep(key), ...attrs });
}

// A select of players by name (a blank first choice), kept across redraws.
function playerSelect(page, key, players, label) {
  const value = page.field(key);
  const pick = (e) => { page.typed[key] = e.target.value; page.render(); }; // what follows may depend on it
  return h("select", { name: key, "data-key": key, onchange: pick, "aria-label": label },
    h("option", { value: "", selected: value === "" }, "choose…"),
    players.map((p) => h("option", { value: p, selected: value === p }, page.name(p))));
}

function reason(page, key) {
  return h("label", { class: "reason" }, "Reason ", input(page, key, { required: true, size: 28,
    placeholder: "in words, for the log" }));
}

function forget(page, ...keys) { for (const key of keys) delete page.typed[key]; }

// The pairs to keep apart, kept as text "a:b;c:d" in `page.typed` (a redraw gives them back).
function apartPairs(page) {
  return (page.typed["repair-apart"] || "").split(";").filter(Boolean).map((pair) => pair.split(":"));
}

// The round waiting to begin: its players (at tables and on a bye), from the round history.
function waitingPlayers(data, round) {
  const seated = data.rounds.find((r) => r.round === round);
  const tables = seated ? seated.tables : data.seatings;
  const byes = seated ? seated.byes || [] : data.byes;
  return [...tables.flatMap((t) => t.players), ...byes];
}

// The organiser's actions on the event, drawn into the organiser page.
export function organiserActions(page, send) {
  const d = page.data;
  const info = d.tournament;
  if (info.status === "over") return null;
  return h("div", { class: "org-actions" },
    info.waiting_round ? waitingRound(page, send, info.waiting_round) : null,
    info.status === "running" && !info.waiting_round && d.seatings.some((s) => !s.places) ? endRound(page, send) : null,
    playerActions(page, send),
    cancelEvent(page, send));
}

function waitingRound(page, send, round) {
  const d = page.data;
  const inRound = waitingPlayers(d, round);
  const active = d.players.filter((p) => !p.dropped && !p.waitlisted).map((p) => p.player);
  const pairs = apartPairs(page);
  const setPairs = (list) => { page.typed["repair-apart"] = list.map((pair) => pair.join(":")).join(";"); page.render(); };
  return h("div", { class: "org-box waiting", "data-key": "waiting-round" },
    h("h2", {}, `Round ${round} is seated and waits for you to begin it`),
    h("p", {}, "Check the pairings below; fix them here, then begin the round (its tables open)."),
    h("form", { class: "repair", onsubmit: (e) => {
      e.preventDefault();
      send({ type: "repair_round", exclude: pairs, reason: page.field("repair-reason").trim() },
        () => forget(page, "repair-reason", "repair-apart", "apart-a", "apart-b"));
    } }, h("h3", {}, "Re-pair the round"),
      h("div", { class: "apart" }, "Keep apart ", playerSelect(page, "apart-a", active, "keep apart: first player"),
        " and ", playerSelect(page, "apart-b", active, "keep apart: second player"), " ",
        h("button", { type: "button", "data-key": "apart-add", onclick: () => {
          const a = page.field("apart-a");
          const b = page.field("apart-b");
          if (!a || !b || a === b) return;
          forget(page, "apart-a", "apart-b");
          setPairs([...pairs, [a, b]]);
        } }, "Add the pair")),
      pairs.length ? h("ul", { class: "apart-pairs" }, pairs.map(([a, b], i) => h("li", { "data-pair": `${a}:${b}` },
        `${page.name(a)} and ${page.name(b)} `,
        h("button", { type: "button", class: "remove", "aria-label": `no longer keep ${page.name(a)} and ${page.name(b)} apart`,
                      onclick: () => setPairs(pairs.filter((_, j) => j !== i)) }, "×")))) : null,
      reason(page, "repair-reason"),
      h("button", { type: "submit", "data-key": "repair-send" }, "Re-pair")),
    h("form", { class: "swap", onsubmit: (e) => {
      e.preventDefault();
      send({ type: "swap_players", players: [page.field("swap-a"), page.field("swap-b")],
             reason: page.field("swap-reason").trim() }, () => forget(page, "swap-a", "swap-b", "swap-reason"));
    } }, h("h3", {}, "Swap two players"),
      h("div", {}, playerSelect(page, "swap-a", inRound, "swap: first player"), " with ",
        playerSelect(page, "swap-b", inRound, "swap: second player")),
      reason(page, "swap-reason"),
      h("button", { type: "submit", "data-key": "swap-send" }, "Swap")),
    h("button", { type: "button", class: "primary begin", "data-key": "begin-round",
                  onclick: () => send({ type: "start_tournament" }) }, `Begin round ${round}`));
}

function endRound(page, send) {
  return h("form", { class: "org-box end-round", onsubmit: (e) => {
    e.preventDefault();
    send({ type: "end_round", reason: page.field("end-reason").trim() }, () => forget(page, "end-reason"));
  } }, h("h2", {}, "End this round now"),
    h("p", {}, "The tables still playing end as they stand (placed as the round time places them)."),
    reason(page, "end-reason"),
    h("button", { type: "submit", "data-key": "end-send" }, "End this round now"));
}

// The finished tables a player sat at, for a game loss: [table, "round 1 · t2 (2nd)"].
function finishedTables(data, player) {
  const found = [];
  for (const r of data.rounds) {
    for (const t of r.tables) {
      const seat = t.players.indexOf(player);
      if (seat < 0 || !t.places) continue;
      const places = t.counted || t.places;
      found.push([t.table, `round ${r.round} · ${t.table} (${ordinal(places[seat])})`]);
    }
  }
  return found;
}

function playerActions(page, send) {
  const d = page.data;
  const info = d.tournament;
  const everyone = d.players.filter((p) => !p.waitlisted);
  const chosen = everyone.find((p) => p.player === page.field("act-player")) || null;
  const reentry = page.log ? page.log.reentry : true; // the log says whether the settings allow it
  const confirming = chosen && page.typed["confirm-dq"] === chosen.player;
  const done = () => forget(page, "act-reason", "pen-points", "pen-table", "confirm-dq");
  const act = (what) => {
    const player = chosen.player;
    const reasonText = page.field("act-reason").trim();
    if (what === "penalise") {
      const table = page.field("pen-table");
      const message = { type: "penalise", player, reason: reasonText };
      if (table) message.table = table; else message.points = Number(page.field("pen-points")) || 0;
      send(message, done);
    } else if (what === "disqualify") {
      page.typed["confirm-dq"] = player;
      page.render();
    } else if (what === "disqualify-yes") {
      send({ type: "disqualify", player, reason: reasonText }, done);
    } else if (what === "undo") {
      send({ type: "undo_drop", player, reason: reasonText }, done);
    } else if (what === "reenter") {
      send({ type: "reenter", player, reason: reasonText }, (entry) => {
        done();
        page.notice = `${entry.name} entered (${entry.player}): give the player this token to play with: ${entry.token}`;
      });
    }
  };
  const tables = chosen ? finishedTables(d, chosen.player) : [];
  const pickedTable = page.field("pen-table");
  return h("form", { class: "org-box player-actions", onsubmit: (e) => {
    e.preventDefault();
    if (chosen) act(e.submitter ? e.submitter.value : "penalise");
  } }, h("h2", {}, "A player: penalty, disqualification, a drop undone, re-entry"),
    h("label", {}, "Player ", playerSelect(page, "act-player", everyone.map((p) => p.player), "player")),
    chosen ? h("p", { class: "player-state" }, `${chosen.name} (${chosen.player}) `,
      chosen.disqualified ? "is disqualified." : chosen.dropped ? "has dropped." : "is playing.") : null,
    chosen ? reason(page, "act-reason") : null,
    chosen && !chosen.disqualified ? h("fieldset", { class: "penalty" }, h("legend", {}, "Penalty"),
      h("label", {}, "Points off ", input(page, "pen-points", { type: "number", min: 0, step: "any", size: 4,
                                                                 disabled: Boolean(pickedTable) })),
      h("label", {}, " or a game loss at ", h("select", { name: "pen-table", "data-key": "pen-table",
        onchange: (e) => { page.typed["pen-table"] = e.target.value; page.render(); } },
        h("option", { value: "", selected: !pickedTable }, tables.length ? "no table" : "no finished table"),
        tables.map(([table, text]) => h("option", { value: table, selected: pickedTable === table }, text)))),
      h("button", { type: "submit", value: "penalise", "data-key": "penalise" }, "Penalise")) : null,
    chosen && !chosen.disqualified && !confirming ? h("button", { type: "submit", value: "disqualify",
      class: "danger", "data-key": "disqualify" }, "Disqualify…") : null,
    confirming ? h("p", { class: "confirm", role: "alert" },
      `Disqualify ${chosen.name}? They are seated no more and ranked last. It cannot be undone. `,
      h("button", { type: "submit", value: "disqualify-yes", class: "danger", "data-key": "disqualify-yes" },
        `Yes, disqualify ${chosen.name}`), " ",
      h("button", { type: "button", "data-key": "disqualify-no",
                    onclick: () => { forget(page, "confirm-dq"); page.render(); } }, "No")) : null,
    chosen && chosen.dropped && !chosen.disqualified ? h("button", { type: "submit", value: "undo", "data-key": "undo-drop" },
      "Undo the drop") : null,
    chosen && chosen.dropped && !chosen.disqualified && reentry && info.status === "running"
      ? h("button", { type: "submit", value: "reenter", "data-key": "reenter" }, "Re-enter as a new entry") : null);
}

function cancelEvent(page, send) {
  const confirming = page.typed["confirm-cancel"] === "yes";
  return h("details", { class: "org-box cancel-event", "data-key": "cancel-fold" },
    h("summary", {}, "Cancel the event"),
    h("form", { onsubmit: (e) => {
      e.preventDefault();
      if (!confirming) { page.typed["confirm-cancel"] = "yes"; page.render(); return; }
      send({ type: "cancel_tournament", reason: page.field("cancel-reason").trim() },
        () => forget(page, "cancel-reason", "confirm-cancel"));
    } }, h("p", {}, "The event ends now: the standings freeze as they stand, tables still playing stop and are not " +
        "counted, and the seating seed is revealed."),
      reason(page, "cancel-reason"),
      confirming ? h("p", { class: "confirm", role: "alert" }, "It cannot be undone. ",
        h("button", { type: "submit", class: "danger", "data-key": "cancel-yes" }, "Yes, cancel the event"), " ",
        h("button", { type: "button", "data-key": "cancel-no",
                      onclick: () => { forget(page, "confirm-cancel"); page.render(); } }, "No, keep it running"))
        : h("button", { type: "submit", class: "danger", "data-key": "cancel-send" }, "Cancel the event…")));
}
