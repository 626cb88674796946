"""Ratings: one per player per game, across tournaments and rated tables, from each finished table's places.
A player is keyed by a stable identity, the skeleton of their name (``server.protocol.names.skeleton``: ``Ana``,
``ANA`` and ``Аna`` with a Cyrillic А are one player), and shown by the name they registered (``name``).

The model is openskill's Plackett-Luce (Weng and Lin's Bayesian approximation: multi-player, ties allowed,
each rating a mean ``mu`` and an uncertainty ``sigma``, defaults 25 and 25/3). A table updates its players
from their places, every seat its own team; tied places are ties. A seat a stand-in bot played for a
no-show is left out (a no-show says nothing about skill): the present players are rated among themselves by
their places, and a table with fewer than two present players changes nothing. The leaderboard orders by
the ordinal ``mu - 3 * sigma`` (a skill the player is 99.7% likely to exceed), so a newcomer with one lucky
win does not top it. Pure apart from openskill (no clock, no I/O): the same tables in the same order give
the same ratings.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import msgspec
from openskill.models import PlackettLuce

from ..protocol import Code, Refusal
from .model import TableResult

MODEL = PlackettLuce()


class Rating(msgspec.Struct, frozen=True):
    """One player's rating at one game, and how many rated tables it comes from."""

    player: str
    game: str
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    tables: int = 0
    name: str = ""  # how the leaderboard shows the player (``player`` is the key: the name's skeleton)

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


class LeaderRow(msgspec.Struct, frozen=True):
    rank: int
    player: str
    ordinal: float
    mu: float
    sigma: float
    tables: int
    name: str = ""


def rate_table(ratings: Mapping[str, Rating], game: str, result: TableResult) -> dict[str, Rating]:
    """The new ratings of the table's present players after ``result`` (a player with no rating yet starts
    at the model's default). Raises ``Refusal`` for a result that is not a table's finish."""
    result.check()
    stand_ins = result.stand_ins or (False,) * len(result.players)
    seats = [i for i, s in enumerate(stand_ins) if not s]
    if len(seats) < 2:
        return {}
    before = [ratings.get(result.players[i]) or Rating(player=result.players[i], game=game) for i in seats]
    for rating in before:
        if rating.game != game:
            raise Refusal(Code.BAD_RATING, f"{rating.player}'s rating is for {rating.game}, not {game}")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma, name=r.player)] for r in before]
    after = MODEL.rate(teams, ranks=[float(result.places[i]) for i in seats])
    return {r.player: Rating(player=r.player, game=game, mu=team[0].mu, sigma=team[0].sigma, tables=r.tables + 1,
                             name=r.name) for r, team in zip(before, after)}


def rate_tables(game: str, results: Iterable[TableResult],
                ratings: Mapping[str, Rating] | None = None) -> dict[str, Rating]:
    """Ratings after ``results`` in order, starting from ``ratings`` (default: nobody rated yet)."""
    current = dict(ratings or {})
    for result in results:
        current.update(rate_table(current, game, result))
    return current


def leaderboard(ratings: Iterable[Rating], game: str, limit: int | None = None) -> list[LeaderRow]:
    """``game``'s players by ordinal, best first (ties by player id)."""
    rows = sorted((r for r in ratings if r.game == game), key=lambda r: (-r.ordinal, r.player))[:limit]
    return [LeaderRow(rank=i + 1, player=r.player, ordinal=r.ordinal, mu=r.mu, sigma=r.sigma, tables=r.tables,
                      name=r.name)
            for i, r in enumerate(rows)]
