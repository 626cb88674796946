"""The names people give, as the server takes them: a seat's, a table's, a tournament's and its players'.

Every name is shown to other people: in their browsers, in their terminals (``play``, ``watch``, ``tables``,
``tournament standings``) and in the logs a referee reads. So a name may not hold a control, format or other
invisible character, nor stack more than two combining marks on a letter (``server/protocol/names.py`` says
which and why), and it has a length that fits a seat's
row. A name is taken in Unicode's composed form (NFC), so ``José`` typed as é or as e + U+0301 is one name;
surrounding spaces are dropped. A name that breaks these rules is refused with ``bad_name`` and changes nothing.
"""

from __future__ import annotations

import unicodedata

from .protocol import Code, Refusal
from .protocol.names import MARKS_MOST, refused, skeleton, stacked  # noqa: F401 (skeleton: tournament/director.py takes it from here)

PERSON_MOST = 40  # a seat's or a tournament player's name
TITLE_MOST = 60  # a table's or a tournament's name


def check_name(name: str, what: str, most: int, required: bool = False) -> str:
    """``name`` in NFC without its surrounding spaces, or ``Refusal(Code.BAD_NAME)`` saying what is wrong."""
    name = unicodedata.normalize("NFC", name).strip()
    if required and not name:
        raise Refusal(Code.BAD_NAME, f"{what} is 1 to {most} characters, not empty")
    if len(name) > most:
        raise Refusal(Code.BAD_NAME, f"{what} is at most {most} characters, not {len(name)}")
    bad = next((c for c in name if refused(c)), None)
    if bad is not None:
        kind = "control" if unicodedata.category(bad) in ("Cc", "Zl", "Zp") else "invisible or format"
        raise Refusal(Code.BAD_NAME, f"{what} may not hold {kind} characters (it holds U+{ord(bad):04X})")
    piled = stacked(name)
    if piled is not None:
        marks, base = piled
        where = f"on '{base}'" if base else "at its start, with no letter to carry them"
        raise Refusal(Code.BAD_NAME, f"{what} may stack at most {MARKS_MOST} accents or other combining marks on "
                                     f"a letter (it has {marks} {where})")
    return name
