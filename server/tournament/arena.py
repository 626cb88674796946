"""An arena's runtime state, one rule while it runs and at a restart: the players waiting to be seated, in the
order they became free (``after``, applied to every record the director logs, and folded over the whole log when
a restart reopens the arena: ``reopen``), and when its time is up (``end_time``: ``arena_ms`` from its first
seating, in the log's time, which a restart goes on from; ``clocks.arena_clock`` keeps it).

The order decides who sits next (``seating.arena`` seats the earliest waiting, the rest wait on): a restart that
took the players in registration order seated again together the two who had just played and left the one who had
waited longest waiting. And an arena whose time was up at the log's last record is over at the restart before
anything is seated (it ends once its last tables are over), never given a table after its time.

Who becomes free: the players of a finished table (a reported one once its result stands) who are still active,
in seat order; a player registered, checked in, undropped or re-entered who is active and at no table; a seating
takes its players out (its record holds the list it was given); a drop or a disqualification takes one out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import Disqualified, Reentered, Undropped
from .reporting import Reported, Settled
from .state import Tournament
from .tlog import CheckedIn, Dropped, Registered, RoundSeated, TableFinished

if TYPE_CHECKING:
    from .director import Director

_FREED = (Registered, CheckedIn, Undropped, Reentered)


def after(state: Tournament, waiting: list[str], record: Any) -> list[str]:
    """The players waiting once ``record`` is folded into ``state`` (already applied), from ``waiting`` before it."""
    kind = type(record)
    if kind is RoundSeated:
        seated = {p for table in record.tables for p in table.players}
        return [p for p in record.waiting if p not in seated]
    if not state.round:  # not started: ``Director.start`` gives the first seating every active player
        return waiting
    if kind in (Dropped, Disqualified):
        return [p for p in waiting if p != record.player]
    active = set(state.active())
    if kind in (TableFinished, Reported, Settled):
        if record.table not in state.results or record.table not in state.tables:
            return waiting  # a report that left the table's result open
        return waiting + [p for p in state.tables[record.table][1] if p in active and p not in waiting]
    if kind in _FREED and record.player in active and record.player not in waiting:
        busy = {p for t in state.unfinished() for p in state.tables[t][1]}
        if record.player not in busy:
            return waiting + [record.player]
    return waiting


def end_time(d: Director, records: list) -> float | None:
    """When the arena's time is up, in the log's time (``Director.now``): ``arena_ms`` (default 10 minutes) from
    its first seating; None before it is seated."""
    start = next((r.time for r in records if type(r) is RoundSeated), None)
    return None if start is None else start + (d.request.arena_ms or 600_000) / 1000


def reopen(d: Director, records: list) -> None:
    """A restart: the players waiting, as the server that stopped had them (the log's ``records`` folded, then
    those the reopening freed: tables that ended while the server was down, their results logged since through
    ``Director.record``, which added their players to ``d.waiting``), and the arena over if its time was up at the
    log's last record (then nobody more is seated)."""
    state, waiting = Tournament(created=d.state.created, seed=d.state.seed), []
    for record in records:
        state.apply(record)
        waiting = after(state, waiting, record)
    end = end_time(d, records)
    d.arena_over = end is not None and d.now() >= end
    d.waiting = [] if d.arena_over else waiting + [p for p in d.waiting if p not in waiting]
