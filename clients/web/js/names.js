// What a name people see may hold, checked in the page before anything is created or taken: the rule of
// server/names.py and server/protocol/names.py (composed form, surrounding spaces dropped, at most 40 characters
// for a seat, no control, format or other invisible character, at most two combining marks on a letter and none
// before the first), so a name the server would refuse never leaves a
// stray table in the lobby (a table was opened, then its seat refused). tests/web/test_lobby.py holds the two to
// the same answer for every character.

export const PERSON_MOST = 40; // server/names.py PERSON_MOST
// Not control or format characters, yet shown as nothing: server/protocol/names.py INVISIBLE.
const INVISIBLE = new Set("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f");
const CONTROL = /^[\p{Cc}\p{Zl}\p{Zp}]$/u;
const FORMAT = /^\p{Cf}$/u; // the bidirectional controls and marks (U+202E, ...) are all format characters

export const MARKS_MOST = 2; // server/protocol/names.py MARKS_MOST
const MARK = /^[\p{Mn}\p{Me}]$/u;

export function refused(char) {
  return CONTROL.test(char) || FORMAT.test(char) || INVISIBLE.has(char);
}

// The sentence that says why `raw` is refused, in the server's words, or null for a name it takes.
export function nameProblem(raw, what = "a seat's name", most = PERSON_MOST) {
  const name = raw.normalize("NFC").trim();
  const length = [...name].length;
  if (length > most) return `${what} is at most ${most} characters, not ${length}`;
  const bad = [...name].find(refused);
  if (bad !== undefined) {
    const kind = CONTROL.test(bad) ? "control" : "invisible or format";
    const code = bad.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    return `${what} may not hold ${kind} characters (it holds U+${code})`;
  }
  const piled = stacked(name);
  if (piled === null) return null;
  const [marks, base] = piled;
  const where = base ? `on '${base}'` : "at its start, with no letter to carry them";
  return `${what} may stack at most ${MARKS_MOST} accents or other combining marks on a letter (it has ${marks} ${where})`;
}

// server/protocol/names.py stacked: [marks, base] for the first letter carrying more than MARKS_MOST marks (base
// "" for marks the name begins with), or null.
export function stacked(text) {
  let base = "";
  let marks = 0;
  for (const char of [...text, "x"]) {
    if (MARK.test(char)) {
      marks += 1;
      continue;
    }
    if (marks && (!base || marks > MARKS_MOST)) return [marks, base];
    base = char;
    marks = 0;
  }
  return null;
}
