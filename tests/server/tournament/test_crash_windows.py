"""kill -9 at every kind of tournament record, between its log line and everything after it (the store, the
ratings, the answer): a real server process kills itself there (``server/logs/crashpoint.py``), is started again on
the same data directory, and the event goes on to its end and verifies. No window can make the log and the
store disagree or stop ``serve`` (the store is rebuilt from the log at every start).

The organiser's script is re-entrant: after a crash it asks the server where the event stands (a request that
died was never acknowledged: a registration whose answer was lost is there with nobody holding its token, as
after any lost answer) and goes on. The seats are never taken: stand-ins play every table (``no_show_ms``)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from bench.server_bench import free_port
from clients.client import open_client
from server.protocol import TournamentState
from server.tournament.state import fold
from server.datadir import DataDir
from server.tournament.store import Store
from server.tournament.tlog import read_tournament_log
from server.tournament.verify import verify_tournament

POINTS = ["tournament:created", "tournament:registered@3", "tournament:dropped", "tournament:round_seated",
          "tournament:round_seated@2", "tournament:table_result", "tournament:ended"]


async def race_to_the_crash(server, organise, *args) -> None:
    """Run ``organise(*args)`` until the server kills itself under it (at its crash point)."""
    async with trio.open_nursery() as racing:
        async def until_done() -> None:
            try:
                await organise(*args)
            except Exception:  # noqa: BLE001 - the server died under a request
                pass
            racing.cancel_scope.cancel()
        racing.start_soon(until_done)
        await server.wait()
        racing.cancel_scope.cancel()


async def crash_then_finish(data, crash_at: str, organise) -> Path:
    """The end every kill -9 test shares: a server that kills itself at ``crash_at`` under ``organise(url,
    script)``, started again on ``data`` (a tournament created before the kill still listed), and the event
    organised to its end with no traceback; then a start and a clean stop, the log verified (two rounds) and the
    store compared with it. Returns the tournament's log."""
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    script = Script()
    server = await start(port, data, crash_at)
    try:
        with trio.fail_after(120):
            await race_to_the_crash(server, organise, url, script)
            assert server.returncode == -9, f"the server did not reach {crash_at} (exit {server.returncode})"
            server = await start(port, data)
            if script.tid is None:
                async with open_client(url) as look:
                    listed = await look.list_tournaments()
                assert [t.status for t in listed] == ["registration"], "the created tournament was lost"
            await organise(url, script)
        output = server.said
    finally:
        server.kill()
        await server.wait()
    assert b"Traceback" not in output
    # the store is derived: it may lag the log at a kill (its writes go through a thread), and every start makes
    # it say what the logs say; a start and a clean stop, then the store is compared with the log
    server = await start(port, data)
    server.terminate()
    with trio.fail_after(60):
        await server.wait()
    path = data / "tournaments" / f"{script.tid}.log"
    report = verify_tournament(path, data / "tables")
    assert report.ok, report.problem
    assert report.rounds == 2
    assert_store_says_what_the_log_says(data, path, script.tid)
    return path


async def start(port: int, data, crash_at: str | None = None) -> trio.Process:
    env = {**os.environ, "PHOTOFINISH_CRASH_AT": crash_at or ""}
    process = await trio.lowlevel.open_process([sys.executable, "-m", "clients.cli", "serve", "--workers", "1", "--port", str(port),
                                                "--data", str(data)], stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, env=env)
    seen = b""
    with trio.fail_after(30):
        while b"listening on" not in seen:
            chunk = await process.stdout.receive_some()
            assert chunk, f"serve did not start: {seen.decode(errors='replace')}"
            seen += chunk
    process.said = seen
    return process


@dataclass
class Script:
    tid: str | None = None
    secret: str = ""
    names: int = 0


async def organise(url: str, script: Script) -> None:
    """Create, register four, drop one, start, and follow the event to its end; from wherever it stands."""
    async with open_client(url) as organiser:
        if script.tid is None:
            created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=2,
                                                        options={"races": 1}, no_show_ms=100, bot_delay_ms=0)
            script.tid, script.secret = created.tournament.tournament, created.secret
        state = await organiser.watch_tournament(script.tid)
        while len(state.players) < 4:
            script.names += 1
            await organiser.register(script.tid, f"player {script.names}")
            state = await organiser.watch_tournament(script.tid)
        if state.tournament.status == "registration":
            if not any(p.dropped for p in state.players):
                await organiser.drop(script.tid, secret=script.secret, player=state.players[-1].player)
            await organiser.start_tournament(script.tid, script.secret)
        while state.tournament.status != "over":
            message = await organiser.messages.receive()
            if type(message) is TournamentState:
                state = message


@pytest.mark.parametrize("crash_at", POINTS)
async def test_kill_9_at_each_kind_of_record_then_the_event_resumes_and_verifies(tmp_path, crash_at):
    await crash_then_finish(tmp_path, crash_at, organise)


def assert_store_says_what_the_log_says(data, path, tid: str) -> None:
    """The store, read after the event: the same entries, rounds, results and ratings as the log."""
    read = read_tournament_log(path)
    state = fold(read.created, read.ended.seed, read.records)
    store = Store(DataDir(data).store)
    try:
        assert store.entries(tid) == [(p, p in state.checked_in, p in state.dropped) for p in state.players]
        assert [s.tables for s in store.seatings(tid)] == [s.tables for s in state.seatings]
        assert {r.table: r.places for r, _, _ in store.results(tid)} == {t: r.places for t, r in state.results.items()}
        assert store.rated(tid) == set(state.results), "every result rated, once"
        assert store.tournament(tid)["state"] == "ended"
    finally:
        store.close()
