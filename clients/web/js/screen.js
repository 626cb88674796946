// The venue screen, #/tournament/<T>/screen[/<view>]: a tournament on a projector or a TV in the room (1920x1080,
// read from the back): the round's pairings by player name (player -> table and seat, in as many columns as it
// takes), the round clock, the live standings, and a QR code of the tournament's page to join from a phone.
// It moves from view to view by itself; a view's tab (or /<view> in the address) pins it.
//
// The state is the tournament's pushes (as on its page) and its log (history.js) for the seating order, table
// numbers and when the round started; no secret is needed: anyone may put it on a screen.

import { h, morph, mount } from "./dom.js";
import { pointsText } from "./figures.js";
import { byName, currentRound, LogFollower, pairings } from "./history.js";
import { statusWords, withLists } from "./tournament.js";

const DWELL = { pairings: 20, standings: 12, join: 8, players: 15 }; // seconds a view stays before the next
const TITLES = { pairings: "Pairings", standings: "Standings", join: "Join", players: "Players" };

// How many rows a column holds at each size, and the sizes from the largest down: the largest size that fits
// every name on one screen is taken (1920x1080 below the header); past the smallest, pages take turns.
const SIZES = [["large", 20, 2], ["medium", 26, 3], ["small", 32, 4]]; // [class, rows per column, columns]

export class VenueScreen {
  constructor(app, id, pinned) {
    this.app = app;
    this.client = app.client;
    this.id = id;
    this.data = null;
    this.log = null;
    this.error = null;
    this.joinUrl = "";
    this.pinned = pinned in DWELL ? pinned : null;
    this.view = this.pinned || "pairings";
    this.since = Date.now(); // when the current view (and page) went up
    this.page = 0; // of a view longer than one screen
    this.drawn = false;
    this.gone = false;
    this.follower = new LogFollower(this.client, id, (log) => { this.log = log; this.render(); });
    this.timer = null;
  }

  shows() { return false; }

  destroy() {
    this.gone = true; // an answer still on its way draws nothing over the next page
    clearInterval(this.timer);
    this.follower.stop();
    document.body.classList.remove("venue");
  }

  async start() {
    document.body.classList.add("venue");
    this.render();
    this.timer = setInterval(() => this.second(), 1000);
    fetch("join.json").then((r) => (r.ok ? r.json() : null)).then((join) => {
      if (join) { this.joinUrl = `${join.url}#/tournament/${this.id}`; this.render(); }
    }, () => {});
    try {
      this.receive(await this.client.watchTournament(this.id, ""));
    } catch (error) {
      this.error = error.reason || error.message || String(error);
      this.render();
    }
  }

  receive(message) {
    if (message.type !== "tournament") return;
    this.data = withLists(message);
    this.follower.refresh();
    const views = this.views();
    if (this.pinned && views.includes(this.pinned) && this.view !== this.pinned) this.show(this.pinned);
    else if (!views.includes(this.view)) this.show(views[0]);
    this.render();
  }

  // The views this moment has: the pairings only while a round is seated, the players before the start.
  views() {
    const info = this.data && this.data.tournament;
    if (!info || info.status === "registration") return ["join", "players"];
    if (info.status === "over") return ["standings", "join"];
    return ["pairings", "standings", "join"];
  }

  show(view) {
    this.view = view;
    this.since = Date.now();
    this.page = 0;
  }

  pin(view) {
    this.pinned = this.pinned === view ? null : view;
    this.show(view);
    this.render();
  }

  // Each second: the clock, and the next view (or page) once this one has been up its time.
  second() {
    const due = Date.now() - this.since >= DWELL[this.view] * 1000;
    const pinned = this.views().includes(this.pinned); // a view pinned before it exists: cycle until it does
    if (!pinned && due) {
      const pages = this.pages().length;
      if (this.page + 1 < pages) {
        this.page += 1;
        this.since = Date.now();
      } else {
        const views = this.views();
        this.show(views[(views.indexOf(this.view) + 1) % views.length]);
      }
    } else if (pinned && due && this.pages().length > 1) {
      this.page = (this.page + 1) % this.pages().length; // a pinned long list still shows all of itself
      this.since = Date.now();
    }
    this.render();
  }

  name(player) {
    const found = this.data && this.data.players.find((p) => p.player === player);
    return found ? found.name : (this.log && this.log.names.get(player)) || player;
  }

  // The current view's rows cut into screens, each { size, columns, perColumn, rows } (SIZES above).
  pages() {
    if (!this.data) return [];
    const rows = this.view === "pairings" ? pairings(currentRound(this.data, this.log), (p) => this.name(p))
      : this.view === "players" ? this.data.players.filter((p) => !p.waitlisted && !p.dropped)
        .map((p) => ({ name: p.name, player: p.player })).sort((a, b) => byName.compare(a.name, b.name))
        : this.view === "standings" ? this.data.standings : [];
    if (!rows.length) return [{ size: "large", columns: 1, rows }];
    const [size, perColumn, most] = SIZES.find(([, r, c]) => rows.length <= r * c) || SIZES[SIZES.length - 1];
    const perPage = perColumn * most;
    const out = [];
    for (let at = 0; at < rows.length; at += perPage) {
      const part = rows.slice(at, at + perPage);
      out.push({ size, columns: Math.ceil(part.length / perColumn), perColumn: Math.ceil(part.length /
        Math.ceil(part.length / perColumn)), rows: part });
    }
    return out;
  }

  clock() {
    const info = this.data && this.data.tournament;
    if (!info || !this.log || info.status !== "running") return null;
    const arena = info.format === "arena";
    const round = arena ? this.log.rounds[0] : this.log.rounds.find((r) => r.round === info.round);
    if (!round || !round.started) return null;
    const limit = arena ? this.log.arenaMs : this.log.roundTimeMs; // an arena's clock is the whole event's
    const now = Date.now();
    if (limit) {
      const left = Math.max(0, round.started + limit - now);
      return h("span", { class: `round-clock${left === 0 ? " up" : ""}`, "data-key": "clock" },
        left === 0 ? "time" : `${minutes(left)} left`);
    }
    return h("span", { class: "round-clock", "data-key": "clock" }, minutes(now - round.started));
  }

  render() {
    if (this.gone) return;
    const d = this.data;
    const info = d && d.tournament;
    const pages = this.pages();
    const page = pages[Math.min(this.page, pages.length - 1)];
    const draw = this.drawn ? morph : mount;
    this.drawn = true;
    draw(this.app.root, h("section", { class: "venue-screen", "data-tournament": this.id, "data-view": this.view },
      h("header", { class: "venue-head" },
        h("h1", {}, info ? info.name || info.tournament : this.id),
        info ? h("span", { class: "venue-round" }, statusWords(info),
          info.waiting_round ? " · starts soon" : "") : null, // pairings first: published, not begun
        this.clock(),
        h("nav", { class: "venue-tabs", "aria-label": "views" }, this.views().map((v) => h("button", {
          type: "button", class: `view-tab${v === this.view ? " shown" : ""}`, "data-view": v, "data-key": `tab-${v}`,
          "aria-pressed": this.pinned === v ? "true" : "false", title: this.pinned === v ? "unpin" : "pin this view",
          onclick: () => this.pin(v) }, TITLES[v], this.pinned === v ? " (pinned)" : "")),
          pages.length > 1 ? h("span", { class: "venue-page" }, `${this.page + 1}/${pages.length}`) : null)),
      this.view === "pairings" && page && page.size === "small"
        ? h("p", { class: "venue-legend" }, "name", h("span", {}, h("b", {}, "table"), " · seat")) : null,
      this.error ? h("p", { class: "error", role: "alert" }, this.error) : null,
      d ? this.body(page) : null));
  }

  body(page) {
    const style = page && page.rows.length ? { gridTemplateRows: `repeat(${page.perColumn}, auto)`,
                                               gridTemplateColumns: `repeat(${page.columns}, minmax(0, 1fr))` } : null;
    const list = (cls, items) => h("ol", { class: `venue-list ${cls} ${page.size}`, style }, items);
    if (this.view === "pairings") {
      const compact = page.size === "small"; // four columns: "12 · 3" under the header's "table · seat"
      return h("div", { class: "venue-body" }, list("pairings", page.rows.map((r) => h("li", {
        class: `pairing${r.over ? " over" : ""}`, "data-player": r.player },
        h("span", { class: "name" }, r.name),
        r.number ? h("span", { class: "where" }, h("span", { class: "table-no" }, compact ? r.number : `table ${r.number}`),
          h("span", { class: "seat-no" }, compact ? ` · ${r.seat}` : ` seat ${r.seat}`))
          : h("span", { class: "where" }, "bye")))));
    }
    if (this.view === "players") {
      return h("div", { class: "venue-body" }, page.rows.length
        ? list("players", page.rows.map((r) => h("li", { "data-player": r.player }, h("span", { class: "name" }, r.name))))
        : h("p", { class: "venue-empty" }, "No one has registered yet: scan the code to be the first."));
    }
    if (this.view === "standings") {
      return h("div", { class: "venue-body" }, list("standings", page.rows.map((r) => h("li", {
        class: r.dropped ? "dropped" : "", "data-player": r.player },
        h("span", { class: "rank" }, r.rank), h("span", { class: "name" }, r.name),
        h("span", { class: "points" }, pointsText(r.points))))));
    }
    const open = this.data.tournament.status === "registration";
    return h("div", { class: "venue-body venue-join" },
      h("img", { src: `join/${encodeURIComponent(this.id)}.svg`, alt: "QR code of this tournament's page",
                 class: "venue-qr" }),
      h("div", {}, h("p", { class: "venue-call" }, open ? "Scan to register" : "Scan to follow the tournament"),
        h("p", {}, open ? "Then your table and seat each round come to your phone."
          : "Your table and seat, the standings and every round, on your phone."),
        this.joinUrl ? h("p", { class: "venue-url" }, this.joinUrl) : null));
  }
}

function minutes(ms) {
  const s = Math.floor(ms / 1000);
  const hours = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(hours ? 2 : 1, "0");
  return `${hours ? `${hours}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
}
