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
With ``EXACT_LIMIT`` (12) players or fewer, a branch-and-bound search (``_exact``) over every way of cutting
them into the tables then finds the lowest cost exactly: optimal on repeats, then on point spread, then on
rank spread (12 players at 3 tables of 4, 4 of 3 or 6 of 2 in a few ms, 20 at worst). Above that it is a
heuristic: the start is then improved by cutting two or three tables at a time again exactly (``_recuts``),
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

from itertools import combinations
from typing import Mapping, Sequence

from rules.rng import Rng

from ..protocol import Code, Refusal
from .model import Seating, Sizes
from .seeds import Derive, hashed

EXACT_LIMIT = 12  # players at or below which the Swiss objective is minimised exactly
LOOKAHEAD = 6  # how far down the standings the greedy fill looks for a player new to the table
MAX_PASSES = 20  # swap passes at most (each pass that changes nothing ends the search earlier)
NEAR = 4  # above EXACT_LIMIT, a table with a repeat is cut again with every two of this many nearest tables
REPAIR_WORK = 10_000  # above EXACT_LIMIT, cuts for repeats stop once their searches tried this many tables
SCALE = 5040  # points are compared in 1/5040ths when they all are whole ones (split points, as 8/3, are)


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


def meetings(past: Sequence[Seating]) -> dict[str, dict[str, int]]:
    """For each player, how many times they shared a table with each other player."""
    met: dict[str, dict[str, int]] = {}
    for seating in past:
        for table in seating.tables:
            for a, b in combinations(table, 2):
                met.setdefault(a, {})[b] = met.setdefault(a, {}).get(b, 0) + 1
                met.setdefault(b, {})[a] = met.setdefault(b, {}).get(a, 0) + 1
    return met


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


class _Problem:
    """The Swiss objective over players numbered by standings position (0 = best)."""

    def __init__(self, players: Sequence[str], points: Mapping[str, float], past: Sequence[Seating]) -> None:
        index = {p: i for i, p in enumerate(players)}
        met = meetings(past)
        self.met = [{index[q]: c for q, c in met.get(p, {}).items() if q in index} for p in players]
        self.points = _whole([points.get(p, 0) for p in players])

    def cost(self, table: Sequence[int]) -> tuple:
        met, pts = self.met, self.points
        repeats = 0
        for i, a in enumerate(table):
            row = met[a]
            if row:
                for b in table[i + 1:]:
                    repeats += row.get(b, 0)
        values = [pts[a] for a in table]
        return (repeats, max(values) - min(values), max(table) - min(table))


def _whole(values: list[float]) -> list[float]:
    """``values`` in 1/``SCALE``ths as integers if they all are (within float rounding), so spreads add up
    exactly and in any order (8/3 arrives as a float a hair off; two sums of thirds could differ in the last
    bit); otherwise ``values`` as they are."""
    scaled = [v * SCALE for v in values]
    whole = [round(x) for x in scaled]
    if all(abs(x - w) <= 1e-6 * max(1.0, abs(x)) for x, w in zip(scaled, whole)):
        return whole
    return values


def _add(x: tuple, y: tuple) -> tuple:
    return (x[0] + y[0], x[1] + y[1], x[2] + y[2])


def _greedy(problem: _Problem, count: int, sizes: list[int]) -> list[list[int]]:
    free = list(range(count))
    tables = []
    for size in sizes:
        table = [free.pop(0)]
        while len(table) < size:
            pick = 0
            for k in range(min(LOOKAHEAD, len(free))):
                if not any(problem.met[free[k]].get(a) for a in table):
                    pick = k
                    break
            table.append(free.pop(pick))
        tables.append(table)
    return tables


def _swaps(problem: _Problem, tables: list[list[int]]) -> None:
    costs = [problem.cost(t) for t in tables]
    n = len(tables)
    for _ in range(MAX_PASSES):
        changed = False
        for a in range(n):
            while costs[a][0]:
                if not _one_swap(problem, tables, costs, a, n):
                    break
                changed = True
        if not changed:
            return


def _recuts(problem: _Problem, tables: list[list[int]]) -> None:
    """Above ``EXACT_LIMIT``: a few tables at a time cut again exactly (``_exact`` over their players, so every
    swap and every chain of moves among them at once): each table with a repeat together with every other
    table, then with every two of the ``NEAR`` nearest (when they seat ``EXACT_LIMIT`` or fewer); each table
    with the next one. Passes until one changes nothing (``MAX_PASSES`` at most); a group is not cut again
    while none of its tables changed since it last failed, and the cuts for tables with a repeat stop once
    their searches have tried ``REPAIR_WORK`` tables in all (a bound on their time that is counted, so the
    seating stays a pure function of its inputs)."""
    costs = [problem.cost(t) for t in tables]
    n = len(tables)
    changes = [0] * n  # per table, how many times it changed
    failed: dict[tuple[int, ...], list[int]] = {}
    work = 0  # tables tried by the searches for tables with a repeat
    for _ in range(MAX_PASSES):
        changed = False
        for a in range(n):
            if costs[a][0]:
                nearest = [b for d in range(1, n) for b in (a - d, a + d) if 0 <= b < n]
                groups = [(a, b) for b in nearest] + [(a, b, c) for b, c in combinations(nearest[:NEAR], 2)]
            else:
                groups = [(a, a + 1)] if a + 1 < n else []
            for group in groups:
                repair = costs[a][0] > 0
                if repair and work >= REPAIR_WORK or len(group) > 2 and not repair:
                    continue  # the budget is spent, or table a has no repeat left (the triples were for it)
                group = tuple(sorted(group))
                seen = [changes[i] for i in group]
                if failed.get(group) == seen:
                    continue
                better, tried = _recut(problem, tables, costs, group)
                if repair:
                    work += tried
                if better:
                    changed = True
                    for i in group:
                        changes[i] += 1
                else:
                    failed[group] = seen
        if not changed:
            return


def _recut(problem: _Problem, tables: list[list[int]], costs: list[tuple],
           group: tuple[int, ...]) -> tuple[bool, int]:
    """The tables ``group`` cut again exactly, if they seat ``EXACT_LIMIT`` or fewer: whether that lowered
    their summed cost, and the search's work."""
    now = [tables[i] for i in group]
    if sum(map(len, now)) > EXACT_LIMIT:
        return False, 0
    before = (0, 0, 0)
    for i in group:
        before = _add(before, costs[i])
    ids = sorted(p for t in now for p in t)
    sizes = [len(t) for t in now]
    if _Bound(problem).cuts((0, 0, 0), ids, {size: sizes.count(size) for size in sizes}, before):
        return False, 0  # no cut of these players can cost less (as the standings cut into tables, often)
    cut, after, tried = _exact(problem, ids, sizes, now)
    if not after < before:
        return False, tried
    for i, table in zip(group, cut):
        tables[i], costs[i] = table, problem.cost(table)
    return True, tried


def _one_swap(problem: _Problem, tables: list[list[int]], costs: list[tuple], a: int, n: int) -> bool:
    """The first swap between table ``a`` and the nearest table that lowers their summed cost."""
    for distance in range(1, n):
        for b in (a - distance, a + distance):
            if not 0 <= b < n:
                continue
            before = _add(costs[a], costs[b])
            ta, tb = tables[a], tables[b]
            for i in range(len(ta)):
                for j in range(len(tb)):
                    ta[i], tb[j] = tb[j], ta[i]
                    ca, cb = problem.cost(ta), problem.cost(tb)
                    if _add(ca, cb) < before:
                        costs[a], costs[b] = ca, cb
                        return True
                    ta[i], tb[j] = tb[j], ta[i]
    return False


def _exact(problem: _Problem, ids: Sequence[int], sizes: list[int],
           start: list[list[int]]) -> tuple[list[list[int]], tuple, int]:
    """The lowest-cost way to cut the players ``ids`` (ascending) into tables of ``sizes``, its cost, and how
    many tables the search tried (its work, which ``_recuts`` budgets).

    Branch and bound: the lowest-numbered player not yet seated opens the next table (biggest size first), the
    rest of that table is each combination of the players left, in order; with two tables left, the second
    is whoever remains. A branch is cut as soon as its cost so far, plus a lower bound for the players left
    (``_Bound``), is no lower than the best seating found so far (``start`` at first), so a seating replaces
    the best only if strictly lower: the result is ``start`` if nothing beats it, else the first seating of
    the lowest cost in this order. Each table's cost is computed once (a table is in many cuts)."""
    best_cost = (0, 0, 0)
    for table in start:
        best_cost = _add(best_cost, problem.cost(table))
    best: list = [[list(t) for t in start], best_cost]
    left = {size: sizes.count(size) for size in set(sizes)}
    order = sorted(left, reverse=True)
    bound = _Bound(problem)
    known: dict[tuple[int, ...], tuple] = {}
    tried = [0]

    def table_cost(table: tuple[int, ...]) -> tuple:
        value = known.get(table)
        if value is None:
            value = known[table] = problem.cost(table)
        return value

    def search(remaining: list[int], cost: tuple, chosen: list[tuple[int, ...]], tables: int) -> None:
        first, rest = remaining[0], remaining[1:]
        for size in order:
            if not left[size]:
                continue
            left[size] -= 1
            for others in combinations(rest, size - 1):
                tried[0] += 1
                table = (first, *others)
                total = _add(cost, table_cost(table))
                if total >= best[1]:
                    continue
                if tables == 1:
                    best[0], best[1] = [list(t) for t in chosen] + [list(table)], total
                elif tables == 2:
                    last = tuple(p for p in rest if p not in others)
                    total = _add(total, table_cost(last))
                    if total < best[1]:
                        best[0], best[1] = [list(t) for t in chosen] + [list(table), list(last)], total
                else:
                    after = [p for p in rest if p not in others]
                    if not bound.cuts(total, after, left, best[1]):
                        chosen.append(table)
                        search(after, total, chosen, tables - 1)
                        chosen.pop()
            left[size] += 1

    if sizes:
        search(list(ids), (0, 0, 0), [], len(sizes))
    return best[0], best[1], tried[0]


class _Bound:
    """Lower bounds on what seating the players left still costs, for ``_exact`` to cut branches early.

    - repeats: each player left sits with at least ``smallest - 1`` others (the smallest table left), so adds
      at least the sum of its ``smallest - 1`` lowest meeting counts among the players left; every repeat is
      counted by both its players, hence half the total, rounded up;
    - point spread and rank spread: each is at least its least value over every cut of the players left into
      the table sizes left, repeats ignored, which some cut of the sorted values into consecutive runs reaches
      (two tables whose ranges overlap can always swap players into two consecutive runs of the same sizes
      without widening the sum), so ``_runs`` finds it exactly."""

    def __init__(self, problem: _Problem) -> None:
        self.met = problem.met
        self.points = problem.points

    def cuts(self, cost: tuple, left: list[int], sizes: dict[int, int], best: tuple) -> bool:
        """Whether ``cost`` so far plus the bound for seating ``left`` at ``sizes`` reaches ``best`` (in order)."""
        repeats = cost[0] + self._repeats(left, min(s for s in sizes if sizes[s]))
        if repeats != best[0]:
            return repeats > best[0]
        spread = cost[1] + _runs(sorted(self.points[p] for p in left), sizes)
        if spread != best[1]:
            return spread > best[1]
        return cost[2] + _runs(left, sizes) >= best[2]

    def _repeats(self, left: list[int], smallest: int) -> int:
        total = 0
        for a in left:
            row = self.met[a]
            if row:
                counts = sorted(row.get(b, 0) for b in left if b != a)
                total += sum(counts[:smallest - 1])
        return (total + 1) // 2


def _runs(values: Sequence[float], sizes: dict[int, int]) -> float:
    """The least sum of (last - first) over a cut of ``values`` (ascending) into consecutive runs, one per table
    of ``sizes`` (size: how many tables), in any order of the sizes."""
    kinds = [s for s in sizes if sizes[s]]
    memo: dict[tuple[int, ...], float] = {}

    def least(at: int, counts: tuple[int, ...]) -> float:
        if at == len(values):
            return 0
        if counts in memo:
            return memo[counts]
        best: float | None = None
        for k, size in enumerate(kinds):
            if counts[k]:
                rest = counts[:k] + (counts[k] - 1,) + counts[k + 1:]
                value = values[at + size - 1] - values[at] + least(at + size, rest)
                if best is None or value < best:
                    best = value
        assert best is not None  # the counts left always fill the values left
        memo[counts] = best
        return best

    return least(0, tuple(sizes[s] for s in kinds))


def _seat_order(table: list[str], firsts: Mapping[str, int], keys: Mapping[str, int]) -> tuple[str, ...]:
    return tuple(sorted(table, key=lambda p: (firsts.get(p, 0), keys[p])))


def _group(players: Sequence[str], points: Mapping[str, float], past: Sequence[Seating], sizes: list[int],
           rng: Rng) -> list[tuple[str, ...]]:
    """Players (standings order) cut into tables of ``sizes`` by the Swiss objective, seats in order."""
    problem = _Problem(players, points, past)
    tables = _greedy(problem, len(players), sizes)
    _swaps(problem, tables)
    if len(players) <= EXACT_LIMIT:
        tables, _, _ = _exact(problem, range(len(players)), sizes, tables)
    else:
        _recuts(problem, tables)
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
