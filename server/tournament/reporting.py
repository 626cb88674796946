"""Reported results: tables played off the server, with real cards, whose players report the places. Pure: the
records and their fold.

**Which tables report** (``reported_ids``): with ``Settings.reported_tables`` = N, the last N tables of each
seating (the round's highest-numbered; every table when the round has N or fewer) are played off the server.
The organiser may change N from the next round seated on (``reported_count`` record: ``round`` is that
round, which must be the next one; the count of a round is the last such record's for it or before, else the
settings'). Those tables are
they are seated like any other (same seater, same log record) but never opened; their players are told their
table with ``reported`` set. Derived from the settings and the seating, so ``verify`` knows them too.

**A report** (``reported`` record): a player at such a table, with their token, gives every seat's place (1 =
first, ties sharing their best place: 1, 1, 3). A player may report again until the result stands (their
last report counts). The result stands the moment every player at the table has reported and all reports
agree: that record makes it (no other record is logged), places as reported, every score 0 (so each player's
game share at that table is even).

**A settlement** (``settled`` record): the organiser, with their secret, gives the places of a reported table
whose result does not stand yet (a disagreement, or a player who cannot report), with a reason; the result
stands at once.

Refused, changing nothing: a table not seated (``unknown_table``), one played on the server
(``not_reported``), a player not at it (``not_your_table``), a result that stands already
(``already_settled``), places that are not a table's (``bad_places``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..protocol import Code, Refusal
from .model import TableResult


class Reported(msgspec.Struct, tag_field="kind", tag="reported", frozen=True, omit_defaults=True):
    """A player's report of a reported table: each seat's place, seat 0 first."""

    table: str
    player: str
    places: tuple[int, ...]
    time: float = 0.0


class ReportedCount(msgspec.Struct, tag_field="kind", tag="reported_count", frozen=True, omit_defaults=True):
    """The organiser's count of reported tables from round ``round`` (the next one seated) on."""

    round: int
    tables: int
    time: float = 0.0


class Settled(msgspec.Struct, tag_field="kind", tag="settled", frozen=True, omit_defaults=True):
    """The organiser's settlement of a reported table: each seat's place, and why."""

    table: str
    places: tuple[int, ...]
    reason: str = ""
    time: float = 0.0


def reported_ids(state: Any, round_no: int | None = None) -> list[str]:
    """The tables that report (see the module's text), of round ``round_no`` or of every round."""
    if not state.settings.reported_tables and not state.report_counts:
        return []
    by_round: dict[int, list[str]] = {}
    for table, (r, _) in state.tables.items():
        by_round.setdefault(r, []).append(table)
    rounds = [round_no] if round_no is not None else sorted(by_round)
    return [t for r in rounds if count_for(state, r) for t in by_round.get(r, [])[-count_for(state, r):]]


def count_for(state: Any, round_no: int) -> int:
    """How many tables of round ``round_no`` report: the organiser's last count for it or before, else the
    settings'."""
    counts = [n for r, n in state.report_counts if r <= round_no]
    return counts[-1] if counts else state.settings.reported_tables


def is_reported(state: Any, table: str) -> bool:
    seated = state.tables.get(table)
    return seated is not None and table in reported_ids(state, seated[0])


def pending(state: Any) -> list[str]:
    """The reported tables whose result does not stand yet."""
    return [t for t in reported_ids(state) if t not in state.results]


def check(state: Any, table: str, places: tuple[int, ...], player: str | None = None) -> tuple[str, ...]:
    """Refuse a report (``player``) or a settlement (None) that cannot apply; the table's players otherwise."""
    seated = state.tables.get(table)
    if seated is None:
        raise Refusal(Code.UNKNOWN_TABLE, f"no table {table} is seated in this tournament")
    if not is_reported(state, table):
        raise Refusal(Code.NOT_REPORTED, f"table {table} plays on the server: its result comes from its own end")
    players = seated[1]
    if player is not None and player not in players:
        raise Refusal(Code.NOT_YOUR_TABLE, f"{player} is not seated at table {table}")
    if table in state.results:
        raise Refusal(Code.ALREADY_SETTLED, f"table {table}'s result stands already")
    try:
        _result(table, players, places).check()
    except Refusal as error:
        raise Refusal(Code.BAD_PLACES, f"{list(places)} are not places for table {table}'s {len(players)} "
                                       "seats: one per seat, seat 1 first, 1 = first, tied seats sharing "
                                       "their best place (1, 1, 3)") from error
    return players


def fold(state: Any, record: Reported | Settled | ReportedCount) -> None:
    """Take a report, a settlement or a new count into ``state`` (``state.Tournament``); raise ``Refusal`` and
    change nothing if it cannot apply. The result stands when every player agrees, or at once when settled."""
    if type(record) is ReportedCount:
        from .scoring import REPORTED_MOST

        if record.round != state.round + 1:
            raise Refusal(Code.BAD_ROUND, f"a count of reported tables applies from the next round seated, "
                                          f"{state.round + 1}, not {record.round}")
        if not 0 <= record.tables <= REPORTED_MOST:
            raise Refusal(Code.BAD_SETTINGS, f"reported tables are 0..{REPORTED_MOST} a round, not {record.tables}")
        state.report_counts.append((record.round, record.tables))
        return
    if type(record) is Settled:
        players = check(state, record.table, record.places)
        state.results[record.table] = _result(record.table, players, record.places)
        return
    players = check(state, record.table, record.places, record.player)
    reports = state.reports.setdefault(record.table, {})
    reports[record.player] = record.places
    if len(reports) == len(players) and len(set(reports.values())) == 1:
        state.results[record.table] = _result(record.table, players, record.places)


def _result(table: str, players: tuple[str, ...], places: tuple[int, ...]) -> TableResult:
    return TableResult(table=table, players=players, places=tuple(places), scores=(0,) * len(places))
