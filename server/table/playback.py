"""A playback: a finished log's accepted entries fed to a read-only table at their recorded pace (times a
speed), so that watchers see the game as it was played, with the live table's seq numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import trio

from rules import Step

from ..logs.logfile import Entry
from ..logs.rebuild import apply_entry
from . import apply, intents

if TYPE_CHECKING:
    from .arbiter import Table

_ENTRY = msgspec.msgpack.Decoder(Entry)


async def play_back(table: Table, entries: list, speed: float) -> None:
    """Feed a finished log's accepted entries to the arbiter at ``speed`` times their recorded pace; each an
    ``Entry``, or one msgpack-encoded (``frames.playback_source``: decoded only as it is played)."""
    table.started = True
    previous = None
    for entry in entries:
        if isinstance(entry, bytes):
            entry = _ENTRY.decode(entry)
        previous = entry.time if previous is None else previous
        await trio.sleep(max(0.0, entry.time - previous) / speed)
        previous = entry.time
        await table.submit(intents.Replay(entry))
    table.played_out = True


def replay_entry(table: Table, entry) -> None:
    """Apply one logged entry (the arbiter's side of ``play_back``)."""
    while table.log.seq + 1 < entry.seq:  # the live table's refused attempts: not shown, their numbers kept
        table.log.append(time=entry.time, actor=entry.actor, action=None, accepted=False, code="refused")
    action, events = apply_entry(table.game, table.session, entry)  # the fold every reader of a log uses
    apply.record(table, [Step(entry.actor, action, events)], time=entry.time)
