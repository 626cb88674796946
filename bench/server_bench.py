"""The server under load, each figure next to the floor measured in the same run.

The server runs in its own process (`photofinish serve --durability never`: the log's cost is measured on
its own by log_bench), the load in this one, over loopback. The floor is a bare trio-websocket echo server,
same message size: its round trip, its round trips per second, and its server CPU per round trip.
Server CPU comes from /proc (utime + stime of the server process), memory from its VmRSS.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import msgspec
import trio
from trio_websocket import open_websocket_url

from clients.load import percentile, run_load, summarize

ACT = msgspec.json.encode({"type": "act", "id": 12345, "table": "t1", "action": {"type": "take", "card": "G10"}})


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def start_process(command: list[str]) -> trio.Process:
    """Start a server process and return once it prints that it is listening."""
    process = await trio.lowlevel.open_process(command, stdout=subprocess.PIPE)
    seen = b""
    with trio.fail_after(30):
        while b"listening on" not in seen:
            chunk = await process.stdout.receive_some()
            if not chunk:
                raise RuntimeError(f"{command[0]} exited: {seen!r}")
            seen += chunk
    return process


async def stop(process: trio.Process) -> None:
    process.terminate()
    with trio.move_on_after(10):
        await process.wait()
    if process.returncode is None:
        process.kill()


async def floor(round_trips: int = 4000) -> dict:
    port = free_port()
    server = await start_process([sys.executable, "-m", "bench.echo_server", str(port)])
    try:
        timings = []
        async with open_websocket_url(f"ws://127.0.0.1:{port}") as ws:
            for _ in range(200):  # warm up
                await ws.send_message(ACT.decode())
                await ws.get_message()
            cpu0, begin = cpu_seconds(server.pid), time.perf_counter()
            for _ in range(round_trips):
                sent = time.perf_counter()
                await ws.send_message(ACT.decode())
                await ws.get_message()
                timings.append((time.perf_counter() - sent) * 1e6)
            elapsed, cpu = time.perf_counter() - begin, cpu_seconds(server.pid) - cpu0
    finally:
        await stop(server)
    return {"rt_p50_us": statistics.median(timings), "rt_p99_us": percentile(timings, 0.99),
            "round_trips_per_s": round_trips / elapsed, "server_cpu_us_per_rt": cpu / round_trips * 1e6}


async def load(table_counts: list[int], seconds: float) -> list[dict]:
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    rows = []
    with tempfile.TemporaryDirectory() as data:
        server = await start_process([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--data", data,
                              "--durability", "never"])
        try:
            base_rss = rss_kib(server.pid)
            for count in table_counts:
                before_rss = rss_kib(server.pid)
                cpu0 = cpu_seconds(server.pid)
                stats = await run_load(url, count, seconds)
                cpu = cpu_seconds(server.pid) - cpu0
                row = summarize(stats, count, seconds)
                grown = max(0, rss_kib(server.pid) - before_rss)
                row["server_cpu_us_per_action"] = cpu / max(1, stats.accepted + stats.rejected) * 1e6
                row["server_rss_kib_per_table"] = grown / count
                row["server_rss_kib_per_connection"] = grown / (count * 3)
                row["server_rss_mib"] = rss_kib(server.pid) / 1024
                row["server_base_rss_mib"] = base_rss / 1024
                rows.append(row)
        finally:
            await stop(server)
    return rows


FLUSH_SIX = ("flush", "lockstep", {"rounds": 50, "turn_limit": 100_000})


async def fanout_six(seconds: float) -> dict:
    """One lockstep Flush table of 6 seats: every action's update goes to all six (the widest fan-out)."""
    from clients.load import run_load, summarize

    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        server = await start_process([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--data",
                                      data, "--durability", "never"])
        try:
            cpu0 = cpu_seconds(server.pid)
            stats = await run_load(f"ws://127.0.0.1:{port}", 1, seconds, seats=6, table=FLUSH_SIX)
            row = summarize(stats, 1, seconds, seats=6)
            row["server_cpu_us_per_action"] = (cpu_seconds(server.pid) - cpu0) / max(1, stats.accepted) * 1e6
        finally:
            await stop(server)
    return row


def run(table_counts=(1, 10, 100, 500), seconds: float = 5.0) -> dict:
    return {"floor": trio.run(floor), "load": trio.run(load, list(table_counts), seconds),
            "fanout_six": trio.run(fanout_six, seconds)}


def print_table(figures: dict) -> None:
    from clients.load import print_load

    f = figures["floor"]
    print("Floor: bare trio-websocket echo, same message size, one connection")
    print(f"  round trip p50 {f['rt_p50_us']:.0f} us, p99 {f['rt_p99_us']:.0f} us; "
          f"{f['round_trips_per_s']:.0f} round trips/s; server CPU {f['server_cpu_us_per_rt']:.0f} us per round trip")
    print("\nServer: Flag Finish Challenge tables of 3 seats, each seat acting as fast as it can")
    print_load(figures["load"])
    print(f"\n{'tables':>6}{'cpu us/action':>15}{'x echo cpu':>12}{'rss MiB':>9}{'KiB/table':>11}{'KiB/conn':>10}")
    for r in figures["load"]:
        print(f"{r['tables']:>6}{r['server_cpu_us_per_action']:>15.0f}"
              f"{r['server_cpu_us_per_action'] / f['server_cpu_us_per_rt']:>12.2f}{r['server_rss_mib']:>9.1f}"
              f"{r['server_rss_kib_per_table']:>11.0f}{r['server_rss_kib_per_connection']:>10.0f}")
    six = figures.get("fanout_six")
    if six:
        print("\nFan-out: one lockstep Flush table of 6 seats (each update goes to all six)")
        print(f"  {six['accepted_per_s']:.0f} actions/s; round trip p50 {six['rt_p50_us']:.0f} us "
              f"({six['rt_p50_us'] / f['rt_p50_us']:.1f}x echo); last of six updates after the send: "
              f"p50 {six['fanout_p50_us']:.0f} us ({six['fanout_p50_us'] / f['rt_p50_us']:.1f}x echo), "
              f"p99 {six['fanout_p99_us']:.0f} us; server CPU {six['server_cpu_us_per_action']:.0f} us/action")
    one = next((r for r in figures["load"] if r["tables"] == 1), None)
    if one:
        checks = [
            ("action round trip p50 <= 1.5x echo", one["rt_p50_us"] / f["rt_p50_us"], 1.5),
            ("action round trip p99 <= 2x echo", one["rt_p99_us"] / f["rt_p99_us"], 2.0),
            ("server CPU per action <= 2.5x echo", one["server_cpu_us_per_action"] / f["server_cpu_us_per_rt"], 2.5),
        ]
        hundred = next((r for r in figures["load"] if r["tables"] == 100), None)
        print("\nTargets (ratios in this run):")
        for name, ratio, limit in checks:
            print(f"  {name:<40} {ratio:6.2f}x  {'met' if ratio <= limit else 'NOT MET'}")
        if hundred:
            ok = hundred["accepted_per_s"] >= 1500 and hundred["rt_p99_us"] < 100_000
            print(f"  {'100 tables: >= 1500 actions/s, p99 < 100 ms':<40} {hundred['accepted_per_s']:6.0f}/s, "
                  f"p99 {hundred['rt_p99_us'] / 1000:.0f} ms  {'met' if ok else 'NOT MET'}")
