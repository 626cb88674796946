// The lobby, as a player expects it: your name, quick play (one click per game: a seat at a table of that game
// waiting for a player, or a new one), the form to create a table of any game with its options, mode, seats,
// server bots and their pace (a person's pace by default, as the server says it), then the tables: joinable ones
// first, those in play next, finished ones folded under their count; each told apart by who sits there. The join
// URL and its QR code beside them. A name the server would refuse is refused here, before anything is created.

import { h, morph, mount } from "./dom.js";
import { nameProblem } from "./names.js";
import { seatStore } from "./protocol.js";
import { capital, joinWords } from "./words.js";

const NAME = "photofinish.name";
const FINISHED_SHOWN = 50; // finished tables listed when unfolded (the newest)

// A game's options as the create form holds them (strings, a checkbox's true or false; blank = the game's
// default), typed for the server: a number option as a number, a yes/no option as a boolean.
export function gameOptions(game, raw) {
  const options = {};
  for (const option of game.options) {
    const value = raw[option.name];
    if (value === undefined || value === "") continue;
    options[option.name] = typeof option.default === "number" ? Number(value)
      : typeof option.default === "boolean" ? value === true || value === "true" : value;
  }
  return options;
}

export class LobbyPage {
  constructor(app) {
    this.app = app;
    this.client = app.client;
    this.tables = [];
    this.join = null;
    this.notice = null;
    this.busy = null; // the game a quick play is finding a seat at
    // delay null: the server bots' human pace for the mode (as `games` says it) until one is typed
    this.form = { game: "flag_finish", mode: null, seats: 2, bots: {}, options: {}, delay: null, turn: 0, sit: true,
                  behindS: 0, behindMoves: 0, broadcast: false };
    this.timer = setInterval(() => this.refresh(), 2000);
    this.gone = false; // left: an answer still on its way draws nothing over the next page, nor moves the person
  }

  destroy() {
    this.gone = true;
    clearInterval(this.timer);
  }

  // Go to another page, unless the person has already gone on from this one.
  go(hash) { if (!this.gone) location.hash = hash; }

  async start() {
    this.render();
    fetch("join.json").then((r) => (r.ok ? r.json() : null)).then((join) => { this.join = join; this.render(); },
      () => {});
    await this.app.games();
    this.pickGame(this.form.game);
    this.render();
    await this.refresh();
  }

  async refresh() {
    try {
      this.tables = await this.client.listTables();
    } catch (error) { this.notice = error.reason || String(error); }
    if (this.gone) return;
    const list = document.getElementById("tables");
    if (list) morph(list, this.tableList()); // only the list, in place: a form being filled in, a fold opened stay
    else this.render();
  }

  get name() { return localStorage.getItem(NAME) || ""; }

  // The bots' pause the form offers: what was typed, else a person's pace for the mode.
  delay() {
    const f = this.form;
    if (f.delay !== null && f.delay !== "") return Number(f.delay) || 0;
    return (this.app.humanPace || {})[f.mode] ?? 0;
  }

  pickGame(name) {
    const game = this.app.gamesByName.get(name);
    if (!game) return;
    const f = this.form;
    f.game = name;
    f.mode = game.modes.includes(f.mode) ? f.mode : game.modes[0];
    f.seats = Math.min(Math.max(f.seats, game.min_seats), game.max_seats);
    f.options = {};
    f.bots = {};
    for (let seat = 1; seat < f.seats; seat++) f.bots[seat] = "heuristic";
  }

  // The name as the server will check it; false (and the reason on the page) for a name it would refuse.
  nameAccepted() {
    const problem = nameProblem(this.name, "your name");
    if (!problem) return true;
    this.notice = `Choose another name: ${problem}. Nothing was created.`;
    this.render();
    document.getElementById("name").focus();
    return false;
  }

  async sit(table, seat) {
    if (!this.nameAccepted()) return;
    try {
      await this.client.takeSeat(table, seat, this.name);
      this.go(`#/play/${table}`);
    } catch (error) {
      this.notice = `Could not take the seat: ${error.reason || error}`;
      this.render();
    }
  }

  // Quick play: back to a seat this browser holds at a waiting table of the game; else a free seat at a waiting
  // table of it (the fullest first: it starts soonest); else a new table of it with its defaults (its first mode,
  // its fewest seats, all for people) and the first seat.
  async quickPlay(name) {
    if (this.busy || !this.nameAccepted()) return;
    const game = this.app.gamesByName.get(name);
    this.busy = name;
    this.notice = null;
    this.render();
    try {
      const held = seatStore.all();
      const tables = await this.client.listTables();
      const mine = tables.find((t) => t.game === name && t.status === "waiting" && held[t.table]);
      if (mine) { this.go(`#/play/${mine.table}`); return; }
      const open = tables.filter((t) => t.game === name && t.status === "waiting" && !t.practice && !held[t.table]
                                        && t.seats.some((seat) => seat.state === "free"))
        .sort((a, b) => free(a) - free(b) || number(a.table) - number(b.table));
      for (const t of open.slice(0, 3)) {
        try {
          await this.client.takeSeat(t.table, null, this.name);
          this.go(`#/play/${t.table}`);
          return;
        } catch { /* taken meanwhile: the next one */ }
      }
      const seats = Math.max(2, game.min_seats);
      const mode = game.modes[0];
      const table = await this.client.createTable({ game: name, mode, seats, options: {}, bots: [],
        bot_delay_ms: (this.app.humanPace || {})[mode] ?? 0 });
      await this.client.takeSeat(table.table, null, this.name);
      this.go(`#/play/${table.table}`);
    } catch (error) {
      this.busy = null;
      this.notice = `Quick play found no seat: ${error.reason || error}`;
      this.render();
    } finally {
      this.busy = null;
    }
  }

  async create(event) {
    event.preventDefault();
    const f = this.form;
    if (f.sit && !this.nameAccepted()) return; // before the table exists: a refused name leaves none behind
    const game = this.app.gamesByName.get(f.game);
    const options = gameOptions(game, f.options);
    const bots = Object.entries(f.bots).filter(([seat, policy]) => policy && Number(seat) < f.seats)
      .map(([seat, policy]) => ({ seat: Number(seat), policy }));
    try {
      const created = await this.client.request({ type: "create_table",
        game: f.game, mode: f.mode, seats: f.seats, options, bots, bot_delay_ms: this.delay(),
        turn_time_ms: Number(f.turn) || 0, spectator_delay_ms: Math.round((Number(f.behindS) || 0) * 1000),
        spectator_delay_entries: Number(f.behindMoves) || 0, broadcast: !!f.broadcast,
      });
      const table = created.table;
      // the broadcast view's key is its creator's alone: it watches every hand, and so never sits
      const key = created.broadcast_key;
      if (key) return this.go(`#/broadcast/${table.table}/${encodeURIComponent(key)}`);
      const free = table.seats.find((seat) => seat.state === "free");
      if (f.sit && free) return this.sit(table.table, free.seat);
      this.go(`#/watch/${table.table}`);
    } catch (error) {
      this.notice = `Could not create the table: ${error.reason || error}`;
      this.render();
    }
  }

  typedName(event) {
    const value = event.target.value;
    localStorage.setItem(NAME, value.trim());
    const problem = nameProblem(value, "your name");
    const hint = document.getElementById("name-problem");
    if (hint) hint.textContent = problem ? `${capital(problem)}.` : "";
    event.target.setAttribute("aria-invalid", problem ? "true" : "false");
  }

  render() {
    if (this.gone) return;
    const problem = nameProblem(this.name, "your name");
    mount(this.app.root, h("section", { class: "lobby" },
      h("h1", {}, "Lobby"),
      this.notice ? h("p", { class: "notice", role: "alert" }, this.notice) : null,
      h("div", { class: "lobby-grid" },
        h("div", { class: "lobby-start" },
          h("label", { class: "name" }, "Your name ",
            h("input", { id: "name", "data-key": "name", value: this.name, maxlength: 40, autocomplete: "nickname",
                         "aria-invalid": problem ? "true" : "false", "aria-describedby": "name-problem",
                         oninput: (e) => this.typedName(e) }),
            h("span", { id: "name-problem", class: "name-problem", "aria-live": "polite" }, problem ? `${capital(problem)}.` : "")),
          this.quickPlayBox(),
          this.createForm()),
        h("div", { class: "lobby-tables" },
          h("div", { id: "tables" }, this.tableList()),
          this.join ? joinBox(this.join.url) : null))));
  }

  quickPlayBox() {
    return h("div", { class: "quick-play" }, h("h2", {}, "Quick play"),
      h("p", { class: "hint" }, "One click: a seat at a table of that game waiting for a player, or a new one."),
      h("div", { class: "quick-buttons" }, this.app.gameList.map((game) => h("button", {
        type: "button", class: "quick", "data-key": `quick-${game.name}`, "data-game": game.name,
        "aria-busy": this.busy === game.name ? "true" : null, disabled: this.busy !== null,
        onclick: () => this.quickPlay(game.name) }, game.title))));
  }

  tableList() {
    const held = seatStore.all();
    const mineFirst = (a, b) => Boolean(held[b.table]) - Boolean(held[a.table]) || number(b.table) - number(a.table);
    const joinable = this.tables.filter((t) => t.status === "waiting" && (held[t.table] || free(t) > 0)).sort(mineFirst);
    const playing = this.tables.filter((t) => t.status !== "over" && !joinable.includes(t)).sort(mineFirst);
    const over = this.tables.filter((t) => t.status === "over").sort((a, b) => number(b.table) - number(a.table));
    const item = (t) => this.tableItem(t, held);
    return h("div", { class: "tables" },
      h("section", { class: "joinable", "aria-labelledby": "joinable-head" },
        h("h2", { id: "joinable-head" }, `Waiting for players (${joinable.length})`),
        joinable.length ? h("ul", { class: "table-list" }, joinable.map(item))
          : h("p", { class: "empty" }, "No table is waiting for a player: quick play or the form opens one.")),
      h("section", { class: "playing", "aria-labelledby": "playing-head" },
        h("h2", { id: "playing-head" }, `In play (${playing.length})`),
        playing.length ? h("ul", { class: "table-list" }, playing.map(item)) : h("p", { class: "empty" }, "None now.")),
      over.length ? h("details", { class: "finished", "data-key": "finished" },
        h("summary", {}, `Finished (${over.length})`),
        h("ul", { class: "table-list" }, over.slice(0, FINISHED_SHOWN).map(item)),
        over.length > FINISHED_SHOWN ? h("p", { class: "empty" }, `and ${over.length - FINISHED_SHOWN} older ones: `,
          h("a", { href: "#/replay" }, "replays")) : null) : null);
  }

  tableItem(t, held) {
    const mine = held[t.table];
    const title = playersTitle(t);
    const custom = t.name && t.name !== t.table && !/ \((lockstep|challenge)\)$/.test(t.name) ? t.name : null;
    return h("li", { class: `table-item${mine ? " mine" : ""}`, "data-table": t.table, "data-key": `table-${t.table}`,
                     "data-status": t.status },
      h("div", { class: "table-title" }, h("strong", { class: "players" }, title),
        h("span", { class: "table-meta" }, [custom, this.app.gameTitle(t.game), t.mode, t.table,
          t.spectators ? `${t.spectators} watching` : null].filter(Boolean).join(" · "))),
      h("div", { class: "table-seats" }, t.seats.map((seat) => seat.state === "free" && !mine && t.status !== "over"
        ? h("button", { type: "button", "data-key": `sit-${t.table}-${seat.seat}`,
                        onclick: () => this.sit(t.table, seat.seat) }, `Sit in seat ${seat.seat + 1}`)
        : h("span", { class: `seat ${seat.state}` }, seatWords(seat)))),
      h("div", { class: "table-actions" },
        mine && t.status !== "over" ? h("a", { href: `#/play/${t.table}`, class: "button" }, "Back to my seat") : null,
        t.status !== "over" ? h("a", { href: `#/watch/${t.table}`, class: "button" }, "Watch") : null,
        t.status === "over" ? h("a", { href: `#/replay/${t.table}`, class: "button" }, "Replay") : null,
        t.rematch ? h("a", { href: `#/watch/${t.rematch}`, class: "button" }, `Its rematch (${t.rematch})`) : null));
  }

  createForm() {
    const f = this.form;
    const game = this.app.gamesByName.get(f.game);
    if (!game) return null;
    const set = (name) => (e) => { f[name] = e.target.value; };
    const pace = (this.app.humanPace || {})[f.mode];
    const seats = [];
    for (let seat = 0; seat < f.seats; seat++) seats.push(seat);
    return h("form", { class: "create", onsubmit: (e) => this.create(e) }, h("h2", {}, "Create a table"),
      h("label", {}, "Game ", h("select", { "data-key": "game", name: "game",
        onchange: (e) => { this.pickGame(e.target.value); this.render(); } },
        this.app.gameList.map((g) => h("option", { value: g.name, selected: g.name === f.game }, g.title)))),
      h("label", {}, "Mode ", h("select", { "data-key": "mode", name: "mode",
                                         onchange: (e) => { f.mode = e.target.value; this.render(); } },
        game.modes.map((m) => h("option", { value: m, selected: m === f.mode },
          m === "challenge" ? "challenge (everyone at once)" : m === "lockstep" ? "lockstep (turns)" : m)))),
      h("label", {}, "Seats ", h("input", { type: "number", name: "seats", "data-key": "seats", min: game.min_seats,
        max: game.max_seats, value: f.seats, oninput: (e) => {
          if (!e.target.value) return;
          f.seats = Math.min(Math.max(Number(e.target.value) || game.min_seats, game.min_seats), game.max_seats);
          for (let seat = 1; seat < f.seats; seat++) if (!(seat in f.bots)) f.bots[seat] = "heuristic";
          this.render();
        } })),
      h("fieldset", {}, h("legend", {}, "Who sits where"), seats.map((seat) => h("label", {}, `Seat ${seat + 1} `,
        h("select", { "data-key": `bot-${seat}`, name: `bot-${seat}`,
                      onchange: (e) => { f.bots[seat] = e.target.value; } },
          [["", "a person"], ["heuristic", "server bot (heuristic)"], ["random", "server bot (random)"]].map(
            ([value, text]) => h("option", { value, selected: (f.bots[seat] || "") === value }, text)))))),
      h("label", {}, "Bots' pause before each move (ms) ", h("input", { type: "number", name: "bot_delay_ms",
        "data-key": "delay", min: 0, max: 60000, value: this.delay(), oninput: set("delay") }),
        pace !== undefined ? h("small", {}, `${pace} ms is a person's pace in ${f.mode}; 0 for bots only`) : null),
      f.mode === "lockstep" ? h("label", {}, "Time per move (ms, 0 = none) ", h("input", { type: "number",
        name: "turn_time_ms", "data-key": "turn", min: 0, value: f.turn, oninput: set("turn") })) : null,
      h("details", { open: f.open, ontoggle: (e) => { f.open = e.target.open; } }, h("summary", {}, `${game.title} options`),
        game.options.map((option) => optionInput(option, f))),
      // a broadcast delay (docs/organisers.md): spectators are shown the table this far behind, players never
      h("details", { open: f.behindOpen, ontoggle: (e) => { f.behindOpen = e.target.open; } },
        h("summary", {}, "Spectators' delay"),
        h("label", {}, "Seconds behind the table ", h("input", { type: "number", name: "spectator_delay_s",
          "data-key": "behind-s", min: 0, max: 3600, step: "any", value: f.behindS, oninput: set("behindS") })),
        h("label", {}, "Moves behind the table ", h("input", { type: "number", name: "spectator_delay_entries",
          "data-key": "behind-moves", min: 0, max: 10000, value: f.behindMoves, oninput: set("behindMoves") })),
        h("small", {}, "Spectators see the table this far behind (with both, both hold); its players never wait."),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "broadcast", "data-key": "broadcast",
          checked: f.broadcast, onchange: (e) => { f.broadcast = e.target.checked; } }),
          " A broadcast view: every hand, past the delay, for a commentator or a stream (you watch it; you do not sit)")),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "sit", "data-key": "sit", checked: f.sit,
        onchange: (e) => { f.sit = e.target.checked; } }), " Take the first free seat myself"),
      h("button", { type: "submit", class: "primary", "data-key": "create" }, "Create table"));
  }
}

// A table's free seats; its number (t12 -> 12: the newer, the higher).
function free(table) { return table.seats.filter((seat) => seat.state === "free").length; }
function number(id) { return Number(String(id).replace(/^\D+/, "")) || 0; }

// Who sits at a table, as its title: "Ana vs Ben", "Ana vs 2 heuristic bots", "Ana and 1 free seat"; a table
// whose seats are all free (a finished one its players left) is called by its game's own name.
function playersTitle(t) {
  const counts = new Map();
  for (const seat of t.seats) if (seat.name) counts.set(seat.name, (counts.get(seat.name) || 0) + 1);
  const names = [...counts].map(([name, n]) => (n > 1 ? `${n} ${name.replace(/bot$/, "bots")}` : name));
  const open = free(t);
  const seats = `${open} free seat${open === 1 ? "" : "s"}`;
  if (!names.length) return t.status === "over" ? "(its players have left)" : seats;
  const players = names.join(" vs ");
  return open && t.status !== "over" ? joinWords([players, seats]) : players;
}

// A seat in the list: its number, who and, as the table page's seat list says it, its state unless taken
// ("1: Ana (away)" once Ana's browser has gone, "2: heuristic bot (bot)", "3: free").
function seatWords(seat) {
  const state = seat.state !== "taken" ? ` (${seat.state})` : "";
  return seat.name ? `${seat.seat + 1}: ${seat.name}${state}` : `${seat.seat + 1}: ${seat.state}`;
}

// Where other devices join: the URL and its QR code; a server on a loopback address (serve's default) cannot
// be reached from another device, so it says how to open it to the LAN instead of showing a QR code of it.
function joinBox(url) {
  if (isLoopback(url)) {
    return h("aside", { class: "join local" }, h("h2", {}, "Join from another device"),
      h("p", {}, "This server listens only on this machine (",
        h("a", { href: url, class: "join-url" }, url), "), so phones and other computers cannot open it. To play ",
        "over the LAN, start it with ", h("code", {}, "photofinish serve --host 0.0.0.0"),
        ": this box then shows its LAN address and a QR code to scan."));
  }
  return h("aside", { class: "join" }, h("h2", {}, "Join from another device"),
    h("p", {}, h("a", { href: url, class: "join-url" }, url)),
    h("img", { src: "join.svg", alt: `QR code of ${url}`, width: 164, height: 164 }));
}

function isLoopback(url) {
  let host;
  try { host = new URL(url).hostname; } catch { return false; }
  return host === "localhost" || host === "[::1]" || /^127\./.test(host);
}

// One game option's input in a create form (the lobby's and the tournament's): a list of choices, a checkbox for
// a yes/no option, a number, or text; what is set goes into form.options (read by gameOptions).
export function optionInput(option, form) {
  const value = form.options[option.name] ?? "";
  const change = (e) => { form.options[option.name] = e.target.value; };  // no render: the form stays as typed
  let input;
  if (option.choices) {
    input = h("select", { name: option.name, "data-key": `opt-${option.name}`, onchange: change },
      option.choices.map((c) => h("option", { value: c, selected: (value || option.default) === c }, c)));
  } else if (typeof option.default === "boolean") { // a yes/no option: a checkbox, never text to type
    return h("label", { class: "option check", title: option.doc },
      h("input", { type: "checkbox", name: option.name, "data-key": `opt-${option.name}`,
                   checked: value === "" ? option.default : value,
                   onchange: (e) => { form.options[option.name] = e.target.checked; } }),
      ` ${option.name}`, h("small", {}, ` ${option.doc}`));
  } else if (typeof option.default === "number") {
    input = h("input", { type: "number", name: option.name, "data-key": `opt-${option.name}`, min: option.minimum,
                         max: option.maximum, placeholder: String(option.default), value, oninput: change });
  } else {
    input = h("textarea", { name: option.name, "data-key": `opt-${option.name}`, rows: 2,
                            placeholder: String(option.default).slice(0, 60), oninput: change }, value);
  }
  return h("label", { class: "option", title: option.doc }, `${option.name} `, input,
    h("small", {}, ` ${option.doc}`));
}
