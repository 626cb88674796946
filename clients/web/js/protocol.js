// The protocol client: one websocket to the server that served this page, mirroring clients/client.py (in a
// cluster, a `redirect` moves it to the node that has the table asked for).
//
// request(message) sends it with a fresh id and resolves with the answer whose ref is that id (rejects with a
// ServerError for `error` and `rejected`). Updates and snapshots go to onMessage, each update once and in
// order. When the socket drops, the client reconnects with backoff, says hello again, resumes every seat with
// its token (kept in localStorage, so a reload resumes too) and every watched table from the last seq it saw,
// and resends unanswered requests with their first ids: the server answers a resent action once.
// It answers the server's pings at once (the round trip a fair table credits), and each action says which
// update it was chosen on (`seen`: the last one received from that table).

const PROTOCOL = 1;
const NO_RECONNECT = new Set(["replaced", "protocol_mismatch", "hello_first", "bad_hello", "flood"]);
const STORE = "photofinish.seats";

export class ServerError extends Error {
  constructor(code, message, answer) {
    super(`${code}: ${message}`);
    this.code = code;
    this.reason = message;
    this.answer = answer;
  }
}

// The seat tokens this browser holds, by table: {table: {token, seat, name}}.
export const seatStore = {
  all() {
    try { return JSON.parse(localStorage.getItem(STORE) || "{}"); } catch { return {}; }
  },
  get(table) { return this.all()[table] || null; },
  put(table, seat) { const all = this.all(); all[table] = seat; localStorage.setItem(STORE, JSON.stringify(all)); },
  drop(table) { const all = this.all(); delete all[table]; localStorage.setItem(STORE, JSON.stringify(all)); },
};

export function serverUrl(location) {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
}

export class Client {
  constructor(url, { onMessage = () => {}, onStatus = () => {} } = {}) {
    this.url = url;
    this.onMessage = onMessage; // (update or snapshot or closing or stray error)
    this.onStatus = onStatus; // ("connecting" | "connected" | "reconnecting" | "closed", detail)
    this.seats = new Map(); // table -> {token, seat}
    this.watching = new Set();
    this.followed = new Map(); // tournament -> the player token it is watched with ("" for none)
    this.lastSeq = new Map();
    this.pending = new Map(); // id -> {message, resolve, reject}
    this.ids = 0;
    this.nonce = Math.random().toString(36).slice(2, 8);
    this.ws = null;
    this.open = false;
    this.closed = false;
    this.delay = 100;
    this.reconnects = 0;
  }

  connect() {
    this.onStatus(this.reconnects ? "reconnecting" : "connecting");
    const ws = (this.ws = new WebSocket(this.url));
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", protocol: PROTOCOL, id: 0, client: "web", batch: true }));
    ws.onmessage = (frame) => this.take(JSON.parse(frame.data), ws);
    ws.onclose = () => this.dropped(ws);
  }

  dropped(ws) {
    if (ws !== this.ws) return;
    this.open = false;
    this.ws = null;
    if (this.closed) { this.onStatus("closed"); return; }
    this.reconnects += 1;
    this.onStatus("reconnecting");
    setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, 2000);
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }

  // ------------------------------------------------------------------ requests

  request(message) {
    const id = `${this.nonce}.${++this.ids}`;
    const sent = { ...message, id };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { message: sent, resolve, reject });
      if (this.open) this.ws.send(JSON.stringify(sent)); // else: the resync after the hello sends it
    });
  }

  async listGames() { return (await this.request({ type: "list_games" })).games; }
  async listTables() { return (await this.request({ type: "list_tables" })).tables; }
  async createTable(fields) { return (await this.request({ type: "create_table", ...fields })).table; }

  async takeSeat(table, seat, name) {
    const seated = await this.request({ type: "take_seat", table, seat, name });
    this.seats.set(table, { token: seated.token, seat: seated.seat });
    seatStore.put(table, { token: seated.token, seat: seated.seat, name });
    return seated;
  }

  async resume(table, token) {
    const seated = await this.request({ type: "resume", table, token, last_seq: this.lastSeq.get(table) || 0 });
    this.seats.set(table, { token, seat: seated.seat });
    return seated;
  }

  async watch(table) {
    const watching = await this.request({ type: "watch", table, last_seq: this.lastSeq.get(table) || 0 });
    this.watching.add(table);
    return watching;
  }

  act(table, action) {
    const seen = this.lastSeq.get(table);
    return this.request(seen === undefined ? { type: "act", table, action } : { type: "act", table, action, seen });
  }

  // A tournament's state now, then `tournament` and (with a player's token) `your_table` pushes in onMessage;
  // followed again after a reconnect.
  async watchTournament(tournament, token = "") {
    const state = await this.request({ type: "watch_tournament", tournament, token });
    this.followed.set(tournament, token);
    return state;
  }

  async leave(table) {
    await this.request({ type: "leave", table });
    this.seats.delete(table);
    this.watching.delete(table);
    seatStore.drop(table);
  }

  // ------------------------------------------------------------------ the connection

  resync(ws) {
    for (const [table, seat] of this.seats) {
      ws.send(JSON.stringify({ type: "resume", id: `resume-${table}`, table, token: seat.token,
                               last_seq: this.lastSeq.get(table) || 0 }));
    }
    for (const table of this.watching) {
      ws.send(JSON.stringify({ type: "watch", id: `watch-${table}`, table, last_seq: this.lastSeq.get(table) || 0 }));
    }
    for (const [tournament, token] of this.followed) {
      ws.send(JSON.stringify({ type: "watch_tournament", id: `follow-${tournament}`, tournament, token }));
    }
    for (const pending of this.pending.values()) ws.send(JSON.stringify(pending.message));
  }

  // A cluster node says the table (or a new table) is on another node: move this connection there (the lists
  // are the whole cluster's on any node) and ask again; the resync after its hello resends the request.
  redirect(pending, message) {
    pending.hops = (pending.hops || 0) + 1;
    if (pending.hops > 3) {
      this.pending.delete(message.ref);
      pending.reject(new ServerError("redirect_loop", "sent on too many times; the cluster is confused", message));
      return;
    }
    if (pending.message.type === "create_table") pending.message = { ...pending.message, placed: true };
    this.url = message.url;
    const old = this.ws;
    this.ws = null;
    this.open = false;
    if (old) { old.onclose = null; old.close(); }
    this.connect();
  }

  take(message, ws) {
    switch (message.type) {
      case "batch":
        for (const inner of message.messages) this.take(inner, ws);
        return;
      case "ping":
        ws.send(JSON.stringify({ type: "pong", ping: message.ping }));
        return;
      case "welcome":
        this.open = true;
        this.delay = 100;
        this.resync(ws);
        this.onStatus("connected");
        return;
      case "update":
      case "snapshot": {
        const last = this.lastSeq.get(message.table) || 0;
        if (message.type === "update" && message.seq <= last) return; // seen before a reconnect: never twice
        if (message.seq >= 0) this.lastSeq.set(message.table, Math.max(last, message.seq));
        this.onMessage(message);
        return;
      }
      case "closing":
        if (NO_RECONNECT.has(message.code)) this.closed = true;
        this.onMessage(message);
        return;
    }
    const pending = message.ref != null ? this.pending.get(message.ref) : undefined;
    if (pending && message.type === "redirect") { this.redirect(pending, message); return; }
    if (pending) {
      this.pending.delete(message.ref);
      if (message.type === "error" || message.type === "rejected") {
        pending.reject(new ServerError(message.code, message.message, message));
      } else {
        pending.resolve(message);
      }
    } else if (message.type === "error" || message.ref == null || String(message.ref).startsWith("follow-")) {
      this.onMessage(message); // a stray error, a push (tournament, your_table, table_ended), a re-follow's answer
    }
  }
}
