"""The names people give, as the server takes them: a seat's, a table's, a tournament's and its players'.

Every name is shown to other people: in their browsers, in their terminals (``play``, ``watch``, ``tables``,
``tournament standings``) and in the logs a referee reads. So a name may not hold a control character (an
escape sequence in a seat's name would rewrite the screen of every terminal that shows it), a format character
(Unicode category Cf: a zero-width space, a word joiner, a soft hyphen, a bidirectional override or mark; they
are invisible, so ``Ana`` and ``Ana`` + U+200B would read alike, and an override makes a name read as another)
or another invisible character (``INVISIBLE``: Hangul fillers, the blank Braille pattern, the combining grapheme
joiner, ...), and it has a length that fits a seat's row. A name is taken in Unicode's composed form (NFC), so
``José`` typed as é or as e + U+0301 is one name; surrounding spaces are dropped. A name that breaks these rules
is refused with ``bad_name`` and changes nothing.

``skeleton(name)``: what a name looks like, for deciding that a tournament player's name is taken and for
keying ratings (a player's identity across tournaments): NFKC, then the common Latin/Cyrillic/Greek look-alikes
mapped to one letter (``CONFUSABLES``, a hand-kept subset of Unicode TR39's confusables: no PyPI package offers
TR39's skeleton itself), then case-folded. So ``Ana``, ``ANA`` and ``Аna`` (Cyrillic А) are one player.
"""

from __future__ import annotations

import unicodedata

from rules import RulesError

PERSON_MOST = 40  # a seat's or a tournament player's name
TITLE_MOST = 60  # a table's or a tournament's name
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Not Cf, yet shown as nothing (or as a blank that is no space): refused as Cf is.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")

# Look-alikes, each to the Latin letter it is taken for (applied before and after case folding, so capitals
# and small letters both meet their Latin twins). Cyrillic, Greek, Latin variants, digits and signs.
CONFUSABLES = str.maketrans({
    # Cyrillic capitals and small letters
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "Ү": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l", "Һ": "h",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "ү": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ԁ": "d", "ё": "ë", "ї": "ï",
    # Greek capitals and small letters
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "ρ": "p", "α": "a", "ι": "i", "υ": "u",
    "κ": "k", "ϲ": "c", "ϳ": "j",
    # Latin variants, digits and signs
    "ı": "i", "ȷ": "j", "ɡ": "g", "ɑ": "a", "ℓ": "l", "0": "o", "1": "l", "|": "l", "ǀ": "l",
})
SEQUENCES = (("rn", "m"), ("vv", "w"))  # letter pairs read as one letter


def _refused(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") or char in BIDI_CONTROLS or char in INVISIBLE


def printable(text: str) -> str:
    """``text`` with every character a name may not hold shown as U+FFFD: for a terminal that shows names a
    server took before these rules (an old log), or a server that does not keep them."""
    return "".join("\ufffd" if _refused(char) else char for char in text)


def check_name(name: str, what: str, most: int, required: bool = False) -> str:
    """``name`` in NFC without its surrounding spaces, or ``RulesError("bad_name")`` saying what is wrong."""
    name = unicodedata.normalize("NFC", name).strip()
    if required and not name:
        raise RulesError("bad_name", f"{what} is 1 to {most} characters, not empty")
    if len(name) > most:
        raise RulesError("bad_name", f"{what} is at most {most} characters, not {len(name)}")
    bad = next((c for c in name if _refused(c)), None)
    if bad is not None:
        kind = "control" if unicodedata.category(bad) in ("Cc", "Zl", "Zp") else "invisible or format"
        raise RulesError("bad_name", f"{what} may not hold {kind} characters (it holds U+{ord(bad):04X})")
    return name


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal for names a reader could take for one another (see the module's text)."""
    text = unicodedata.normalize("NFKC", name).strip().translate(CONFUSABLES)
    text = unicodedata.normalize("NFKC", text.casefold()).translate(CONFUSABLES)
    text = "".join(c for c in text if not _refused(c))
    for pair, letter in SEQUENCES:
        text = text.replace(pair, letter)
    return text
