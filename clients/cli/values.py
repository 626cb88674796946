"""argparse types for the values only some commands take: game options, server bots, receipts, points,
places and times in seconds. Each turns what was typed into the value the command sends, or says in one line
what it should have been (``checks.py`` has the types every command shares: URLs, ports, seats, seeds)."""

from __future__ import annotations

import argparse
import math

import msgspec

from rules.bots import POLICY_NAMES


def option(text: str) -> tuple[str, object]:
    """A game option, ``NAME=VALUE``: the value read as JSON if it is JSON (3, true, [1,2]), else as text."""
    name, sep, raw = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE, not {text!r}")
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        value = raw
    return name, value


def bot(text: str) -> tuple[int, str]:
    """``SEAT`` or ``SEAT:POLICY``, the seat numbered from 1 as a person counts; returns the wire's 0-based seat."""
    seat, _, policy = text.partition(":")
    if not seat.isdigit() or int(seat) < 1 or (policy and policy not in POLICY_NAMES):
        raise argparse.ArgumentTypeError(f"a bot is SEAT or SEAT:POLICY (seats from 1; {', '.join(POLICY_NAMES)}), "
                                         f"not {text!r}")
    return int(seat) - 1, policy or "heuristic"


def receipt(text: str) -> tuple[int, str]:
    """``SEQ:HASH``: an entry number and the 64 hex digits of its hash, as an update gave them."""
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isdigit() or len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest):
        raise argparse.ArgumentTypeError(f"a receipt is SEQ:HASH (an entry number and 64 hex digits), not {text!r}")
    return int(seq), digest


def point(text: str) -> float:
    """One point value: a number of 0 or more, kept as written (2.5 stays 2.5; the server never truncates)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"points are numbers, e.g. 3 or 2.5; not {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"points are 0 or more, not {text!r}")
    return value


def points(text: str) -> list[float]:
    """Placement points by place, best first, never rising: ``3,1,0``."""
    try:
        values = [point(v) for v in text.split(",")]
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"points are numbers of 0 or more by place, best first, e.g. 3,1,0 or "
                                         f"2.5,1,0; not {text!r} ({error})") from None
    if values != sorted(values, reverse=True):
        raise argparse.ArgumentTypeError(f"points go best first (never rising), e.g. 3,1,0; not {text!r}")
    return values


def places(text: str) -> list[int]:
    """Each seat's place, seat by seat: ``2,1,3``."""
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"places are whole numbers by seat, e.g. 1,3,2; not {text!r}")


def seconds(text: str) -> int:
    """A time in seconds, 0 or more; returned in milliseconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a time in seconds, not {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"a time in seconds is 0 or more, not {text!r}")
    return int(value * 1000)
