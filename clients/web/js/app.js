// The page: one protocol client, the games the server offers, and a router over the location's hash:
// #/ the lobby, #/play/<table> your seat there (resumed with the token this browser keeps), #/watch/<table>,
// #/broadcast/<table>/<key> its broadcast view (every hand, past its delay: a commentator's screen, a stream);
// #/replay[/<table>] a finished table step by step; #/tournaments, #/tournament/<T>, #/organise[/<T>].

import { Client, encodingOf, serverUrl } from "./protocol.js";
import { LobbyPage } from "./lobby.js";
// A table's and a replay's page (with the game screens and the words they say things in) are loaded when
// first shown: the lobby a newcomer opens first stays small.
import { tournamentMessage, tournamentPage } from "./tournament.js";

class App {
  constructor() {
    this.root = document.getElementById("app");
    this.status = document.getElementById("status");
    this.page = null;
    this.gameList = [];
    this.gamesByName = new Map();
    this.humanPace = {};
    this.backlog = new Map(); // table -> messages that came while no page showed it (a seat's first snapshot)
    this.routes = 0; // hash changes routed so far: only the latest one's page is shown
    this.client = new Client(serverUrl(location), {
      onMessage: (message) => this.receive(message),
      onStatus: (status) => this.showStatus(status),
      encoding: encodingOf(location),
    });
  }

  async games() {
    if (!this.gameList.length) {
      const answer = await this.client.request({ type: "list_games" });
      this.humanPace = answer.human_pace_ms || {}; // server bots' pause at a person's pace, by mode
      this.gameList = answer.games;
      this.gamesByName = new Map(this.gameList.map((g) => [g.name, g]));
    }
    return this.gameList;
  }

  gameTitle(name) {
    const game = this.gamesByName.get(name);
    return game ? game.title : name || "";
  }

  showStatus(status) {
    const words = { connecting: "connecting...", connected: "connected", reconnecting: "connection lost: reconnecting...",
                    closed: "disconnected" };
    this.status.textContent = words[status] || status;
    this.status.dataset.state = status;
  }

  receive(message) {
    if (message.type === "closing") {
      this.status.textContent = `the server closed the connection: ${message.message}`;
      return;
    }
    if (message.type === "tournament" || message.type === "your_table") return tournamentMessage(this, message);
    if (this.page && this.page.shows && this.page.shows(message.table)) return this.page.receive(message);
    if (message.table === undefined) return;
    const queued = this.backlog.get(message.table) || [];
    queued.push(message);
    this.backlog.set(message.table, queued.slice(-500));
  }

  takeBacklog(table) {
    const queued = this.backlog.get(table) || [];
    this.backlog.delete(table);
    return queued;
  }

  // The page the hash names now. A page's modules load first (a table's page, the first time: a fetch); a hash
  // changed again meanwhile is routed by its own call, and this one, then out of date, shows nothing (it drew the
  // seat page over the tournament page a player had gone back to).
  async route() {
    const routed = ++this.routes;
    if (this.page) this.page.destroy();
    const [, kind, table, key] = location.hash.match(/^#\/(play|watch|broadcast)\/([^/]+)(?:\/([^/]+))?$/) || [];
    const replay = location.hash.match(/^#\/replay(?:\/([^/]+))?$/);
    const [, module] = await Promise.all([
      this.games(),
      kind ? import("./table.js") : replay ? import("./replay.js") : null,
      (kind || replay) && import("./sentences.js").then((words) => words.loadWords()),
    ]);
    if (routed !== this.routes) return;
    this.page = kind ? new module.TablePage(this, decodeURIComponent(table), kind === "broadcast" ? "watch" : kind,
                                            kind === "broadcast" && key ? decodeURIComponent(key) : "")
      : replay ? new module.ReplayPage(this, replay[1] && decodeURIComponent(replay[1]))
      : tournamentPage(this, location.hash) || new LobbyPage(this);
    await this.page.start();
  }
}

const app = new App();
window.photofinish = app; // for the browser's console
window.addEventListener("hashchange", () => app.route());
app.client.connect();
app.route();
