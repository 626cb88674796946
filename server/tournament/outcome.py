"""A tournament table's result as its own end gives it (``TableOutcome``): read from a table that is over, or
from the log of one that ended while nobody followed it. A director logs it as a ``table_result``; on a cluster
the node that ran the table hands it over through Redis (``remote.py``, ``host.py``).

A table with a broadcast delay gives its result only once its spectators have been shown its end
(``shown_end``, where the table is: the director's node, or the node that runs it): the tournament's standings,
log, listing and next round would otherwise tell anyone the end the delay still hides. A table found ended in
its log at a start (the server stopped or crashed in between) is not reopened: the lobby keeps its end hidden
until its delay has passed since the end (``heldends.py``), and the tournament takes its result then
(``TournamentHub._result_from_log``; on a cluster, the node that ran it writes it then: ``TableHost._from_log``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from ..logs.logfile import StandIn
from ..table import Table
from ..tending import first_of


class TableOutcome(msgspec.Struct, frozen=True):
    """A table's result as its own end gives it (a tournament logs it as a ``table_result``)."""

    places: tuple[int, ...]
    scores: tuple[int, ...]
    log_hash: str
    lower_is_better: bool = True
    stand_ins: tuple[bool, ...] = ()


def outcome_of(game: Any, table: Table) -> TableOutcome:
    """The result of a table that is over, from the table itself."""
    outcome = table.outcome()
    return TableOutcome(places=outcome.places,
                        scores=outcome.scores if outcome.scores is not None else (0,) * len(outcome.places),
                        log_hash=outcome.end_hash or "", lower_is_better=outcome.lower_is_better,
                        stand_ins=outcome.stand_ins)


async def shown_end(table: Table) -> None:
    """Return once the spectators of a table that is over have been shown its end: at once without a broadcast
    delay; with one, once it has passed. A table stopped before then (forgotten to make room, the server shutting
    down) returns too: its log is open to replay from then on."""
    if not table.end_shown():
        await first_of(table.stream.ended, table.stopped)


def outcome_from_log(path: Path) -> TableOutcome:
    """The result of a table that ended while nobody followed it, from its log (``ValueError`` if the log does
    not check out or has no end with places)."""
    from ..logs.replay import check_log
    from .verify import end_line_hash

    report = check_log(path)
    read = report.read
    end = read.end if read is not None else None
    if not report.ok or end is None or end.places is None:
        raise ValueError(f"table {path.stem} has neither an end nor a live table "
                         f"({report.problem or 'no end record'})")
    stand_ins = [False] * len(end.places)
    for record in read.records:
        if type(record) is StandIn:
            stand_ins[record.seat] = True
    return TableOutcome(places=tuple(end.places), scores=tuple(end.scores or (0,) * len(end.places)),
                        log_hash=end_line_hash(path) or "",
                        lower_is_better=report.result.lower_is_better if report.result else True,
                        stand_ins=tuple(stand_ins))
