"""`photofinish serve --workers 2`: two processes behind one port, one lobby between them with nothing to
install (their directory is a SQLite file in the data directory). A real `serve` process, clients on the one
port: the tables spread over both workers, every client sees every table wherever its connection landed, a
seat or a watch on the other worker's table is sent there and plays, the demo is found from either, and a
SIGTERM stops everything cleanly."""

from __future__ import annotations

import signal
import sys

import trio

from bench.server_bench import start_process
from clients.client import ServerError, open_client
from server.protocol import BotSeat

from .test_cluster_crash import echo, stop
from .test_workers_default import free_ports, line_with, serve_lines


async def test_two_workers_share_one_port_one_lobby_and_send_each_client_to_its_table(tmp_path):
    port = free_ports()
    url = f"ws://127.0.0.1:{port}"
    process = await start_process([sys.executable, "-m", "clients.cli", "serve", "--workers", "2", "--port",
                                   str(port), "--data", str(tmp_path), "--no-web", "--demo", "--heartbeat", "0.1"])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(echo, process, port)
        try:
            with trio.fail_after(90):
                created = []
                for n in range(8):  # each on a connection of its own: the kernel spreads them over the workers
                    async with open_client(url, reconnect=False) as client:
                        info = await client.create_table(game="flag_finish", mode="challenge", seats=2,
                                                         options={"races": 1}, bots=[BotSeat(1)], name=f"w{n}")
                        created.append(info.table)
                kept = {worker: {p.stem for p in (folder / "tables").glob("*.log")}  # worker 0: DATA itself
                        for worker, folder in (("worker-0", tmp_path), ("worker-1", tmp_path / "worker-1"))}
                assert not (tmp_path / "worker-0").exists()
                assert all(kept[worker] & set(created) for worker in kept), f"one worker took every table: {kept}"
                for _ in range(4):  # wherever a connection lands, it lists every table (a heartbeat later)
                    async with open_client(url, reconnect=False) as client:
                        while not set(created) <= {t.table for t in await client.list_tables()}:
                            await trio.sleep(0.1)
                for table in created[:4]:  # a seat at a table of either worker: sent there, and it plays
                    async with open_client(url, reconnect=False) as client:
                        seated = await client.take_seat(table)
                        assert seated.seat == 0
                for _ in range(4):
                    async with open_client(url, reconnect=False) as client:
                        while True:  # the demo is claimed a heartbeat after it opens
                            try:
                                watching = await client.watch("demo")
                                break
                            except ServerError as error:
                                assert error.code == "no_table"  # not yet known on this worker
                                await trio.sleep(0.1)
                        assert watching.game == "flag_finish"
            await stops_cleanly(process)
        finally:
            await stop(process)
            nursery.cancel_scope.cancel()


async def test_a_worker_killed_mid_evening_is_started_again_with_its_tables(tmp_path):
    """kill -9 of one worker (the kernel's out-of-memory killer does the same): the server goes on, starts
    that worker again, says where it is back, and the tables it held are there again from their logs."""
    import os
    import re

    port = free_ports()
    url = f"ws://127.0.0.1:{port}"
    process, lines, read = await serve_lines(  # its errors too: the restart is said there
        ["--workers", "2", "--port", str(port), "--data", str(tmp_path), "--no-web", "--heartbeat", "0.1"])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        try:
            with trio.fail_after(90):
                await line_with(lines, "listening on")
                created = []
                for _ in range(40):  # the least loaded worker takes each new table: soon one is worker 1's
                    async with open_client(url, reconnect=False) as client:
                        info = await client.create_table(game="flag_finish", mode="challenge", seats=2,
                                                         options={"races": 1}, bots=[BotSeat(1)])
                        created.append(info.table)
                    held = {p.stem for p in (tmp_path / "worker-1" / "tables").glob("*.log")} & set(created)
                    if held:
                        break
                table = sorted(held)[0]
                async with open_client(url, reconnect=False) as player:  # a game under way (sent to worker 1)
                    await player.take_seat(table)
                pid = int((tmp_path / "worker-1" / "server.lock").read_text().split()[0])
                os.kill(pid, signal.SIGKILL)
                back = await line_with(lines, "worker 1 is back")
                again = re.search(r"also at (ws://\S+)", back).group(1)
                assert again == f"ws://127.0.0.1:{port + 2}", "back on its own port, the one a firewall opened"
                async with open_client(again, reconnect=False) as client:
                    watching = await client.watch(table)
                    assert watching.table == table and watching.seq > 0, "its game reopened from its log"
                assert process.returncode is None, "the server went on"
            await stops_cleanly(process)
        finally:
            await stop(process)
            nursery.cancel_scope.cancel()


async def stops_cleanly(process) -> None:
    """SIGTERM stops every worker and the server with exit code 0."""
    process.send_signal(signal.SIGTERM)
    with trio.fail_after(60):
        await process.wait()
    assert process.returncode == 0
