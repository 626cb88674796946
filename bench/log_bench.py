"""The action log: what each durability policy costs, and how fast a log replays and verifies.

- Durability: ``writers`` concurrent tasks (seats of busy tables) each append an entry and wait until it is
  durable, as the arbiter does before acknowledging. Reported: entries/s and acknowledgement latency
  p50/p99, with ``never`` (no fsync) as the floor of the same run. ``batch`` goes through the server's
  journal (server/logs/journal.py), ``always`` through the log's own syncer.
- Replay: a log of random play is written, then `check_log` (chain + rules + digests) and `verify_seed`
  run over it. Floor: reading the same file and decoding every line with msgspec, nothing checked.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import trio

from clients.load import percentile
from rules import SYSTEM, Rng, Session, get_game, make_setup
from server.logs.logfile import End, Entry, Header, seed_commitment
from server.protocol.logformat import _decoder
from server.logs.journal import Journal
from server.logs.logstore import FileLog
from server.logs.replay import check_log, verify_seed


async def _durability(policy: str, folder: Path, writers: int, per_writer: int) -> dict:
    journal = Journal(folder) if policy == "batch" else None
    store = FileLog(folder / f"{policy}.log", policy, syncer=journal)
    latencies: list[float] = []
    action = {"type": "draw"}

    async def writer(index: int) -> None:
        for n in range(per_writer):
            start = time.perf_counter()
            line = store.append(Entry(seq=index * per_writer + n + 1, time=0.0, actor=index, action=action,
                                      accepted=True))
            await store.wait_durable(line)
            latencies.append((time.perf_counter() - start) * 1e6)

    begin = time.perf_counter()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(store.run_flusher)
        if journal is not None:
            nursery.start_soon(journal.run)
        async with trio.open_nursery() as group:
            for index in range(writers):
                group.start_soon(writer, index)
        elapsed = time.perf_counter() - begin
        store.close()
        if journal is not None:
            await journal.aclose()
        nursery.cancel_scope.cancel()
    return {"policy": policy, "entries_per_s": writers * per_writer / elapsed, "ack_p50_us": statistics.median(latencies),
            "ack_p99_us": percentile(latencies, 0.99), "fsyncs": store.fsyncs}


def write_random_log(path: Path, seed: int = 7) -> None:
    """A whole 30-race game of random bots (each race runs to its action limit): about 60,000 entries."""
    game = get_game("flag_finish")
    setup = make_setup(game.info, 3, "challenge", {"races": 30, "action_limit": 2000, "extra_races": 0})
    store = FileLog(path, "never")
    store.append(Header(format=1, table="bench", name="bench", game=game.info.name,
                        rules_version=game.info.rules_version, protocol=1, seats=3, mode="challenge",
                        options=dict(setup.options), table_options={}, commitment=seed_commitment(seed),
                        started="2026-01-01T00:00:00Z"))
    session = Session(game, setup, seed)
    rng = Rng(seed + 1)
    seq = 0

    def log(steps):
        nonlocal seq
        for step in steps:
            seq += 1
            store.append(Entry(seq=seq, time=seq / 1000, actor=step.actor, action=step.action, accepted=True,
                               digest=session.digest() if seq % 50 == 0 else None))

    log(session.run_chance())
    while not session.to_act().over:  # random play runs each race to its 2,000-action limit
        turn = session.to_act()
        actor = rng.choice(list(turn.seats) + ([SYSTEM] if turn.system else []))
        log(session.act(actor, rng.choice(game.legal_actions(session.state, actor))))
    result = session.result()
    if result is not None:
        store.append(End(seq=seq, seed=seed, digest=session.digest(), reason="over", scores=list(result.scores),
                         winners=list(result.winners)))
    store.close()


def bench_replay(folder: Path) -> dict:
    path = folder / "replay.log"
    write_random_log(path)
    start = time.perf_counter()
    for line in path.read_bytes().split(b"\n")[:-1]:
        _decoder.decode(line[65:])
    floor = time.perf_counter() - start
    start = time.perf_counter()
    report = check_log(path)
    replay_s = time.perf_counter() - start
    assert report.ok, report.problem
    start = time.perf_counter()
    problem = verify_seed(report) if report.ended else None
    verify_s = time.perf_counter() - start
    assert problem is None, problem
    n = report.entries
    return {"entries": n, "floor_decode_per_s": n / floor, "replay_per_s": n / replay_s,
            "verify_per_s": n / verify_s if report.ended else None,
            "replay_and_verify_per_s": n / (replay_s + (verify_s if report.ended else 0)),
            "ratio_to_floor": replay_s / floor}


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        durability = [trio.run(_durability, policy, folder, 8, 250) for policy in ("never", "batch", "always")]
        floor = durability[0]["entries_per_s"]
        for row in durability:
            row["ratio_to_never"] = floor / row["entries_per_s"]
        return {"durability": durability, "replay": bench_replay(folder)}


def print_table(figures: dict) -> None:
    print("Log durability (8 concurrent writers, each waits for its entry to be durable; floor = never)")
    header = f"{'policy':<8}{'entries/s':>12}{'ack p50 us':>12}{'ack p99 us':>12}{'fsyncs':>8}{'x slower':>10}"
    print(header)
    print("-" * len(header))
    for r in figures["durability"]:
        print(f"{r['policy']:<8}{r['entries_per_s']:>12.0f}{r['ack_p50_us']:>12.0f}{r['ack_p99_us']:>12.0f}"
              f"{r['fsyncs']:>8}{r['ratio_to_never']:>10.1f}")
    r = figures["replay"]
    print(f"\nLog replay over {r['entries']} entries (floor = read + JSON-decode every line, nothing checked)")
    print(f"  floor {r['floor_decode_per_s']:,.0f}/s   replay {r['replay_per_s']:,.0f}/s   "
          f"verify {r['verify_per_s'] or 0:,.0f}/s   replay+verify {r['replay_and_verify_per_s']:,.0f}/s   "
          f"replay/floor {r['ratio_to_floor']:.1f}x   (target: replay and verify >= 50,000/s)")
