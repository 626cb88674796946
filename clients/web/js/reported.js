// Tables played with real cards (a tournament's "reported" tables, server/PROTOCOL.md "Reported tables"): the
// player's report form on the tournament page (places per seat by the players' names, sent as `report_result`;
// their own report and the others', "waiting for Bob and Cy", "Bob reported differently", the result once it
// stands) and the organiser's panel (every reported table with its reports, a settle form with a reason sent as
// `settle_result`, and the count of reported tables from the next round, `set_reported_tables`).
//
// Each function draws part of a TournamentPage (js/tournament.js) from its `data` (the last `tournament`
// message): a page redraw keeps what was picked (`page.typed`), and a refusal leaves it as it was.

import { h } from "./dom.js";
import { ordinal } from "./figures.js";

// "Bob", "Bob and Cy", "Ana, Bob and Cy".
export function andList(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

// The reported table `player` sits at in this round (or one of an earlier round still waiting), else null.
export function reportedSeatingOf(data, player) {
  const mine = data.seatings.filter((s) => s.reported && s.players.includes(player));
  return mine.find((s) => !s.places) || mine[mine.length - 1] || null;
}

// Places said seat by seat with the players' names: "Ana 1st, Bob 2nd, Cy 3rd".
function placesText(seating, places, name) {
  return seating.players.map((p, seat) => `${name(p)} ${ordinal(places[seat])}`).join(", ");
}

const same = (a, b) => Boolean(a && b) && a.join(",") === b.join(",");

// Where a reported table stands: who has not reported, whether the reports disagree.
function reportState(seating) {
  const reports = seating.reports || {};
  const missing = seating.players.filter((p) => !reports[p]);
  const given = Object.values(reports);
  const disagree = given.some((places) => !same(places, given[0]));
  return { reports, missing, disagree };
}

// One select of places per seat (1st .. nth, blank until picked), each row naming the seat's player.
function placePicker(page, key, seating, initial, mark = () => "") {
  const n = seating.players.length;
  return h("div", { class: "place-rows" }, seating.players.map((p, seat) => {
    const field = `${key}-${seat}`;
    const value = page.field(field, initial ? String(initial[seat]) : "");
    return h("label", { class: "place-row", "data-player": p },
      h("span", { class: "who" }, `Seat ${seat + 1} · `, h("strong", {}, page.name(p)), mark(p)),
      h("select", { name: `place-${seat}`, "data-key": field, required: true, onchange: page.keep(field),
                    "aria-label": `${page.name(p)}'s place` },
        h("option", { value: "", selected: value === "" }, "place?"),
        Array.from({ length: n }, (_, i) => h("option", { value: String(i + 1), selected: value === String(i + 1) },
          ordinal(i + 1)))));
  }));
}

function pickedPlaces(form, seats) {
  const data = new FormData(form);
  return Array.from({ length: seats }, (_, seat) => Number(data.get(`place-${seat}`)));
}

function forget(page, key, seats) {
  for (let seat = 0; seat < seats; seat++) delete page.typed[`${key}-${seat}`];
}

// ------------------------------------------------------------------ the player

// The player's box for their table played with real cards: what to do, the form, the reports, the result.
export function playerReport(page, seating, me) {
  const name = (p) => (p === me.player ? "you" : page.name(p));
  const seat = seating.players.indexOf(me.player);
  const head = h("h2", {}, `Your table: ${seating.table}, seat ${seat + 1} · played with real cards`);
  if (seating.places) {
    return h("div", { class: "reported-table stands", "data-table": seating.table }, head,
      h("p", { class: "report-result" }, "The result stands: ", placesText(seating, seating.places, (p) => page.name(p)), "."));
  }
  const { reports, missing, disagree } = reportState(seating);
  const mine = reports[me.player];
  const key = `report-${seating.table}`;
  const send = (places, done) => page.call({ type: "report_result", tournament: page.id, token: me.token,
                                             table: seating.table, places }, done);
  const others = seating.players.filter((p) => p !== me.player && reports[p]);
  const lines = [];
  if (mine) lines.push(h("li", { class: "mine" }, `You reported: ${placesText(seating, mine, (p) => page.name(p))}.`));
  for (const p of others) {
    const agrees = same(reports[p], mine);
    lines.push(h("li", { class: agrees ? "agrees" : mine ? "differs" : "other", "data-player": p },
      agrees ? `${page.name(p)} agrees.`
        : `${page.name(p)} reported${mine ? " differently" : ""}: ${placesText(seating, reports[p], (p) => page.name(p))}. `,
      agrees ? null : h("button", { type: "button", class: "agree",
        "data-key": `agree-${seating.table}-${p}`, onclick: () => send(reports[p], () => forget(page, key, seating.players.length)) },
        `Report the same as ${page.name(p)}`)));
  }
  return h("div", { class: "reported-table", "data-table": seating.table }, head,
    h("p", { class: "report-call" }, "Play this table with real cards, then report the places."),
    h("form", { class: "report-form", onsubmit: (e) => {
      e.preventDefault();
      send(pickedPlaces(e.target, seating.players.length), () => forget(page, key, seating.players.length));
    } }, placePicker(page, key, seating, mine, (p) => (p === me.player ? " (you)" : "")),
      h("button", { type: "submit", class: "primary", "data-key": `${key}-send` },
        mine ? "Report again" : "Report the places")),
    lines.length ? h("ul", { class: "reports" }, lines) : null,
    missing.length ? h("p", { class: "report-waiting" }, "Waiting for ",
      `${andList([...missing.filter((p) => p === me.player), ...missing.filter((p) => p !== me.player)].map(name))}.`)
      : null,
    disagree ? h("p", { class: "report-disagree" },
      "The reports disagree: agree at the table and report again, or ask the organiser to settle it.") : null);
}

// ------------------------------------------------------------------ the organiser

// The organiser's panel: every reported table of the round with its reports and, until its result stands, a
// settle form; and the count of reported tables from the next round.
export function organiserReports(page, send) {
  const info = page.data.tournament;
  const tables = page.data.seatings.filter((s) => s.reported);
  const countKey = "reported-count";
  return h("div", { class: "reported-panel" },
    tables.length ? h("h2", {}, "Tables played with real cards") : null,
    tables.length ? h("ul", { class: "table-list" }, tables.map((s) => organiserTable(page, send, s))) : null,
    info.status !== "over" ? h("form", { class: "reported-count", onsubmit: (e) => {
      e.preventDefault();
      send({ type: "set_reported_tables", tables: Number(new FormData(e.target).get("tables")) },
        () => { delete page.typed[countKey]; });
    } }, h("label", {}, "Tables played with real cards from the next round (0: none) ",
      h("input", { type: "number", name: "tables", min: 0, max: 1000, required: true, "data-key": countKey,
                   value: page.field(countKey, String(info.reported_tables || 0)), oninput: page.keep(countKey) })),
      h("button", { type: "submit" }, "Set")) : null);
}

function organiserTable(page, send, s) {
  const { reports, missing, disagree } = reportState(s);
  const key = `settle-${s.table}`;
  const state = s.places ? `result stands: ${placesText(s, s.places, (p) => page.name(p))}`
    : disagree ? "they disagree" : missing.length ? `waiting for ${andList(missing.map((p) => page.name(p)))}` : "";
  return h("li", { class: `table-item reported${disagree && !s.places ? " disagree" : ""}`, "data-table": s.table,
                   "data-key": `reported-${s.table}` },
    h("div", {}, h("strong", {}, s.table), ` · ${state}`),
    Object.keys(reports).length ? h("ul", { class: "reports" }, s.players.filter((p) => reports[p]).map((p) =>
      h("li", { "data-player": p }, `${page.name(p)} reported: ${placesText(s, reports[p], (p) => page.name(p))}`))) : null,
    // a disagreement opens the settle form; a table still waiting keeps it folded (a player who cannot report)
    s.places ? null : h("details", { class: "settle-fold", "data-key": `${key}-fold`, open: disagree },
      h("summary", {}, disagree ? "Settle the disagreement" : "Settle it (a player cannot report)"),
      h("form", { class: "settle", onsubmit: (e) => {
      e.preventDefault();
      const reason = String(new FormData(e.target).get("reason")).trim();
      send({ type: "settle_result", table: s.table, places: pickedPlaces(e.target, s.players.length), reason },
        () => { forget(page, key, s.players.length); delete page.typed[`${key}-reason`]; });
    } }, placePicker(page, key, s, null),
      h("label", { class: "reason" }, "Reason ", h("input", { name: "reason", "data-key": `${key}-reason`, size: 30,
        value: page.field(`${key}-reason`), oninput: page.keep(`${key}-reason`), placeholder: "the judge saw the last hand" })),
      h("button", { type: "submit", class: "primary", "data-key": `${key}-send` }, "Settle"))));
}
