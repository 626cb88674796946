"""Soak: many small bot games in one lobby, and what the process holds as they go (issue 29).

A lobby with a data directory (``batch`` durability: the server's journal) plays ``games`` games of two server
bots (Race to the Finish, lockstep, no pauses), one after another, each to its end. Every ``every`` games it
notes the games played, the resident memory (RSS, MB) and the open file descriptors of the process, and the
tables the lobby still holds. The floor is the first row, taken after one game (the journal is open by then):
a server whose resources follow live tables, not history, stays near it; one that keeps every finished
table's log open grows a descriptor a game (and stops at the 1,024 limit)."""

from __future__ import annotations

import os
import resource
import tempfile
import time
from pathlib import Path

import trio

from server.lobby import Lobby
from server.protocol import BotSeat, CreateTable
from server.quotas import Quotas

GAME = CreateTable(game="race_to_the_finish", mode="lockstep", seats=2, bots=[BotSeat(0), BotSeat(1)])


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() / 2**20


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def _soak(folder: Path, games: int, every: int, quotas: Quotas) -> list[dict]:
    rows: list[dict] = []
    started = time.perf_counter()

    def note(played: int, lobby: Lobby) -> None:
        rows.append({"games": played, "rss_mb": round(rss_mb(), 1), "fds": open_fds(), "held": len(lobby.tables),
                     "seconds": round(time.perf_counter() - started, 1)})

    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, folder, "batch", quotas)
        for played in range(1, games + 1):
            table = await lobby.create(GAME)
            await table.over.wait()
            await table.marked.wait()
            if played == 1 or played % every == 0:
                note(played, lobby)
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    return rows


def run(games: int = 2000, every: int = 250, quotas: Quotas = Quotas()) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        rows = trio.run(_soak, Path(folder), games, every, quotas)
    return {"games": games, "finished_most": quotas.finished_most, "keep_finished_s": quotas.keep_finished,
            "rows": rows}


def print_table(figures: dict) -> None:
    rows = figures["rows"]
    floor = rows[0]
    print(f"soak: {figures['games']} bot games (race_to_the_finish, 2 bots, batch durability) in one lobby; "
          f"finished tables held at most {figures['finished_most']}, {figures['keep_finished_s']:g} s")
    print(f"{'games':>7}  {'RSS MB':>7}  {'vs floor':>8}  {'open fds':>8}  {'vs floor':>8}  {'held':>5}  {'s':>6}")
    for row in rows:
        print(f"{row['games']:>7}  {row['rss_mb']:>7.1f}  {row['rss_mb'] - floor['rss_mb']:>+8.1f}  "
              f"{row['fds']:>8}  {row['fds'] - floor['fds']:>+8}  {row['held']:>5}  {row['seconds']:>6.1f}")


if __name__ == "__main__":
    print_table(run())
