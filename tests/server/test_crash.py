"""A LAN tournament must not lose a game to a dead server: SIGKILL it mid-match, start it again, and the
bots reconnect with their tokens and finish; every action acknowledged before the kill is in the log."""

from __future__ import annotations

import signal
import sys

import trio

from bench.server_bench import free_port, start_process
from clients.client import open_client
from server.logs.replay import check_log, verify_seed
from tests.server.bot_watch import BotWatch


async def start_server(port: int, data) -> trio.Process:
    return await start_process([sys.executable, "-m", "clients.cli", "serve", "--workers", "1", "--port", str(port), "--data", str(data)])


async def stop_server(server: trio.Process) -> None:
    """Stop it as Ctrl-C does (SIGTERM), killed if it has not stopped within 10 s."""
    server.send_signal(signal.SIGTERM)
    with trio.move_on_after(10):
        await server.wait()
    if server.returncode is None:
        server.kill()


async def test_sigkill_mid_match_then_restart_and_the_bots_finish(tmp_path):
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    server = await start_server(port, tmp_path)
    async with open_client(url) as admin:
        info = await admin.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 2})
    watch = BotWatch()
    try:
        with trio.fail_after(120):
            async with trio.open_nursery() as bots:
                watch.start(bots, url, info.table)
                await watch.enough.wait()
                server.send_signal(signal.SIGKILL)
                await server.wait()
                before_restart = set(watch.acknowledged)
                server = await start_server(port, tmp_path)
    finally:
        await stop_server(server)
    log = tmp_path / "tables" / f"{info.table}.log"
    report = check_log(log)
    assert report.ok and report.ended, report.summary()
    assert report.result is not None and len(report.result.scores) == 3
    assert verify_seed(report) is None
    logged = {entry.seq for entry in report.read.entries() if entry.accepted}
    assert before_restart and before_restart <= logged
    assert any(type(r).__name__ == "Reopened" for r in report.read.records)
