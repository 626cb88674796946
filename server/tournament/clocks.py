"""A tournament's clocks: a round's time limit (``round_time_ms``: tables still playing end as they stand) and an
arena's length (``arena_ms``). They only halt tables and mark the arena over; what follows is the results'
(``results.py``) and the director's (``Director.advance``) as at any table's end: with a broadcast delay, once
each table's spectators have been shown its end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio


if TYPE_CHECKING:
    from .director import Director


async def arena_clock(d: Director, records: list | None = None) -> None:
    """An arena runs for ``arena_ms`` (default 10 minutes): then nobody more is seated, and it ends once its
    last tables are over (with ``round_time_ms``, those still playing that long after its end end as they stand).
    Reopened at a restart (its log's ``records``): for what was left of it, from its first seating to the log's
    last record (a restart never gives an arena its whole time again, nor its last tables their
    ``round_time_ms``; ``arena.reopen`` has marked it over already if its time was up)."""
    from .arena import end_time

    end = end_time(d, records or []) if records else None
    end = d.now() + (d.request.arena_ms or 600_000) / 1000 if end is None else end
    await trio.sleep(max(0.0, end - d.now()))
    async with d.lock:
        d.arena_over = True
        d.waiting = []
        if not d.state.unfinished() and not d.state.ended:
            await d.end("time_up", "the arena's time is up")
    if d.request.round_time_ms:  # tables still playing get their time too, then end as they stand
        await trio.sleep(max(0.0, end + d.request.round_time_ms / 1000 - d.now()))
        await halt(d, [t for t in d.state.unfinished()])


async def round_clock(d: Director, round_no: int, tables: list[str], seconds: float | None = None) -> None:
    """Round ``round_no``'s ``tables`` end as they stand after ``round_time_ms`` (``seconds``: what is left of it)."""
    await trio.sleep(d.request.round_time_ms / 1000 if seconds is None else seconds)
    await halt(d, tables)


def rearm(d: Director, records: list) -> None:
    """At a restart, what the clocks and the organiser had decided goes on (or a round's tables would play on
    for ever, tournament tables having no abandon clock): the current round's ``round_time_ms`` runs for what
    was left of it (from its seating, or under ``pairings_first`` its beginning, to the log's last record: the
    time the server was down is not counted, nobody could play); a round the organiser ended (``round_ended``
    logged, the server killed before its tables stopped) and an event that ended (cancelled) with tables still
    playing have those tables halted at once, as ``end_round`` and ``cancel`` halt them."""
    from .actions import RoundBegun, RoundEnded
    from .reporting import is_reported
    from .tlog import RoundSeated

    state, lobby = d.state, d.hub.lobby
    if state.ended is not None:
        tables, left = list(state.unfinished()), 0.0
        d.tables.update({t: lobby.tables[t] for t in tables if t in lobby.tables})
    elif not state.round or state.settings.format == "arena" or state.round == state.org.held:
        return
    else:
        tables = [t for t in state.unfinished() if state.tables[t][0] == state.round and not is_reported(state, t)]
        if any(type(r) is RoundEnded and r.round == state.round for r in records):
            d.ending, left = state.round, 0.0
        elif d.request.round_time_ms:
            start = max((r.time for r in records if type(r) in (RoundSeated, RoundBegun) and r.round == state.round),
                        default=d.now())
            left = max(0.0, d.request.round_time_ms / 1000 - (d.now() - start))
        else:
            return
    if tables:
        d.hub.spawn(d.id, round_clock, d, state.round, tables, left)


def results_wait(d: Director) -> float:
    """How long an organiser who ended a round is kept waiting for its halted tables' results: 30 s, and a
    broadcast delay's worth more (a result is taken once the table's spectators have been shown its end)."""
    return 30 + d.request.spectator_delay_ms / 1000


async def halt(d: Director, tables: list[str]) -> None:
    """End the ``tables`` open here that still play, placed as their game stands (``time_limit``); each one's
    result is then taken as any other (``results.await_result``)."""
    for table_id in tables:
        table = d.tables.get(table_id)
        if table is not None and not table.over.is_set():
            await table.halt("time_limit")
