"""What a client sees of a tournament (lila's SwissJson): its info line and its whole state now, as protocol
messages. Pure functions of the tournament's id, how it was asked for and its folded state.
"""

from __future__ import annotations

from typing import Any

from ..protocol import CreateTournament, PlayerInfo, SeatingInfo, StandingRow, TournamentInfo, TournamentState
from . import history, reporting, scoring
from .state import Tournament


def info(tid: str, request: CreateTournament, state: Tournament) -> TournamentInfo:
    """The line a list of tournaments shows: game, format, rounds planned, status, players, the seed's hash."""
    s = state.settings
    planned = s.rounds + (1 if s.top_n else 0) if s.format == "swiss" else (
        len(state.schedule) if state.schedule is not None else 0)
    status = "over" if state.ended else ("running" if state.round else "registration")
    return TournamentInfo(tournament=tid, name=request.name or tid, game=request.game,
                          mode=request.mode, seats=s.sizes.wanted, options=dict(state.created.options),
                          format=s.format, rounds=planned, round=state.round, status=status,
                          players=len(state.entered()), commitment=state.created.commitment,
                          max_players=s.max_players, waitlisted=len(state.waitlist),
                          **scoring.shown(s, len(state.entered()), reporting.count_for(state, state.round + 1)),
                          waiting_round=state.org.held)


def snapshot(tid: str, request: CreateTournament, state: Tournament, ref: Any = None) -> TournamentState:
    """Everything now: the players (and who waits), the standings, the current round's tables and byes."""
    names = state.names
    rows = [StandingRow(rank=row.rank, player=row.player, name=names.get(row.player, row.player),
                        points=row.points, opponents_pct=row.opponents, game_share=row.share, tables=row.tables,
                        byes=row.byes, dropped=row.dropped) for row in state.standings()]
    dropped = set(state.dropped)
    waiting = set(state.waitlist)
    out = set(state.org.disqualified)
    players = [PlayerInfo(player=p, name=names[p], checked_in=p in state.checked_in, dropped=p in dropped,
                          waitlisted=p in waiting, disqualified=p in out) for p in state.players]
    seatings, byes = [], []
    if state.round:
        current = [t for t, (r, _) in state.tables.items() if r == state.round or t not in state.results]
        for table in current:
            _, seated = state.tables[table]
            result = state.results.get(table)
            seatings.append(SeatingInfo(table=table, players=list(seated),
                                        places=list(result.places) if result else None,
                                        stand_ins=[i for i, s in enumerate(result.stand_ins) if s]
                                        if result else [], **_reports(state, table)))
        byes = list(state.seatings[-1].byes)
    return TournamentState(ref=ref, tournament=info(tid, request, state), players=players, standings=rows,
                           seatings=seatings, byes=byes, waitlist=list(state.waitlist),
                           rounds=history.rounds(state), actions=history.actions(state))


def _reports(state: Tournament, table: str) -> dict:
    """A table played off the server: marked ``reported``, with each report so far (``reporting.py``)."""
    if not reporting.is_reported(state, table):
        return {}
    return {"reported": True, "reports": {p: list(places) for p, places in state.reports.get(table, {}).items()}}
