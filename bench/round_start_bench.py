"""A tournament round's start at 300 players: from the organiser's `start` to each player seeing their table.

A server process (the default durability) holds a Swiss tournament of Flag Finish Challenge at 3-seat tables
with 300 registered players, each on their own connection watching the tournament with their token. The
organiser starts it; each player, on `your_table`, resumes their reserved seat and the time until their first
`snapshot` or `update` of that table is taken from the moment `start` was sent (the server seats 100 tables,
logs the round and opens every table meanwhile). Floor, in the same run: the same 300 connections each sending
one `list_games` at once, from the first send to each answer (what 300 answers at once cost at least).
"""

from __future__ import annotations

import statistics
import sys
import tempfile

import trio

from clients.client import open_client
from server.protocol import Snapshot, Update, YourTable

from .server_bench import NO_ADDRESS_LIMITS, free_port, start_process

PLAYERS = 300
EXTRA: list[str] = []


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def _run(players: int) -> dict:
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        server = await start_process([sys.executable, "-m", "clients.cli", "serve", "--workers", "1", "--port", str(port),
                                      "--data", data, "--rate", "100000", *NO_ADDRESS_LIMITS, *EXTRA])
        try:
            return await _measure(url, players)
        finally:
            server.terminate()
            await server.wait()


async def _measure(url: str, players: int) -> dict:
    seen: list[float] = []
    floor: list[float] = []
    start_at = [0.0]
    ready = trio.Semaphore(0)
    go_floor, go_start, done = trio.Event(), trio.Event(), trio.Event()
    async with open_client(url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3, rounds=1,
                                                    no_show_ms=3_600_000)
        tid = created.tournament.tournament
        tokens = [(await organiser.register(tid, f"p{i}")).token for i in range(players)]

        async def player(token: str) -> None:
            async with open_client(url) as client:
                await client.watch_tournament(tid, token=token)
                ready.release()
                await go_floor.wait()
                sent = trio.current_time()
                await client.list_games()
                floor.append(trio.current_time() - sent)
                await go_start.wait()
                async for message in client.messages:
                    if type(message) is YourTable:
                        await client.resume(message.table, token)
                    elif type(message) in (Snapshot, Update):
                        seen.append(trio.current_time() - start_at[0])
                        if len(seen) == players:
                            done.set()
                        break
                await done.wait()

        with trio.fail_after(300):
            async with trio.open_nursery() as nursery:
                for token in tokens:
                    nursery.start_soon(player, token)
                for _ in tokens:
                    await ready.acquire()
                go_floor.set()
                while len(floor) < players:
                    await trio.sleep(0.01)
                go_start.set()
                start_at[0] = trio.current_time()
                await organiser.start_tournament(tid, created.secret)
    ms = [s * 1000 for s in seen]
    floor_ms = [s * 1000 for s in floor]
    return {"players": players, "tables": players // 3,
            "start_p50_ms": statistics.median(ms), "start_p99_ms": _pct(ms, 99), "start_max_ms": max(ms),
            "floor_p50_ms": statistics.median(floor_ms), "floor_p99_ms": _pct(floor_ms, 99)}


def run(players: int = PLAYERS) -> dict:
    return trio.run(_run, players)


def print_table(figures: dict) -> None:
    print(f"Tournament round start: {figures['players']} players, {figures['tables']} tables of 3, "
          "from `start` to each player's first update of their table")
    header = f"{'what':<44}{'p50 ms':>10}{'p99 ms':>10}"
    print(header)
    print("-" * len(header))
    print(f"{'round start (seat, log, open tables, resume)':<44}{figures['start_p50_ms']:>10.1f}"
          f"{figures['start_p99_ms']:>10.1f}")
    print(f"{'floor: 300 list_games at once':<44}{figures['floor_p50_ms']:>10.1f}{figures['floor_p99_ms']:>10.1f}")


if __name__ == "__main__":
    print_table(run())
