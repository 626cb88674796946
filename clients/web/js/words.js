// Words for what the protocol carries: actions (like clients/render.py describe_action), events a game's
// screen does not describe itself, results, and any view as readable text.

export function describeAction(action) {
  const words = [action.type];
  for (const [name, value] of Object.entries(action)) {
    if (name === "type") continue;
    if (Array.isArray(value)) { if (value.length) words.push(`${name}=${value.join(",")}`); }
    else words.push(String(value));
  }
  return words.join(" ");
}

const SEAT_FIELDS = ["seat", "actor", "winner"];

// "Ana released 6 cards=6,6": the seat's name first, then the event's name and fields.
export function describeEvent(event, who) {
  const seat = SEAT_FIELDS.map((name) => event[name]).find((value) => Number.isInteger(value));
  const words = [];
  if (seat !== undefined) words.push(who(seat));
  words.push(event.type.replaceAll("_", " "));
  for (const [name, value] of Object.entries(event)) {
    if (name === "type" || (SEAT_FIELDS.includes(name) && value === seat) || value === null) continue;
    if (Array.isArray(value)) { if (value.length) words.push(`${name} ${value.map(plain).join(", ")}`); }
    else if (typeof value === "object") words.push(`${name} ${plain(value)}`);
    else words.push(`${name} ${value}`);
  }
  return words.join(" ");
}

function plain(value) {
  if (value === null) return "-";
  if (Array.isArray(value)) return `[${value.map(plain).join(" ")}]`;
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${k} ${plain(v)}`).join(", ");
  return String(value);
}

// A view as indented "name: value" lines; lists of plain values on one line.
export function readable(value, indent = "") {
  const lines = [];
  for (const [name, item] of Object.entries(value)) {
    if (item !== null && typeof item === "object" && !isFlat(item)) {
      lines.push(`${indent}${name}:`);
      if (Array.isArray(item)) item.forEach((entry, i) => lines.push(
        entry !== null && typeof entry === "object" && !isFlat(entry)
          ? `${indent}  ${i}:\n${readable(entry, indent + "    ")}` : `${indent}  ${i}: ${plain(entry)}`));
      else lines.push(readable(item, indent + "  "));
    } else {
      lines.push(`${indent}${name}: ${plain(item)}`);
    }
  }
  return lines.join("\n");
}

function isFlat(value) {
  return Array.isArray(value) ? value.every((v) => v === null || typeof v !== "object" || (Array.isArray(v) && isFlat(v)))
    : false;
}

export function resultWords(result, who, mySeat) {
  if (!result) return "";
  const winners = result.winners || [];
  const names = winners.map((seat) => (seat === mySeat ? "you" : who(seat)));
  const headline = winners.length === 0 ? "Nobody won."
    : winners.length === 1 ? (winners[0] === mySeat ? "You won!" : `${capital(names[0])} won.`)
    : `${capital(joinWords(names))} share the win.`;
  const scores = scoreList(result.scores || [], who);
  const better = result.lower_is_better === false ? "higher is better" : "lower is better";
  return `${headline} Final scores: ${scores} (${better}).`;
}

// Each seat's value after its name and a colon: "You: 0, heuristic bot 2: 7" (two seats sharing a name are told
// apart by their seat's number, and "heuristic bot 2 7" read as one number too many).
export function scoreList(values, who, show = String) {
  return values.map((value, seat) => `${who(seat)}: ${show(value)}`).join(", ");
}

export function joinWords(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

export function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
