"""Reported results, the director's side (the rules are ``reporting.py``'s): a player's report with their token,
the organiser's settlement or count of reported tables with their secret, each logged (``reported``,
``settled``, ``reported_count``) under the director's lock and on disk before it is answered; when a table's
result stands it is rated and the event advances, as after a server table's end (``results.finished``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import results
from .reporting import ReportedCount, Reported, Settled

if TYPE_CHECKING:
    from .director import Director


async def report(d: Director, token: str, table: str, places: list[int]) -> None:
    """A player at ``table`` reports each seat's place (refused: ``Refusal``, nothing changed)."""
    async with d.lock:
        d._not_over()
        player = d._player(token)
        await d.record(Reported(table=table, player=player, places=tuple(places), time=d.now()))
        await _after(d, table)


async def settle(d: Director, secret: str, table: str, places: list[int], reason: str = "") -> None:
    """The organiser gives ``table``'s places; its result stands at once."""
    d._organiser(secret)
    async with d.lock:
        d._not_over()
        await d.record(Settled(table=table, places=tuple(places), reason=reason.strip(), time=d.now()))
        await _after(d, table)


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
    if d.state.settings.format == "arena":
        d.waiting.extend(p for p in result.players if p in set(d.state.active()))
    await d.advance()
