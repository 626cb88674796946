"""The cluster's costs (issue 20): `python -m bench.cluster_bench`, and part of `make bench` where Debian's
``redis-server`` is installed (without it `make bench` says so and skips this one).

- The action path: one Flag Finish Challenge table of 3 seats, closed loop, on a cluster node and on a
  standalone server in the same run, alternating (S, N, S, N) so that the machine's drift hits both: server
  CPU per accepted action and round trip p50/p99. A seated action never touches Redis, so these should match
  (the target: within 5%).
- The directory: creating a table on a node (its id claimed in Redis) against a standalone create, and a
  seat's redirected join (a client connected to the other node asks for the seat, is redirected, opens a
  connection to the owner and is seated), p50/p99.
- Aggregate: 100 tables created through one node of two (placement spreads them) against 100 tables on one
  server: accepted actions per second per server CPU-second (all nodes' CPU added). This machine has 2 cores,
  shared with the load generator, so this compares efficiency, not raw throughput.

Every server runs `--durability never` (the disk's fsync noise is not what is compared) on a free loopback
port with a throwaway data directory; Redis runs with nothing saved. Bounded: about a minute in all.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from clients.client import open_client
from clients.load import FLAG_FINISH_LOAD, percentile, run_load, summarize
from server.protocol.gctune import settle_gc
from server.wire.sendpath import send_promptly

from .server_bench import NO_ADDRESS_LIMITS, cpu_seconds, free_port, start_process, stop

SERVE = ["serve", "--workers", "1", "--rate", "1000000", "--durability", "never", "--no-web", *NO_ADDRESS_LIMITS]
GAME = dict(game="flag_finish", mode="challenge", seats=3, options={"races": 50})


def redis_missing() -> str | None:
    return None if shutil.which("redis-server") else "redis-server is not installed (apt-get install -y redis-server)"


@asynccontextmanager
async def redis(folder: str):
    port = free_port()
    process = await trio.lowlevel.open_process(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
        stdout=__import__("subprocess").PIPE)
    seen = b""
    with trio.fail_after(10):
        while b"Ready to accept connections" not in seen:
            seen += await process.stdout.receive_some()
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.kill()
        await process.wait()


@asynccontextmanager
async def server(folder: str, name: str, cluster: str | None = None):
    """A `photofinish serve` process (a cluster node with ``cluster``): (process, url)."""
    port = free_port()
    extra = ["--cluster", cluster] if cluster else []
    process = await start_process([sys.executable, "-m", "clients.cli", *SERVE, "--port", str(port),
                                   "--data", str(Path(folder) / name), *extra])
    try:
        yield process, f"ws://127.0.0.1:{port}"
    finally:
        await stop(process)


async def action_path(standalone, node, seconds: float, rounds: int = 2) -> dict:
    """One table of 3 seats on each, alternately; the rows of each put together."""
    rows = {"standalone": [], "node": []}
    for _, url in (standalone, node):  # warm-up: the first run in a process pays for imports and caches
        await run_load(url, 1, 1.0, prepare=send_promptly)
    for _ in range(rounds):
        for name, (process, url) in (("standalone", standalone), ("node", node)):
            cpu0 = cpu_seconds(process.pid)
            stats = await run_load(url, 1, seconds, table=FLAG_FINISH_LOAD, prepare=send_promptly)
            cpu = cpu_seconds(process.pid) - cpu0
            row = summarize(stats, 1)
            row["cpu_us_per_action"] = cpu / max(1, stats.accepted + stats.rejected) * 1e6
            rows[name].append(row)
    out = {}
    for name, runs in rows.items():
        out[name] = {key: statistics.mean(r[key] for r in runs)
                     for key in ("accepted_per_s", "rt_p50_us", "rt_p99_us", "cpu_us_per_action")}
    out["cpu_ratio"] = out["node"]["cpu_us_per_action"] / out["standalone"]["cpu_us_per_action"]
    out["p50_ratio"] = out["node"]["rt_p50_us"] / out["standalone"]["rt_p50_us"]
    return out


async def creates(url: str, count: int) -> dict:
    timings = []
    async with open_client(url) as client:
        for _ in range(count):
            began = time.perf_counter()
            await client.create_table(placed=True, **GAME)
            timings.append((time.perf_counter() - began) * 1e6)
    return {"p50_us": statistics.median(timings), "p99_us": percentile(timings, 0.99), "count": count}


async def redirected_joins(owner: str, other: str, count: int) -> dict:
    """Each join: a client of ``other`` takes a seat at a table of ``owner`` (redirect, connect, seat)."""
    async with open_client(owner) as admin:
        tables = [(await admin.create_table(placed=True, **GAME)).table for _ in range(count)]
    timings = []
    for table in tables:
        async with open_client(other) as client:
            began = time.perf_counter()
            await client.take_seat(table)
            timings.append((time.perf_counter() - began) * 1e6)
            assert client.routes[table] == owner
    return {"p50_us": statistics.median(timings), "p99_us": percentile(timings, 0.99), "count": count}


async def aggregate(processes, url: str, tables: int, seconds: float) -> dict:
    cpu0 = [cpu_seconds(p.pid) for p in processes]
    stats = await run_load(url, tables, seconds, prepare=send_promptly)
    cpu_each = [cpu_seconds(p.pid) - before for p, before in zip(processes, cpu0)]
    cpu = sum(cpu_each)
    row = summarize(stats, tables)
    return {"cpu_share_per_server": [round(c / cpu, 3) for c in cpu_each],"accepted_per_s": row["accepted_per_s"], "rt_p50_us": row["rt_p50_us"], "rt_p99_us": row["rt_p99_us"],
            "server_cpu_s": cpu, "actions_per_cpu_s": stats.accepted / max(cpu, 1e-9),
            "unanswered": row["unanswered"]}


async def measure(seconds: float = 3.0, samples: int = 100) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        async with redis(folder) as redis_url:
            async with server(folder, "s") as standalone, server(folder, "a", redis_url) as a:
                # the node alone in its cluster, so that placement keeps each run's table on it
                path = await action_path(standalone, a, seconds)
                create_node = await creates(a[1], samples)
                create_alone = await creates(standalone[1], samples)
                async with server(folder, "b", redis_url) as b:
                    joins = await redirected_joins(a[1], b[1], samples)
            async with server(folder, "c", redis_url) as c, server(folder, "d", redis_url) as d:
                await trio.sleep(1.5)  # both heartbeats seen, so that placement knows both nodes
                spread = await aggregate([c[0], d[0]], c[1], 100, seconds * 2)
            async with server(folder, "one") as one:
                single = await aggregate([one[0]], one[1], 100, seconds * 2)
    return {"action_path": path, "create_node": create_node, "create_standalone": create_alone,
            "redirected_join": joins, "two_nodes_100": spread, "one_server_100": single}


def run(seconds: float = 3.0) -> dict:
    settle_gc()
    return trio.run(measure, seconds)


def print_table(f: dict) -> None:
    p = f["action_path"]
    print("Cluster: one table of 3 seats, closed loop, same run (standalone, node, standalone, node)")
    for name in ("standalone", "node"):
        r = p[name]
        print(f"  {name:<10}: {r['accepted_per_s']:>6.0f} actions/s, rt p50 {r['rt_p50_us']:.0f} us, "
              f"p99 {r['rt_p99_us']:.0f} us, server CPU {r['cpu_us_per_action']:.0f} us/action")
    print(f"  node/standalone: CPU per action {p['cpu_ratio']:.3f}x, p50 {p['p50_ratio']:.3f}x "
          f"(target: at most 1.05x: {'met' if p['cpu_ratio'] <= 1.05 else 'NOT met'}; this machine's noise is about 6%)")
    for name, label in (("create_standalone", "create a table, standalone"), ("create_node", "create a table, node"),
                        ("redirected_join", "redirected join (redirect, connect, seat)")):
        r = f[name]
        print(f"  {label:<42}: p50 {r['p50_us']:.0f} us, p99 {r['p99_us']:.0f} us ({r['count']})")
    for name, label in (("one_server_100", "100 tables, 1 server"), ("two_nodes_100", "100 tables, 2 nodes")):
        r = f[name]
        print(f"  {label:<22}: {r['accepted_per_s']:>6.0f} actions/s, {r['actions_per_cpu_s']:.0f} actions per "
              f"server CPU-second, rt p50 {r['rt_p50_us']:.0f} us, p99 {r['rt_p99_us']:.0f} us; "
              f"CPU split {r['cpu_share_per_server']}")


if __name__ == "__main__":
    missing = redis_missing()
    if missing:
        print(f"cluster bench skipped: {missing}")
        sys.exit(0)
    figures = run()
    print_table(figures)
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "cluster.json").write_text(json.dumps(figures, indent=2))
