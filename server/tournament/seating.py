"""Seating: who sits at which table, in which seat, each round. A pure function of its inputs.

Inputs are always the active players in standings order (best first), their points, the earlier seatings
(who already shared a table, who sat first), the tournament seed and the table sizes: nothing else, so
``tlog.verify_tournament`` recomputes every round from the log. No clock, no I/O; the only randomness is a
``rules.Rng`` seeded with ``derive(seed, round)``: ``seeds.hashed`` by default, the log's own derivation
when the state passes it (``seeds.for_format``).

**Table sizes** (``table_sizes``): the fewest byes first; then tables no bigger than ``wanted`` and no smaller
than ``min``, as few and as even as possible (10 players wanting 4: 4, 3, 3); only if that is impossible,
tables bigger than ``wanted`` up to ``max``; only if no table set exists at all, a bye (an odd count at a
2-seat game). Byes go to the players with the fewest byes so far, lowest-ranked first.

**Swiss objective**: a seating's cost is the tuple, compared in order (lexicographically: any repeat weighs
more than any spread, any point spread more than any rank spread), of
  1. repeats: over every pair at the same table, how many times they already shared one;
  2. point spread: over the tables, the highest minus the lowest points at the table (in whole 1/``SCALE``ths
     when the points are, so split points add up exactly);
  3. rank spread: over the tables, the worst minus the best standings position at the table.
The start is the standings cut into tables top-down with the wanted sizes, improved by a greedy fill that
looks a few places ahead for a player who met nobody at the table, then by swaps: for each table with a
repeat, the nearest table for which exchanging two players lowers the two tables' cost, until no swap helps.
With ``EXACT_LIMIT`` (12) players or fewer, a branch-and-bound search (``swiss_search.exact``) over every way of cutting
them into the tables then finds the lowest cost exactly: optimal on repeats, then on point spread, then on
rank spread (12 players at 3 tables of 4, 4 of 3 or 6 of 2 in a few ms, 20 at worst). Above that it is a
heuristic: the start is then improved by cutting two or three tables at a time again exactly (``recuts``),
which is local, so a round may keep a repeat that a seating of all the players avoids. Ties keep the first
seating found, which is deterministic.

**Seat order**: seat 0 goes to the player at the table who has sat first least often; ties, and the order of
the remaining seats, by the same count then a seeded draw per player.

**Round robin** (``round_robin``): two seats, Berger tables by the circle method: everyone meets everyone once
in n-1 rounds (n if odd, one bye each), each player's first seats and second seats differ by at most one.
Pods: ceil((n-1)/(k-1)) rounds, the fewest in which everyone could meet everyone, each seated with the Swiss
objective without points, so each round has as few repeat meetings as the earlier rounds allow (exactly for
``EXACT_LIMIT`` players or fewer); what is guaranteed is that repeats are spread round by round, not that
every pair meets (no such schedule exists for many counts).

**Arena** (``arena``): of the players waiting (in the order they became free), as many as make whole tables of
the wanted size are seated now, the earliest arrivals first, grouped by the Swiss objective; the rest wait.

**Final** (``final_table``): the top N of the standings at one table, the leader in seat 0.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from rules.rng import Rng

from ..protocol import Code, Refusal
from .model import Seating, Sizes
from .seeds import Derive, hashed
from .swiss_search import EXACT_LIMIT, Problem, exact, greedy, recuts, swaps


def table_sizes(count: int, sizes: Sizes) -> tuple[list[int], int]:
    """The table sizes for ``count`` players, biggest first, and how many byes: see the module's text."""
    for byes in range(count + 1):
        n = count - byes
        if n == 0:
            return [], count
        tables = min(-(-n // sizes.wanted), n // sizes.min)
        if tables >= 1 and tables * sizes.max >= n:
            base, extra = divmod(n, tables)
            return [base + 1] * extra + [base] * (tables - extra), byes
    raise AssertionError("unreachable: zero players always seat")


def first_seats(past: Sequence[Seating]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for seating in past:
        for table in seating.tables:
            counts[table[0]] = counts.get(table[0], 0) + 1
    return counts


def bye_counts(past: Sequence[Seating]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for seating in past:
        for player in seating.byes:
            counts[player] = counts.get(player, 0) + 1
    return counts


def _check_players(players: Sequence[str]) -> None:
    if len(set(players)) != len(players):
        raise Refusal(Code.BAD_PLAYERS, "a player is listed twice")


def _seat_order(table: list[str], firsts: Mapping[str, int], keys: Mapping[str, int]) -> tuple[str, ...]:
    return tuple(sorted(table, key=lambda p: (firsts.get(p, 0), keys[p])))


def _group(players: Sequence[str], points: Mapping[str, float], past: Sequence[Seating], sizes: list[int],
           rng: Rng) -> list[tuple[str, ...]]:
    """Players (standings order) cut into tables of ``sizes`` by the Swiss objective, seats in order."""
    problem = Problem(players, points, past)
    tables = greedy(problem, len(players), sizes)
    swaps(problem, tables)
    if len(players) <= EXACT_LIMIT:
        tables, _, _ = exact(problem, range(len(players)), sizes, tables)
    else:
        recuts(problem, tables)
    tables.sort(key=min)
    keys = {p: rng.next_u64() for p in players}
    firsts = first_seats(past)
    return [_seat_order([players[i] for i in table], firsts, keys) for table in tables]


def swiss(players: Sequence[str], points: Mapping[str, float], past: Sequence[Seating], seed: int,
          round_no: int, sizes: Sizes, derive: Derive = hashed) -> Seating:
    """Round ``round_no``'s Swiss seating of ``players`` (the active players, standings order)."""
    _check_players(players)
    table_list, byes = table_sizes(len(players), sizes)
    counts = bye_counts(past)
    ranked = list(enumerate(players))
    takers = sorted(ranked, key=lambda item: (counts.get(item[1], 0), -item[0]))[:byes]
    bye_set = {p for _, p in takers}
    seated = [p for p in players if p not in bye_set]
    tables = _group(seated, points, past, table_list, Rng(derive(seed, round_no)))
    return Seating(tables=tuple(tables), byes=tuple(p for p in players if p in bye_set))


def round_robin(players: Sequence[str], seed: int, sizes: Sizes, derive: Derive = hashed) -> list[Seating]:
    """Every round of a round robin, computed up front (see the module's text for what it guarantees)."""
    _check_players(players)
    if sizes.wanted == 2:
        return _berger(list(players))
    count = len(players)
    rounds = max(1, -(-(count - 1) // (sizes.wanted - 1)))
    schedule: list[Seating] = []
    for round_no in range(1, rounds + 1):
        schedule.append(swiss(players, {}, schedule, seed, round_no, sizes, derive))
    return schedule


def _berger(players: list[str]) -> list[Seating]:
    ring: list[str | None] = list(players) + ([None] if len(players) % 2 else [])
    n = len(ring)
    if n < 2:
        return [Seating(tables=(), byes=tuple(players))] if players else []
    fixed, rest = ring[-1], ring[:-1]
    rounds = []
    for r in range(n - 1):
        order = rest[r:] + rest[:r]  # rotate everyone but the fixed player
        pairs = [(order[0], fixed) if r % 2 == 0 else (fixed, order[0])]
        for i in range(1, n // 2):
            pairs.append((order[i], order[-i]))
        tables = tuple((a, b) for a, b in pairs if a is not None and b is not None)
        byes = tuple(p for pair in pairs if None in pair for p in pair if p is not None)
        rounds.append(Seating(tables=tables, byes=byes))
    return rounds


def arena(waiting: Sequence[str], standings: Sequence[str], points: Mapping[str, float],
          past: Sequence[Seating], seed: int, label: int, sizes: Sizes, derive: Derive = hashed) -> Seating:
    """The tables to seat now from the players ``waiting`` (in the order they became free); ``standings``
    orders everyone. The players not seated are in ``waiting`` of the result, still in their order."""
    _check_players(waiting)
    tables = len(waiting) // sizes.wanted
    now = set(waiting[:tables * sizes.wanted])
    unknown = now - set(standings)
    if unknown:
        raise Refusal(Code.BAD_PLAYERS, f"waiting players not in the standings: {sorted(unknown)}")
    order = [p for p in standings if p in now]
    seated = _group(order, points, past, [sizes.wanted] * tables, Rng(derive(seed, label)))
    return Seating(tables=tuple(seated), waiting=tuple(waiting[tables * sizes.wanted:]))


def final_table(standings: Sequence[str], n: int, sizes: Sizes) -> Seating:
    """The top ``n`` of the standings at one table, in standings order (the leader sits first)."""
    _check_players(standings)
    if not sizes.min <= n <= sizes.max or n > len(standings):
        raise Refusal(Code.BAD_FINAL, f"a final of {n} needs {sizes.min}..{sizes.max} seats and as many "
                                      "players")
    return Seating(tables=(tuple(standings[:n]),))
