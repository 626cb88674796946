"""A table's action log: every input that changed state, or was refused, in arbiter order (a seat's refusals
within its budget: past it one is answered ``too_many_refused`` and not logged, since it changed nothing:
``server/table/refusals.py``).

Entries are numbered from 1 by ``seq``; accepted entries and refused intents share the numbering, so the
log is one total order of everything the arbiter received. This module keeps it in memory; a durable
store appends the same entries to disk.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

REFUSED_MOST = 512  # bytes: a refused action encoded larger is kept (in memory and in the log) as its digest
_encode = msgspec.json.Encoder().encode


def compact_refused(action: Any) -> Any:
    """What is kept of a refused intent's action: itself, or when its JSON is over ``REFUSED_MOST`` bytes
    ``{"digest": <sha256 hex of that JSON>, "bytes": N}``, so a client sending junk cannot fill the memory or
    the disk (the refusal's code is kept whole beside it)."""
    try:
        body = _encode(action)
    except (TypeError, ValueError, OverflowError):  # not JSON-encodable: nothing a client sent as JSON
        return {"digest": None, "bytes": None}
    if len(body) <= REFUSED_MOST:
        return action
    return {"digest": hashlib.sha256(body).hexdigest(), "bytes": len(body)}


class LogEntry(msgspec.Struct, frozen=True, gc=False):
    """One entry. Not tracked by the cycle collector (``gc=False``), nor are the games' actions and events:
    a busy server holds hundreds of thousands of entries, and tracking them made each full collection
    stall every table for up to 90 ms. Entries hold no reference back to anything that holds them."""

    seq: int
    time: float  # server seconds since the table started (trio's clock: virtual under a MockClock)
    actor: int  # a seat, rules.SYSTEM or rules.CHANCE
    action: Any  # the game action (as received, for a refused intent that did not decode; a large refused
    # one only as its digest: ``compact_refused``)
    accepted: bool
    code: str | None = None  # the refusal's code
    events: tuple[Any, ...] = ()  # what an accepted entry did (kept to catch up reconnecting clients)
    ref: int | str | None = None  # the client message id it answered
    fair: Any = None  # the fair ordering decision (``logfile.Fair``) of a contested action


class MemoryLog:
    """The log of one table, in memory."""

    def __init__(self) -> None:
        self.entries: list[LogEntry] = []
        self.accepted_seq = 0  # the seq of the last accepted entry: where the game's state last changed
        self.accepted = 0  # how many entries were accepted (the moves; a broadcast delay in entries counts these)

    @property
    def seq(self) -> int:
        return len(self.entries)

    def append(self, *, time: float, actor: int, action: Any, accepted: bool, code: str | None = None,
               events: list[Any] | None = None, ref: Any = None, fair: Any = None) -> LogEntry:
        entry = LogEntry(seq=len(self.entries) + 1, time=time, actor=actor, action=action, accepted=accepted,
                         code=code, events=tuple(events or ()), ref=ref, fair=fair)
        self.entries.append(entry)
        if accepted:
            self.accepted_seq = entry.seq
            self.accepted += 1
        return entry

    def accepted_after(self, seq: int) -> list[LogEntry]:
        return [entry for entry in self.entries[max(seq, 0):] if entry.accepted]

    def history(self) -> list[tuple[int, Any]]:
        """The accepted (actor, action) pairs: what ``rules.replay`` rebuilds the game from."""
        return [(entry.actor, entry.action) for entry in self.entries if entry.accepted]
