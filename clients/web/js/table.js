// One table's page, as a seat or as a spectator. Data flows one way: a message in -> this state -> render;
// a click -> a message out. The game's own screen (js/games/) draws the board; this page adds who you are,
// whose turn it is with the latest line of the feed beside it, the event feed in words, a refused move's reason,
// the turn clock, the result and the revealed seed, who is at the table (kept current by the server's
// `presence`), and the game's rules in a panel. Each seat's last move (`lastBy`: the events of its latest turn,
// and their words) is handed to the screen, which marks it on the board. On the broadcast view, a Hands panel
// shows every seat's hand in the cards the screen draws for a hand (its `handCards`).

import { CODE } from "./codes.js";
import { h, morph } from "./dom.js";
import { markPending } from "./games/generic.js";
import { screenFor } from "./games/index.js";
import { seatStore } from "./protocol.js";
import { rulesPanel } from "./rules.js";
import { followAlias } from "./follow.js";
import { rematchBox } from "./rematch.js";
import { isWaiting, waitingBoard, waitingWords } from "./waiting.js";
import { isQuiet, line, sayContest, sayEvent, sayResult } from "./sentences.js";
import { behind, capital, joinWords, plain } from "./words.js";

const FEED_LINES = 200;
const LAST_KEPT = 6; // events of a seat's last turn kept (a seat acting many times in a row: the latest)
// A seat's state in the seat list (the protocol's words where they are not a person's).
const STATE_WORDS = { stand_in: "a bot stands in", left: "played, has left", away: "away" };

export class TablePage {
  constructor(app, table, role, key = "") {
    this.app = app;
    this.client = app.client;
    this.broadcastKey = key; // the table's broadcast key (#/broadcast/<table>/<key>): every hand, past its delay
    this.state = {
      table, role, info: null, game: null, seat: null, view: null, hands: null, legal: [], toAct: [], result: null,
      feed: [], lines: 0, notice: null, pending: new Map(), took: new Map(), turnSince: 0, error: null,
      lastBy: new Map(), lastActor: null, rules: false, endAsked: false,
    };
    this.inbox = app.takeBacklog(table); // what came before this page: handled once the page has started
    this.started = false;
    this.renderQueued = false;
    this.boardFocus = false; // the keyboard focus was last on the board (a move): kept there by render
    this.clock = setInterval(() => this.tick(), 500);
    this.resized = () => this.renderSoon(); // a screen's view may depend on the width (a wide track's scroll)
    window.addEventListener("resize", this.resized);
    this.ticks = 0;
    this.gone = false;
    this.presences = 0; // presence messages taken: once one came, who sits and how many watch are its
    this.alias = null; // the alias the page was opened by, and its timer once the game is over (js/follow.js)
    this.following = null;
  }

  shows(table) { return table === this.state.table; }

  destroy() {
    this.gone = true; // an answer still on its way draws nothing over the next page, nor seats or watches
    clearInterval(this.clock);
    clearInterval(this.following); // (js/follow.js)
    window.removeEventListener("resize", this.resized);
    if (this.state.role === "watch") this.client.leave(this.state.table).catch(() => {}); // a seat is kept
  }

  who = (seat) => {
    if (seat === this.state.seat) return "You";
    const info = this.state.info && this.state.info.seats[seat];
    if (!info || !info.name) return `Seat ${seat + 1}`;
    const shared = this.state.info.seats.some((other) => other.seat !== seat && other.name === info.name);
    return shared ? `${info.name} ${seat + 1}` : info.name; // three "heuristic bot"s: "heuristic bot 2", ...
  };

  async start() {
    const { role } = this.state;
    this.render();
    try {
      const named = this.state.table;
      await this.refreshInfo();
      if (this.gone) return;
      const { table } = this.state; // its id, where the page was opened by the table's alias
      this.alias = named !== table ? named : null; // then followed to its next table (js/follow.js)
      const held = seatStore.get(table);
      const here = this.client.seats.get(table);
      if (role === "play" && here) { // seated on this connection already (just now, from the lobby)
        this.state.seat = here.seat;
      } else if (role === "play" && held) {
        const seated = await this.client.resume(table, held.token);
        this.state.seat = seated.seat;
        this.state.game = seated.game;
      } else {
        if (role === "play") this.state.notice = "This browser holds no seat at this table: watching instead.";
        const watching = await this.client.watch(table, this.broadcastKey);
        this.state.game = watching.game;
        this.state.role = "watch";
      }
    } catch (error) {
      if (error.code === CODE.BAD_TOKEN && !this.broadcastKey) { // (a broadcast's wrong key: said, not retried)
        seatStore.drop(this.state.table);
        this.state.notice = "Your seat here is no longer held for you: watching instead.";
        this.state.role = "watch";
        return this.start();
      }
      this.state.error = error.reason || String(error);
    }
    this.started = true;
    for (const message of this.inbox.splice(0)) this.receive(message);
    this.render();
  }

  async refreshInfo() {
    const tables = await this.client.listTables();
    const wanted = this.state.table;
    const kept = this.state.info;
    this.state.info = tables.find((t) => t.table === wanted) || tables.find((t) => t.alias === wanted) || kept;
    if (kept && this.presences) { // who sits and how many watch stay the last presence's: the server pushes one
      // at every seat change, while the list may be one it reuses for a moment, and the table's node counts no
      // spectator watching through another node (a page that had just begun to watch said "0 watching")
      this.state.info = { ...this.state.info, seats: kept.seats, spectators: kept.spectators };
    }
    if (!this.state.info) throw Object.assign(new Error(), { reason: `There is no table ${wanted}.` });
    this.state.table = this.state.info.table; // a page opened by an alias (#/watch/demo) goes on by the id
    this.state.game = this.state.game || this.state.info.game;
  }

  // ------------------------------------------------------------------ messages in

  receive(message) {
    const s = this.state;
    if (message.table !== s.table) return;
    if (!this.started) { this.inbox.push(message); return; }
    if (message.type === "rematch_offered") { s.offer = message; this.renderSoon(); return; } // js/rematch.js
    const screen = screenFor(s.game);
    if (message.type === "presence") { // who is at the table now: seats, their state, spectators
      this.presences += 1;
      const known = s.info ? s.info.seats : []; // a ping measured since stays until a newer one comes
      const seats = message.seats.map((seat, i) => seat.state === "taken" && seat.ping_ms == null && known[i] &&
        known[i].state === "taken" ? { ...seat, ping_ms: known[i].ping_ms } : seat);
      if (s.info) s.info = { ...s.info, seats, spectators: message.spectators };
      const before = s.pings || [];
      s.pings = message.seats.map((seat, i) => seat.state !== "taken" ? null : seat.ping_ms ?? before[i] ?? null);
      this.renderSoon();
      return;
    }
    if (message.type === "update") {
      for (const event of message.events) {
        if (screen.remember) screen.remember(event, s);
        if (screen.freshStart && screen.freshStart.includes(event.type)) { s.lastBy.clear(); s.lastActor = null; }
        if (isQuiet(event)) continue; // whose turn it is: shown as "whose turn", not as a line of the feed
        const words = line(sayEvent(s.game, event, this.reader()));
        this.rememberMove(message, event, words);
        s.feed.push({ seq: message.seq, words, line: ++s.lines }); // line: its key in the page, kept by a redraw
      }
      if (s.feed.length > FEED_LINES) s.feed.splice(0, s.feed.length - FEED_LINES);
    }
    if (message.view != null) {
      if (String(message.to_act) !== String(s.toAct)) s.turnSince = Date.now();
      const whole = this.broadcastKey && message.view.public !== undefined; // the broadcast view: {public, seats}
      s.view = whole ? message.view.public : message.view;
      if (whole) s.hands = message.view.seats.map((view) => (view && view.hand) || null);
      s.legal = message.legal || [];
      s.toAct = message.to_act;
      s.result = message.result || null;
      if (message.pings) s.pings = message.pings; // each seat's round trip, measured by the server's pings
      const ended = s.result && !s.endAsked; // once over: the info again, for the revealed seed
      if (ended) { s.endAsked = true; followAlias(this); }
      if (s.info && (s.info.status === "waiting" || message.type === "snapshot" || ended)) {
        this.refreshInfo().then(() => this.render(), () => {});
      }
    }
    if (message.type === "table_ended" && !s.endAsked) {
      s.endAsked = true;
      followAlias(this);
      this.refreshInfo().then(() => this.render(), () => {});
    }
    this.renderSoon();
  }

  // A seat's last move: the events of its latest turn and their words, for the screen to mark on the board. A
  // turn of several entries in a row is kept whole: Flag Finish's take then discard, and what chance did for the
  // seat (the spin that moved a car is the table's entry, its event the seat's).
  rememberMove(message, event, words) {
    const s = this.state;
    const seat = message.actor >= 0 ? message.actor : Number.isInteger(event.seat) ? event.seat : null;
    if (seat === null) return; // the table's own (a deal, a closed window): no seat's move
    const before = s.lastBy.get(seat);
    if (before && s.lastActor === seat) {
      before.events.push(event);
      before.words.push(words);
      before.seq = message.seq;
      if (before.events.length > LAST_KEPT) { before.events.shift(); before.words.shift(); }
    } else {
      s.lastBy.set(seat, { seq: message.seq, events: [event], words: [words] });
    }
    s.lastActor = seat;
  }

  // ------------------------------------------------------------------ input out

  key(action) { return JSON.stringify(action); }

  // A click sends at once and marks only the clicked move as pending (no redraw of the table: the browser
  // would lay out and paint the whole page while the answer comes in, and the answer would wait for it).
  act(action) {
    const s = this.state;
    const key = this.key(action);
    if (s.pending.has(key)) return;
    s.pending.set(key, action);
    const answered = this.client.act(s.table, action);
    for (const element of this.app.root.querySelectorAll(`[data-key="${CSS.escape(key)}"]`)) markPending(element);
    if (s.notice) { // a refusal's reason goes with the next move
      s.notice = null;
      const notice = this.app.root.querySelector(".table-page .notice");
      if (notice) notice.remove();
    }
    answered.then(() => {
      s.pending.delete(key);
      this.renderSoon();
    }, (error) => {
      s.pending.delete(key);
      const screen = screenFor(s.game);
      const contest = error.answer && error.answer.contest;
      s.notice = (screen.refusal && screen.refusal(action, error, this.context())) ||
        `Refused: ${error.reason || error.message}` + (contest ? `: ${sayContest(contest, this.reader())}.` : "");
      this.renderSoon();
    });
  }

  // Leaving a game in play asks first (one click could give the seat up for good); a finished game is left at once.
  askLeave() {
    if (this.state.result) return this.leave();
    this.state.confirmLeave = true;
    this.renderSoon();
  }

  stay() {
    this.state.confirmLeave = false;
    this.renderSoon();
  }

  toggleRules() {
    this.state.rules = !this.state.rules;
    this.renderSoon();
  }

  async leave() {
    try { await this.client.leave(this.state.table); } catch { /* the seat is gone already */ }
    location.hash = "#/";
  }

  // ------------------------------------------------------------------ render

  // Who reads the feed's sentences (js/sentences.js): this seat ("you"), the others by name.
  reader() {
    const s = this.state;
    const seats = s.info ? s.info.seats.length : 0;
    return { me: s.role === "play" ? s.seat : null, name: this.who, seats };
  }

  context() {
    const s = this.state;
    return {
      view: s.view, legal: s.role === "play" ? s.legal : [], seat: s.seat, who: this.who, state: s,
      act: (action) => this.act(action), key: (action) => this.key(action),
      last: othersLast(s), // the other seats' last moves, by seat: { seq, events, words }
      isPending: (action) => s.pending.has(this.key(action)),
      render: () => this.render(), // a screen's own state changed (a Flush selection)
    };
  }

  turnWords() {
    const s = this.state;
    if (s.result) return "The game is over.";
    if (isWaiting(s.info)) return waitingWords(s.info); // js/waiting.js
    if (!s.view) return s.info && s.info.status === "waiting" ? "Waiting for players to take the free seats." : "";
    if (!s.toAct.length) return "Waiting for the table...";
    const mine = s.toAct.includes(s.seat);
    if (s.toAct.length > 1) return mine ? "Everyone races: your move whenever you like." : `${capital(joinWords(s.toAct.map(this.who)))} may move.`;
    return mine ? "Your turn." : `${capital(this.who(s.toAct[0]))}'s turn.`;
  }

  clockText() {
    const s = this.state;
    const limit = s.info ? s.info.turn_time_ms : 0;
    if (!limit || !s.view || s.result || !s.toAct.length) return "";
    const left = Math.max(0, limit - (Date.now() - s.turnSince));
    return `${(left / 1000).toFixed(0)} s left`;
  }

  tick() {
    if (isWaiting(this.state.info) && ++this.ticks % 4 === 0) { // who sat meanwhile (js/waiting.js)
      this.refreshInfo().then(() => this.render(), () => {});
    }
    const clock = document.getElementById("turn-clock");
    if (clock) clock.textContent = this.clockText();
  }

  // One redraw for everything one frame from the server brings: an action's answer and the update that comes
  // with it (a batch) are drawn together, once the frame is handled, not one after the other.
  renderSoon() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    queueMicrotask(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  render() {
    if (this.gone) return;
    const board = this.app.root.querySelector(".board");
    if (board && board.contains(document.activeElement)) this.boardFocus = true;
    morph(this.app.root, this.tree()); // in place: only what changed is touched, and the focus stays where it was
    const screen = screenFor(this.state.game);
    if (screen.afterRender && this.state.view) screen.afterRender(this.app.root, this.context());
    if (this.boardFocus) this.keepFocusOnTheBoard();
  }

  // A keyboard player's focus stays on the board: when the move it was on goes away (the draw taken, a card
  // played) it goes to the first move offered, now or, while none is (the others' turns), once one is. Focus
  // the player moved elsewhere is left there.
  keepFocusOnTheBoard() {
    const active = document.activeElement;
    const lost = !active || active === document.body || active === this.app.root || active.disabled ||
      !active.isConnected;
    if (!lost) {
      this.boardFocus = Boolean(active.closest(".board"));
      return;
    }
    const next = this.app.root.querySelector(".board .move:not([disabled]):not(.pending), .board button:not([disabled])");
    if (next) next.focus();
  }

  // The whole page as a new tree, for render to match the live one to.
  tree() {
    const s = this.state;
    const info = s.info;
    const screen = screenFor(s.game);
    const title = info ? `${info.name || info.table}` : s.table;
    const you = s.role === "play" && s.seat !== null
      ? `You are ${(info && info.seats[s.seat] && info.seats[s.seat].name) || "seat " + (s.seat + 1)} (seat ${s.seat + 1}).`
      : spectatorLine(info, !!this.broadcastKey);
    const gameTitle = this.app.gameTitle(s.game) + (info ? ` · ${info.mode}` : "");
    const latest = s.feed[s.feed.length - 1];
    // memo (js/dom.js): a redraw skips the parts an answer leaves as they are (the head, the seats, old lines)
    return h("section", { class: "table-page", "data-table": s.table, "data-game": s.game || "", "data-key": `table-${s.table}` },
        h("div", { class: "table-head",
                   memo: JSON.stringify([title, gameTitle, s.role, !!s.confirmLeave && !s.result, s.rules]) },
          h("a", { href: "#/", class: "back" }, "← Lobby"),
          h("h1", {}, title),
          h("span", { class: "game-title" }, gameTitle),
          s.game ? h("button", { type: "button", class: "rules-button", "aria-expanded": String(s.rules),
                                 "aria-controls": "rules-panel", onclick: () => this.toggleRules() },
            s.rules ? "Hide the rules" : "Rules") : null,
          s.role !== "play" ? null
            : s.confirmLeave && !s.result ? h("span", { class: "leave-confirm", role: "alertdialog" },
              "Leave your seat for good? The game goes on without you. ",
              h("button", { type: "button", class: "leave-yes", onclick: () => this.leave() }, "Leave"),
              " ", h("button", { type: "button", class: "leave-no", onclick: () => this.stay() }, "Stay"))
            : h("button", { type: "button", class: "leave", onclick: () => this.askLeave() }, "Leave my seat")),
        h("p", { class: "you" }, you),
        h("div", { class: "turn-bar" },
          h("p", { class: `turn${s.toAct.includes(s.seat) ? " mine" : ""}`, "aria-live": "polite" }, this.turnWords(),
            " ", h("span", { id: "turn-clock", class: "clock" }, this.clockText())),
          latest ? h("p", { class: "latest", title: "the latest line of the feed" }, latest.words) : null),
        s.rules ? rulesPanel(s.game, this.app.gameTitle(s.game), () => this.toggleRules(), () => this.renderSoon())
          : null,
        s.error ? h("p", { class: "error", role: "alert" }, s.error) : null,
        s.notice ? h("p", { class: "notice", role: "alert" }, s.notice) : null,
        s.result ? h("p", { class: "result", role: "status" }, sayResult(s.result, this.reader(), s.game)) : null,
        s.result && info && info.revealed_seed != null ? seedLine(info) : null,
        s.result ? rematchBox(this) : null, // "Play again", or the rematch another player opened (js/rematch.js)
        h("div", { class: "layout" },
          h("div", { class: "board" }, isWaiting(info) ? waitingBoard(info, this.who) // js/waiting.js
            : s.view ? screen.board(this.context()) : h("p", {}, "No cards dealt yet.")),
          h("aside", { class: "side" },
            info ? seatList(info, this.who, s.toAct, s.pings) : null,
            s.hands ? handsList(s.hands, this.who, screen, s.view) : null,
            h("h2", {}, "What happened"),
            h("ul", { class: "feed", "aria-label": "event feed" },
              s.feed.slice(-40).reverse().map((line) => h("li", { "data-seq": line.seq, "data-key": `line-${line.line}`,
                memo: line.words }, line.words))))));
  }
}

// The other seats' last moves (a spectator's: every seat's), by seat.
function othersLast(s) {
  const out = new Map();
  for (const [seat, last] of s.lastBy) if (!(s.role === "play" && seat === s.seat)) out.set(seat, last);
  return out;
}

// Once the table is over: its seed, revealed (its log committed to it before the first shuffle).
function seedLine(info) {
  return h("p", { class: "seed-revealed" }, `The seed, revealed now the game is over: ${info.revealed_seed}. `,
    "The table's log committed to it before the deal: photofinish verify checks it, and every shuffle, from the log.");
}

// Each seat: who, its state, whether it may act, and its ping (the round trip the server measured; the
// last update's or presence's, else the table info's; bots, empty seats and seats whose player is gone have none).
function seatList(info, who, toAct, pings) {
  const ping = (seat) => {
    if (seat.state !== "taken") return null;
    const ms = pings && pings[seat.seat] != null ? pings[seat.seat] : seat.ping_ms;
    return ms != null ? h("span", { class: "ping", title: "round trip to the server" }, ` ${Math.round(ms)} ms`) : null;
  };
  const memo = JSON.stringify([info.seats, info.spectators, toAct, pings, info.seats.map((seat) => who(seat.seat))]);
  return h("div", { class: "seats", memo }, h("h2", {}, "Seats"),
    h("ul", {}, info.seats.map((seat) => h("li", {
      class: toAct.includes(seat.seat) ? "acting" : "", "data-seat": seat.seat, "data-state": seat.state },
      `${who(seat.seat)}`, seat.state !== "taken" ? ` (${STATE_WORDS[seat.state] || seat.state})` : "", ping(seat),
      toAct.includes(seat.seat) ? " ◀" : ""))),
    h("p", { class: "spectators" }, `${info.spectators} watching`));
}

// A spectator's line: how far behind the table it is shown (a broadcast delay), if it is; the broadcast view's.
function spectatorLine(info, broadcast) {
  const late = info ? behind(info.spectator_delay_ms, info.spectator_delay_entries) : "";
  const as = broadcast ? "the broadcast view, every hand shown" : "as a spectator";
  return late ? `You are watching ${as}, ${late} behind the table.` : `You are watching ${as}.`;
}

// The broadcast view's hands: each seat's, drawn as its player sees its cards (a game without hands shows none).
function handsList(hands, who, screen, view) {
  const held = hands.map((hand, seat) => [seat, hand]).filter(([, hand]) => hand);
  if (!held.length) return null;
  return h("div", { class: "hands" }, h("h2", {}, "Hands"),
    h("ul", {}, held.map(([seat, hand]) => handEntry(seat, who(seat), hand, screen, view))));
}

// One seat's hand, its name in bold: the game's cards (its screen's handCards, the look of the seat's own hand),
// else the game's card names, else the items as text. memo (js/dom.js): what is drawn, for a card's look may
// depend on the table's view as well as on the hand (Flush's Mimic).
function handEntry(seat, name, hand, screen, view) {
  const shown = !screen.handCards ? `: ${handWords(hand, screen) || "-"}`
    : h("div", { class: "cards", "aria-label": `${name}'s hand` },
      hand.length ? screen.handCards(hand, view) : h("span", { class: "empty" }, "no cards"));
  return h("li", { "data-seat": seat, memo: JSON.stringify([name, shown]) }, h("b", {}, name), shown);
}

// A hand in words, for a game whose screen draws no hand of cards.
function handWords(hand, screen) {
  const say = screen.cardName || ((item) => plain(item)); // (an item may be structured, not a plain value)
  return hand.map((item) => say(item)).join(" · ");
}
