"""Spectators at scale: what N spectators cost the players of a table and the server, in one run.

The server runs in its own process (`--durability never`: the spectators' cost, not the disk's, is measured).
The players are the load generator's seats (`clients.load`), paced so that their answer times are latency, not
capacity. The spectators run in `--processes` client processes of their own (default 1: `bench/rawwatch.py`, plain
non-blocking sockets on one epoll loop, about 18 us of client CPU per spectator update, so that the clients
are not what is measured; the trio-websocket spectators this bench had first took the machine's two cores at 1,000);
each watches the players' tables round robin (asking for batches and patches, as the browser does) and notes when
each update arrives (`time.perf_counter`, the same monotonic clock in every process of the machine).
Each row is read against the row with no spectators of the same run:

- the players' answer p50/p99 (act -> accepted) and its ratio to no spectators (targets 1.2x / 1.5x), over the
  measured seconds (from 1 s after every spectator has its first snapshot, to 0.25 s before they all leave); the
  answer p99 while they join, and in the 2 s after they leave, apart; the server's own waits
  (``bench/server_waits.py``). The
  players' tables use arrival ordering unless `--ordering fair`: fair ordering (Challenge Mode's default) holds
  each contested take until the other seats could have reacted as late, up to `fair_ms` (50 ms), which is every
  take at a paced seat's reaction (as at a human's); those answers are then 50 ms with or without spectators,
  and where the p50 falls among the others depends on how many takes the players drew, not on the spectators;
- each spectator's lag behind the table: an update's arrival at a spectator less its first arrival at a seat
  of that table (the seats are sent first), p50/p99 (target p99 under 100 ms), and its p99 while they join;
- server CPU per spectator update (its CPU over the run less the no-spectator row's, per update delivered);
- server RSS per idle spectator (after every spectator is connected and watching, before the play starts;
  target under 60 KiB).
- unserved: spectators that had no first snapshot within the join's bound (they count in nothing else);
- CPU as % of one core over the measured seconds: the server's, the spectator processes' and the players' (this
  process), and the 1-minute load average at the row's end (the machine is shared).

A row of **three nodes** runs three `photofinish serve --cluster sqlite:PATH` processes sharing one SQLite file:
the players play on the first, and the spectators are shared out over the nodes that do not run their table (a
client process each at least), which follow it through the relay (`server/cluster/relay.py`); CPU and RSS are the three
processes' together. It is read against the three-node row with no spectators, and its lag against the one-node
row (the issue's target: with three nodes, 3x the spectators at the same lag).

`--pin` puts the server(s) on the first core and the players and the spectators' clients on the others, as
Colyseus's harness pins its server and load apart: on a 2-core machine the clients otherwise take the server's
core from it. The spectators' clients stand in for a thousand phones and screens elsewhere, so they run only
when the players' process does not want the core (Linux's `SCHED_IDLE`; `nice 19` where that is refused). At
nice 10, as before, a player's answer waited behind them on their shared core: 6.1-6.4 ms p99 against 4.0-4.2 ms
with the same server, whose own waits ('wake', 'queue') were the same in both. At one table a 5 s row has ~100
answers (its p99 is nearly its slowest): use `--seconds 15`.

`python -m bench.spectator_bench` runs 1 table with 0 / 100 / 1,000 spectators, 0 / 1,000 spectators over three
nodes, and 10 tables with 0 / 1,000; `--full` adds 5,000 on one table and 3,000 over three nodes. Bounded: every
row lasts `--seconds` of play (joining is bounded too) and talks only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shlex
import subprocess
import sys
import tempfile
import time

import trio
from trio_websocket import open_websocket_url

from clients.load import FLAG_FINISH_LOAD, percentile, run_load
from server.wire.sendpath import send_promptly

from . import rawwatch, server_waits
from .server_bench import SERVE, cpu_seconds, free_port, rss_kib, start_process, stop

RATE_PER_TABLE = 20.0  # actions a second at each table: a brisk Challenge game, well within the server's reach
ROWS = [(1, 0, 1), (1, 100, 1), (1, 1000, 1), (1, 0, 3), (1, 1000, 3), (10, 0, 1), (10, 1000, 1)]  # tables,
# spectators, nodes; each row read against the one with no spectators at as many tables and nodes
FULL_ROWS = ROWS + [(1, 5000, 1), (1, 3000, 3)]
JOIN_WAIT_S = 10.0  # seconds (and 10 ms a spectator) for every spectator's first snapshot; those without one by
# then are counted as unserved (seen at 1,000 and 5,000 spectators on one node: bench/README.md)
JOIN_S = 0.02  # seconds of play added per spectator: the table plays on while they all join (a first snapshot each)
LEAVE_MARGIN_S = 0.25  # the measured seconds end this long before the spectators leave (each process at its own
# start + seconds: a thousand closes at once are a moment of their own, the 'leave' columns)
LEAVE_S = 2.0  # the seconds after it read as the spectators' leaving
SERVER_TREE = [""]  # ``--server-tree``: the checkout whose server is run ("": this one)
ORDERING = ["arrival"]  # ``--ordering``: the players' tables' (see the module's docstring)
PIN = [False]  # ``--pin``: the servers on the first core, the players and the spectators' clients on the others
CORES = sorted(os.sched_getaffinity(0))  # the cores this bench may use, as it started


def pin_clients() -> None:
    """A client process of this bench (``--pin``): off the first core, the servers', as Colyseus's harness pins
    its server and its load apart."""
    os.sched_setaffinity(0, set(CORES[1:]) or set(CORES))


def pin_spectators() -> None:
    """A spectators' client process (``--pin``): as ``pin_clients``, and run only when the players' process does
    not want the core (``SCHED_IDLE``; the lowest niceness where that is refused)."""
    pin_clients()
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


HEARTBEAT_S = 0.25  # a cluster node's heartbeat: how soon a followed table starts being published


def raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def table_ids(url: str, want: int) -> list[str]:
    """The ids of the load's tables once ``want`` of them are listed."""
    async with open_websocket_url(url) as ws:
        await ws.send_message(json.dumps({"type": "hello", "protocol": 1, "id": 0}))
        with trio.fail_after(60):
            while True:
                await ws.send_message(json.dumps({"type": "list_tables", "id": 1}))
                answer = json.loads(await ws.get_message())
                while answer.get("type") != "tables":
                    answer = json.loads(await ws.get_message())
                ids = [t["table"] for t in answer["tables"] if t["status"] == "playing"]
                if len(ids) >= want:
                    return ids[:want]
                await trio.sleep(0.1)


async def start_nodes(nodes: int, data: str) -> list[tuple[trio.Process, str, pathlib.Path]]:
    """``nodes`` servers: one plain one, or a cluster of ``nodes`` sharing a SQLite file; (process, url, data)."""
    started = []
    cluster = ["--cluster", f"sqlite:{data}/cluster.sqlite", "--heartbeat", str(HEARTBEAT_S)] if nodes > 1 else []
    for index in range(nodes):
        port, folder = free_port(), pathlib.Path(data) / f"node-{index}"
        tree = pathlib.Path(SERVER_TREE[0] or pathlib.Path(__file__).parent.parent)
        entry = ["bench.server_waits"] if (tree / "bench" / "server_waits.py").exists() else ["clients.cli"]
        command = ["env", f"PF_SERVER_WAITS={data}/waits-{index}.txt", sys.executable, "-m", *entry, *SERVE,
                   "--port", str(port), "--data", str(folder), "--durability", "never", "--no-web", *cluster]
        if SERVER_TREE[0]:  # the server of another checkout (an A/B): ``exec`` keeps the pid measured
            command = ["sh", "-c", f"cd {shlex.quote(SERVER_TREE[0])} && exec {shlex.join(command)}"]
        if PIN[0]:  # (``taskset`` execs the command: the pid stays the server's)
            command = ["taskset", "-c", str(CORES[0]), *command]
        started.append((await start_process(command), f"ws://127.0.0.1:{port}", folder))
    return started


def watcher_urls(started: list, ids: list[str]) -> list[str]:
    """Where the spectators connect: the one node, or the cluster's nodes that run none of the watched tables."""
    if len(started) == 1:
        return [started[0][1]]
    free = [url for _, url, folder in started if not any(any(folder.rglob(f"{t}.log")) for t in ids)]
    if not free:
        raise RuntimeError("every node runs a watched table: no node to watch them through the relay")
    return free


async def row(tables: int, spectators: int, processes: int, seconds: float, nodes: int = 1) -> dict:
    data = tempfile.mkdtemp(prefix="pf-spectators-")
    watchers: list[subprocess.Popen] = []
    started = await start_nodes(nodes, data)
    pids = [process.pid for process, _, _ in started]
    url = started[0][1]
    try:
        rss_before = sum(rss_kib(pid) for pid in pids)
        stats_box: dict = {}

        async def players() -> None:
            stats_box["stats"] = await run_load(url, tables, seconds + 6 + spectators * JOIN_S,
                                                rate=RATE_PER_TABLE * tables,
                                                table=(*FLAG_FINISH_LOAD, {"ordering": ORDERING[0]}),
                                                prepare=send_promptly)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(players)
            ids = await table_ids(url, tables)
            urls = watcher_urls(started, ids)
            join_began = time.perf_counter()
            spread = max(processes, len(urls)) if spectators else processes  # every free node gets its share
            per = [spectators // spread + (i < spectators % spread) for i in range(spread)]
            for index, count in enumerate(per):
                if count:
                    watchers.append(subprocess.Popen(
                        [sys.executable, "-m", "bench.spectator_bench", "--watch", urls[index % len(urls)],
                         str(count), str(seconds), *ids], stdout=subprocess.PIPE, text=True,
                        preexec_fn=pin_spectators if PIN[0] else None))
            for watcher in watchers:  # each says "joined" once all its spectators watch
                line = await trio.to_thread.run_sync(watcher.stdout.readline)
                if line.strip() != "joined":
                    raise RuntimeError(f"a spectator process failed: {line!r}")
            rss_after = sum(rss_kib(pid) for pid in pids)
            cpu0, began = sum(cpu_seconds(pid) for pid in pids), time.perf_counter()
            players0 = own_cpu()
            outputs = [await trio.to_thread.run_sync(w.stdout.read) for w in watchers]
            if not watchers:  # no spectators: the same seconds of play measured
                await trio.sleep(seconds)
            elapsed, cpu = time.perf_counter() - began, sum(cpu_seconds(pid) for pid in pids) - cpu0
            players_cpu = own_cpu() - players0
    finally:
        for watcher in watchers:
            watcher.kill()
        for process, _, _ in started:
            await stop(process)
    stats = stats_box["stats"]
    first_at_seat = {f"{table} {seq}": min(times) for (table, seq), times in stats.update_seen.items()}
    lags, join_lags, delivered, unserved, watchers_cpu = [], [], 0, 0, 0.0
    for output in outputs:
        seen = json.loads(output or '{"unserved": 0, "arrivals": {}, "joining": {}, "cpu_s": 0}')
        unserved += seen["unserved"]
        watchers_cpu += seen["cpu_s"]
        delivered += sum(len(times) for times in seen["arrivals"].values())
        for arrivals, into in ((seen["arrivals"], lags), (seen["joining"], join_lags)):
            for key, times in arrivals.items():
                if key in first_at_seat:
                    into += [(t - first_at_seat[key]) * 1e3 for t in times]
    end = began + seconds - LEAVE_MARGIN_S  # the spectators leave at their own start + seconds, not much after ``began``
    answers = answers_between(stats, began, end)
    joining = answers_between(stats, join_began, began)
    leaving = answers_between(stats, end, end + LEAVE_S)
    noted = pathlib.Path(data, "waits-0.txt")
    lines = noted.read_text().splitlines() if noted.exists() else []
    waits, leave_waits = (server_waits.between(lines, began, end),
                          server_waits.between(lines, end, end + LEAVE_S))
    return {"tables": tables, "spectators": spectators, "nodes": nodes, "unserved": unserved,
            "answer_p50_us": percentile(answers, 0.5), "answer_p99_us": percentile(answers, 0.99),
            "answers": len(answers), "wake_p99_us": percentile(waits["wake"], 0.99),
            "leave_answer_p99_us": percentile(leaving, 0.99) if spectators else float("nan"),
            "leave_wake_max_us": max(leave_waits["wake"], default=float("nan")) if spectators else float("nan"),
            "queue_p50_us": percentile(waits["queue"], 0.5), "queue_p99_us": percentile(waits["queue"], 0.99),
            "spread_p99_ms": percentile(waits["spread"], 0.99) / 1e3,
            "join_s": began - join_began, "join_answer_p99_us": percentile(joining, 0.99),
            "lag_p50_ms": percentile(lags, 0.5), "lag_p99_ms": percentile(lags, 0.99),
            "join_lag_p99_ms": percentile(join_lags, 0.99),
            "updates_delivered": delivered, "server_cpu_s": cpu, "seconds": elapsed,
            "spectators_cpu_s": watchers_cpu, "players_cpu_s": players_cpu, "load": os.getloadavg()[0],
            "rss_per_spectator_kib": (rss_after - rss_before) / spectators if spectators else 0.0}


def answers_between(stats, start: float, end: float) -> list[float]:
    """The players' answer times (us) of the answers that arrived between ``start`` and ``end``."""
    return [us for us, at in zip(stats.round_trips_us, stats.answered_at) if start <= at <= end]


def own_cpu() -> float:
    """This process's CPU seconds: the players' (the load generator runs here)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def parse_rows(parser: argparse.ArgumentParser, text: str) -> list[tuple[int, int, int]]:
    """``--rows``: each row TABLES:SPECTATORS[:NODES]; every row with spectators is read against a row with none
    at as many tables, so one must be there (said before any row runs, not after them all)."""
    try:
        rows = [(*(int(x) for x in pair.split(":")), 1)[:3] for pair in text.split(",")]
    except ValueError:
        parser.error(f"--rows {text!r}: each row is TABLES:SPECTATORS[:NODES], whole numbers (e.g. 1:0,1:1000:3)")
    alone = {tables for tables, spectators, _ in rows if spectators == 0}
    lacking = sorted({tables for tables, spectators, _ in rows if spectators and tables not in alone})
    if lacking:
        parser.error(f"--rows: add a row with no spectators at {', '.join(f'{t}:0' for t in lacking)}: each row "
                     "with spectators is read against one (its answers' ratio to alone, its CPU per update)")
    return rows


def run(rows: list[tuple[int, int, int]] = ROWS, processes: int = 1, seconds: float = 5.0) -> list[dict]:
    results = [trio.run(row, tables, spectators, processes, seconds, nodes) for tables, spectators, nodes in rows]
    for result in results:  # each read against the same run's row with no spectators at as many tables
        alone = min((r for r in results if r["tables"] == result["tables"] and r["spectators"] == 0),
                    key=lambda r: (r["nodes"] != result["nodes"], r["nodes"]))  # as many nodes, if run
        result["answer_p50_x"] = result["answer_p50_us"] / alone["answer_p50_us"]
        result["answer_p99_x"] = result["answer_p99_us"] / alone["answer_p99_us"]
        extra_cpu = result["server_cpu_s"] / result["seconds"] - alone["server_cpu_s"] / alone["seconds"]
        result["cpu_us_per_spectator_update"] = (extra_cpu * result["seconds"] / result["updates_delivered"] * 1e6
                                                 if result["updates_delivered"] else 0.0)
    return results


def print_table(results: list[dict]) -> None:
    print(f"Spectators (server alone in its process; players paced at {RATE_PER_TABLE:g} actions/s a table, "
          f"Challenge Mode tables with {ORDERING[0]} ordering). "
          f"Answers, lags and CPU over the measured seconds, once every spectator has its first snapshot and "
          f"{rawwatch.SETTLE_S:g} s more (the server's work of the joins drains); 'join': "
          f"the seconds they took to join, and the answer and lag p99 meanwhile. CPU as % of one core: the "
          f"server's, the spectator clients' and the players'. load: the 1-minute load average at the row's end "
          f"(over 2, the figures are the machine's more than the server's). Inside the server (us, "
          f"bench/server_waits.py): 'wake p99', how late a task woken there gets its turn (a player's action read "
          f"from its socket waits as long); 'queue', how long an action waits at its table before its answer. "
          f"'leave': the {LEAVE_S:g} s after the spectators all leave at once (the measured seconds end before): "
          f"the answers' p99 and the server's latest wake. 'spread p99': how long an update waited in the server "
          f"for its last spectator to be handed it (ms)")
    print(f"{'tables':>6} {'spect.':>6} {'nodes':>5} {'answer p50 us':>14} {'x alone':>7} {'p99 us':>8} {'x alone':>7} "
          f"{'lag p50 ms':>10} {'p99 ms':>8} {'updates':>8} {'cpu us/upd':>10} {'RSS KiB/spect.':>14} {'unserved':>8} "
          f"{'server %':>8} {'spect. %':>8} {'players %':>9} {'join s':>6} {'answer p99':>10} {'lag p99':>8} "
          f"{'load':>5} {'wake p99':>8} {'queue p50':>9} {'queue p99':>9} {'leave: answer p99':>17} {'wake max':>8} {'spread p99 ms':>13}")
    for r in results:
        print(f"{r['tables']:>6} {r['spectators']:>6} {r['nodes']:>5} {r['answer_p50_us']:>14.0f} {r['answer_p50_x']:>7.2f} "
              f"{r['answer_p99_us']:>8.0f} {r['answer_p99_x']:>7.2f} {r['lag_p50_ms']:>10.1f} {r['lag_p99_ms']:>8.1f} "
              f"{r['updates_delivered']:>8} {r['cpu_us_per_spectator_update']:>10.1f} "
              f"{r['rss_per_spectator_kib']:>14.1f} {r['unserved']:>8} "
              f"{100 * r['server_cpu_s'] / r['seconds']:>8.0f} {100 * r['spectators_cpu_s'] / r['seconds']:>8.0f} "
              f"{100 * r['players_cpu_s'] / r['seconds']:>9.0f} {r['join_s']:>6.1f} {r['join_answer_p99_us']:>10.0f} "
              f"{r['join_lag_p99_ms']:>8.1f} {r['load']:>5.1f} {r['wake_p99_us']:>8.0f} {r['queue_p50_us']:>9.0f} "
              f"{r['queue_p99_us']:>9.0f} {r['leave_answer_p99_us']:>17.0f} {r['leave_wake_max_us']:>8.0f} "
              f"{r['spread_p99_ms']:>13.1f}")
    print("targets: with 1,000 spectators answer p50 <= 1.2x and p99 <= 1.5x alone; lag p99 < 100 ms; "
          "RSS < 60 KiB per idle spectator; three nodes: 3x the spectators at the same lag")


def main() -> None:
    if sys.argv[1:2] == ["--watch"]:  # a spectator process: URL COUNT SECONDS TABLE...
        raise_file_limit()
        url, count, seconds, tables = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]
        seen = rawwatch.watch_many(url, tables, count, seconds, lambda: print("joined", flush=True),
                                   JOIN_WAIT_S)
        print(json.dumps(seen), flush=True)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="add 5,000 spectators at one table, 3,000 over three nodes")
    parser.add_argument("--processes", type=int, default=1, help="spectator client processes (default 1)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of play measured per row")
    parser.add_argument("--rows", help="rows as TABLES:SPECTATORS[:NODES],... (e.g. 1:0,1:100,1:1000:3)")
    parser.add_argument("--server-tree", default="", help="run the server of this checkout (an A/B against "
                        "another branch; the spectators and players stay this one's)")
    parser.add_argument("--ordering", choices=("arrival", "fair"), default="arrival",
                        help="the players' tables' ordering (default arrival: see the docstring)")
    parser.add_argument("--pin", action="store_true", help="the server(s) on the first core, the players and the "
                        "spectators' clients (at SCHED_IDLE) on the others, as Colyseus's harness runs")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args()
    raise_file_limit()
    SERVER_TREE[0] = args.server_tree
    ORDERING[0] = args.ordering
    if args.pin:
        PIN[0] = True
        pin_clients()  # the players: this process (the servers it starts are put on the first core)
        if len(CORES) < 2:
            print("--pin needs two cores: nothing pinned apart", file=sys.stderr)
    rows = FULL_ROWS if args.full else ROWS
    if args.rows:
        rows = parse_rows(parser, args.rows)
    results = run(rows, args.processes, args.seconds)
    print_table(results)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
