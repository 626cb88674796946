"""Reported results, the director's side (the rules are ``reporting.py``'s): a player's report with their token,
the organiser's settlement or count of reported tables with their secret, each logged (``reported``,
``settled``, ``reported_count``) under the director's lock and on disk before it is answered; when a table's
result stands it is rated and the event advances, as after a server table's end (``results.finished``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..protocol import Code, Refusal
from . import results
from .reporting import ReportedCount, Reported, Settled

if TYPE_CHECKING:
    from .director import Director

CHANGES_MOST = 20  # reports one player may make at one table (the first and its changes): past it, the organiser
# settles (each is a log record and a push to every watcher: a player sending report after report filled the log)


async def report(d: Director, token: str, table: str, places: list[int]) -> None:
    """A player at ``table`` reports each seat's place (refused: ``Refusal``, nothing changed). The same report
    again changes nothing and logs nothing."""
    async with d.lock:
        d._not_over()
        player = d._player(token)
        begun(d, table)
        if d.state.reports.get(table, {}).get(player) == tuple(places) and table not in d.state.results:
            return
        made = d.reports_made.get((table, player), 0)
        if made >= CHANGES_MOST:
            raise Refusal(Code.TOO_MANY_REPORTS, f"you have reported table {table} {made} times; the organiser "
                                                 "settles its result now (settle_result)")
        await d.record(Reported(table=table, player=player, places=tuple(places), time=d.now()))
        d.reports_made[(table, player)] = made + 1
        await _after(d, table)


def made(records) -> dict[tuple[str, str], int]:
    """The reports each player made at each table, counted from a reopened tournament's log (``reports_made``): a
    restart never gives a player their ``CHANGES_MOST`` again."""
    counts: dict[tuple[str, str], int] = {}
    for record in records:
        if type(record) is Reported:
            counts[(record.table, record.player)] = counts.get((record.table, record.player), 0) + 1
    return counts


async def settle(d: Director, secret: str, table: str, places: list[int], reason: str = "") -> None:
    """The organiser gives ``table``'s places; its result stands at once."""
    d._organiser(secret)
    async with d.lock:
        d._not_over()
        begun(d, table)
        await d.record(Settled(table=table, places=tuple(places), reason=reason.strip(), time=d.now()))
        await _after(d, table)


def begun(d: Director, table: str) -> None:
    """Refuse a result for a table of the round seated and waiting to begin (``pairings_first``): until the
    organiser begins it, its seating may still change (a swap, a re-pair), and a result that stood before would
    follow the table, not its players; and a round whose every table reported would be followed by the next
    without ever having begun. (Here, not in the fold: a log that has such a record still reads.)"""
    seated = d.state.tables.get(table)
    if seated is not None and seated[0] == d.state.org.held:
        raise Refusal(Code.ROUND_NOT_BEGUN, f"table {table}'s round {seated[0]} has not begun: its result is "
                                            "reported once the organiser begins the round")


async def set_count(d: Director, secret: str, tables: int) -> None:
    """The organiser's count of reported tables, from the next round seated on."""
    d._organiser(secret)
    async with d.lock:
        d._not_over()
        await d.record(ReportedCount(round=d.state.round + 1, tables=tables, time=d.now()))
        d.push()


async def _after(d: Director, table: str) -> None:
    """Tell the watchers; once the table's result stands, rate it and advance the event."""
    result = d.state.results.get(table)
    if result is None:
        d.push()
        return
    await results.rate(d, result)
    d.push()
    await d.advance()
