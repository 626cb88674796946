"""A cluster node killed mid-game loses nothing: two `photofinish serve --cluster` processes and a real Redis on
loopback; bots seated through the other node play on the killed node's table. After SIGKILL its table shows
``unavailable`` in the survivor's lobby within the heartbeat's expiry; restarted on the same data directory
it reopens and reclaims the table, the bots resume their seats and finish, and every acknowledged action is
in the log."""

from __future__ import annotations

import math
import signal
import sys

import trio

from bench.server_bench import free_port, start_process
from clients.client import open_client
from server.logs.replay import check_log, verify_seed
from tests.server.bot_watch import BotWatch
from tests.server.redis_server import redis_server

HEARTBEAT = 0.1  # expiry: 5 heartbeats


async def start_node(port: int, data, redis_url: str, nursery, lines=None) -> trio.Process:
    """A `serve --cluster` node, once it listens; ``lines``: a channel that gets every line it says after."""
    process = await start_process([sys.executable, "-m", "clients.cli", "serve", "--port", str(port), "--data",
                                   str(data), "--no-web", "--cluster", redis_url, "--heartbeat", str(HEARTBEAT)])
    nursery.start_soon(echo, process, port, lines)  # what it prints, read on so that a full pipe never stops it
    return process


async def echo(process: trio.Process, port: int, lines=None) -> None:
    buffer = b""
    while chunk := await process.stdout.receive_some():
        buffer += chunk
        *whole, buffer = buffer.split(b"\n")
        for line in whole:
            print(f"[node {port}] {line.decode(errors='replace')}")
            if lines is not None:
                lines.send_nowait(line.decode(errors="replace"))


async def said(lines, text: str) -> None:
    """Until a node says a line with ``text`` in it."""
    async for line in lines:
        if text in line:
            return


async def stop(process: trio.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()


async def status_at(url: str, table: str) -> str | None:
    async with open_client(url, reconnect=False) as client:
        return {info.table: info.status for info in await client.list_tables()}.get(table)


async def test_kill_9_a_node_mid_game_its_table_goes_unavailable_comes_back_and_finishes(tmp_path):
    async with redis_server(tmp_path) as redis, trio.open_nursery() as output:
        ports = free_port(), free_port()
        owner_url, other_url = (f"ws://127.0.0.1:{port}" for port in ports)
        to_other, other_said = trio.open_memory_channel(math.inf)
        owner = await start_node(ports[0], tmp_path / "a", redis.url, output)
        other = await start_node(ports[1], tmp_path / "b", redis.url, output, to_other)
        owner_node = (tmp_path / "a" / "node.id").read_text().split()[0]
        try:
            async with open_client(owner_url) as admin:
                info = await admin.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 2},
                                                placed=True)
            assert await status_at(other_url, info.table) == "waiting"  # in the directory once answered
            watch = BotWatch()
            with trio.fail_after(120):
                async with trio.open_nursery() as bots:
                    watch.start(bots, other_url, info.table)  # seated through the other node: redirected
                    await watch.enough.wait()
                    owner.send_signal(signal.SIGKILL)
                    await owner.wait()
                    before_restart = set(watch.acknowledged)
                    with trio.fail_after(5 * HEARTBEAT + 3):  # the expiry, and some slack
                        await said(other_said, f"node {owner_node} is down")  # the other node noticed
                    assert await status_at(other_url, info.table) == "unavailable"
                    owner = await start_node(ports[0], tmp_path / "a", redis.url, output)
                    await said(other_said, f"node {owner_node} is up")
        finally:
            await stop(owner)
            await stop(other)
            output.cancel_scope.cancel()
    report = check_log(tmp_path / "a" / "tables" / f"{info.table}.log")
    assert report.ok and report.ended, report.summary()
    assert report.result is not None and len(report.result.scores) == 3
    assert verify_seed(report) is None
    logged = {entry.seq for entry in report.read.entries() if entry.accepted}
    assert before_restart and before_restart <= logged
    assert any(type(r).__name__ == "Reopened" for r in report.read.records)
