"""What a spectator who starts watching is sent, built once for every spectator who starts at the same point: each
missed entry's update as a spectator sees it, and the table's snapshot now. A crowd coming in at once (the room
scanning the projector's code as the final starts) then costs the table one build of each, not one per
spectator, and (from the second spectator on) one encoding of each (``encodeonce``): before, a thousand joining
at once cost the table a thousand redactions of every entry it resent and a thousand snapshots.

Entries never change once accepted, so an entry's update is kept for as long as a catch-up may resend it (the last
``seating.CATCH_UP_MOST`` entries). The snapshot is kept while the log stands where it was, the game has started
(before, a seat taken changes who it waits for with no entry) and for at most ``SNAPSHOT_KEEP_S`` (it carries the
seats' round trips, which move with time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..wire import encodeonce
from ..protocol import Snapshot, Update
from . import apply

if TYPE_CHECKING:
    from .arbiter import Table

SNAPSHOT_KEEP_S = 1.0  # a spectator's snapshot is shared for at most this long (its pings age)


@dataclass
class Joins:
    keep: int  # entries' updates kept: the most a catch-up resends
    updates: dict[int, Update] = field(default_factory=dict)  # entry seq -> its update to a spectator, oldest first
    snapshot: tuple[int, int, float, Snapshot] | None = None  # (seq, skipped, table time made, the snapshot)


def joins(table: Table) -> Joins:
    if table.stream.joins is None:
        from .seating import CATCH_UP_MOST
        table.stream.joins = Joins(keep=CATCH_UP_MOST)
    return table.stream.joins


def entry_update(table: Table, entry: Any) -> Update:
    """The update a spectator catching up is sent for the accepted ``entry``."""
    kept = joins(table)
    update = kept.updates.get(entry.seq)
    if update is None:
        events = [table.game.redact(e, None) for e in entry.events]
        update = kept.updates[entry.seq] = Update(table=table.id, seq=entry.seq, actor=entry.actor, events=events,
                                                  to_act=[], receipt=apply.receipt(table, entry.seq))
        while len(kept.updates) > kept.keep:
            del kept.updates[next(iter(kept.updates))]
        return update
    return _shared(update)


def snapshot(table: Table, skipped: int) -> Snapshot:
    """The snapshot a spectator who starts watching now is sent (after ``skipped`` entries it was not resent)."""
    from .fanout import snapshot as build

    kept = joins(table)
    now = table.now()
    if kept.snapshot is not None and table.started:
        seq, was_skipped, made, shown = kept.snapshot
        if seq == table.log.seq and was_skipped == skipped and now - made < SNAPSHOT_KEEP_S:
            return _shared(shown)
    shown = build(table, None, skipped)
    kept.snapshot = (table.log.seq, skipped, now, shown)
    return shown


def _shared(message: Any) -> Any:
    """Sent to a second spectator: encoded once for all of them from now on (while ``encodeonce`` remembers)."""
    return message if encodeonce.shared(message) else encodeonce.share(message)
