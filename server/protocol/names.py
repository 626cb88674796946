"""What a name people see may hold, and what it looks like: the pure half of the server's name rules, shared
with the clients that show names (``server/names.py`` checks names with them as the server takes them).

A name may not hold a control character (an escape sequence in a seat's name would rewrite the screen of every
terminal that shows it), a format character (Unicode category Cf: a zero-width space, a word joiner, a soft
hyphen, a bidirectional override or mark; they are invisible, so ``Ana`` and ``Ana`` + U+200B would read alike,
and an override makes a name read as another) or another invisible character (``INVISIBLE``: Hangul fillers,
the blank Braille pattern, the combining grapheme joiner, ...). ``printable(text)`` shows each such character
as U+FFFD, for a terminal that shows names.

A name may not stack more than ``MARKS_MOST`` combining marks (categories Mn, Me) on one character, nor begin
with one (``stacked``): marks piled on a letter ("Zalgo" text) are drawn over the lines above and below it, over
other players' names in a seat list, a standings table or a terminal; and a mark with no letter of its own is
drawn on whatever comes before the name (a separator, the seat before). Two are enough for every language's
letters that have no composed form (Vietnamese stacks two on a vowel).

``skeleton(name)``: what a name looks like, for deciding that a tournament player's name is taken and for
keying ratings (a player's identity across tournaments): NFKC, then the common Latin/Cyrillic/Greek look-alikes
mapped to one letter (``CONFUSABLES``, a hand-kept subset of Unicode TR39's confusables: no PyPI package offers
TR39's skeleton itself; small capitals too), then case-folded, variation selectors left out, runs of spaces as one. So ``Ana``, ``ANA``, ``Аna`` (Cyrillic А)
and ``Ana`` + U+FE0F are one player.
"""

from __future__ import annotations

import unicodedata

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
    # Latin small capitals (a red team registered "ᴀna" beside "Ana")
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j",
    "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z",
})
SEQUENCES = (("rn", "m"), ("vv", "w"))  # letter pairs read as one letter
MARKS_MOST = 2  # combining marks on one character (after NFC)


# Variation selectors: a name may hold them (an emoji drawn as a picture, "\u2764\ufe0f"), but after a letter
# they show nothing, so "Ana" + U+FE0F reads as "Ana": what a name looks like leaves them out.
def _selector(char: str) -> bool:
    return "\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef"


def refused(char: str) -> bool:
    """True for a character a name may not hold (see the module's text)."""
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") or char in BIDI_CONTROLS or char in INVISIBLE


def is_mark(char: str) -> bool:
    """A combining mark: drawn on the character before it (Unicode categories Mn and Me)."""
    return unicodedata.category(char) in ("Mn", "Me")


def stacked(text: str) -> tuple[int, str] | None:
    """Where ``text`` breaks the marks' rule (see the module's text): ``(marks, base)``, the number of marks on
    the first character that carries more than ``MARKS_MOST`` of them (``base`` empty: the marks the text begins
    with), or None. Read on the text as given (the server reads a name in NFC)."""
    base, marks = "", 0
    for char in text + "x":  # (a last letter ends the last run of marks)
        if is_mark(char):
            marks += 1
            continue
        if marks and (not base or marks > MARKS_MOST):
            return marks, base
        base, marks = char, 0
    return None


def printable(text: str) -> str:
    """``text`` with every character a name may not hold shown as U+FFFD: for a terminal that shows names a
    server took before these rules (an old log), or a server that does not keep them."""
    return "".join("\ufffd" if refused(char) else char for char in text)


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal for names a reader could take for one another (see the module's text)."""
    text = unicodedata.normalize("NFKC", name).strip().translate(CONFUSABLES)
    text = unicodedata.normalize("NFKC", text.casefold()).translate(CONFUSABLES)
    text = " ".join("".join(c for c in text if not refused(c) and not _selector(c)).split())  # (two spaces read as
    # one)
    for pair, letter in SEQUENCES:
        text = text.replace(pair, letter)
    return text
