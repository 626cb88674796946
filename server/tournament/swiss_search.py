"""The search behind the Swiss objective (``seating.py`` says what it minimises and why): a seating's cost,
a greedy start, swaps, the exact branch-and-bound cut (``exact``) for ``EXACT_LIMIT`` players or fewer and the
local re-cuts (``recuts``) above it. Pure and deterministic: ties keep the first seating found."""

from __future__ import annotations

from itertools import combinations
from typing import Mapping, Sequence

from .model import Seating

EXACT_LIMIT = 12  # players at or below which the Swiss objective is minimised exactly
LOOKAHEAD = 6  # how far down the standings the greedy fill looks for a player new to the table
MAX_PASSES = 20  # swap passes at most (each pass that changes nothing ends the search earlier)
NEAR = 4  # above EXACT_LIMIT, a table with a repeat is cut again with every two of this many nearest tables
REPAIR_WORK = 10_000  # above EXACT_LIMIT, cuts for repeats stop once their searches tried this many tables
SCALE = 5040  # points are compared in 1/5040ths when they all are whole ones (split points, as 8/3, are)


def meetings(past: Sequence[Seating]) -> dict[str, dict[str, int]]:
    """For each player, how many times they shared a table with each other player."""
    met: dict[str, dict[str, int]] = {}
    for seating in past:
        for table in seating.tables:
            for a, b in combinations(table, 2):
                met.setdefault(a, {})[b] = met.setdefault(a, {}).get(b, 0) + 1
                met.setdefault(b, {})[a] = met.setdefault(b, {}).get(a, 0) + 1
    return met



class Problem:
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


def greedy(problem: Problem, count: int, sizes: list[int]) -> list[list[int]]:
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


def swaps(problem: Problem, tables: list[list[int]]) -> None:
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


def recuts(problem: Problem, tables: list[list[int]]) -> None:
    """Above ``EXACT_LIMIT``: a few tables at a time cut again exactly (``exact`` over their players, so every
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


def _recut(problem: Problem, tables: list[list[int]], costs: list[tuple],
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
    cut, after, tried = exact(problem, ids, sizes, now)
    if not after < before:
        return False, tried
    for i, table in zip(group, cut):
        tables[i], costs[i] = table, problem.cost(table)
    return True, tried


def _one_swap(problem: Problem, tables: list[list[int]], costs: list[tuple], a: int, n: int) -> bool:
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


def exact(problem: Problem, ids: Sequence[int], sizes: list[int],
           start: list[list[int]]) -> tuple[list[list[int]], tuple, int]:
    """The lowest-cost way to cut the players ``ids`` (ascending) into tables of ``sizes``, its cost, and how
    many tables the search tried (its work, which ``recuts`` budgets).

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
    """Lower bounds on what seating the players left still costs, for ``exact`` to cut branches early.

    - repeats: each player left sits with at least ``smallest - 1`` others (the smallest table left), so adds
      at least the sum of its ``smallest - 1`` lowest meeting counts among the players left; every repeat is
      counted by both its players, hence half the total, rounded up;
    - point spread and rank spread: each is at least its least value over every cut of the players left into
      the table sizes left, repeats ignored, which some cut of the sorted values into consecutive runs reaches
      (two tables whose ranges overlap can always swap players into two consecutive runs of the same sizes
      without widening the sum), so ``_runs`` finds it exactly."""

    def __init__(self, problem: Problem) -> None:
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
