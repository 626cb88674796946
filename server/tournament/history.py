"""A tournament's round history as protocol values (``RoundHistory``, ``ActionInfo``): every round's tables, seats,
results and the places that count after corrections and game losses, and every organiser decision with its
reason, in log order. Pure functions of the folded state (``state.Tournament``); ``views.snapshot`` carries them
in every ``tournament`` message, and the CLI's standings, rounds and export print them.
"""

from __future__ import annotations

from typing import Any

from ..protocol import ActionInfo, RoundHistory, TableHistory
from .actions import Penalised, Reentered, Repaired, RoundEnded, Swapped
from .state import Tournament


def rounds(state: Tournament) -> list[RoundHistory]:
    """Every round seated so far, the current one last."""
    counted = {c.table: c for c in state.corrections}  # the last correction of each table wins
    ended_early = {r.round for _, r in state.org.history if type(r) is RoundEnded}
    by_round: dict[int, list[TableHistory]] = {}
    for table, (round_no, players) in state.tables.items():
        result = state.results.get(table)
        fix = counted.get(table)
        by_round.setdefault(round_no, []).append(TableHistory(
            table=table, players=list(players),
            places=list(result.places) if result else None, scores=list(result.scores) if result else None,
            stand_ins=[i for i, s in enumerate(result.stand_ins) if s] if result else [],
            counted=list(fix.places) if fix is not None and result and fix.places != result.places else None))
    return [RoundHistory(round=n, tables=by_round.get(n, []), byes=list(seating.byes),
                         begun=state.org.held != n, ended_early=n in ended_early)
            for n, seating in enumerate(state.seatings, 1)]


def actions(state: Tournament) -> list[ActionInfo]:
    """Every organiser decision (and every drop), in log order, with the round current when it was made."""
    return [_info(record, round_no) for round_no, record in state.org.history]


def _info(record: Any, round_no: int) -> ActionInfo:
    kind = type(record).__struct_config__.tag
    reason = getattr(record, "reason", "") or ""
    if kind == "ended":  # a cancellation: its reason is the organiser's words
        return ActionInfo(kind="cancelled", time=record.time, round=round_no, reason=record.note)
    players: list[str] = []
    if type(record) is Swapped:
        players = list(record.players)
    elif type(record) is Repaired:
        players = [p for pair in record.exclude for p in pair]
    elif type(record) is Reentered:
        players = [record.entry, record.player]
    elif hasattr(record, "player"):
        players = [record.player]
    return ActionInfo(kind=kind, time=record.time, round=round_no, reason=reason, players=players,
                      table=getattr(record, "table", "") or "",
                      points=float(record.points) if type(record) is Penalised else 0.0,
                      places=list(getattr(record, "places", ()) or ()))
