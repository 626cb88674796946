"""The names people give, as the server takes them: a seat's, a table's, a tournament's and its players'.

Every name is shown to other people: in their browsers, in their terminals (``play``, ``watch``, ``tables``,
``tournament standings``) and in the logs a referee reads. So a name may not hold a control character (an
escape sequence in a seat's name would rewrite the screen of every terminal that shows it) or a bidirectional
override (it would make a name read as another in the lists), and it has a length that fits a seat's row.
Surrounding spaces are dropped. A name that breaks these rules is refused with ``bad_name`` and changes nothing.
"""

from __future__ import annotations

import unicodedata

from rules import RulesError

PERSON_MOST = 40  # a seat's or a tournament player's name
TITLE_MOST = 60  # a table's or a tournament's name
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def _refused(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in BIDI_CONTROLS


def printable(text: str) -> str:
    """``text`` with every character a name may not hold shown as U+FFFD: for a terminal that shows names a
    server took before these rules (an old log), or a server that does not keep them."""
    return "".join("\ufffd" if _refused(char) else char for char in text)


def check_name(name: str, what: str, most: int, required: bool = False) -> str:
    """``name`` without its surrounding spaces, or ``RulesError("bad_name")`` saying what is wrong with it."""
    name = name.strip()
    if required and not name:
        raise RulesError("bad_name", f"{what} is 1 to {most} characters, not empty")
    if len(name) > most:
        raise RulesError("bad_name", f"{what} is at most {most} characters, not {len(name)}")
    bad = next((c for c in name if _refused(c)), None)
    if bad is not None:
        raise RulesError("bad_name", f"{what} may not hold control characters (it holds U+{ord(bad):04X})")
    return name
