"""Tournaments: seating a Swiss round of 1,000 players at 3-seat tables, against sorting them as the floor.

Five Swiss rounds are first played with seeded random places (no rematch is forced yet, but the standings
have many players on equal points and a history to avoid). Then, each timed ``repeats`` times, median:
- **seat round 1** and **seat round 6**: ``seating.swiss`` over the 1,000 players in standings order;
- **standings after 5 rounds**: ``standings.standings`` (points, both tiebreaks, lots) from 1,665 results;
- **floor**: sorting the same 1,000 players by (points, lot) with ``sorted``, the least any seating costs.
Target: a round seated in under 1 s on the 2-core machine.

**Small rounds** (``small``): the exact seating (``seating.EXACT_LIMIT`` players or fewer). A 12-player Swiss
at tables of 4, 3 and 2 and an 11-player one at 3 and 2 (3-2-2-2-2, the most ways to cut 2..12 players into
tables of 2..4 seats: 17,325) are played for 8 rounds with seeded random places; each round's seating is timed
``repeats`` times (median) in CPU time (``time.process_time``: a search of milliseconds on a shared machine is
otherwise mostly other processes' time), and the rows give the slowest round and the median round, with the
repeat meetings left over the 8 rounds (all unavoidable: the search is exact). Target: well under 50 ms.
"""

from __future__ import annotations

import statistics
import time

from rules.rng import Rng
from server.tournament.model import Seating, Settings, Sizes, TableResult
from server.tournament.seating import swiss
from server.tournament.swiss_search import meetings
from server.tournament.standings import standings

PLAYERS = 1000
SIZES = Sizes(2, 3, 3)
SETTINGS = Settings(format="swiss", sizes=SIZES, rounds=6)
SEED = 20261122


def _timed(fn, repeats: int, clock=time.perf_counter) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        start = clock()
        value = fn()
        times.append((clock() - start) * 1000)
    return statistics.median(times), value


def _played(rounds: int, count: int = PLAYERS, sizes: Sizes = SIZES,
            settings: Settings = SETTINGS) -> tuple[list[str], list[Seating], list[TableResult], list[str]]:
    players = [f"p{i:04d}" for i in range(count)]
    past: list[Seating] = []
    results: list[TableResult] = []
    byes: list[str] = []
    rng = Rng(SEED)
    for round_no in range(1, rounds + 1):
        rows = standings(players, results, byes, settings, SEED)
        points = {r.player: r.points for r in rows}
        seating = swiss([r.player for r in rows], points, past, SEED, round_no, sizes)
        past.append(seating)
        byes.extend(seating.byes)
        for i, table in enumerate(seating.tables):
            order = list(range(1, len(table) + 1))
            rng.shuffle(order)
            results.append(TableResult(table=f"r{round_no}t{i}", players=table, places=tuple(order),
                                       scores=tuple(order)))
    return players, past, results, byes


def run(repeats: int = 5) -> dict:
    players, past, results, byes = _played(5)
    rows = standings(players, results, byes, SETTINGS, SEED)
    points = {r.player: r.points for r in rows}
    order = [r.player for r in rows]
    lot = {r.player: r.lot for r in rows}
    floor_ms, _ = _timed(lambda: sorted(players, key=lambda p: (-points[p], lot[p])), repeats)
    first_ms, _ = _timed(lambda: swiss(players, {}, [], SEED, 1, SIZES), repeats)
    sixth_ms, seating = _timed(lambda: swiss(order, points, past, SEED, 6, SIZES), repeats)
    standings_ms, _ = _timed(lambda: standings(players, results, byes, SETTINGS, SEED), repeats)
    met = meetings(past)
    repeat_pairs = sum(met.get(a, {}).get(b, 0) for t in seating.tables for i, a in enumerate(t) for b in t[i + 1:])
    return {"players": PLAYERS, "table_size": SIZES.wanted, "floor_sort_ms": floor_ms,
            "rows": [{"what": "seat round 1", "ms": first_ms, "ratio_to_floor": first_ms / floor_ms},
                     {"what": "seat round 6", "ms": sixth_ms, "ratio_to_floor": sixth_ms / floor_ms,
                      "repeat_pairs": repeat_pairs},
                     {"what": "standings after 5 rounds", "ms": standings_ms,
                      "ratio_to_floor": standings_ms / floor_ms}],
            "small": small(repeats=repeats)}


SMALL = [(12, Sizes(4, 4, 4)), (12, Sizes(3, 3, 3)), (12, Sizes(2, 2, 2)), (11, Sizes(2, 3, 3)),
         (11, Sizes(2, 3, 2))]


def small(rounds: int = 8, repeats: int = 5) -> list[dict]:
    """Each round of a small Swiss seated exactly: the slowest round's and the median round's time."""
    out = []
    for count, sizes in SMALL:
        settings = Settings(format="swiss", sizes=sizes, rounds=rounds)
        players, past, results, byes = _played(rounds, count, sizes, settings)
        times, repeat_pairs = [], 0
        for round_no in range(1, rounds + 1):
            before = past[:round_no - 1]
            done = {t for s in before for t in s.tables}
            rows = standings(players, [r for r in results if r.players in done], [p for s in before for p in s.byes],
                             settings, SEED)
            points = {r.player: r.points for r in rows}
            order = [r.player for r in rows]
            ms, seating = _timed(lambda: swiss(order, points, before, SEED, round_no, sizes), repeats,
                                 time.process_time)
            times.append(ms)
            met = meetings(before)
            repeat_pairs += sum(met.get(a, {}).get(b, 0) for t in seating.tables for i, a in enumerate(t)
                                for b in t[i + 1:])
        tables = "-".join(str(len(t)) for t in past[0].tables)
        out.append({"what": f"{count} players at {tables}", "worst_ms": max(times),
                    "median_ms": statistics.median(times), "repeat_pairs": repeat_pairs})
    return out


def print_table(figures: dict) -> None:
    print(f"Tournament seating, {figures['players']} players at {figures['table_size']}-seat tables "
          f"(floor = sorting them by points and lot: {figures['floor_sort_ms']:.2f} ms; target: a round < 1 s)")
    header = f"{'what':<28}{'ms p50':>10}{'x floor':>10}{'repeats':>10}"
    print(header)
    print("-" * len(header))
    for r in figures["rows"]:
        repeats = str(r["repeat_pairs"]) if "repeat_pairs" in r else ""
        print(f"{r['what']:<28}{r['ms']:>10.1f}{r['ratio_to_floor']:>10.0f}{repeats:>10}")
    if figures.get("small"):
        print("\nSmall Swiss rounds seated exactly, 8 rounds each, CPU ms (target: well under 50 ms a round)")
        header = f"{'what':<28}{'worst':>10}{'median':>10}{'repeats':>10}"
        print(header)
        print("-" * len(header))
        for r in figures["small"]:
            print(f"{r['what']:<28}{r['worst_ms']:>10.1f}{r['median_ms']:>10.1f}{r['repeat_pairs']:>10}")


if __name__ == "__main__":
    print_table(run())
