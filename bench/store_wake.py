"""The SQLite presence store's publish/subscribe, woken against polled (issue 35: spectators on another worker).

`python -m bench.store_wake [--subscriptions N] [--messages M]` opens two stores on one file (as two workers do),
each in its own process, once with wake-ups (``server/cluster/localwake.py``) and once polling every 50 ms as before
(the floor, measured in the same run), and prints for each:

- delivery: a message published by one process and read by the other's subscriber, p50 / p99 ms (the relay's
  share of a spectator's lag on the worker that does not run the table);
- idle: the subscriber process's CPU with ``N`` subscriptions and nothing published (each a table followed from
  the other worker), as % of one core over 3 s;
- publish: the publisher's CPU per publish of a 3 KB frame with a minute of such frames kept (1,200: a table's
  spectator stream at 20 updates a second), against a bare one-row SQLite transaction on the same file, made
  without the store (no worker thread, no pruning): the floor.

Bounded: M messages and 3 s of idleness per mode; a file in a temporary folder; no network.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import trio

from server.cluster import sqlite_presence
from server.cluster.sqlite_presence import open_sqlite_presence

IDLE_S = 3.0


async def subscriber(path: Path, woken: bool, subscriptions: int, messages: int, idle_s: float, ready, report) -> None:
    async with open_sqlite_presence(path) as store, AsyncExitStack() as stack:
        if not woken:
            store.waker = None  # as before: read every ``POLL_UNWOKEN_S``
        frames = await stack.enter_async_context(store.subscribe("relay:t0"))
        for n in range(1, subscriptions):
            await stack.enter_async_context(store.subscribe(f"relay:t{n}"))
        before = resource.getrusage(resource.RUSAGE_SELF)
        await trio.sleep(idle_s)
        after = resource.getrusage(resource.RUSAGE_SELF)
        idle = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / idle_s
        ready.set()
        delays = []
        for _ in range(messages):
            sent = float(await frames.receive())
            delays.append((time.time() - sent) * 1000)
        report.put({"idle": idle, "delays": delays})


def run_subscriber(*args) -> None:
    trio.run(subscriber, *args)


async def publisher(path: Path, messages: int, ready) -> None:
    async with open_sqlite_presence(path) as store:
        while not ready.is_set():
            await trio.sleep(0.01)
        for _ in range(messages):
            await store.publish("relay:t0", repr(time.time()))
            await trio.sleep(0.02)  # a table's spectators' frames at 50 a second at most


def measure(woken: bool, subscriptions: int, messages: int, idle_s: float = IDLE_S) -> dict:
    path = Path(tempfile.mkdtemp(prefix="pf-store-wake-")) / "cluster.sqlite"
    context = multiprocessing.get_context("spawn")
    ready, report = context.Event(), context.Queue()
    process = context.Process(target=run_subscriber, args=(path, woken, subscriptions, messages, idle_s, ready, report))
    process.start()
    try:
        trio.run(publisher, path, messages, ready)
        result = report.get(timeout=60)
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
    delays = sorted(result["delays"])
    return {"mode": "woken" if woken else "polled (floor)", "delivered": len(delays),
            "p50_ms": statistics.median(delays),
            "p99_ms": delays[min(len(delays) - 1, int(len(delays) * 0.99))], "idle_pct": 100 * result["idle"]}


def run(subscriptions: int = 30, messages: int = 200) -> list[dict]:
    """The floor (polled) and the woken mode, one after the other; then the cost of a publish."""
    rows = [{**measure(woken, subscriptions, messages), "subscriptions": subscriptions, "messages": messages}
            for woken in (False, True)]
    return rows + [trio.run(publish_cost, 1200, 300)]


async def publish_cost(kept: int, timed: int, size: int = 3000) -> dict:
    """CPU us per publish of a ``size``-byte frame with ``kept`` frames in the store, and per bare transaction."""
    path = Path(tempfile.mkdtemp(prefix="pf-store-publish-")) / "cluster.sqlite"
    frame = "x" * size
    async with open_sqlite_presence(path) as store:
        for _ in range(kept):
            await store.publish("relay:t0", frame)
        before = _cpu()
        for _ in range(timed):
            await store.publish("relay:t0", frame)
        publish = (_cpu() - before) / timed
    db = sqlite3.connect(path, isolation_level=None)
    try:
        before = _cpu()
        for _ in range(timed):
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO messages (channel, message, at) VALUES (?, ?, ?)", ("relay:t1", frame, time.time()))
            db.execute("COMMIT")
        bare = (_cpu() - before) / timed
    finally:
        db.close()
    return {"mode": "publish", "kept": kept, "size": size, "publish_us": publish * 1e6, "bare_us": bare * 1e6}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def print_table(rows: list[dict]) -> None:
    floor, woken, publish = rows
    print(f"SQLite store (`serve --workers`), one publisher and one subscriber process; {floor['subscriptions']} "
          f"subscriptions idle {IDLE_S:.0f} s, {floor['messages']} messages timed (the floor: polled every "
          f"{sqlite_presence.POLL_UNWOKEN_S * 1000:.0f} ms)")
    print(f"{'mode':>15} {'delivery p50 ms':>16} {'p99 ms':>8} {'idle CPU %':>11}")
    for row in (floor, woken):
        print(f"{row['mode']:>15} {row['p50_ms']:>16.2f} {row['p99_ms']:>8.2f} {row['idle_pct']:>11.1f}")
    print(f"woken / polled: delivery p50 {woken['p50_ms'] / floor['p50_ms']:.2f}x, idle CPU "
          f"{woken['idle_pct'] / max(floor['idle_pct'], 0.01):.2f}x")
    print(f"publish of a {publish['size']:,}-byte frame, {publish['kept']:,} kept: {publish['publish_us']:.0f} us CPU; "
          f"a bare one-row transaction: {publish['bare_us']:.0f} us "
          f"({publish['publish_us'] / publish['bare_us']:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscriptions", type=int, default=30, help="tables followed, idle (default 30)")
    parser.add_argument("--messages", type=int, default=200, help="messages timed per mode (default 200)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args()
    rows = run(args.subscriptions, args.messages)
    print_table(rows)
    if args.json:
        json.dump(rows, sys.stdout)
        print()


if __name__ == "__main__":
    main()
