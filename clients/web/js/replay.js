// The replay page: a finished table step by step (start, back, forward, end, jump to an entry, play at a speed),
// as any seat saw it or as a spectator. The frames come from the server's `replay` request, made from a finished
// table's log on the server (#/replay/<table>) or from an exported log loaded from a file
// (`photofinish export LOG`, sent as it is, compressed); the server checks and rebuilds them with the game's own view and redaction, so a frame
// holds only what the chosen seat saw. Every frame received is kept: going back shows a kept frame again.

import { h, mount } from "./dom.js";
import { screenFor } from "./games/index.js";
import { isQuiet, line, sayEvent, sayReplayContest, sayResult } from "./sentences.js";

const PAGE = 200; // frames per request (the server's most)
const MAX_FRAME = 64 * 1024; // the server's limit on one message (PROTOCOL.md, Limits)
const SPEEDS = [0.5, 1, 2, 4, 10, 50];
const LONGEST_PAUSE_MS = 2000; // playing, a long think in the log is cut to this (at 1x)

export class ReplayPage {
  constructor(app, log) {
    this.app = app;
    this.client = app.client;
    this.state = {
      log: log || "", packed: null, fileName: "", seat: null, game: null, seats: 0, mode: "", names: [],
      frames: [], total: 0, index: 0, playing: false, speed: 1, error: null, finished: [], loading: 0,
    };
    this.timer = null;
    this.loads = 0; // a new load (another seat, another log) makes an older one stop
    this.gone = false; // left: an answer or a file still on its way draws nothing over the next page
    this.keys = (event) => this.key(event);
    document.addEventListener("keydown", this.keys);
  }

  shows() { return false; } // no table's live messages belong here

  destroy() {
    this.gone = true;
    this.loads += 1; // a load under way stops asking for frames
    clearTimeout(this.timer);
    document.removeEventListener("keydown", this.keys);
  }

  async start() {
    this.render();
    if (this.state.log) return this.load();
    try {
      const tables = await this.client.listTables();
      this.state.finished = tables.filter((t) => t.status === "over" && !t.table.startsWith("p"));
    } catch (error) { this.state.error = error.reason || String(error); }
    this.render();
  }

  // ------------------------------------------------------------------ loading frames

  source() {
    const s = this.state;
    return s.packed ? { export: s.packed } : { log: s.log };
  }

  async load(keepIndex = false) {
    const s = this.state;
    const load = ++this.loads;
    this.pause();
    s.error = null;
    s.frames = [];
    s.loading = 1;
    if (!keepIndex) s.index = 0;
    this.render();
    try {
      let start = 0;
      do {
        const message = { type: "replay", ...this.source(), seat: s.seat, start, count: PAGE };
        if (s.packed && JSON.stringify(message).length > MAX_FRAME - 256) {
          throw { reason: `this log is too large to send (${Math.round(s.packed.length / 1024)} KiB compressed; ` +
            "one message may hold 64 KiB): replay it here by its table id on the server that played it, or " +
            "with `photofinish replay LOG --step`" };
        }
        const answer = await this.client.request(message);
        if (load !== this.loads) return;
        Object.assign(s, { game: answer.game, seats: answer.seats, mode: answer.mode, names: answer.names,
                           total: answer.total });
        s.frames.push(...answer.frames);
        start = s.frames.length;
        s.index = Math.min(s.index, s.total - 1);
        this.render();
      } while (s.frames.length < s.total);
    } catch (error) {
      if (load !== this.loads) return;
      s.error = `Cannot replay it: ${error.reason || error.message || error}`;
    }
    s.loading = 0;
    this.render();
  }

  readFile(file) {
    const s = this.state;
    if (!file) return;
    file.text().then((text) => packExport(text, file.name)).then((packed) => {
      s.packed = packed;
      s.fileName = file.name;
      s.log = "";
      s.seat = null;
      return this.load();
    }).catch((error) => {
      s.error = `Cannot replay it: ${error.reason || error.message || error}`;
      this.render();
    });
  }

  // ------------------------------------------------------------------ stepping

  go(index) {
    const s = this.state;
    s.index = Math.max(0, Math.min(index, s.frames.length - 1));
    this.render();
  }

  play() {
    const s = this.state;
    if (s.index >= s.total - 1) s.index = 0;
    s.playing = true;
    this.render();
    this.schedule();
  }

  pause() {
    clearTimeout(this.timer);
    this.state.playing = false;
  }

  schedule() {
    const s = this.state;
    clearTimeout(this.timer);
    if (!s.playing) return;
    const now = s.frames[s.index], next = s.frames[s.index + 1];
    if (!next) {
      if (s.frames.length >= s.total) { s.playing = false; this.render(); return; }
      this.timer = setTimeout(() => this.schedule(), 100); // the next frames are still coming
      return;
    }
    const gap = Math.min(LONGEST_PAUSE_MS, Math.max(60, (next.time - now.time) * 1000));
    this.timer = setTimeout(() => { s.index += 1; this.render(); this.schedule(); }, gap / s.speed);
  }

  key(event) {
    if (!this.state.frames.length || event.target.closest("input, select, textarea")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (event.key in moves) {
      event.preventDefault();
      this.pause();
      const step = moves[event.key];
      this.go(Number.isFinite(step) ? this.state.index + step : step < 0 ? 0 : this.state.frames.length - 1);
    }
  }

  // ------------------------------------------------------------------ render

  who = (seat) => { // as the live table names its seats: three "heuristic bot"s are "heuristic bot 2", ...
    const name = this.state.names[seat];
    if (!name) return `Seat ${seat + 1}`;
    return this.state.names.some((other, i) => i !== seat && other === name) ? `${name} ${seat + 1}` : name;
  };

  // Who reads the feed: a replay names every seat, the one it is seen by too.
  reader() {
    return { me: null, name: this.who, seats: this.state.seats };
  }

  context(frame, screenState) {
    const s = this.state;
    return { view: frame.view, legal: [], seat: s.seat, who: this.who, state: screenState, act: () => {},
             key: (action) => JSON.stringify(action), isPending: () => false };
  }

  // The feed up to the shown frame, in words (a game's screen words its own events), newest first.
  feed(screen) {
    const s = this.state;
    const screenState = { took: new Map(), pending: new Map(), seat: s.seat, role: "watch", legal: [], toAct: [] };
    const lines = [];
    for (const frame of s.frames.slice(1, s.index + 1)) {
      for (const event of frame.events) {
        if (screen.remember) screen.remember(event, screenState);
        if (isQuiet(event)) continue;
        const words = line(sayEvent(s.game, event, this.reader()));
        lines.push({ seq: frame.seq, words });
      }
      if (frame.contest && lines.length && lines[lines.length - 1].seq === frame.seq) {
        lines[lines.length - 1].contest = this.contestWords(frame); // said with the take it decided
      }
    }
    return { lines: lines.slice(-40).reverse(), screenState };
  }

  // A take that beat another seat's same take (fair ordering): who reacted first, by how much, and a tie's lot.
  contestWords(frame) {
    return line(sayReplayContest(frame.actor, frame.contest, this.reader()));
  }

  render() {
    if (this.gone) return;
    const s = this.state;
    mount(this.app.root, h("section", { class: "replay-page" },
      h("div", { class: "table-head" }, h("a", { href: "#/", class: "back" }, "← Lobby"), h("h1", {}, "Replay"),
        s.game ? h("span", { class: "game-title" }, `${s.log ? `table ${s.log}` : s.fileName} · ` +
          `${this.app.gameTitle(s.game)} · ${s.mode}`) : null),
      this.sources(),
      s.error ? h("p", { class: "error", role: "alert" }, s.error) : null,
      s.frames.length ? this.player() : s.loading ? h("p", {}, "Loading...") : null));
  }

  sources() {
    const s = this.state;
    return h("details", { class: "replay-sources", open: !s.frames.length },
      h("summary", {}, "Choose a table to replay"),
      h("form", { class: "replay-open", onsubmit: (e) => {
        e.preventDefault();
        const log = new FormData(e.target).get("log").trim();
        if (log) location.hash = `#/replay/${encodeURIComponent(log)}`;
      } },
        h("label", {}, "A finished table on this server ",
          h("input", { name: "log", "data-key": "log", placeholder: "t12", value: s.log, size: 8, required: true })),
        h("button", { type: "submit" }, "Replay it")),
      s.finished.length ? h("p", { class: "replay-finished" }, "Finished here: ",
        s.finished.map((t) => h("a", { href: `#/replay/${t.table}`, class: "button" },
          `${t.table} · ${this.app.gameTitle(t.game)}`))) : null,
      h("label", { class: "replay-file" }, "Or an exported log (photofinish export LOG) ",
        h("input", { type: "file", name: "file", accept: ".json,application/json",
                     onchange: (e) => this.readFile(e.target.files[0]) })));
  }

  player() {
    const s = this.state;
    const frame = s.frames[s.index];
    const screen = screenFor(s.game);
    const { lines, screenState } = this.feed(screen);
    const last = s.frames.length - 1;
    const stop = () => this.pause();
    const seats = [];
    for (let seat = 0; seat < s.seats; seat++) seats.push(seat);
    return h("div", { class: "replay" },
      h("div", { class: "replay-controls", role: "group", "aria-label": "replay controls" },
        h("label", {}, "Seen by ", h("select", { name: "seat", "data-key": "seat", onchange: (e) => {
          s.seat = e.target.value === "" ? null : Number(e.target.value);
          this.load(true);
        } }, h("option", { value: "", selected: s.seat === null }, "a spectator"),
          seats.map((seat) => h("option", { value: seat, selected: s.seat === seat }, `${this.who(seat)} (seat ${seat + 1})`)))),
        h("button", { type: "button", "data-key": "first", onclick: () => { stop(); this.go(0); },
                      disabled: s.index === 0 }, "« Start"),
        h("button", { type: "button", "data-key": "back", onclick: () => { stop(); this.go(s.index - 1); },
                      disabled: s.index === 0 }, "◀ Back"),
        s.playing ? h("button", { type: "button", "data-key": "play", class: "primary", onclick: () => { stop(); this.render(); } }, "Pause")
          : h("button", { type: "button", "data-key": "play", class: "primary", onclick: () => this.play() }, "▶ Play"),
        h("button", { type: "button", "data-key": "forward", onclick: () => { stop(); this.go(s.index + 1); },
                      disabled: s.index >= last }, "Forward ▶"),
        h("button", { type: "button", "data-key": "last", onclick: () => { stop(); this.go(last); },
                      disabled: s.index >= last }, "End »"),
        h("label", {}, "Speed ", h("select", { name: "speed", "data-key": "speed", onchange: (e) => {
          s.speed = Number(e.target.value);
          this.schedule();
        } }, SPEEDS.map((x) => h("option", { value: x, selected: x === s.speed }, `${x}×`)))),
        h("label", { class: "replay-jump" }, "Entry ", h("input", {
          type: "range", name: "entry", "data-key": "entry", min: 0, max: Math.max(0, s.total - 1), value: s.index,
          "aria-valuetext": `step ${s.index} of ${s.total - 1}`,
          oninput: (e) => { stop(); this.go(Number(e.target.value)); } }))),
      h("p", { class: "replay-where", "aria-live": "polite" },
        `Step ${s.index} of ${s.total - 1}` + (frame.seq ? ` · log entry ${frame.seq} · ${frame.time.toFixed(1)} s` : " · before the first entry") +
        (s.frames.length < s.total ? ` · loading ${s.frames.length}/${s.total}` : "") +
        ` · seen by ${s.seat === null ? "a spectator" : this.who(s.seat)}`),
      frame.result ? h("p", { class: "result", role: "status" }, sayResult(frame.result, this.reader(), this.state.game)) : null,
      h("div", { class: "layout" },
        h("div", { class: "board" }, frame.view ? screen.board(this.context(frame, screenState)) : null),
        h("aside", { class: "side" },
          h("h2", {}, "What happened"),
          h("ol", { class: "feed", reversed: true, "aria-label": "event feed" },
            lines.map((line) => h("li", { "data-seq": line.seq }, line.words,
              line.contest ? h("span", { class: "contest" }, ` ${line.contest}`) : null))))));
  }
}

// An exported log (`photofinish export LOG`) as the server's `replay` takes it: the file as it is (the server
// reads it back as its log and checks it whole), gzip-compressed and base64-encoded: a whole game's export is some
// 200 KiB of JSON, about 20 KiB so. Not parsed here: JSON.parse would round its 64-bit seed.
export async function packExport(text, name) {
  if (!text.trimStart().startsWith("{")) {
    throw { reason: `${name} is not an exported log (make one with photofinish export LOG)` };
  }
  const zipped = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  const bytes = new Uint8Array(await new Response(zipped).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
