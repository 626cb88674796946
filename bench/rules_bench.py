"""Rules engines: the median cost of one `apply` (validation included) and whole bot games per second.

The floor, measured in the same run, is what any server must spend on an action anyway: decoding it from
its JSON frame with msgspec. `apply` is reported as microseconds and as a ratio to that floor.
"""

from __future__ import annotations

import statistics
import time

import msgspec

from rules.bots import get_policy
from clients.load import percentile
from clients.offline import play_game
from rules import GAMES, SYSTEM, Rng, Session, copy_state, make_setup


def _samples(game, setup, count: int, seed: int) -> list[tuple]:
    """(state copy, actor, action) triples taken from random play, to time `apply` on."""
    samples = []
    session = Session(game, setup, seed)
    session.run_chance()
    rng = Rng(seed)
    while len(samples) < count:
        turn = session.to_act()
        if turn.over:
            session = Session(game, setup, rng.next_u64())
            session.run_chance()
            continue
        actor = rng.choice(list(turn.seats) + ([SYSTEM] if turn.system else []))
        action = rng.choice(game.legal_actions(session.state, actor))
        samples.append((copy_state(game, session.state), actor, action))
        session.act(actor, action)
    return samples


def bench_apply(game, setup, count: int = 20_000) -> dict:
    samples = _samples(game, setup, count, seed=2026)
    apply, legal_actions = game.apply, game.legal_actions
    timings, legal = [], []
    for state, actor, action in samples:
        start = time.perf_counter_ns()
        legal_actions(state, actor)
        legal.append((time.perf_counter_ns() - start) / 1000)
        start = time.perf_counter_ns()
        apply(state, actor, action)
        timings.append((time.perf_counter_ns() - start) / 1000)
    frames = [msgspec.json.encode(action) for _, _, action in samples]
    decoder = msgspec.json.Decoder(game.action_type)
    floor = []
    for frame in frames:
        start = time.perf_counter_ns()
        decoder.decode(frame)
        floor.append((time.perf_counter_ns() - start) / 1000)
    return {
        "apply_p50_us": statistics.median(timings),
        "apply_p99_us": percentile(timings, 0.99),
        "floor_decode_p50_us": statistics.median(floor),
        "legal_p50_us": statistics.median(legal),
    }


def bench_games(game, setup, policy: str, seconds: float) -> float:
    policies = [get_policy(game.info.name, policy)] * setup.seats
    games, seed = 0, 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        play_game(game, setup, seed, policies)
        games, seed = games + 1, seed + 1
    return games / (time.perf_counter() - start)


def run(seconds: float = 2.0) -> list[dict]:
    rows = []
    for name, game in sorted(GAMES.items()):
        for mode in game.info.modes:
            setup = make_setup(game.info, game.info.min_seats + (1 if game.info.max_seats > game.info.min_seats else 0),
                               mode, {})
            row = {"game": name, "mode": mode, "seats": setup.seats, **bench_apply(game, setup)}
            row["ratio_to_floor"] = row["apply_p50_us"] / row["floor_decode_p50_us"]
            row["random_games_per_s"] = bench_games(game, setup, "random", seconds)
            row["heuristic_games_per_s"] = bench_games(game, setup, "heuristic", seconds)
            rows.append(row)
    return rows


def print_table(rows: list[dict]) -> None:
    print("Rules engines (apply includes validation; floor = msgspec JSON decode of the same action)")
    header = f"{'game':<20}{'mode':<11}{'seats':>5}{'apply p50 us':>14}{'p99 us':>9}{'floor us':>10}" \
             f"{'ratio':>7}{'legal p50 us':>14}{'random games/s':>16}{'heuristic games/s':>19}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['game']:<20}{r['mode']:<11}{r['seats']:>5}{r['apply_p50_us']:>14.2f}{r['apply_p99_us']:>9.2f}"
              f"{r['floor_decode_p50_us']:>10.2f}{r['ratio_to_floor']:>7.1f}{r['legal_p50_us']:>14.1f}"
              f"{r['random_games_per_s']:>16.1f}"
              f"{r['heuristic_games_per_s']:>19.1f}")
