"""Standings: points and tiebreaks from finished tables, byes, drops and corrections. A pure function.

**Points.** A table pays placement points by its size (``Settings.points_for``: 3/0 at 2 seats, 3/1/0 at 3,
5/3/1/0 at 4, 7/5/3/1/0 at 5, 9/7/5/3/1/0 at 6 unless the settings say otherwise). Players tied for a place
split the points of the places they cover: two tied 1st at 3 seats get (3 + 1) / 2 = 2 each. A seat that a
stand-in bot played for a no-show is placed last at its table whatever the bot did (several stand-ins share
the last places); the present players keep their order among themselves. A bye is worth
``Settings.bye_value()``. Arithmetic is exact (fractions: a point value of 2.5 or 0.1 counts as the decimal
it is written as, ``model.exact``); rows carry floats.

**Tiebreaks, in order** (all higher is better; the organiser may choose another order of the first two, or
leave one out, ``Settings.tiebreaks``, see ``scoring.py``; the lot is always last):
1. ``opponents``: opponents' average points percentage. A player's points percentage is the points they
   earned at tables over the most they could have earned there (1st place at each table's size); byes are
   neither tables nor opponents. Each opponent's percentage counts at least 1/3; an opponent met at two
   tables counts twice; a dropped player keeps counting for the players who met them. A player with no
   opponents has the floor, 1/3.
2. ``share``: the player's share of game points at their tables, as a multiple of the table's average
   (1.0 = an even share), averaged over their tables. At a table of n with scores s (shifted up so the
   lowest is 0 if any is negative) and total S: where higher is better the share is s_i / S; where lower
   is better (``rules.Result.lower_is_better``) it is (S - s_i) / ((n - 1) * S), the share of the points
   the others took; S = 0 gives everyone 1/n. A stand-in's seat has share 0 for the absent player.
3. ``lot``: a seeded draw per player (``seeds.lots``, with the log's derivation), lower first.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

import msgspec

from ..protocol import Code, Refusal
from ..protocol.tournament import scoring_places
from .model import Settings, TableResult
from .scoring import tiebreak_order
from .seeds import Derive, hashed, lots

FLOOR = Fraction(1, 3)


class Standing(msgspec.Struct, frozen=True):
    """One row of the standings."""

    rank: int
    player: str
    points: float
    opponents: float  # opponents' average points percentage, 0..1
    share: float  # average share of game points, 1.0 = even
    lot: int
    tables: int
    byes: int
    dropped: bool = False


def placed(result: TableResult) -> tuple[int, ...]:
    """The places that score: the result's, with stand-in seats moved to the last places (see above)."""
    return scoring_places(result.places, result.stand_ins)


def table_points(result: TableResult, settings: Settings) -> list[Fraction]:
    """Each seat's placement points, tied places splitting the points of the places they cover."""
    row = settings.exact_points(len(result.players))
    places = placed(result)
    out = []
    for place in places:
        tied = places.count(place)
        out.append(sum(row[place - 1:place - 1 + tied], Fraction(0)) / tied)
    return out


def table_shares(result: TableResult) -> list[Fraction]:
    """Each seat's share of the table's game points (see the module's text); they sum to 1."""
    n = len(result.scores)
    low = min(result.scores)
    scores = [s - low for s in result.scores] if low < 0 else list(result.scores)
    total = sum(scores)
    if total == 0:
        shares = [Fraction(1, n)] * n
    elif result.lower_is_better:
        shares = [Fraction(total - s, (n - 1) * total) for s in scores]
    else:
        shares = [Fraction(s, total) for s in scores]
    stand_ins = result.stand_ins or (False,) * n
    return [Fraction(0) if s else share for share, s in zip(shares, stand_ins)]


def apply_corrections(results: Sequence[TableResult], corrections: Iterable[TableResult]) -> list[TableResult]:
    """The results with each correction replacing the result of its table (later corrections win).
    A correction must name a finished table and keep its players."""
    by_table = {r.table: i for i, r in enumerate(results)}
    out = list(results)
    for fix in corrections:
        if fix.table not in by_table:
            raise Refusal(Code.UNKNOWN_TABLE, f"no result for table {fix.table} to correct")
        fix.check()
        if fix.players != out[by_table[fix.table]].players:
            raise Refusal(Code.BAD_RESULT, f"a correction of table {fix.table} must keep its players")
        out[by_table[fix.table]] = fix
    return out


def standings(players: Sequence[str], results: Sequence[TableResult], byes: Sequence[str],
              settings: Settings, seed: int, dropped: Iterable[str] = (),
              corrections: Iterable[TableResult] = (), derive: Derive = hashed) -> list[Standing]:
    """The standings of ``players`` (in registration order: it decides the lots) after ``results``,
    one bye per entry of ``byes`` (a player twice had two byes), drops and corrections, best first; ``derive``
    is the log's seed derivation (``seeds.for_format``)."""
    known = set(players)
    if len(known) != len(players):
        raise Refusal(Code.BAD_PLAYERS, "a player is registered twice")
    tables_seen = set()
    for result in results:
        result.check()
        if result.table in tables_seen:
            raise Refusal(Code.BAD_RESULT, f"two results for table {result.table}")
        tables_seen.add(result.table)
        strangers = set(result.players) - known
        if strangers:
            raise Refusal(Code.UNKNOWN_PLAYER, f"table {result.table}: {sorted(strangers)} not registered")
    for player in byes:
        if player not in known:
            raise Refusal(Code.UNKNOWN_PLAYER, f"a bye for {player!r}, who is not registered")
    final = apply_corrections(results, corrections)

    points = {p: Fraction(0) for p in players}
    most = {p: Fraction(0) for p in players}  # points they could have earned at their tables
    shares: dict[str, list[Fraction]] = {p: [] for p in players}
    opponents: dict[str, list[str]] = {p: [] for p in players}
    for result in final:
        earned = table_points(result, settings)
        best = settings.exact_points(len(result.players))[0]
        n = len(result.players)
        for player, got, share in zip(result.players, earned, table_shares(result)):
            points[player] += got
            most[player] += best
            shares[player].append(share * n)
            opponents[player].extend(q for q in result.players if q != player)
    bye_count = {p: 0 for p in players}
    for player in byes:
        bye_count[player] += 1
        points[player] += settings.exact_bye()

    bye_value = settings.exact_bye()
    percentage = {p: max(FLOOR, (points[p] - bye_count[p] * bye_value) / most[p]) if most[p] else FLOOR
                  for p in players}
    opp = {p: (sum((percentage[q] for q in opponents[p]), Fraction(0)) / len(opponents[p]))
           if opponents[p] else FLOOR for p in players}
    share = {p: sum(shares[p], Fraction(0)) / len(shares[p]) if shares[p] else Fraction(0) for p in players}
    lot = lots(list(players), seed, derive)
    gone = set(dropped)
    breaks = {"opponents": opp, "share": share}
    chosen = [breaks[name] for name in tiebreak_order(settings)]  # the organiser's order (``scoring.py``)
    order = sorted(players, key=lambda p: (-points[p], *(-b[p] for b in chosen), lot[p]))
    return [Standing(rank=i + 1, player=p, points=float(points[p]), opponents=float(opp[p]),
                     share=float(share[p]), lot=lot[p], tables=len(shares[p]), byes=bye_count[p],
                     dropped=p in gone)
            for i, p in enumerate(order)]


def apply_final(rows: Sequence[Standing], final: TableResult,
                before: Sequence[Standing] | None = None) -> list[Standing]:
    """The standings after a top-N final: its players take ranks 1..N by their places at the final table (ties
    in the order ``before`` the final, the standings it was seated from; by default ``rows``); everyone else
    follows in the order of ``rows``. The final's own points count in ``rows`` (a finalist who came last there
    may have fallen behind a non-finalist on the tiebreaks), never in who is ranked above whom: the final
    decides the top N."""
    final.check()
    place = dict(zip(final.players, placed(final)))
    earlier = {r.player: r.rank for r in (before if before is not None else rows)}
    ahead = sorted((r for r in rows if r.player in place), key=lambda r: (place[r.player], earlier.get(r.player, 0)))
    rest = [r for r in rows if r.player not in place]
    return [msgspec.structs.replace(r, rank=i + 1) for i, r in enumerate([*ahead, *rest])]
