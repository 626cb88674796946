"""Round 1 seeded by ratings (``Settings.seeding == "ratings"``, Swiss only): its record and its seater. Pure.

Before round 1 is seated the director logs ``ratings_seeded``: every active player's rating at that moment
(the ordinal ``mu - 3 sigma`` of ``ratings.py``, the leaderboard's order; ``UNRATED``, the model's default
ordinal 0, for a player with no rated table yet). Round 1 is then seated from those numbers alone, so
``verify`` recomputes it from the log without the server's store.

**The seating** (``round_one``): the players ordered by rating, best first (equal ratings by the standings'
seeded lot); the byes, if the count needs any, go to the lowest rated (as a Swiss bye goes to the lowest
ranked); the others are dealt to the tables in a serpentine (1, 2, ..., T, T, ..., 2, 1, 1, 2, ...; a full
table is skipped), so the T best rated sit at T different tables and every table gets a like share of the
field: the strongest meet in later rounds, as a seeded Swiss intends. Table sizes are ``seating.table_sizes``'s.
Seat order at each table by a seeded draw (``derive(seed, 1)``), as a Swiss round 1's is.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import msgspec

from rules.rng import Rng

from ..protocol import Code, Refusal
from .model import Seating, Sizes
from .seating import table_sizes
from .seeds import Derive, hashed

UNRATED = 0.0  # the ordinal of a player with no rated table (openskill's mu 25 - 3 * 25/3)


class RatingsSeeded(msgspec.Struct, tag_field="kind", tag="ratings_seeded", frozen=True, omit_defaults=True):
    """The ratings round 1 is seated from: each active player's ordinal when the organiser started."""

    ratings: dict[str, float]
    time: float = 0.0


def fold(state, record: RatingsSeeded) -> None:
    """Take ``ratings_seeded`` into ``state`` (``state.Tournament``): once, before round 1, in an event seeded
    by ratings, for registered players only."""
    if state.settings.seeding != "ratings":
        raise Refusal(Code.BAD_RECORD, "ratings are logged only for an event seeded by ratings")
    if state.round or state.seed_ratings is not None:
        raise Refusal(Code.BAD_RECORD, "ratings are logged once, before round 1")
    strangers = sorted(set(record.ratings) - set(state.names))
    if strangers:
        raise Refusal(Code.UNKNOWN_PLAYER, f"ratings for players not registered: {strangers}")
    state.seed_ratings = dict(record.ratings)


def round_one(order: Sequence[str], ratings: Mapping[str, float], seed: int, sizes: Sizes,
              derive: Derive = hashed) -> Seating:
    """Round 1 of ``order`` (the active players in standings order: by lot before round 1) seeded by
    ``ratings`` (see the module's text)."""
    if len(set(order)) != len(order):
        raise Refusal(Code.BAD_PLAYERS, "a player is listed twice")
    lot = {p: i for i, p in enumerate(order)}
    ranked = sorted(order, key=lambda p: (-ratings.get(p, UNRATED), lot[p]))
    table_list, byes = table_sizes(len(ranked), sizes)
    seated, bye_set = ranked[:len(ranked) - byes], set(ranked[len(ranked) - byes:])
    tables: list[list[str]] = [[] for _ in table_list]
    snake = list(range(len(tables))) + list(reversed(range(len(tables))))
    turn = 0
    for player in seated:
        while len(tables[snake[turn % len(snake)]]) >= table_list[snake[turn % len(snake)]]:
            turn += 1
        tables[snake[turn % len(snake)]].append(player)
        turn += 1
    rng = Rng(derive(seed, 1))
    keys = {p: rng.next_u64() for p in order}
    return Seating(tables=tuple(tuple(sorted(t, key=keys.__getitem__)) for t in tables),
                   byes=tuple(p for p in order if p in bye_set))
