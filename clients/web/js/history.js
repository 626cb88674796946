// A tournament's rounds read from its log (the `tournament_log` answer: one `<hash> <json>` record a line, as
// server/tournament/tlog.py writes them): every round's tables in seating order with their players, places
// (corrections applied) and byes, when each round started, and the time limits (a round's, an arena's). The tournament page's
// round history and the venue screen's pairings and round clock come from it; the chain itself is checked by
// `photofinish tournament verify`, not here. A table played with real cards gets its places from its players'
// reports (`reported`: once every player has reported the same places) or the organiser's `settled` record.
// The organiser's fixes of a round waiting to begin (`pairings_first`) are followed: a `repaired` round replaces
// its seating, a `swapped` pair change places, and the round's clock starts at its `round_begun`.

export function readLog(text) {
  const read = { started: 0, roundTimeMs: 0, arenaMs: 0, rounds: [], names: new Map(), seed: null,
                 pairingsFirst: false, reentry: false };
  const tables = new Map(); // table -> its entry in a round
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    if (space < 0) continue;
    let record;
    try { record = JSON.parse(line.slice(space + 1)); } catch { continue; } // a torn last line
    const at = read.started + (record.time || 0) * 1000;
    if (record.kind === "created") {
      read.started = Date.parse(record.started) || 0;
      read.roundTimeMs = (record.tables && record.tables.round_time_ms) || 0;
      read.arenaMs = (record.tables && record.tables.arena_ms) || 0;
      read.pairingsFirst = Boolean(record.settings && record.settings.pairings_first);
      read.reentry = Boolean(record.settings && record.settings.reentry);
    } else if (record.kind === "registered") {
      read.names.set(record.player, record.name);
    } else if (record.kind === "reentered") {
      read.names.set(record.player, record.name);
    } else if (record.kind === "round_begun") {
      const round = read.rounds.find((r) => r.round === record.round);
      if (round) round.started = at;
    } else if (record.kind === "swapped") {
      const round = read.rounds.find((r) => r.round === record.round);
      if (round) swapIn(round, record.players);
    } else if (record.kind === "round_seated" || record.kind === "repaired") {
      // a round waiting for the organiser to begin it has no clock yet
      const waits = read.pairingsFirst || record.kind === "repaired";
      const round = { round: record.round, started: waits ? 0 : at, byes: record.byes || [], tables: [] };
      record.tables.forEach((t, i) => {
        const entry = { table: t.table, number: i + 1, players: t.players, places: null, standIns: [],
                        corrected: null };
        tables.set(t.table, entry);
        round.tables.push(entry);
      });
      read.rounds = read.rounds.filter((r) => r.round !== record.round).concat([round]);
    } else if (record.kind === "table_result" && tables.has(record.table)) {
      const entry = tables.get(record.table);
      entry.places = record.places;
      entry.standIns = record.stand_ins || [];
    } else if (record.kind === "ended") {
      read.seed = (line.match(/"seed":(\d+)/) || [])[1] || null; // as text: a 64-bit seed is past a double's 2^53
    } else if (record.kind === "reported" && tables.has(record.table)) {
      const entry = tables.get(record.table);
      entry.reported = true;
      entry.reports = { ...(entry.reports || {}), [record.player]: record.places };
      const said = entry.players.map((p) => entry.reports[p] && entry.reports[p].join(","));
      if (said.every((places) => places && places === said[0])) entry.places = record.places;
    } else if (record.kind === "settled" && tables.has(record.table)) {
      const entry = tables.get(record.table);
      entry.reported = true;
      entry.places = record.places;
      entry.settled = record.reason || "settled by the organiser";
    } else if (record.kind === "corrected" && tables.has(record.table)) {
      const entry = tables.get(record.table);
      entry.places = record.places;
      entry.corrected = record.reason;
    }
  }
  return read;
}

// Two players of a round change places: seat for seat, or one takes the other's bye.
function swapIn(round, [a, b]) {
  const other = (p) => (p === a ? b : p === b ? a : p);
  for (const t of round.tables) t.players = t.players.map(other);
  round.byes = round.byes.map(other);
}

// Whether the revealed seed (decimal text) is the one committed to at the start: sha256 of its 8 bytes,
// big-endian (server/protocol/logformat.py seed_commitment). Null where the browser cannot hash (a page over
// plain http from another machine is not a secure context: no crypto.subtle).
export async function seedMatches(seed, commitment) {
  if (!globalThis.crypto || !crypto.subtle) return null;
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(seed));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") === commitment;
}

// Asks for the log again when told something changed, one request at a time (changes while one is out are
// answered by one more request after it), and hands each reading to `onRead`. A server without a data
// directory keeps no log: then the pages show what the tournament's pushes carry (the current round).
export class LogFollower {
  constructor(client, tournament, onRead) {
    this.client = client;
    this.tournament = tournament;
    this.onRead = onRead;
    this.busy = false;
    this.again = false;
    this.stopped = false;
  }

  async refresh() {
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    try {
      do {
        this.again = false;
        try {
          const answer = await this.client.request({ type: "tournament_log", tournament: this.tournament });
          if (!this.stopped) this.onRead(readLog(answer.log));
        } catch (error) { // an older reading stays; the next change asks again
          if (error.code === "no_log") this.stopped = true; // a server without a data directory keeps none
        }
      } while (this.again && !this.stopped);
    } finally {
      this.busy = false;
    }
  }

  stop() { this.stopped = true; }
}

// The round seated now, for its pairings: the log's seating (tables numbered in seating order) where the log
// has it, else the tables the tournament's view carries (an arena's: every table playing now, numbered as the
// log numbers them where it can).
export function currentRound(data, log) {
  const info = data.tournament;
  const logged = log && log.rounds.find((r) => r.round === info.round);
  if (logged && info.format !== "arena") return logged;
  const numbers = new Map();
  for (const round of log ? log.rounds : []) for (const t of round.tables) numbers.set(t.table, t.number);
  return { round: info.round, byes: data.byes, started: logged ? logged.started : 0,
           tables: data.seatings.map((s, i) => ({ table: s.table, number: numbers.get(s.table) || i + 1,
                                                  players: s.players, places: s.places })) };
}

// Names in the order people sort them: case and accents aside, numbers by value ("bot 2" before "bot 10").
export const byName = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

// A round's pairings by player name (what a person looks for at the door): each player's name, table number,
// table id and seat (1-based), or a bye; sorted as people sort names ("bot 2" before "bot 10").
export function pairings(round, name) {
  const rows = [];
  for (const t of round.tables) {
    t.players.forEach((player, seat) => rows.push({ player, name: name(player), number: t.number, table: t.table,
      seat: seat + 1, over: Boolean(t.places), where: `table ${t.number}, seat ${seat + 1}` }));
  }
  for (const player of round.byes) rows.push({ player, name: name(player), number: 0, table: "", seat: 0, over: true,
                                                where: "bye" });
  return rows.sort((a, b) => byName.compare(a.name, b.name) || a.number - b.number);
}
