// The lobby: the join URL and its QR code, the tables (status, seats, spectators; sit or watch), and a form
// to create a table of any game with its options, mode, seats, server bots and their pace.

import { h, mount } from "./dom.js";
import { seatStore } from "./protocol.js";

const NAME = "photofinish.name";

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
    this.form = { game: "flag_finish", mode: null, seats: 2, bots: {}, options: {}, delay: 300, turn: 0, sit: true };
    this.timer = setInterval(() => this.refresh(), 2000);
  }

  destroy() { clearInterval(this.timer); }

  async start() {
    this.render();
    fetch("join.json").then((r) => (r.ok ? r.json() : null)).then((join) => { this.join = join; this.render(); },
      () => {});
    await this.app.games();
    this.pickGame(this.form.game);
    await this.refresh();
  }

  async refresh() {
    try {
      this.tables = await this.client.listTables();
    } catch (error) { this.notice = error.reason || String(error); }
    const list = document.getElementById("tables");
    if (list) mount(list, this.tableList()); // only the list: a form being filled in is left alone
    else this.render();
  }

  get name() { return localStorage.getItem(NAME) || ""; }

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

  async sit(table, seat) {
    try {
      await this.client.takeSeat(table, seat, this.name);
      location.hash = `#/play/${table}`;
    } catch (error) {
      this.notice = `Could not take the seat: ${error.reason || error}`;
      this.render();
    }
  }

  async create(event) {
    event.preventDefault();
    const f = this.form;
    const game = this.app.gamesByName.get(f.game);
    const options = gameOptions(game, f.options);
    const bots = Object.entries(f.bots).filter(([seat, policy]) => policy && Number(seat) < f.seats)
      .map(([seat, policy]) => ({ seat: Number(seat), policy }));
    try {
      const table = await this.client.createTable({
        game: f.game, mode: f.mode, seats: f.seats, options, bots, bot_delay_ms: Number(f.delay) || 0,
        turn_time_ms: Number(f.turn) || 0, name: `${game.title} (${f.mode})`,
      });
      const free = table.seats.find((seat) => seat.state === "free");
      if (f.sit && free) return this.sit(table.table, free.seat);
      location.hash = `#/watch/${table.table}`;
    } catch (error) {
      this.notice = `Could not create the table: ${error.reason || error}`;
      this.render();
    }
  }

  render() {
    mount(this.app.root, h("section", { class: "lobby" },
      h("h1", {}, "Lobby"),
      this.notice ? h("p", { class: "notice", role: "alert" }, this.notice) : null,
      h("div", { class: "lobby-grid" },
        h("div", {},
          h("label", { class: "name" }, "Your name ",
            h("input", { id: "name", "data-key": "name", value: this.name, maxlength: 24, autocomplete: "nickname",
                         oninput: (e) => localStorage.setItem(NAME, e.target.value.trim()) })),
          h("div", { id: "tables" }, this.tableList()),
          this.createForm()),
        this.join ? joinBox(this.join.url) : null)));
  }

  tableList() {
    const held = seatStore.all();
    return h("div", { class: "tables" }, h("h2", {}, "Tables"),
      this.tables.length === 0 ? h("p", {}, "No tables yet: create one below.") :
      h("ul", { class: "table-list" }, this.tables.map((t) => h("li", { class: "table-item", "data-table": t.table },
        h("div", { class: "table-title" }, h("strong", {}, t.name || t.table),
          ` · ${this.app.gameTitle(t.game)} · ${t.mode} · ${t.status} · ${t.spectators} watching`),
        h("div", { class: "table-seats" }, t.seats.map((seat) => seat.state === "free" && !held[t.table] && t.status !== "over"
          ? h("button", { type: "button", "data-key": `sit-${t.table}-${seat.seat}`,
                          onclick: () => this.sit(t.table, seat.seat) }, `Sit in seat ${seat.seat + 1}`)
          : h("span", { class: `seat ${seat.state}` }, seatWords(seat)))),
        h("div", { class: "table-actions" },
          held[t.table] ? h("a", { href: `#/play/${t.table}`, class: "button" }, "Back to my seat") : null,
          h("a", { href: `#/watch/${t.table}`, class: "button" }, "Watch"),
          t.status === "over" ? h("a", { href: `#/replay/${t.table}`, class: "button" }, "Replay") : null)))));
  }

  createForm() {
    const f = this.form;
    const game = this.app.gamesByName.get(f.game);
    if (!game) return null;
    const set = (name) => (e) => { f[name] = e.target.value; };
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
        "data-key": "delay", min: 0, max: 10000, value: f.delay, oninput: set("delay") })),
      f.mode === "lockstep" ? h("label", {}, "Time per move (ms, 0 = none) ", h("input", { type: "number",
        name: "turn_time_ms", "data-key": "turn", min: 0, value: f.turn, oninput: set("turn") })) : null,
      h("details", { open: f.open, ontoggle: (e) => { f.open = e.target.open; } }, h("summary", {}, `${game.title} options`), game.options.map((option) => optionInput(option, f))),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "sit", "data-key": "sit", checked: f.sit,
        onchange: (e) => { f.sit = e.target.checked; } }), " Take the first free seat myself"),
      h("button", { type: "submit", class: "primary", "data-key": "create" }, "Create table"));
  }
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
