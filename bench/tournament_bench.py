"""Tournaments: seating a Swiss round of 1,000 players at 3-seat tables, against sorting them as the floor.

Five Swiss rounds are first played with seeded random places (no rematch is forced yet, but the standings
have many players on equal points and a history to avoid). Then, each timed ``repeats`` times, median:
- **seat round 1** and **seat round 6**: ``seating.swiss`` over the 1,000 players in standings order;
- **standings after 5 rounds**: ``standings.standings`` (points, both tiebreaks, lots) from 1,665 results;
- **floor**: sorting the same 1,000 players by (points, lot) with ``sorted``, the least any seating costs.
Target: a round seated in under 1 s on the 2-core machine.
"""

from __future__ import annotations

import statistics
import time

from rules.rng import Rng
from server.tournament.model import Seating, Settings, Sizes, TableResult
from server.tournament.seating import meetings, swiss
from server.tournament.standings import standings

PLAYERS = 1000
SIZES = Sizes(2, 3, 3)
SETTINGS = Settings(format="swiss", sizes=SIZES, rounds=6)
SEED = 20261122


def _timed(fn, repeats: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), value


def _played(rounds: int) -> tuple[list[str], list[Seating], list[TableResult], list[str]]:
    players = [f"p{i:04d}" for i in range(PLAYERS)]
    past: list[Seating] = []
    results: list[TableResult] = []
    byes: list[str] = []
    rng = Rng(SEED)
    for round_no in range(1, rounds + 1):
        rows = standings(players, results, byes, SETTINGS, SEED)
        points = {r.player: r.points for r in rows}
        seating = swiss([r.player for r in rows], points, past, SEED, round_no, SIZES)
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
                      "ratio_to_floor": standings_ms / floor_ms}]}


def print_table(figures: dict) -> None:
    print(f"Tournament seating, {figures['players']} players at {figures['table_size']}-seat tables "
          f"(floor = sorting them by points and lot: {figures['floor_sort_ms']:.2f} ms; target: a round < 1 s)")
    header = f"{'what':<28}{'ms p50':>10}{'x floor':>10}{'repeats':>10}"
    print(header)
    print("-" * len(header))
    for r in figures["rows"]:
        repeats = str(r["repeat_pairs"]) if "repeat_pairs" in r else ""
        print(f"{r['what']:<28}{r['ms']:>10.1f}{r['ratio_to_floor']:>10.0f}{repeats:>10}")


if __name__ == "__main__":
    print_table(run())
