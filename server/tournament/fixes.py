"""The organiser's actions folded into a tournament's state (``actions.py`` has their records). Pure.

``apply(state, record)`` is called by ``state.Tournament.apply`` for each action record, so the director and
``verify`` fold them by one code path; it raises ``Refusal`` having changed nothing when the action cannot apply:

- ``round_begun``: only the round seated and waiting (``pairings_first``: ``OrgState.held``);
- ``repaired``: only a Swiss round (not the final) seated and not begun; its seating is recomputed here:
  ``seating.swiss`` over the active players in standings order now, as ``next_seating`` seats a round, with each
  excluded pair counted as having met more often than every real meeting together (so the seater keeps them
  apart whenever any seating can), then seats ordered by the real history (``repair_seating``);
- ``swapped``: two players of the round seated and not begun, not at one table (or both on a bye);
- ``round_ended``: the current round, begun, with the tables still playing named exactly;
- ``penalised``: points off (more than 0, at most ``model.POINTS_MOST``), or a game loss at a finished table the
  player sat at: a correction placing them last there (the others close up; a later correction replaces it);
- ``disqualified``: a player not disqualified already; they are dropped (if they were not) and ranked last;
- ``undropped``: a dropped player, not disqualified, not re-entered, and before the start only into a free place;
- ``reentered``: with ``Settings.reentry``, once started, a dropped entry not disqualified nor re-entered before.

Points off and disqualifications change the standings after ``standings.standings`` computed them
(``adjust``): points lowered, then re-sorted stably by points and the same tiebreaks, disqualified players last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import msgspec

from rules.rng import Rng

from ..protocol import Code, Refusal
from ..protocol.tournament import scoring_places
from . import seating
from .actions import (Disqualified, Penalised, Reentered, Repaired, RoundBegun, RoundEnded, Swapped, Undropped)
from .model import POINTS_MOST, Seating, TableResult
from .scoring import tiebreak_order
from .standings import Standing

if TYPE_CHECKING:
    from .state import Tournament


@dataclass
class OrgState:
    """What the organiser's actions add to a tournament's state."""

    held: int = 0  # the round seated and not begun (``pairings_first``), 0: none
    penalties: dict[str, Fraction] = field(default_factory=dict)  # points off, by player
    disqualified: list[str] = field(default_factory=list)
    reentered: dict[str, str] = field(default_factory=dict)  # old entry -> its new entry
    history: list[tuple[int, Any]] = field(default_factory=list)  # (the round then, an organiser record, a
    # correction, a drop or a cancellation), in log order


def after_seat(state: Tournament, round_no: int) -> None:
    """A round was seated: under ``pairings_first`` it waits for the organiser to begin it."""
    if state.settings.pairings_first:
        state.org.held = round_no


def noted(state: Tournament, record: Any) -> None:
    """Keep a folded record the round history shows (an action, a correction, a drop, a cancellation)."""
    kind = type(record).__struct_config__.tag
    if kind in ("corrected", "dropped") or kind in TAGS or getattr(record, "reason", "") == "cancelled":
        state.org.history.append((state.round, record))


def apply(state: Tournament, record: Any) -> None:
    org = state.org
    match record:
        case RoundBegun(round=r):
            check_waiting(state, r)
            org.held = 0
        case Repaired():
            check_waiting(state, record.round)
            check_pairs(state, record.exclude)
            expected = repair_seating(state, record.exclude)
            got = tuple(t.players for t in record.tables)
            if (got, tuple(record.byes)) != (expected.tables, expected.byes):
                raise Refusal(Code.WRONG_SEATING, f"round {record.round}'s re-pairing is not the one the seater "
                                                  f"gives: expected {[list(t) for t in expected.tables]} byes "
                                                  f"{list(expected.byes)}")
            _reseat(state, expected, [t.table for t in record.tables])
        case Swapped(round=r, players=(a, b)):
            check_waiting(state, r)
            _reseat(state, swapped(state, a, b), _round_tables(state, r))
        case RoundEnded(round=r, tables=tables):
            playing = [t for t in state.unfinished() if state.tables[t][0] == r]
            if state.settings.format == "arena" or r != state.round or org.held == r or not playing:
                raise Refusal(Code.NO_ROUND_PLAYING, f"round {r} has no table playing to end")
            if sorted(tables) != sorted(playing):
                raise Refusal(Code.NO_ROUND_PLAYING, f"round {r}'s tables still playing are {playing}, not "
                                                     f"{list(tables)}")
        case Penalised(player=player, points=points, table=table):
            _known(state, player)
            if bool(points) == bool(table):
                raise Refusal(Code.BAD_PENALTY, "a penalty is points off or a game loss at one table: one of them")
            if table:
                state.corrections.append(game_loss(state, player, table))
            else:
                if isinstance(points, bool) or not math.isfinite(points) or not 0 < points <= POINTS_MOST:
                    raise Refusal(Code.BAD_PENALTY, f"points off are more than 0 and at most {POINTS_MOST}, "
                                                    f"not {points!r}")
                off = Fraction(repr(float(points)))
                org.penalties[player] = org.penalties.get(player, Fraction(0)) + off
        case Disqualified(player=player):
            _known(state, player)
            if player in org.disqualified:
                raise Refusal(Code.DISQUALIFIED, f"{player!r} is disqualified already")
            if player not in state.dropped:
                _drop(state, player)
            org.disqualified.append(player)
        case Undropped(player=player):
            _known(state, player)
            _can_return(state, player)
            if player in state.left_waitlist:
                raise Refusal(Code.NO_PLACE, f"{player!r} left the waitlist and never held a place")
            if not state.round and state.full():
                raise Refusal(Code.NO_PLACE, f"every place of the {state.settings.max_players} is held or "
                                             "someone waits: the drop cannot be undone before the start")
            state.dropped.remove(player)
        case Reentered(player=player, entry=entry, name=name):
            if not state.settings.reentry:
                raise Refusal(Code.NO_REENTRY, "re-entry is off in this tournament's settings")
            if not state.round:
                raise Refusal(Code.NO_REENTRY, "before the start a drop is undone, not re-entered")
            _known(state, entry)
            _can_return(state, entry)
            if player in state.names:
                raise Refusal(Code.ALREADY_REGISTERED, f"{player!r} is registered already")
            state.players.append(player)
            state.names[player] = name
            org.reentered[entry] = player
        case _:
            raise Refusal(Code.BAD_RECORD, f"not an organiser's action: {record!r}")


TAGS = {kind.__struct_config__.tag for kind in (RoundBegun, Repaired, Swapped, RoundEnded, Penalised, Disqualified,
                                                Undropped, Reentered)}


def _known(state: Tournament, player: str) -> None:
    if player not in state.names:
        raise Refusal(Code.UNKNOWN_PLAYER, f"{player!r} is not registered")


def check_waiting(state: Tournament, round_no: int) -> None:
    """Refuse unless round ``round_no`` is seated and waiting to begin."""
    if state.org.held != round_no or not round_no:
        if round_no == state.round and round_no:
            raise Refusal(Code.ROUND_BEGUN, f"round {round_no} has begun: its tables are open")
        raise Refusal(Code.NO_ROUND_WAITING, f"round {round_no} is not seated and waiting to begin"
                                             + ("" if state.settings.pairings_first else
                                                " (the tournament seats and opens each round at once: "
                                                "pairings_first is off)"))


def _can_return(state: Tournament, player: str) -> None:
    if player in state.org.disqualified:
        raise Refusal(Code.DISQUALIFIED, f"{player!r} is disqualified")
    if player not in state.dropped:
        raise Refusal(Code.NOT_DROPPED, f"{player!r} has not dropped")
    if player in state.org.reentered:
        raise Refusal(Code.NO_REENTRY, f"{player!r} entered again as {state.org.reentered[player]!r}")


def _drop(state: Tournament, player: str) -> None:
    """As ``state`` folds ``dropped``: the player seated no more, a place freed before the start to the waitlist."""
    state.dropped.append(player)
    if player in state.waitlist:
        state.waitlist.remove(player)
        state.left_waitlist.add(player)
    elif state.waitlist and not state.round:
        state.waitlist.pop(0)


def check_pairs(state: Tournament, pairs: Sequence[tuple[str, str]]) -> None:
    for pair in pairs:
        if len(pair) != 2 or pair[0] == pair[1] or any(p not in state.names for p in pair):
            raise Refusal(Code.BAD_EXCLUDE, f"an excluded pair is two different registered players, not "
                                            f"{list(pair)}")


def _round_tables(state: Tournament, round_no: int) -> list[str]:
    return [t for t, (r, _) in state.tables.items() if r == round_no]


def _reseat(state: Tournament, new: Seating, ids: Sequence[str]) -> None:
    """Replace the waiting round's seating (its byes and tables) with ``new``, its tables named ``ids``."""
    round_no = state.round
    old = _round_tables(state, round_no)
    if len(ids) != len(new.tables) or len(set(ids)) != len(ids) or set(ids) & (set(state.tables) - set(old)):
        raise Refusal(Code.BAD_TABLE, "a re-seated round names each of its tables once, and no other round's")
    held = state.seatings[-1]
    if held.byes:
        del state.byes[-len(held.byes):]  # the waiting round's byes are the last given: nothing seats after it
    state.byes.extend(new.byes)
    for table in old:
        del state.tables[table]
    for table, players in zip(ids, new.tables):
        state.tables[table] = (round_no, players)
    state.seatings[-1] = Seating(tables=new.tables, byes=new.byes, note=held.note)


def swapped(state: Tournament, a: str, b: str) -> Seating:
    """The waiting round's seating with ``a`` and ``b`` in each other's place."""
    held = state.seatings[-1]

    def where(player: str) -> int:  # the table's index, or -1 for a bye
        for i, table in enumerate(held.tables):
            if player in table:
                return i
        if player in held.byes:
            return -1
        raise Refusal(Code.NOT_IN_ROUND, f"{player!r} is neither at a table nor on a bye in round {state.round}")

    if a == b or where(a) == where(b):
        raise Refusal(Code.SAME_TABLE, f"{a!r} and {b!r} are at the same table (or both on a bye): a swap "
                                       "exchanges players of two tables")
    swap = {a: b, b: a}
    return Seating(tables=tuple(tuple(swap.get(p, p) for p in t) for t in held.tables),
                   byes=tuple(swap.get(p, p) for p in held.byes), note=held.note)


def repair_seating(state: Tournament, exclude: Sequence[tuple[str, str]] = ()) -> Seating:
    """The waiting Swiss round seated again now, keeping the pairs ``exclude`` apart where it can (see above)."""
    s, r = state.settings, state.round
    check_waiting(state, r)
    if s.format != "swiss" or r > s.rounds or state.created.format < 2:
        raise Refusal(Code.CANNOT_REPAIR, f"round {r} is not a Swiss round the seater pairs (a final, or an "
                                          "old log's): swap players instead")
    held_byes = state.seatings[-1].byes
    past = state.seatings[:-1]
    saved = list(state.byes)
    try:  # the standings the round is seated from: without the waiting round's own byes
        if held_byes:
            del state.byes[-len(held_byes):]
        rows = state.standings()
    finally:
        state.byes[:] = saved
    points = {row.player: row.points for row in rows}
    active = set(state.active())
    order = [row.player for row in rows if row.player in active]
    weight = 1 + max(1, len(past)) * max(1, len(order)) ** 2  # more than every real meeting together
    avoid = Seating(tables=tuple(tuple(pair) for pair in exclude for _ in range(weight)))
    plan = seating.swiss(order, points, [*past, avoid] if exclude else past, state.seed, r, s.sizes,
                         derive=state._derive)
    if not plan.tables:
        raise Refusal(Code.NO_TABLE, f"round {r} would seat no table ({len(order)} active player(s))")
    seated = [p for p in order if p not in set(plan.byes)]
    rng = Rng(state._derive(state.seed, r))  # seat order as the seater gives it, from the real history alone
    keys = {p: rng.next_u64() for p in seated}
    firsts = seating.first_seats(past)
    tables = tuple(tuple(sorted(t, key=lambda p: (firsts.get(p, 0), keys[p]))) for t in plan.tables)
    return Seating(tables=tables, byes=plan.byes)


def game_loss(state: Tournament, player: str, table: str) -> TableResult:
    """A correction of ``table`` placing ``player`` last (the others close up), from its result as it stands."""
    if table not in state.results:
        raise Refusal(Code.UNKNOWN_TABLE, f"table {table} has no result: a game loss is given at a finished table")
    current = next((c for c in reversed(state.corrections) if c.table == table), state.results[table])
    if player not in current.players:
        raise Refusal(Code.BAD_PENALTY, f"{player!r} did not play at table {table}")
    flags = tuple(p == player for p in current.players)
    return msgspec.structs.replace(current, places=scoring_places(current.places, flags))


def adjust(state: Tournament, rows: list[Standing]) -> list[Standing]:
    """The standings with points off and disqualifications applied (unchanged when there are none)."""
    org = state.org
    if not org.penalties and not org.disqualified:
        return rows
    out = [msgspec.structs.replace(row, points=float(_exact(row.points) - org.penalties[row.player]))
           if row.player in org.penalties else row for row in rows]
    out_of = set(org.disqualified)
    chosen = tiebreak_order(state.settings)  # the organiser's order of tiebreaks (``scoring.py``), then the lot
    out.sort(key=lambda row: (row.player in out_of, -_exact(row.points),
                              *(-{"opponents": row.opponents, "share": row.share}[name] for name in chosen), row.lot))
    return [msgspec.structs.replace(row, rank=rank, dropped=row.dropped or row.player in out_of)
            for rank, row in enumerate(out, 1)]


def _exact(points: float) -> Fraction:
    return Fraction(points).limit_denominator(10**9)
