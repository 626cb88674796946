"""The organiser's actions on a tournament as messages (``server/tournament/organiser.py`` carries them out), and
the round history a ``tournament`` message carries: every round's tables, seats, results and corrections, and
every organiser decision with its reason. Each action needs the organiser's ``secret`` and a ``reason``; the
answer is the ``tournament`` (``reenter``: ``registered``, the new entry's token)."""

from __future__ import annotations

import msgspec

from .common import ClientMessage


class RepairRound(ClientMessage, tag="repair_round"):
    """Seat the round waiting to begin again (``pairings_first``), by the same seater, from the standings and
    active players now, keeping each pair of ``exclude`` ([player, player]) apart when it can."""

    tournament: str
    secret: str
    reason: str
    exclude: list[list[str]] = []


class SwapPlayers(ClientMessage, tag="swap_players"):
    """Two players of the round waiting to begin change places (each takes the other's seat, or bye)."""

    tournament: str
    secret: str
    players: list[str]
    reason: str


class EndRound(ClientMessage, tag="end_round"):
    """End the current round now: its tables still playing end as they stand (as ``round_time_ms`` does)."""

    tournament: str
    secret: str
    reason: str


class CancelTournament(ClientMessage, tag="cancel_tournament"):
    """Cancel the event: the standings are frozen as they are, the seed revealed, tables playing stopped."""

    tournament: str
    secret: str
    reason: str


class Penalise(ClientMessage, tag="penalise"):
    """A penalty: ``points`` off the player's total, or a game loss at the finished ``table`` (one of them)."""

    tournament: str
    secret: str
    player: str
    reason: str
    points: float = 0.0
    table: str = ""


class Disqualify(ClientMessage, tag="disqualify"):
    """Disqualify a player: seated no more, ranked last; their results keep counting for their opponents."""

    tournament: str
    secret: str
    player: str
    reason: str


class UndoDrop(ClientMessage, tag="undo_drop"):
    """Undo a player's drop: they are seated again from the next round seated."""

    tournament: str
    secret: str
    player: str
    reason: str


class Reenter(ClientMessage, tag="reenter"):
    """A dropped player enters again as a new entry from 0 points (the settings' ``reentry``)."""

    tournament: str
    secret: str
    player: str
    reason: str


class TableHistory(msgspec.Struct, frozen=True, omit_defaults=True):
    """One table of a round in the history: its players in seat order, its result once over (``places`` and
    ``scores`` as the game gave them), and ``counted`` (the places that count, after corrections and game
    losses; absent when they are the game's)."""

    table: str
    players: list[str]
    places: list[int] | None = None
    scores: list[int] | None = None
    stand_ins: list[int] = []
    counted: list[int] | None = None


class RoundHistory(msgspec.Struct, frozen=True, omit_defaults=True):
    """One round: its tables, its byes, whether it has begun (a round waiting under ``pairings_first`` has not)
    and whether the organiser ended it early."""

    round: int
    tables: list[TableHistory]
    byes: list[str] = []
    begun: bool = True
    ended_early: bool = False


class ActionInfo(msgspec.Struct, frozen=True, omit_defaults=True):
    """One organiser decision as logged: its ``kind`` (a log record's: ``corrected``, ``dropped``, ``repaired``,
    ``swapped``, ``round_begun``, ``round_ended``, ``penalised``, ``disqualified``, ``undropped``, ``reentered``,
    ``ended`` for a cancellation), when (seconds since the tournament was created), the round it came in, and
    what it names."""

    kind: str
    time: float
    round: int
    reason: str = ""
    players: list[str] = []
    table: str = ""
    points: float = 0.0
    places: list[int] = []
