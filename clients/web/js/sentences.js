// The games' words for people, as the terminal says them: the data is the server's /words.json (made from
// rules/words.py and rules/<game>/words.py, which also describe the template language), and this module is the
// same small interpreter as clients/sentences.py (a test holds the two to the same sentences). A reader is
// { me: the reader's seat or null, name: (seat) => how another seat is named, seats: how many seats }.

let WORDS = { common: { seat: {}, events: {}, quiet: ["turn"], result: {}, contest: {} }, games: {} };
let loading = null;

// Fetch the words once (the app waits for them before it draws a page).
export function loadWords() {
  if (!loading) {
    loading = fetch(new URL("../words.json", import.meta.url)).then((r) => r.json()).then((data) => { WORDS = data; },
      () => { loading = null; });
  }
  return loading;
}

// Words given rather than fetched (a test, a page that has them already).
export function useWords(data) {
  WORDS = data;
  loading = Promise.resolve();
}

export function gameWords(game) {
  return WORDS.games[game] || {};
}

export function cardName(game, card) {
  const cards = gameWords(game).cards || {};
  return cards[card] ?? String(card);
}

export function isQuiet(event) {
  return (WORDS.common.quiet || ["turn"]).includes(event.type);
}

function seatWord(key, fallback) {
  return (WORDS.common.seat && WORDS.common.seat[key]) || fallback;
}

function who(reader, seat) {
  if (seat === null || seat === undefined) return seatWord("nobody", "nobody");
  return seat === reader.me ? seatWord("you", "you") : reader.name(seat);
}

function whose(reader, seat) {
  const mine = seat !== null && seat !== undefined && seat === reader.me;
  return mine ? seatWord("your", "your") : `${who(reader, seat)}'s`;
}

function isMe(reader, value) {
  const seated = reader.me !== null && reader.me !== undefined;
  if (Array.isArray(value)) return value.length === 1 && seated && value[0] === reader.me;
  return value !== null && value !== undefined && value === reader.me;
}

function present(value) {
  return !(value === null || value === undefined || value === false || value === "" ||
           (Array.isArray(value) && value.length === 0));
}

function text(value) {
  if (value === true) return "true";
  if (value === false) return "false";
  if (value === null || value === undefined) return "null";
  return String(value);
}

function andList(items) {
  if (!items.length) return seatWord("nothing", "nothing");
  if (items.length === 1) return items[0];
  return `${items.slice(0, -1).join(", ")} ${seatWord("and", "and")} ${items[items.length - 1]}`;
}

function plural(count, noun, nouns) {
  return `${count} ${count === 1 ? noun : nouns || noun + "s"}`;
}

export function ordinal(place) {
  const suffix = place % 100 >= 10 && place % 100 <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[place % 10] || "th";
  return `${place}${suffix}`;
}

function holds(condition, fields, reader) {
  for (let part of condition.split(" & ")) {
    part = part.trim();
    if (!part) continue;
    if (part.startsWith("!")) {
      if (present(fields[part.slice(1)])) return false;
      continue;
    }
    const at = part.indexOf("=");
    const name = at < 0 ? part : part.slice(0, at);
    const got = fields[name];
    if (at < 0) { if (!present(got)) return false; continue; }
    const value = part.slice(at + 1);
    if (value === "me") { if (!isMe(reader, got)) return false; }
    else if (value === "now") { if (got !== (reader.extra || {}).now) return false; }
    else if (text(got) !== value) return false;
  }
  return true;
}

const PLACEHOLDER = /\{([a-z_]+)(?:\|([a-z_]+)(?::([^}]*))?)?\}/g;

// One sentence of the data (a template, a list of parts, or choices) said with `fields`; `words`: the game's.
export function say(sentence, fields, words, reader) {
  if (typeof sentence === "string") {
    return sentence.replace(PLACEHOLDER, (_, name, form, argument) => {
      if (!(name in fields)) throw new Error(`no field ${name}`);
      return formatted(fields[name], form, argument, fields, words, reader);
    });
  }
  if (Array.isArray(sentence)) return sentence.map((part) => say(part, fields, words, reader)).join("");
  if (sentence && typeof sentence === "object") {
    for (const [condition, chosen] of Object.entries(sentence)) {
      if (holds(condition, fields, reader)) return say(chosen, fields, words, reader);
    }
    return "";
  }
  throw new Error(`not a sentence: ${sentence}`);
}

function formatted(value, form, argument, fields, words, reader) {
  if (form === undefined) return Array.isArray(value) ? value.map(text).join(" ") : text(value);
  if (form === "seats") {
    return value.length ? andList(value.map((seat) => who(reader, seat))) : seatWord("nobody", "nobody");
  }
  if (form === "verb") {
    const [mine, others] = argument.split("|");
    return (Array.isArray(value) && value.length > 1) || isMe(reader, value) ? mine : others;
  }
  if (form === "count" && !argument) return String(value.length);
  if (form === "plural" || form === "count") {
    const [noun, nouns] = argument.split("|");
    return plural(form === "count" ? value.length : value, noun, nouns);
  }
  if (form === "by_seat") {
    const [inner, ...rest] = (argument || "").split(":");
    const say = (item) => formatted(item, inner || undefined, rest.join(":"), fields, words, reader);
    return value.map((item, seat) => `${who(reader, seat)}: ${say(item)}`).join(", ");
  }
  if (form === "pairs") {
    const [other, inner, ...rest] = (argument || "").split(":");
    const say = (item) => formatted(item, inner || undefined, rest.join(":"), fields, words, reader);
    return value.map((seat, i) => `${who(reader, seat)} ${say(fields[other][i])}`).join(", ");
  }
  if (Array.isArray(value)) return andList(value.map((item) => formatted(item, form, argument, fields, words, reader)));
  if (form === "who") return who(reader, value);
  if (form === "whose") return whose(reader, value);
  if (form === "card" || form === "cards") return (words.cards || {})[value] ?? text(value);
  if (form === "name") {
    const table = (words.names || {})[argument] || {};
    const key = text(value);
    if (key in table) return table[key];
    return "" in table ? table[""].replaceAll("{}", key) : key;
  }
  if (form === "next") return String(value + 1);
  if (form === "ordinal") return ordinal(value);
  throw new Error(`no format ${form}`);
}

// A sentence for an event nobody wrote one for: its name and its fields (as clients/feed.py's generic).
function generic(event, reader) {
  const fields = Object.entries(event).filter(([name, value]) => name !== "type" && name !== "seat" && value !== null);
  const detail = fields.map(([name, value]) => `${name} ${Array.isArray(value) ? value.join(" ") : value}`).join(", ");
  const seat = Number.isInteger(event.seat) ? `${who(reader, event.seat)}: ` : "";
  return seat + event.type.replaceAll("_", " ") + (detail ? ` (${detail})` : "");
}

// One sentence for `event` of `game`, as `reader` reads it (as clients/feed.py's say_event).
export function sayEvent(game, event, reader) {
  const words = gameWords(game);
  const sentence = (words.events || {})[event.type] ?? WORDS.common.events[event.type];
  if (sentence === undefined) return generic(event, reader);
  const { type, ...rest } = event;
  try {
    return say(sentence, { me: reader.me ?? null, seats: reader.seats || 0, ...rest }, words, reader);
  } catch {
    return generic(event, reader);
  }
}

// A move in words, as the terminal lists it (clients/moves.py action_words): the game's action words, else
// null (the caller words it its own way). reader.extra.now: Checkered Flag's gear now ("stay in 2nd").
export function sayAction(game, action, reader) {
  const sentence = (gameWords(game).actions || {})[action.type];
  if (sentence === undefined) return null;
  const { type, ...fields } = action;
  try {
    return say(sentence, { me: reader.me ?? null, ...fields }, gameWords(game), reader);
  } catch {
    return null;
  }
}

// A replay's contested take: who reacted first and how fast, the others' times, a tie's lot (the frame's contest).
export function sayReplayContest(actor, contest, reader) {
  const fields = { actor, reaction_ms: contest.reaction_ms, lot: contest.lot,
                   rivals: contest.rivals.map((r) => r.seat), rival_ms: contest.rivals.map((r) => r.reaction_ms) };
  return say(WORDS.common.replay_contest, fields, WORDS.common, reader);
}

// The end of a game, as clients/feed.py's say_result.
export function sayResult(result, reader, game) {
  const winners = result.winners || [];
  const mine = reader.me !== null && reader.me !== undefined && winners.includes(reader.me);
  const fields = { scores: result.scores || [], winners, lower_is_better: result.lower_is_better !== false, mine,
                   others: mine ? winners.filter((w) => w !== reader.me) : [] };
  const words = WORDS.common.result;
  const headline = say(words.headline, fields, {}, reader);
  fields.headline = capital(headline);
  return capital(say(words[game === "finish_line" ? "places" : "scores"], fields, {}, reader)) + ".";
}

// Why a contested action lost (a `rejected` answer's contest: winner, rule, lot).
export function sayContest(contest, reader) {
  return say(WORDS.common.contest, { winner: contest.winner, rule: contest.rule, lot: contest.lot }, {}, reader);
}

// A feed line as the page shows it: a sentence, capitalised, with its full stop.
export function line(sentence) {
  const said = capital(sentence);
  return /[.!?]$/.test(said) ? said : `${said}.`;
}

export function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
