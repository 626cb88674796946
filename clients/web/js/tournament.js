// Tournament pages: #/tournaments (the list), #/tournament/<T> (live standings, the round's tables, earlier
// rounds from the tournament's log, register by name, check in, drop, and "your table"; printable pairings and
// standings), #/tournament/<T>/screen[/<view>] (the venue screen, js/screen.js), #/organise (create one) and
// #/organise/<T> (behind the organiser secret: start, next round, correct a result with a reason, drop a player,
// settle a table played with real cards, js/reported.js; re-pair, swap, begin, end a round, cancel, penalties,
// disqualification, undo a drop, re-entry, js/organiser.js). Every page lists the organiser's decisions by round.
//
// A page is redrawn in place (morph): what a person is typing, the focus and an opened earlier round survive
// every update; the text of each field is kept by the page (`typed`) so a redraw gives it back.
//
// A player's token is kept in this browser (localStorage) with their name; each round's `your_table` puts that
// token in the seat store as the seat's token and opens the table page, which resumes the reserved seat with it;
// a table played with real cards (`reported`) never opens on the server: the player reports its places here.

import { h, morph, mount } from "./dom.js";
import { fixed, ordinal, percentText, pointsText, scoringPlaces } from "./figures.js";
import { currentRound, LogFollower, pairings, seedMatches } from "./history.js";
import { gameOptions, optionInput } from "./lobby.js";
import { seatStore } from "./protocol.js";
import { decisionList, organiserActions } from "./organiser.js";
import { organiserReports, playerReport, reportedSeatingOf } from "./reported.js";
import { VenueScreen } from "./screen.js";

const PLAYERS = "photofinish.tournaments"; // {T: {player, name, token}}
const SECRETS = "photofinish.organiser"; // {T: secret}

function stored(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}"); } catch { return {}; }
}

function store(key, tournament, value) {
  const all = stored(key);
  if (value === null) delete all[tournament]; else all[tournament] = value;
  localStorage.setItem(key, JSON.stringify(all));
}

export const playerStore = {
  get: (t) => stored(PLAYERS)[t] || null, put: (t, v) => store(PLAYERS, t, v), all: () => stored(PLAYERS),
};
export const secretStore = { get: (t) => stored(SECRETS)[t] || "", put: (t, v) => store(SECRETS, t, v) };

// The page a location's hash names, or null (not a tournament page).
export function tournamentPage(app, hash) {
  if (hash === "#/tournaments") return new TournamentListPage(app);
  if (hash === "#/organise") return new CreatePage(app);
  const [, kind, id, screen, view] = hash.match(/^#\/(tournament|organise)\/([^/]+)(?:\/(screen)(?:\/(\w+))?)?$/) || [];
  if (!kind) return null;
  if (screen) return new VenueScreen(app, decodeURIComponent(id), view || null);
  return new TournamentPage(app, decodeURIComponent(id), kind === "organise");
}

// `tournament` and `your_table` pushes: to the page showing that tournament; a seat while elsewhere is called
// out in the header.
export function tournamentMessage(app, message) {
  const id = message.type === "tournament" ? message.tournament.tournament : message.tournament;
  if (message.type === "your_table" && !message.reported) takeSeatToken(message);
  if ((app.page instanceof TournamentPage || app.page instanceof VenueScreen) && app.page.id === id) {
    return app.page.receive(message);
  }
  if (message.type === "your_table") callToTable(message);
}

function takeSeatToken(message) {
  const me = playerStore.get(message.tournament);
  if (me) seatStore.put(message.table, { token: me.token, seat: message.seat, name: me.name,
                                         tournament: message.tournament });
}

function callToTable(message) {
  const call = document.getElementById("tournament-call");
  if (!call) return;
  if (message.reported) { // played with real cards: its places are reported from the tournament's page
    mount(call, `${message.tournament} round ${message.round}: table ${message.table} is played with real cards `,
      h("a", { href: `#/tournament/${message.tournament}`, class: "button primary", onclick: () => mount(call) },
        "Report its places"));
    return;
  }
  mount(call, `${message.tournament} round ${message.round}: your table is ready `,
    h("a", { href: `#/play/${message.table}`, class: "button primary", onclick: () => mount(call) },
      `Take your seat at ${message.table}`));
}

// The server leaves out empty lists (its messages omit default values).
export function withLists(message) {
  return { players: [], standings: [], seatings: [], byes: [], waitlist: [], rounds: [], actions: [], ...message };
}

function errorText(error) { return error.reason || error.message || String(error); }

// ------------------------------------------------------------------ the list

class TournamentListPage {
  constructor(app) {
    this.app = app;
    this.list = [];
    this.error = null;
    this.timer = setInterval(() => this.refresh(), 3000);
  }

  shows() { return false; }
  destroy() { clearInterval(this.timer); }

  async start() {
    this.render();
    await this.refresh();
  }

  async refresh() {
    try {
      this.list = (await this.app.client.request({ type: "list_tournaments" })).tournaments;
      this.error = null;
    } catch (error) { this.error = errorText(error); }
    this.render();
  }

  render() {
    const mine = playerStore.all();
    mount(this.app.root, h("section", { class: "tournaments" },
      h("h1", {}, "Tournaments"),
      this.error ? h("p", { class: "error", role: "alert" }, this.error) : null,
      this.list.length === 0 ? h("p", {}, "No tournaments on this server yet.") :
        h("ul", { class: "table-list" }, this.list.map((t) => h("li", { class: "table-item", "data-tournament": t.tournament },
          h("div", {}, h("a", { href: `#/tournament/${t.tournament}` }, h("strong", {}, t.name || t.tournament)),
            ` · ${this.app.gameTitle(t.game)} · ${t.mode} · ${t.format} · ${statusWords(t)} · ${t.players} players`,
            mine[t.tournament] ? h("span", { class: "seat" }, ` you: ${mine[t.tournament].name}`) : null)))),
      h("p", {}, h("a", { href: "#/organise", class: "button" }, "Organise a tournament"))));
  }
}

export function statusWords(t) {
  if (t.status === "registration") return "registration open";
  if (t.status === "over") return "over";
  return t.format === "arena" ? `running (round ${t.round})` : `round ${t.round} of ${t.rounds}`;
}

// ------------------------------------------------------------------ one tournament (a player's or the organiser's)

class TournamentPage {
  constructor(app, id, organiser) {
    this.app = app;
    this.client = app.client;
    this.id = id;
    this.organiser = organiser;
    this.data = null; // the last `tournament` message
    this.yourTable = null; // the last `your_table` for a table still playing
    this.openedRound = null;
    this.notice = null;
    this.error = null;
    this.typed = {}; // data-key -> what a person typed there (a redraw gives it back)
    this.drawn = false;
    this.gone = false;
    this.log = null; // the tournament's log read (history.js): earlier rounds, table numbers
    this.logSeen = "";
    this.seedCheck = null; // once over: whether the revealed seed hashes to the published commitment
    this.follower = new LogFollower(this.client, id, (log) => this.readLog(log));
  }

  shows() { return false; }
  destroy() {
    this.gone = true; // an answer still on its way draws nothing over the next page
    this.follower.stop();
  }

  async readLog(log) {
    this.log = log;
    this.render();
    if (log.seed && this.data && this.seedCheck === null) {
      this.seedCheck = await seedMatches(log.seed, this.data.tournament.commitment);
      this.render();
    }
  }

  get me() { return playerStore.get(this.id); }

  // A field's text: what was typed there, else `fallback`; `keep` remembers each keystroke.
  field(key, fallback = "") { return key in this.typed ? this.typed[key] : fallback; }
  keep(key) { return (event) => { this.typed[key] = event.target.value; }; }

  // The log is read again when a round starts or a result or correction changes the standings.
  followLog() {
    const d = this.data;
    if (!d || !d.tournament.round) return;
    const seen = `${d.tournament.round} ${d.tournament.status} ${d.actions.length} ` + // a fix re-seats a round
      d.standings.map((r) => `${r.player}:${r.points}`).join(",");
    if (seen !== this.logSeen) {
      this.logSeen = seen;
      this.follower.refresh();
    }
  }

  async start() {
    this.render();
    try {
      const me = this.me;
      this.receive(await this.client.watchTournament(this.id, this.organiser || !me ? "" : me.token));
      this.openedRound = this.data.tournament.round;
    } catch (error) {
      this.error = errorText(error);
    }
    this.render();
  }

  receive(message) {
    if (message.type === "tournament") {
      this.data = withLists(message);
      const playing = new Set(this.data.seatings.filter((s) => !s.places).map((s) => s.table));
      if (this.yourTable && !playing.has(this.yourTable.table)) this.yourTable = null;
      this.followLog();
    } else if (message.type === "your_table" && !this.organiser) {
      this.yourTable = message;
      if (this.openedRound !== null && message.round > this.openedRound && !message.reported) { // straight to the seat
        location.hash = `#/play/${message.table}`;
        return;
      }
    }
    this.render();
  }

  name(player) {
    const found = this.data && this.data.players.find((p) => p.player === player);
    return found ? found.name : player;
  }

  async call(message, done) {
    this.notice = null;
    try {
      const answer = await this.client.request(message);
      if (answer.type === "tournament") {
        this.data = withLists(answer);
        this.followLog();
      }
      if (done) done(answer);
    } catch (error) {
      this.notice = `Refused: ${errorText(error)}`;
    }
    this.render();
  }

  async register(event) {
    event.preventDefault();
    const name = new FormData(event.target).get("name").trim();
    await this.call({ type: "register", tournament: this.id, name }, (registered) => {
      playerStore.put(this.id, { player: registered.player, name: registered.name, token: registered.token });
      if (registered.waitlisted) {
        this.notice = `The tournament is full: you are number ${registered.waitlist_position} on its waitlist, ` +
          "and take a place if one frees before the start.";
      }
      localStorage.setItem("photofinish.name", registered.name);
      this.client.watchTournament(this.id, registered.token).then((state) => this.receive(state), () => {});
    });
  }

  render() {
    if (this.gone) return;
    const d = this.data;
    const info = d && d.tournament;
    const draw = this.drawn ? morph : mount; // the first draw replaces the page before; then only what changed
    this.drawn = true;
    draw(this.app.root, h("section", { class: "tournament-page", "data-tournament": this.id },
      h("div", { class: "table-head" }, h("a", { href: "#/tournaments", class: "back" }, "← Tournaments"),
        h("h1", {}, info ? info.name || info.tournament : this.id),
        info ? h("span", { class: "game-title" }, `${this.app.gameTitle(info.game)} · ${info.mode} · ` +
          `${info.format} · tables of ${info.seats}`) : null,
        this.organiser ? null : h("a", { href: `#/organise/${this.id}`, class: "button leave" }, "Organiser page")),
      info ? h("p", { class: "turn" }, statusWords(info), ` · ${info.players} players`,
        info.max_players ? ` of ${info.max_players}` : "", info.waitlisted ? ` · ${info.waitlisted} waiting` : "") : null,
      info ? this.settings(info) : null,
      this.error ? h("p", { class: "error", role: "alert" }, this.error) : null,
      this.notice ? h("p", { class: "notice", role: "alert" }, this.notice) : null,
      d ? (this.organiser ? this.organiserPanel() : this.playerPanel()) : null,
      d ? h("p", { class: "screen-links" },
        h("a", { href: `#/tournament/${this.id}/screen`, class: "button", "data-key": "venue-screen" }, "Venue screen"),
        d.tournament.round ? h("button", { type: "button", "data-key": "print", onclick: () => window.print() },
          "Print pairings and standings") : null) : null,
      d ? this.printedPairings() : null,
      d ? h("div", { class: "layout" },
        h("div", {}, this.tables(), this.history(), this.standings()),
        h("aside", { class: "side" }, this.players(),
          h("p", { class: "commitment" }, "Seating seed's hash: ", h("code", {}, info.commitment.slice(0, 16) + "…")),
          this.log && this.log.seed ? h("p", { class: "seed" }, "The seed, revealed at the end: ",
            h("code", {}, this.log.seed), this.seedCheck === true ? " ✓ its hash is the one published at the start"
              : this.seedCheck === false ? " ✗ its hash is NOT the one published at the start" : "") : null,
          h("p", { class: "verify" }, h("button", { type: "button", class: "download-log",
                                                    onclick: () => this.downloadLog() }, "Download the log"),
            " and check it on your machine: ", h("code", {}, `photofinish tournament verify ${this.id}.log`)))) : null));
  }

  // The scoring and seeding choices; for the organiser, the Swiss rounds its registered field needs.
  settings(info) {
    const words = { opponents: "opponents' %", share: "game share" };
    const parts = [`tiebreaks: ${(info.tiebreaks || []).map((t) => words[t] || t).concat("lot").join(", then ")}`];
    if (info.seeding === "ratings") parts.push("round 1 seated by ratings");
    if (info.reported_tables) {
      parts.push(`${info.reported_tables} table${info.reported_tables === 1 ? "" : "s"} a round played with real cards`);
    }
    const suggested = this.organiser && info.format === "swiss" && info.suggested_rounds ? h("span", {
      class: `suggested${info.suggested_rounds === info.rounds ? "" : " differs"}`, "data-key": "suggested" },
      ` · suggested for ${info.players} players: ${info.suggested_rounds} round${info.suggested_rounds === 1 ? "" : "s"}`,
      info.suggested_rounds === info.rounds ? "" : ` (set: ${info.rounds})`) : null;
    return h("p", { class: "settings" }, parts.join(" · "), suggested);
  }

  async downloadLog() {
    // the log as it stands (its seed revealed once the event is over), saved as a file by the browser
    try {
      const answer = await this.client.request({ type: "tournament_log", tournament: this.id });
      const url = URL.createObjectURL(new Blob([answer.log], { type: "text/plain" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = `${answer.tournament}.log`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (error) {
      this.error = error.message;
      this.render();
    }
  }

  playerPanel() {
    const info = this.data.tournament;
    const me = this.me;
    const row = me && this.data.players.find((p) => p.player === me.player);
    const reported = me && reportedSeatingOf(this.data, me.player);
    if (!me) {
      if (info.status === "over") return null;
      return h("form", { class: "register", onsubmit: (e) => this.register(e) },
        h("label", {}, "Your name ", h("input", { name: "name", "data-key": "register-name", required: true,
          maxlength: 24, value: this.field("register-name", localStorage.getItem("photofinish.name") || ""),
          oninput: this.keep("register-name") })),
        h("button", { type: "submit", class: "primary" }, "Register"));
    }
    return [h("div", { class: "me" },
      h("p", {}, `You are ${me.name} (${me.player})`,
        row && row.dropped ? " and have dropped out." : row && row.waitlisted
          ? `, number ${this.data.waitlist.indexOf(me.player) + 1} on the waitlist.`
          : row && row.checked_in ? ", checked in." : "."),
      this.waitingSeat(me),
      this.yourTable && !this.yourTable.reported
        ? h("a", { href: `#/play/${this.yourTable.table}`, class: "button primary your-table" },
        `Your table: ${this.yourTable.table}, seat ${this.yourTable.seat + 1} (round ${this.yourTable.round})`) : null,
      row && !row.dropped && !row.checked_in && info.status === "registration"
        ? h("button", { type: "button", "data-key": "check-in",
                        onclick: () => this.call({ type: "check_in", tournament: this.id, token: me.token }) }, "Check in")
        : null,
      row && !row.dropped && info.status !== "over" ? h("button", { type: "button", "data-key": "drop", onclick: () => {
        if (confirm(`Drop out of ${info.name || this.id}? You cannot come back.`)) {
          this.call({ type: "drop", tournament: this.id, token: me.token });
        }
      } }, "Drop out") : null),
    reported ? playerReport(this, reported, me) : null];
  }

  // Under pairings first, before the round begins: where the player will sit (the organiser may still fix it).
  waitingSeat(me) {
    const info = this.data.tournament;
    if (!info.waiting_round || info.waiting_round !== info.round) return null;
    const at = this.data.seatings.find((s) => s.players.includes(me.player));
    const numbers = new Map(this.log ? (this.log.rounds.find((r) => r.round === info.round) || { tables: [] }).tables
      .map((t) => [t.table, t.number]) : []);
    return h("p", { class: "waiting-seat" }, `Round ${info.round}: `, at ? h("strong", {},
      `${numbers.has(at.table) ? `table ${numbers.get(at.table)} (${at.table})` : at.table}, ` +
      `seat ${at.players.indexOf(me.player) + 1}`) : this.data.byes.includes(me.player) ? "a bye" : "not seated",
      " · it begins when the organiser starts it.");
  }

  organiserPanel() {
    const info = this.data.tournament;
    const secret = secretStore.get(this.id);
    const send = (message, done) => this.call({ tournament: this.id, secret: secretStore.get(this.id), ...message },
      done);
    const typed = (key, attrs) => h("input", { name: key.replace("correct-", ""), "data-key": key,
      value: this.field(key), oninput: this.keep(key), ...attrs });
    const live = this.data.seatings;
    return h("div", { class: "organiser" },
      h("form", { class: "secret", onsubmit: (e) => e.preventDefault() },
        h("label", {}, "Organiser secret ", h("input", { name: "secret", "data-key": "secret", type: "password",
          value: secret, autocomplete: "off", oninput: (e) => secretStore.put(this.id, e.target.value.trim() || null) }))),
      info.status === "registration"
        ? h("button", { type: "button", class: "primary", "data-key": "start",
                        onclick: () => send({ type: "start_tournament" }) }, "Start the tournament") : null,
      info.status === "running" && !info.waiting_round ? h("button", { type: "button", "data-key": "next-round",
        onclick: () => send({ type: "start_tournament", next_round: true }) }, "Start the next round now") : null,
      info.status === "running" ? h("form", { class: "correct", onsubmit: (e) => {
        e.preventDefault();
        const form = new FormData(e.target);
        const places = String(form.get("places")).split(/[\s,]+/).filter(Boolean).map(Number);
        send({ type: "correct_result", table: form.get("table"), places, reason: String(form.get("reason")).trim() },
          () => { for (const key of ["correct-table", "correct-places", "correct-reason"]) delete this.typed[key]; });
      } }, h("h2", {}, "Correct a result"),
        h("label", {}, "Table ", typed("correct-table", { list: "round-tables", size: 6, required: true,
                                                          placeholder: live.length ? live[0].table : "t1" }),
          h("datalist", { id: "round-tables" }, live.map((s) => h("option", { value: s.table },
            `${s.table}: ${s.players.map((p) => this.name(p)).join(", ")}`)))),
        h("label", {}, "Places by seat ", typed("correct-places", { placeholder: "1 2 3", required: true, size: 10 })),
        h("label", {}, "Reason ", typed("correct-reason", { required: true, size: 30 })),
        h("button", { type: "submit" }, "Correct")) : null,
      organiserActions(this, send),
      organiserReports(this, send),
      info.status !== "over" ? h("form", { class: "drop-player", onsubmit: (e) => {
        e.preventDefault();
        send({ type: "drop", player: new FormData(e.target).get("player") });
      } }, h("label", {}, "Drop a player ", h("select", { name: "player", "data-key": "drop-player",
                                                         onchange: this.keep("drop-player") },
          this.data.players.filter((p) => !p.dropped).map((p) => h("option", { value: p.player, "data-key": `drop-${p.player}`,
            selected: p.player === this.typed["drop-player"] }, `${p.name} (${p.player})`)))),
        h("button", { type: "submit" }, "Drop")) : null);
  }

  // The current round's tables (from the view, numbered as the log seats them).
  tables() {
    const d = this.data;
    const now = d.tournament.round;
    const decisions = decisionList(this, d.actions.filter((a) => a.round >= now),
      now ? `The organiser's decisions in round ${now}` : "The organiser's decisions");
    if (!d.seatings.length && !d.byes.length) return decisions;
    const numbers = new Map();
    for (const round of this.log ? this.log.rounds : []) for (const t of round.tables) numbers.set(t.table, t.number);
    const waiting = d.tournament.waiting_round === now;
    const ended = d.rounds.some((r) => r.round === now && r.ended_early);
    return h("div", { class: "round-tables" }, h("h2", {}, `Round ${now}: tables`,
      waiting ? h("span", { class: "waits" }, " · waiting to begin") : "", ended ? " · ended early" : ""),
      h("ul", { class: "table-list" }, d.seatings.map((s) => this.tableItem({
        table: s.table, number: numbers.get(s.table), players: s.players, places: s.places, reported: s.reported,
        reports: s.reports, waiting,
        standIns: s.players.map((_, seat) => (s.stand_ins || []).includes(seat)) }))),
      d.byes.length ? h("p", {}, "Byes: ", d.byes.map((p) => this.name(p)).join(", ")) : null,
      decisions);
  }

  // The places that count at a table after a game loss (the round history's `counted`), where they differ.
  counted(table) {
    for (const r of this.data.rounds) for (const t of r.tables) if (t.table === table && t.counted) return t.counted;
    return null;
  }

  // One table: its players by seat, and once over the place each scores (a stand-in's seat placed last).
  tableItem(t) {
    const counted = t.places && this.counted(t.table);
    const scoring = counted || (t.places ? scoringPlaces(t.places, t.standIns) : null);
    return h("li", { class: "table-item", "data-table": t.table, "data-key": `table-${t.table}` },
      h("div", {}, t.number ? h("span", { class: "table-number" }, `Table ${t.number} · `) : null,
        h("strong", {}, t.table), t.places ? " · over" : t.waiting ? " · waiting to begin" : " · playing",
        t.reported ? h("span", { class: "with-cards" }, t.places ? " · with real cards"
          : ` · with real cards · ${Object.keys(t.reports || {}).length} of ${t.players.length} reported`) : null,
        t.settled ? h("span", { class: "corrected" }, ` · settled: ${t.settled}`) : null,
        t.corrected ? h("span", { class: "corrected" }, ` · corrected: ${t.corrected}`) : null,
        // a table played with real cards has no game on the server to watch or replay
        t.reported || t.waiting ? null : [" ", h("a", { href: t.places ? `#/replay/${t.table}` : `#/watch/${t.table}`,
                                          class: "button" }, t.places ? "Replay" : "Watch")]),
      h("div", { class: "table-seats" }, t.players.map((p, seat) => h("span", { class: "seat" },
        `${seat + 1}: ${this.name(p)}`, t.standIns[seat] ? " (stand-in)" : "",
        scoring ? ` · ${scoring.filter((x) => x === scoring[seat]).length > 1 ? "tied " : ""}${ordinal(scoring[seat])}`
          : ""))));
  }

  // Every round before the current one, from the log: each folded (a person opens the one they want).
  history() {
    const now = this.data.tournament.round;
    const actions = this.data.actions;
    const earlier = (this.log ? this.log.rounds : []).filter((r) => r.round < now).reverse();
    const before = now ? actions.filter((a) => a.round === 0) : []; // drops and their undoing before the start
    if (!earlier.length && !before.length) return null;
    const endedEarly = (n) => this.data.rounds.some((r) => r.round === n && r.ended_early);
    return h("div", { class: "round-history" }, h("h2", {}, "Earlier rounds"),
      earlier.map((r) => {
        const decided = actions.filter((a) => a.round === r.round);
        return h("details", { class: "round", "data-key": `round-${r.round}`, "data-round": r.round },
          h("summary", {}, `Round ${r.round}: ${r.tables.length} table${r.tables.length === 1 ? "" : "s"}`,
            r.byes.length ? `, ${r.byes.length} bye${r.byes.length === 1 ? "" : "s"}` : "",
            endedEarly(r.round) ? ", ended early" : "",
            decided.length ? `, ${decided.length} decision${decided.length === 1 ? "" : "s"}` : ""),
          h("ul", { class: "table-list" }, r.tables.map((t) => this.tableItem(t))),
          r.byes.length ? h("p", {}, "Byes: ", r.byes.map((p) => this.name(p)).join(", ")) : null,
          decisionList(this, decided, "The organiser's decisions"));
      }),
      before.length ? h("details", { class: "round", "data-key": "round-0", "data-round": 0 },
        h("summary", {}, `Before the start: ${before.length} decision${before.length === 1 ? "" : "s"}`),
        decisionList(this, before, null)) : null);
  }

  // Shown only on paper (tournament.css): the round's pairings by player name, for the wall by the door.
  printedPairings() {
    const d = this.data;
    if (!d.tournament.round) return null;
    const round = currentRound(d, this.log);
    const rows = pairings(round, (p) => this.name(p));
    return h("div", { class: "print-pairings", "data-key": "print-pairings" },
      h("h2", {}, `Round ${round.round} pairings, by name`),
      h("ol", { class: "pairings" }, rows.map((r) => h("li", { class: "pairing" },
        h("span", { class: "name" }, r.name), h("span", { class: "where" }, r.where)))));
  }

  standings() {
    const rows = this.data.standings;
    if (!rows.length) return null;
    const me = this.me;
    return h("div", { class: "standings" }, h("h2", {}, "Standings"),
      h("table", {}, h("thead", {}, h("tr", {}, ["#", "player", "points", "opp. %", "game share", "tables", "byes"]
        .map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map((r) => h("tr", { class: `${me && me.player === r.player ? "mine" : ""}${r.dropped ? " dropped" : ""}` },
          h("td", {}, r.rank), h("td", {}, r.name, r.dropped ? " (dropped)" : ""), h("td", {}, pointsText(r.points)),
          h("td", {}, percentText(r.opponents_pct)), h("td", {}, fixed(r.game_share, 2)), h("td", {}, r.tables),
          h("td", {}, r.byes))))));
  }

  players() {
    const list = this.data.players.filter((p) => !p.waitlisted);
    const waiting = this.data.waitlist;
    return h("div", {}, h("h2", {}, `Players (${list.length})`),
      h("ul", { class: "players" }, list.map((p) => h("li", {}, p.name,
        p.disqualified ? " (disqualified)" : p.dropped ? " (dropped)" : p.checked_in ? " ✓ checked in" : ""))),
      waiting.length ? h("h2", {}, `Waitlist (${waiting.length})`) : null,
      waiting.length ? h("ol", { class: "waitlist" }, waiting.map((p) => h("li", {}, this.name(p)))) : null);
  }
}

// ------------------------------------------------------------------ creating one

class CreatePage {
  constructor(app) {
    this.app = app;
    this.form = { name: "", game: "flag_finish", mode: "challenge", seats: 3, format: "swiss", rounds: 3, top: 0,
                  round_time_ms: 0, turn_time_ms: 60000, no_show_ms: 60000, bot_delay_ms: 800, arena_ms: 0,
                  late_entry_rounds: 0, max_players: 0, check_in: false, options: {}, reported_tables: 0,
                  tiebreaks: "opponents,share", by_ratings: false, points_at: {}, pairings_first: false,
                  reentry: false };
    this.notice = null;
  }

  shows() { return false; }
  destroy() {}

  async start() { this.render(); }

  async create(event) {
    event.preventDefault();
    const f = this.form;
    const game = this.app.gamesByName.get(f.game);
    const options = gameOptions(game, f.options);
    const numbers = ["seats", "rounds", "top", "round_time_ms", "turn_time_ms", "no_show_ms", "bot_delay_ms", "arena_ms",
                     "late_entry_rounds", "max_players", "reported_tables"];
    const message = { type: "create_tournament", name: f.name, game: f.game, mode: f.mode, format: f.format,
                      check_in: f.check_in, options };
    for (const name of numbers) message[name] = Number(f[name]) || 0;
    if (f.format !== "swiss") delete message.rounds; // Swiss's own: the server refuses it for another format
    message.tiebreaks = f.tiebreaks.split(",");
    if (f.by_ratings) message.seeding = "ratings";
    if (f.format === "swiss") { // Swiss's own: the server refuses them for another format
      message.pairings_first = f.pairings_first;
      message.reentry = f.reentry;
    }
    const points = {}; // table size -> its points best first, for the sizes given (the server checks each row)
    for (let size = game.min_seats; size <= game.max_seats; size++) {
      const row = String(f.points_at[size] || "").split(/[\s,]+/).filter(Boolean);
      if (row.length) points[size] = row.map(Number);
    }
    if (Object.keys(points).length) message.points_by_size = points;
    try {
      const created = await this.app.client.request(message);
      secretStore.put(created.tournament.tournament, created.secret);
      location.hash = `#/organise/${created.tournament.tournament}`;
    } catch (error) {
      this.notice = `Could not create it: ${errorText(error)}`;
      this.render();
    }
  }

  render() {
    const f = this.form;
    const game = this.app.gamesByName.get(f.game);
    const set = (name) => (e) => { f[name] = e.target.type === "checkbox" ? e.target.checked : e.target.value; };
    const number = (name, label, attrs = {}) => h("label", {}, `${label} `,
      h("input", { type: "number", name, "data-key": name, value: f[name], min: 0, oninput: set(name), ...attrs }));
    mount(this.app.root, h("section", { class: "organise" },
      h("div", { class: "table-head" }, h("a", { href: "#/tournaments", class: "back" }, "← Tournaments"),
        h("h1", {}, "Organise a tournament")),
      this.notice ? h("p", { class: "notice", role: "alert" }, this.notice) : null,
      h("form", { class: "create", onsubmit: (e) => this.create(e) },
        h("label", {}, "Name ", h("input", { name: "name", "data-key": "name", value: f.name, maxlength: 60, oninput: set("name") })),
        h("label", {}, "Game ", h("select", { name: "game", "data-key": "game", onchange: (e) => {
          f.game = e.target.value;
          const g = this.app.gamesByName.get(f.game);
          f.mode = g.modes.includes(f.mode) ? f.mode : g.modes[0];
          f.seats = Math.min(Math.max(f.seats, g.min_seats), g.max_seats);
          f.options = {};
          this.render();
        } }, this.app.gameList.map((g) => h("option", { value: g.name, selected: g.name === f.game }, g.title)))),
        h("label", {}, "Mode ", h("select", { name: "mode", "data-key": "mode", onchange: set("mode") },
          game.modes.map((m) => h("option", { value: m, selected: m === f.mode }, m)))),
        number("seats", "Seats per table", { min: game.min_seats, max: game.max_seats }),
        h("label", {}, "Format ", h("select", { name: "format", "data-key": "format",
                                                onchange: (e) => { f.format = e.target.value; this.render(); } },
          [["swiss", "Swiss (seated by standings)"], ["round_robin", "round robin"], ["arena", "arena (for a time)"]]
            .map(([v, text]) => h("option", { value: v, selected: v === f.format }, text)))),
        number("rounds", "Rounds (Swiss)", { min: 1 }),
        number("top", "Final table of the top N (0: none)"),
        number("arena_ms", "Arena length (ms)"),
        number("round_time_ms", "Round time limit (ms, 0: none)"),
        number("turn_time_ms", "Time per move at lockstep tables (ms)"),
        number("no_show_ms", "A stand-in bot plays an absent player after (ms)"),
        number("bot_delay_ms", "Stand-in bots' pause (ms)"),
        number("late_entry_rounds", "Late entries until round"),
        number("max_players", "Most players (0: no cap; later entries wait on a waitlist)"),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "check_in", "data-key": "check_in",
          checked: f.check_in, onchange: set("check_in") }), " Players must check in"),
        number("reported_tables", "Tables played with real cards each round (the last N; players report the places)",
          { max: 1000 }),
        h("label", {}, "Tiebreaks after points ", h("select", { name: "tiebreaks", "data-key": "tiebreaks",
                                                                onchange: set("tiebreaks") },
          [["opponents,share", "opponents' %, then game share"], ["share,opponents", "game share, then opponents' %"],
           ["opponents", "opponents' % only"], ["share", "game share only"]]
            .map(([v, text]) => h("option", { value: v, selected: v === f.tiebreaks }, `${text} (then a seeded lot)`)))),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "by_ratings", "data-key": "by_ratings",
          checked: f.by_ratings, onchange: set("by_ratings") }), " Seat round 1 by ratings (Swiss; else by lot)"),
        f.format === "swiss" ? h("label", { class: "check" }, h("input", { type: "checkbox", name: "pairings_first",
          "data-key": "pairings_first", checked: f.pairings_first, onchange: set("pairings_first") }),
          " Pairings first: each round is published and begins when you begin it (until then, re-pair or swap)")
          : null,
        f.format === "swiss" ? h("label", { class: "check" }, h("input", { type: "checkbox", name: "reentry",
          "data-key": "reentry", checked: f.reentry, onchange: set("reentry") }),
          " Re-entry: a dropped player may enter again, as a new entry from 0 points") : null,
        h("details", {}, h("summary", {}, `${game.title} options (fixed for every table)`),
          game.options.filter((o) => o.choices || typeof o.default === "number" || typeof o.default === "boolean")
            .map((o) => optionInput(o, f))),
        h("details", { class: "points-by-size", open: Object.values(f.points_at).some(Boolean) },
          h("summary", {}, "Points per table size (best first; blank: default)"),
          Array.from({ length: game.max_seats - game.min_seats + 1 }, (_, i) => game.min_seats + i).map((size) =>
            h("label", {}, `Tables of ${size} `, h("input", { name: `points_at_${size}`, "data-key": `points_at_${size}`,
              value: f.points_at[size] || "", placeholder: size === 3 ? "3 1 0" : size === 4 ? "5 3 1 0" : "",
              oninput: (e) => { f.points_at[size] = e.target.value; } })))),
        h("button", { type: "submit", class: "primary", "data-key": "create" }, "Create the tournament"))));
  }
}
