// Small words for what the protocol carries: actions (like clients/moves.py describe_action), any view as
// readable text, score lists and joined words. Events, cards and results are said from the games' words, as the
// terminal says them: js/sentences.js.

export function describeAction(action) {
  const words = [action.type];
  for (const [name, value] of Object.entries(action)) {
    if (name === "type") continue;
    if (Array.isArray(value)) { if (value.length) words.push(`${name}=${value.join(",")}`); }
    else words.push(String(value));
  }
  return words.join(" ");
}

// One value on one line: a list in brackets, an object as "name value" pairs, null as "-".
export function plain(value) {
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

// Each seat's value after its name and a colon: "You: 0, heuristic bot 2: 7" (two seats sharing a name are told
// apart by their seat's number, and "heuristic bot 2 7" read as one number too many).
export function scoreList(values, who, show = String) {
  return values.map((value, seat) => `${who(seat)}: ${show(value)}`).join(", ");
}

export function joinWords(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

// How far behind the table its spectators are shown it (a broadcast delay), as server.protocol's `delay_behind`
// says it for the server and the terminal.
export function behind(delayMs, entries) {
  const parts = delayMs ? [`${delayMs / 1000} s`] : [];
  if (entries) parts.push(`${entries} ${entries === 1 ? "move" : "moves"}`);
  return parts.join(" and ");
}

export function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
