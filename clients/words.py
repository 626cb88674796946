"""Small words for what a person reads: lists said as English ("9, 55 and 70"), "a"/"an", plurals, and seat
numbers. Issue 30: seats are numbered from 1 wherever a person reads them; the wire stays 0-based, so every
seat a person reads goes through ``seat_no``. Pure."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Iterable


def seat_no(seat: int) -> int:
    """The number a person reads for the wire's ``seat`` (0-based on the wire, 1-based on the screen)."""
    return seat + 1


def and_list(items: Iterable) -> str:
    """``9, 55 and 70``; ``9 and 55``; ``9``; ``nothing`` for none."""
    words = [str(item) for item in items]
    if not words:
        return "nothing"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def seat_list(seats: Iterable[int]) -> str:
    """``seat 2``, ``seats 1 and 3``: wire seats said as a person numbers them."""
    seats = sorted(seats)
    noun = "seat" if len(seats) == 1 else "seats"
    return f"{noun} {and_list(seat_no(s) for s in seats)}"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``1 turn``; ``nouns`` for an irregular plural."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def a_or_an(word: str) -> str:
    """``a 5``, ``an 8``, ``an ace``, ``a flag``: by the sound of the word (numbers 8, 11, 18, 80... sound
    with a vowel)."""
    text = str(word).strip()
    lower = text.lower()
    if lower[:1].isdigit():
        digits = lower.split()[0].rstrip(".,;")
        vowel = digits.startswith("8") or digits in ("11", "18") or (len(digits) in (5, 6) and digits[:2] in ("11", "18"))
    else:
        vowel = lower[:1] in "aeiou" and not lower.startswith(("one", "uni", "use", "eu")) or lower.startswith("hour")
    return f"{'an' if vowel else 'a'} {text}"


def ordinal(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def command_name(argv0: str | None = None) -> str:
    """How the person runs `photofinish`, for the commands a hint prints: ``photofinish`` when that is on their
    PATH, else the path they typed (``.venv/bin/photofinish``)."""
    argv0 = sys.argv[0] if argv0 is None and sys.argv else argv0 or ""
    if os.path.basename(argv0) != "photofinish":  # `python -m`, a test: the installed name
        return "photofinish"
    found = shutil.which("photofinish")
    try:
        if found and os.path.samefile(found, argv0):
            return "photofinish"
    except OSError:
        pass
    return argv0
