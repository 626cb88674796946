"""The server under load, each figure next to the floor measured in the same run.

The server runs in its own process with the default durability (`batch`: every acknowledgement waits for the
journal's fdatasync that covers its log line), the load in this one, over loopback. The floor is a bare trio-websocket echo server,
same message size: its round trip, its round trips per second, and its server CPU per round trip, with 1, 3 and
300 connections (the 100-table row's seats: an echo's CPU per round trip falls as its connections grow, so the
100-table row is read against both the 1-connection echo and this one, measured again just before and after
that row, the mean of the two: the machine's speed moves over a run more than the ratio's margin). A second
server with `--durability never` runs the 1, 100 and 500 table rows just before the default's, and the fsync
floor (one fdatasync of a small append in the same data folder, p50/p99) is measured in the same run: the
durable rows are read against both.
Server CPU comes from /proc (utime + stime of the server process), memory from its VmRSS. The BOT_ROWS run again
just after the default's, on the same server, with seats that speak as a bot asking for the smallest updates
(issue 35: `--patches --no-events --encoding msgpack`); every row also has the bytes the seats were sent per
action (frame payloads over loopback).

`python -m bench.server_bench [--quick] [--seconds S]`: this bench alone (``--quick``: 1 and 100 tables only).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, asynccontextmanager

import msgspec
import trio
from trio_websocket import open_websocket_url

from clients.load import FLAG_FINISH_LOAD, Speech, percentile, run_load, summarize
from server.protocol.gctune import settle_gc
from server.wire.sendpath import send_promptly

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


async def floor(connections: int = 1, seconds: float = 1.5, prompt: bool = False, relay: int = 0) -> dict:
    """The bare echo: ``connections`` clients, each sending an action-sized message and waiting for it back.
    ``prompt``: both ends send as photofinish's server does (server/wire/sendpath.py), for reference; not the floor.
    ``relay``: the bare relay instead (``bench/echo_server.py``): each client's message goes to its table's
    ``relay`` clients, and each client reads the others' as it waits for its own; per round trip is then per
    message relayed to a table (for reference; not the floor)."""
    port = free_port()
    server = await start_process([sys.executable, "-m", "bench.echo_server", str(port)] + ["--prompt"] * prompt
                                 + ["--relay", str(relay)] * bool(relay))
    timings: list[float] = []
    measuring = [False]
    numbered = iter(range(connections))

    async def client(ws) -> None:
        mine = ACT.decode().replace("12345", f"{10000 + next(numbered):05d}")  # the same size; its own among the table's
        while True:
            sent = time.perf_counter()
            await ws.send_message(mine)
            while await ws.get_message() != mine:
                pass
            if measuring[0]:
                timings.append((time.perf_counter() - sent) * 1e6)

    try:
        async with AsyncExitStack() as stack:
            sockets = [await stack.enter_async_context(open_websocket_url(f"ws://127.0.0.1:{port}"))
                       for _ in range(connections)]
            if prompt:
                for ws in sockets:
                    send_promptly(ws)
            async with trio.open_nursery() as nursery:
                for ws in sockets:
                    nursery.start_soon(client, ws)
                await trio.sleep(0.2)  # warm up
                measuring[0] = True
                cpu0, begin = cpu_seconds(server.pid), time.perf_counter()
                await trio.sleep(seconds)
                measuring[0] = False
                elapsed, cpu = time.perf_counter() - begin, cpu_seconds(server.pid) - cpu0
                nursery.cancel_scope.cancel()
    finally:
        await stop(server)
    return {"connections": connections, "rt_p50_us": statistics.median(timings),
            "rt_p99_us": percentile(timings, 0.99), "round_trips_per_s": len(timings) / elapsed,
            "server_cpu_us_per_rt": cpu / len(timings) * 1e6}


# every load client comes from loopback: no per-address caps either (issue 29's limits are for anonymous clients)
NO_ADDRESS_LIMITS = ["--address-rate", "1000000", "--max-conns-per-address", "1000000", "--registrations-per-minute", "1000000", "--tournaments-per-minute", "1000000",
                     "--waiting-per-connection", "0", "--waiting-per-address", "0",  # load opens all its tables first
                     "--seats-per-connection", "0", "--seats-per-address", "0"]  # ... and sits at them from one address
SERVE = ["serve", "--workers", "1", "--rate", "1000000", *NO_ADDRESS_LIMITS]  # one process; no per-connection rate limit
# (tables, offered actions/s; 0: max). 100 tables also paced: at 1,600/s (the latency target's load, with a
# margin) and at 2,000/s, near where paced traffic saturates the server (it batches less than a closed loop).
LOAD_ROWS = [(1, 0.0), (10, 0.0), (100, 0.0), (100, 1600.0), (100, 2000.0), (500, 0.0)]
NEVER_ROWS = [(1, 0.0), (100, 0.0), (500, 0.0)]  # also run with `--durability never`, just before the default's
MANY_CONNECTIONS = 300  # the echo also at the 100-table row's connections: its CPU per round trip falls with them
BOT_ROWS = [(1, 0.0), (100, 0.0)]  # also run with BOT_SPEECH's seats, just after the default's
BOT_SPEECH = Speech(patches=True, events=False, encoding="msgpack")
ROWS_SPEECH = Speech(patches=True, events=False, encoding="msgpack", rows=True)  # and the per-move messages as arrays
ARRIVAL_LOAD = (*FLAG_FINISH_LOAD, {"ordering": "arrival"})  # the same tables without fair ordering
# the other seats' rows after the default's, in this order: (name, what they say in their hello, their tables)
BOT_SPEECHES = (("bot", BOT_SPEECH, FLAG_FINISH_LOAD), ("rows", ROWS_SPEECH, FLAG_FINISH_LOAD),
                ("arrival", Speech(), ARRIVAL_LOAD))  # arrival: the default's seats, tables without fair ordering
QUICK_ROWS = [(1, 0.0), (100, 0.0)]
DEFAULT_DURABILITY = "batch"
FLUSH_SIX = ("flush", "lockstep", {"rounds": 50, "turn_limit": 100_000})


@asynccontextmanager
async def photofinish_server(durability: str = DEFAULT_DURABILITY, extra: tuple[str, ...] = ()):
    """A `photofinish serve` process on a free port with a throwaway data directory: (process, url).
    ``extra``: more `serve` options (the fairness bench's `--kernel-rtt`)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        process = await start_process([sys.executable, "-m", "clients.cli", *SERVE, "--durability", durability,
                                       "--port", str(port), "--data", data, *extra])
        try:
            yield process, f"ws://127.0.0.1:{port}"
        finally:
            await stop(process)


async def measure(server: trio.Process, url: str, tables: int, seconds: float, rate: float = 0.0, seats: int = 3,
                  table=FLAG_FINISH_LOAD, speech: Speech = Speech()) -> dict:
    """One load run, with the server's CPU and memory and this (load) process's own share of the CPU; ``speech``:
    what the seats ask for in their hello."""
    before_rss, cpu0, own0, wall0 = rss_kib(server.pid), cpu_seconds(server.pid), time.process_time(), time.perf_counter()
    stats = await run_load(url, tables, seconds, seats=seats, table=table, rate=rate, prepare=send_promptly,
                           speech=speech)
    wall = time.perf_counter() - wall0
    cpu = cpu_seconds(server.pid) - cpu0
    row = summarize(stats, tables, seats=seats, rate=rate)
    grown = max(0, rss_kib(server.pid) - before_rss)
    row.update(server_cpu_us_per_action=cpu / max(1, stats.accepted + stats.rejected) * 1e6,
               server_cpu_share=cpu / wall, load_cpu_share=(time.process_time() - own0) / wall,
               server_rss_kib_per_table=grown / tables, server_rss_kib_per_connection=grown / (tables * seats),
               server_rss_mib=rss_kib(server.pid) / 1024,
               speech=dataclasses.asdict(speech))
    return row


def fsync_floor(samples: int = 300) -> dict:
    """One fdatasync of a small append (a log line) in the data folder's file system: the least a durable
    acknowledgement can wait."""
    timings = []
    with tempfile.TemporaryDirectory() as folder, open(os.path.join(folder, "floor.log"), "ab", buffering=0) as log:
        for _ in range(samples):
            log.write(b"0" * 64 + b' {"kind":"entry","seq":1,"action":{"type":"take","card":"G10"}}\n')
            start = time.perf_counter()
            os.fdatasync(log.fileno())
            timings.append((time.perf_counter() - start) * 1e6)
    return {"p50_us": statistics.median(timings), "p99_us": percentile(timings, 0.99)}


async def load(rows: list[tuple[int, float]], seconds: float) -> tuple[list[dict], list[dict], list[dict]]:
    """The rows with the default durability, the NEVER_ROWS among them with `never`, each run just before its
    default row (two servers up at once, one idle while the other is measured), and the BOT_ROWS among them
    again with bot seats (BOT_SPEECHES: with and without rows) and with arrival-ordered tables, each just after its
    default row on the same server."""
    durable, never, bots = [], [], []
    async with photofinish_server() as (server, url), photofinish_server("never") as (plain, plain_url):
        for tables, rate in rows:
            if (tables, rate) in NEVER_ROWS:
                never.append(await measure(plain, plain_url, tables, seconds, rate))
            beside = (tables, rate) == (100, 0.0)  # the echo at as many connections just before and after it too
            echo_before = (await floor(MANY_CONNECTIONS))["server_cpu_us_per_rt"] if beside else None
            durable.append(await measure(server, url, tables, seconds, rate))
            if beside:  # (the machine's speed moves between the run's first floors and this row)
                after = (await floor(MANY_CONNECTIONS))["server_cpu_us_per_rt"]
                durable[-1]["echo_beside_us_per_rt"] = (echo_before + after) / 2
            if (tables, rate) in BOT_ROWS:
                for name, speech, table in BOT_SPEECHES:
                    bots.append({**await measure(server, url, tables, seconds, rate, speech=speech, table=table),
                                 "seats": name})
    return durable, never, bots


async def fanout_six(seconds: float) -> dict:
    """One lockstep Flush table of 6 seats: every action's update goes to all six (the widest fan-out)."""
    async with photofinish_server() as (server, url):
        return await measure(server, url, 1, seconds, seats=6, table=FLUSH_SIX)


def run(rows=LOAD_ROWS, seconds: float = 5.0) -> dict:
    settle_gc()  # as `photofinish load` does: the load's own pauses would show as the server's latency
    figures = {"floor": trio.run(floor, 1), "floor_three": trio.run(floor, 3),
               "floor_many": trio.run(floor, MANY_CONNECTIONS),
               "floor_three_prompt": trio.run(floor, 3, 1.5, True), "fsync_floor": fsync_floor(),
               "floor_relay": trio.run(floor, MANY_CONNECTIONS, 1.5, False, 3)}
    figures["load"], figures["never"], figures["bots"] = trio.run(load, list(rows), seconds)
    figures["fsync_floor_after"] = fsync_floor()  # the disk may have changed during the run
    figures["fanout_six"] = trio.run(fanout_six, seconds)
    return figures


def print_table(figures: dict) -> None:
    from clients.load import print_load

    f, f3 = figures["floor"], figures["floor_three"]
    print(f"Floor: bare trio-websocket echo, same message size; 1 connection, 3 at once (a table's seats), and "
          f"{MANY_CONNECTIONS} (the 100-table row's seats)")
    many = figures.get("floor_many")
    floors = [("1 connection ", f), ("3 connections", f3)] + [(f"{MANY_CONNECTIONS} connections", many)] * (many is not None)
    for name, floor_row in floors:
        print(f"  {name}: round trip p50 {floor_row['rt_p50_us']:.0f} us, p99 {floor_row['rt_p99_us']:.0f} us; "
              f"{floor_row['round_trips_per_s']:.0f} round trips/s; "
              f"server CPU {floor_row['server_cpu_us_per_rt']:.0f} us per round trip")
    prompt = figures.get("floor_three_prompt")
    if prompt:
        print(f"  for reference, 3 connections sending as photofinish's server does (server/wire/sendpath.py, both ends): "
              f"p50 {prompt['rt_p50_us']:.0f} us, p99 {prompt['rt_p99_us']:.0f} us; "
              f"{prompt['round_trips_per_s']:.0f} round trips/s")
    beside = next((r["echo_beside_us_per_rt"] for r in figures["load"] if "echo_beside_us_per_rt" in r), None)
    if beside:
        print(f"  {MANY_CONNECTIONS} connections again, just before and after the 100-table row: server CPU "
              f"{beside:.0f} us per round trip (their mean)")
    relay = figures.get("floor_relay")
    if relay:
        print(f"  for reference, a bare relay ({MANY_CONNECTIONS} connections in tables of 3, each message sent to its "
              f"table's three): server CPU {relay['server_cpu_us_per_rt']:.0f} us per message relayed")
    fs, fs2 = figures.get("fsync_floor"), figures.get("fsync_floor_after")
    if fs:
        print(f"  fsync floor: one fdatasync of a small append in the data folder: p50 {fs['p50_us']:.0f} us, "
              f"p99 {fs['p99_us']:.0f} us (after the load rows: p50 {fs2['p50_us']:.0f} us, p99 {fs2['p99_us']:.0f} us)")
    print(f"\nServer, durability {DEFAULT_DURABILITY} (the default): Flag Finish Challenge tables of 3 seats "
          "(offered: max = each seat as fast as it can)")
    print_load(figures["load"])
    if figures.get("never"):
        print("\nThe same server with --durability never (no fsync), each row just before the default's")
        print_load(figures["never"])
    print(f"\n{'tables':>6}{'offered':>9}{'cpu us/action':>15}{'x echo cpu':>12}{'server cpu':>12}{'load cpu':>10}"
          f"{'rss MiB':>9}{'KiB/table':>11}{'KiB/conn':>10}")
    for r in figures["load"]:
        offered = f"{r['rate']:.0f}/s" if r["rate"] else "max"
        print(f"{r['tables']:>6}{offered:>9}{r['server_cpu_us_per_action']:>15.0f}"
              f"{r['server_cpu_us_per_action'] / f['server_cpu_us_per_rt']:>12.2f}{r['server_cpu_share']:>12.0%}"
              f"{r['load_cpu_share']:>10.0%}{r['server_rss_mib']:>9.1f}"
              f"{r['server_rss_kib_per_table']:>11.0f}{r['server_rss_kib_per_connection']:>10.0f}")
    bots = figures.get("bots")
    if bots:
        print_bots(figures)
    six = figures.get("fanout_six")
    if six:
        print("\nFan-out: one lockstep Flush table of 6 seats (each update goes to all six)")
        print(f"  {six['accepted_per_s']:.0f} actions/s; round trip p50 {six['rt_p50_us']:.0f} us "
              f"({six['rt_p50_us'] / f['rt_p50_us']:.1f}x echo); last of six updates after the send: "
              f"p50 {six['fanout_p50_us']:.0f} us ({six['fanout_p50_us'] / f['rt_p50_us']:.1f}x echo), "
              f"p99 {six['fanout_p99_us']:.0f} us; server CPU {six['server_cpu_us_per_action']:.0f} us/action")
    print("\nTargets (ratios in this run):")
    for line in target_lines(figures):
        print(f"  {line}")


def print_bots(figures: dict) -> None:
    """Each BOT_ROWS row beside the default's of the same run: seats as the browser's default (JSON, whole views
    and events) against seats as a bot asking for the smallest updates (BOT_SPEECH), and against tables without
    fair ordering."""
    f = figures["floor"]
    default = {(r["tables"], r["rate"]): r for r in figures["load"]}
    said = ", ".join(f"{key} {value}" for key, value in figures["bots"][0]["speech"].items())
    print(f"\nSeats as a bot asking for the smallest updates (bot: {said}; rows: the same and rows True), and the "
          "default's seats at tables with arrival ordering (arrival: what fair ordering costs), each row just after "
          "the default's, same server")
    print(f"{'tables':>6}{'offered':>9}{'seats':>9}{'accepted/s':>12}{'rt p50 us':>11}{'p99 us':>9}"
          f"{'cpu us/action':>15}{'x echo cpu':>12}{'bytes/action':>14}")
    shown = set()
    for bot in figures["bots"]:
        offered = f"{bot['rate']:.0f}/s" if bot["rate"] else "max"
        first = (bot["tables"], bot["rate"]) not in shown
        shown.add((bot["tables"], bot["rate"]))
        for name, r in ((("default", default.get((bot["tables"], bot["rate"]))),) if first else ()) + (
                (bot.get("seats", "bot"), bot),):
            if r is None:
                continue
            print(f"{r['tables']:>6}{offered:>9}{name:>9}{r['accepted_per_s']:>12.0f}{r['rt_p50_us']:>11.0f}"
                  f"{r['rt_p99_us']:>9.0f}{r['server_cpu_us_per_action']:>15.0f}"
                  f"{r['server_cpu_us_per_action'] / f['server_cpu_us_per_rt']:>12.2f}"
                  f"{r.get('received_bytes_per_action', 0):>14.0f}")
    for bot in figures["bots"]:
        if bot["unanswered"]:
            print(f"  {bot['tables']} tables, bot seats: {bot['unanswered']} actions were never answered")


def target_lines(figures: dict) -> list[str]:
    """Each target of the issue against this run's figures, met or not."""
    f, f3, rows = figures["floor"], figures["floor_three"], figures["load"]
    row = {(r["tables"], r["rate"]): r for r in rows}
    lines = []

    def check(name: str, value: float, limit: float, unit: str = "x") -> None:
        lines.append(f"{name:<58} {value:8.2f}{unit}  {'MET' if value <= limit else 'NOT MET'}")

    one = row.get((1, 0.0))
    # the round trip against the bare transport is the server's own overhead: read on the `never` row when the
    # run has one (the durable default's fsync has its own targets, ``durable_lines``)
    bare = next((r for r in figures.get("never", []) if r["tables"] == 1 and not r["rate"]), None)
    if one:
        trip, which = (bare, "1 table (never)") if bare else (one, "1 table")
        for label, floor_row in (("1-connection echo", f), ("3-connection echo", f3)):
            check(f"{which}: round trip p50 <= 1.5x the {label}", trip["rt_p50_us"] / floor_row["rt_p50_us"], 1.5)
            check(f"{which}: round trip p99 <= 2x the {label}", trip["rt_p99_us"] / floor_row["rt_p99_us"], 2.0)
        prompt = figures.get("floor_three_prompt")
        if prompt:
            lines.append(f"{'(reference) 1 table p50 / 3-connection prompt-send echo':<58} "
                         f"{one['rt_p50_us'] / prompt['rt_p50_us']:8.2f}x")
        check("server CPU per action <= 2.5x the echo's per round trip",
              one["server_cpu_us_per_action"] / f["server_cpu_us_per_rt"], 2.5)
    hundred = row.get((100, 0.0))
    if hundred:  # issue 35's: CPU per move at 100 tables, against the 1-connection echo (the column's floor, which
        # swings with the machine: a lone round trip pays for its own wakes) and the echo at as many connections
        check("100 tables: server CPU per action <= 1.5x the echo's per round trip",
              hundred["server_cpu_us_per_action"] / f["server_cpu_us_per_rt"], 1.5)
        many = figures.get("floor_many")
        beside = hundred.get("echo_beside_us_per_rt")
        if many or beside:  # read against the echo measured just before and after the row where it was
            check(f"100 tables: ... <= 1.5x the {MANY_CONNECTIONS}-connection echo's" + " (beside)" * bool(beside),
                  hundred["server_cpu_us_per_action"] / (beside or many["server_cpu_us_per_rt"]), 1.5)
        relay = figures.get("floor_relay")
        if relay:  # what a table's frames cost at the least: one in, one to each of its three seats out
            lines.append(f"{'(reference) 100 tables: CPU per action / the bare relay':<58} "
                         f"{hundred['server_cpu_us_per_action'] / relay['server_cpu_us_per_rt']:8.2f}x")
    for key in ((100, 0.0), (100, 1600.0), (100, 2000.0)):
        r = row.get(key)
        if r:
            ok = r["accepted_per_s"] >= 1500 and r["rt_p99_us"] < 100_000
            offered = f"offered {key[1]:.0f}/s" if key[1] else "offered max"
            lines.append(f"{f'100 tables ({offered}): >= 1500 accepted/s, p99 < 100 ms':<58} "
                         f"{r['accepted_per_s']:6.0f}/s, p99 {r['rt_p99_us'] / 1000:.0f} ms  {'MET' if ok else 'NOT MET'}")
    big = row.get((500, 0.0))
    if big:
        ok = big["unanswered"] == 0 and big["table_rate_min"] > 0
        lines.append(f"{'500 tables: every action answered, no table starves':<58} {big['unanswered']} unanswered, "
                     f"slowest table {big['table_rate_min']:.1f}/s  {'MET' if ok else 'NOT MET'}")
    return lines + durable_lines(figures)


def durable_lines(figures: dict) -> list[str]:
    """The durable default against `never` and the fsync floor, all of this run."""
    durable = {r["tables"]: r for r in figures["load"] if not r["rate"]}
    never = {r["tables"]: r for r in figures.get("never", [])}
    fs = figures.get("fsync_floor")
    lines = []
    if 1 in durable and 1 in never and fs:
        limit = never[1]["rt_p50_us"] + fs["p50_us"] + 300
        value = durable[1]["rt_p50_us"]
        lines.append(f"{'1 table, default: rt p50 <= never p50 + fsync p50 + 0.3 ms':<58} {value:6.0f} us <= "
                     f"{never[1]['rt_p50_us']:.0f} + {fs['p50_us']:.0f} + 300 = {limit:.0f} us  "
                     f"{'MET' if value <= limit else 'NOT MET'}")
    for tables in (100, 500):
        if tables in durable and tables in never:
            share = durable[tables]["accepted_per_s"] / never[tables]["accepted_per_s"]
            p99 = durable[tables]["rt_p99_us"] / 1000
            ok = share >= 0.9 and (tables != 100 or p99 < 100)
            target = ">= 90% of never's accepted/s" + (", p99 < 100 ms" if tables == 100 else "")
            lines.append(f"{f'{tables} tables, default: {target}':<58} {share:6.0%}, p99 {p99:.0f} ms"
                         f"{'' if tables == 100 else ' (never: ' + format(never[tables]['rt_p99_us'] / 1000, '.0f') + ' ms)'}"
                         f"  {'MET' if ok else 'NOT MET'}")
    return lines


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="the server under load (this bench alone)")
    parser.add_argument("--quick", action="store_true", help="1 and 100 tables only")
    parser.add_argument("--seconds", type=float, default=5.0, help="each row's length")
    options = parser.parse_args()
    result = run(QUICK_ROWS if options.quick else LOAD_ROWS, options.seconds)
    print_table(result)
