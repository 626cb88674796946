"""`serve --workers N` against one process, in the same run: throughput per machine.

The same load (the load generator's seats, a closed loop at every table: the server's capacity) against
`photofinish serve` with 1 worker and with N (default: the machine's cores), `--durability never` so that the
disk is not what is shared. Server CPU is the whole process tree's (the workers are the parent's children).
The load generator runs on the same machine: on 2 cores it takes a share of what the workers could use, so the
ratio is what this machine shows, not what a machine with the load elsewhere would.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import trio

from clients.load import run_load, summarize
from server.protocol.gctune import settle_gc
from server.wire.sendpath import send_promptly

from .server_bench import SERVE, free_port, start_process, stop

ROWS = [100]  # tables


def tree_cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` and every descendant."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = open(f"/proc/{current}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir(f"/proc/{current}/task"):
                todo += [int(child) for child in open(f"/proc/{current}/task/{task}/children").read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


async def measure(workers: int, tables: int, seconds: float) -> dict:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        server = await start_process([sys.executable, "-m", "clients.cli", *SERVE, "--durability", "never", "--port",
                                      str(port), "--data", data, "--no-web", "--workers", str(workers)])
        try:
            cpu0, wall0 = tree_cpu_seconds(server.pid), time.perf_counter()
            stats = await run_load(f"ws://127.0.0.1:{port}", tables, seconds, prepare=send_promptly)
            wall, cpu = time.perf_counter() - wall0, tree_cpu_seconds(server.pid) - cpu0
        finally:
            await stop(server)
    row = summarize(stats, tables)
    row.update(workers=workers, server_cpu_share=cpu / wall,
               server_cpu_us_per_action=cpu / max(1, stats.accepted + stats.rejected) * 1e6)
    return row


def run(workers: int | None = None, seconds: float = 5.0) -> list[dict]:
    settle_gc()
    many = workers or os.cpu_count() or 2
    rows = []
    for tables in ROWS:
        alone = trio.run(measure, 1, tables, seconds)
        together = trio.run(measure, many, tables, seconds)
        together["x_one_worker"] = together["accepted_per_s"] / max(alone["accepted_per_s"], 1e-9)
        alone["x_one_worker"] = 1.0
        rows += [alone, together]
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"serve --workers (closed loop, durability never; load average {os.getloadavg()[0]:.1f})")
    print(f"{'tables':>6} {'workers':>7} {'accepted/s':>11} {'x 1 worker':>10} {'rt p50 us':>10} {'rt p99 us':>10} "
          f"{'server CPU':>10} {'CPU us/action':>13}")
    for r in rows:
        print(f"{r['tables']:>6} {r['workers']:>7} {r['accepted_per_s']:>11.0f} {r['x_one_worker']:>10.2f} "
              f"{r['rt_p50_us']:>10.0f} {r['rt_p99_us']:>10.0f} {r['server_cpu_share']:>10.2f} "
              f"{r['server_cpu_us_per_action']:>13.0f}")


if __name__ == "__main__":
    print_table(run(int(sys.argv[1]) if len(sys.argv) > 1 else None))
