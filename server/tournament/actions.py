"""The organiser's actions as log records: each one a line of the tournament's hash-chained log (``tlog``), folded
by ``fixes.py`` (which says when each applies and what it changes) and so recomputed by ``tournament verify``.

Pure data: frozen msgspec Structs tagged by ``"kind"`` as every record is. Every one carries the organiser's
``reason`` in words (kept in the log and shown in the round history) and ``time`` (seconds since the
tournament was created). Cancelling an event is no record of its own: it is ``tlog.Ended`` with the reason
``cancelled`` (its ``note`` the organiser's reason), which reveals the seed and freezes the standings.
"""

from __future__ import annotations

import msgspec


class ActionTable(msgspec.Struct, frozen=True):
    """One table of a re-seated round: its id and its players in seat order (``tlog.SeatedTable``'s shape)."""

    table: str
    players: tuple[str, ...]


class RoundBegun(msgspec.Struct, tag_field="kind", tag="round_begun", frozen=True, omit_defaults=True):
    """A round seated under ``pairings_first`` begins: its tables open now, and its seating is fixed from here."""

    round: int
    time: float = 0.0


class Repaired(msgspec.Struct, tag_field="kind", tag="repaired", frozen=True, omit_defaults=True):
    """Round ``round`` (seated, not begun) seated again by the same pure seater, from the standings and active
    players as they are now, with each pair of ``exclude`` kept apart when it can be. ``tables`` and ``byes``
    are what it gave (``fixes`` recomputes them)."""

    round: int
    tables: tuple[ActionTable, ...]
    byes: tuple[str, ...] = ()
    exclude: tuple[tuple[str, str], ...] = ()
    reason: str = ""
    time: float = 0.0


class Swapped(msgspec.Struct, tag_field="kind", tag="swapped", frozen=True, omit_defaults=True):
    """Two players of round ``round`` (seated, not begun) change places: each takes the other's seat (or bye)."""

    round: int
    players: tuple[str, str]
    reason: str = ""
    time: float = 0.0


class RoundEnded(msgspec.Struct, tag_field="kind", tag="round_ended", frozen=True, omit_defaults=True):
    """The organiser ends round ``round`` now: its tables still playing end as they stand (as ``round_time_ms``
    ends them); their results follow as ``table_result`` records, and the next round then as ever."""

    round: int
    tables: tuple[str, ...]  # the tables still playing when it was asked
    reason: str = ""
    time: float = 0.0


class Penalised(msgspec.Struct, tag_field="kind", tag="penalised", frozen=True, omit_defaults=True):
    """A penalty: ``points`` off the player's total (their opponents' tiebreaks are unchanged), or a game loss
    at ``table`` (the player placed last at that finished table, the others closing up)."""

    player: str
    reason: str
    points: float = 0.0
    table: str = ""
    time: float = 0.0


class Disqualified(msgspec.Struct, tag_field="kind", tag="disqualified", frozen=True, omit_defaults=True):
    """The player is out for good: seated no more, ranked below everyone; their results keep counting for
    their opponents."""

    player: str
    reason: str
    time: float = 0.0


class Undropped(msgspec.Struct, tag_field="kind", tag="undropped", frozen=True, omit_defaults=True):
    """A drop undone: the player is active again, seated from the next round seated."""

    player: str
    reason: str
    time: float = 0.0


class Reentered(msgspec.Struct, tag_field="kind", tag="reentered", frozen=True, omit_defaults=True):
    """A dropped player enters again (settings ``reentry``): a new entry ``player`` named ``name``, from 0
    points, seated from the next round seated; the old entry ``entry`` stays in the standings, dropped."""

    player: str
    entry: str
    name: str
    reason: str
    token: str | None = None  # sha256 of the new entry's token (never the token)
    time: float = 0.0


ACTIONS = (RoundBegun, Repaired, Swapped, RoundEnded, Penalised, Disqualified, Undropped, Reentered)
