"""An arena's runtime state, one rule while it runs and at a restart: when its time is up (``end_time``:
``arena_ms`` from its first seating, in the log's time, which a restart goes on from; ``clocks.arena_clock`` keeps
it), and at a restart whether it was up already (``reopen``).

An arena whose time was up at the log's last record is over at the restart before anything is seated (it ends
once its last tables are over, which keep what was left of their ``round_time_ms``): a restart that left it to
its clock, started after the reopened arena had advanced, seated a new table of everyone free after its time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tlog import RoundSeated

if TYPE_CHECKING:
    from .director import Director


def end_time(d: Director, records: list) -> float | None:
    """When the arena's time is up, in the log's time (``Director.now``): ``arena_ms`` (default 10 minutes) from
    its first seating; None before it is seated."""
    start = next((r.time for r in records if type(r) is RoundSeated), None)
    return None if start is None else start + (d.request.arena_ms or 600_000) / 1000


def reopen(d: Director, records: list) -> None:
    """A restart: the arena over if its time was up at the log's last record (then nobody more is seated)."""
    end = end_time(d, records)
    d.arena_over = end is not None and d.now() >= end
    if d.arena_over:
        d.waiting = []
