"""`serve` uses every core by default (`--workers` = one a core), so what that changes must hold for a person
who never typed `--workers`: the data directory moves between one process and several with its tables, the
ports are fixed (P, then P+1.. for each worker's own, which a firewall can open), a busy one is refused before
anything starts, and a `kill -9` of `serve` itself leaves no worker behind holding the ports and the data."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import trio

from bench.server_bench import free_port
from clients.client import open_client
from server.commands.serve import workers_left
from server.workers import default_workers

from ..test_cli_errors import run
from .test_cluster_crash import stop


def free_ports(count: int = 3) -> int:
    """A port P with P..P+count-1 all free now (`serve --workers 2` listens on P and on P+1, P+2)."""
    while True:
        port = free_port()
        probes = []
        try:
            for extra in range(1, count):
                probe = socket.socket()
                probes.append(probe)
                probe.bind(("127.0.0.1", port + extra))
            return port
        except OSError:
            continue
        finally:
            for probe in probes:
                probe.close()


def test_the_default_is_a_worker_a_core_where_workers_can_share_the_port():
    cores = len(os.sched_getaffinity(0))
    assert default_workers(8765, None) == cores
    assert default_workers(0, None) == 1, "--port 0: each process would pick a port of its own"
    assert default_workers(8765, "redis://127.0.0.1:6379") == 1, "--cluster: one node a process"


def test_a_busy_own_port_is_refused_before_any_worker_starts(tmp_path):
    port = free_ports()
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port + 2))  # worker 1's own port
        squatter.listen()
        code, out, err = run(["serve", "--workers", "2", "--port", str(port), "--data", str(tmp_path / "d")])
    assert code != 0
    assert f"127.0.0.1:{port + 2}" in err and "worker 1's own port" in err, err
    assert "Traceback" not in out + err
    assert not (tmp_path / "d" / "tables").exists(), "nothing started"


def test_one_process_names_the_tables_it_leaves_to_a_worker(tmp_path):
    (tmp_path / "worker-1" / "tables").mkdir(parents=True)
    (tmp_path / "worker-1" / "tables" / "t4.log").write_text("")
    assert workers_left(tmp_path) == [
        f"{tmp_path / 'worker-1'} holds 1 table log(s) of worker 1 of `serve --workers`; this one process does "
        "not open them: start with --workers 2 or more to open them"]
    assert workers_left(tmp_path / "worker-1") == []


async def serve_lines(args: list[str]):
    """A real `serve` and a channel of the lines it says (stdout and stderr)."""
    process = await trio.lowlevel.open_process([sys.executable, "-m", "clients.cli", "serve", *args],
                                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    send, lines = trio.open_memory_channel(1000)

    async def read() -> None:
        buffer = b""
        while chunk := await process.stdout.receive_some():
            buffer += chunk
            *whole, buffer = buffer.split(b"\n")
            for line in whole:
                print(f"[serve] {line.decode(errors='replace')}")
                await send.send(line.decode(errors="replace"))
        send.close()

    return process, lines, read


async def line_with(lines, text: str) -> str:
    async for line in lines:
        if text in line:
            return line
    raise AssertionError(f"serve ended before saying {text!r}")


async def test_a_table_of_one_process_is_reopened_by_worker_0_and_kill_9_of_serve_leaves_no_worker(tmp_path):
    """One process opens a table and stops; `serve --workers 2` on the same data reopens it on worker 0 (the
    data directory itself). Then `serve` itself is killed with -9: its workers stop with it (they would hold
    the ports and the data lock), so the same command starts again at once and the table is there again."""
    port = free_ports()
    data = ["--port", str(port), "--data", str(tmp_path), "--no-web", "--heartbeat", "0.1"]
    async with trio.open_nursery() as nursery:
        process, lines, read = await serve_lines(["--workers", "1", *data])
        nursery.start_soon(read)
        try:
            with trio.fail_after(60):
                await line_with(lines, "listening on")
                async with open_client(f"ws://127.0.0.1:{port}", reconnect=False) as client:
                    table = (await client.create_table(game="flag_finish", mode="challenge", seats=2,
                                                       options={"races": 1})).table
                    await client.take_seat(table, seat=0)  # somebody sat at it (reopened after a restart); it
                    # waits for its second player, so it is still there however long the restarts take
        finally:
            await stop(process)
        for attempt in range(2):
            process, lines, read = await serve_lines(["--workers", "2", *data])
            nursery.start_soon(read)
            try:
                with trio.fail_after(90):
                    said = await line_with(lines, "listening on")
                    assert re.search(rf"also at ws://127.0.0.1:{port + 1}, ws://127.0.0.1:{port + 2}\)", said), said
                    async with open_client(f"ws://127.0.0.1:{port + 1}", reconnect=False) as client:  # worker 0
                        watching = await client.watch(table)
                        assert watching.table == table, "the one process's table, reopened by worker 0"
                    if attempt == 0:
                        pids = [int(lock.read_text().split()[0])
                                for lock in (tmp_path / "server.lock", tmp_path / "worker-1" / "server.lock")]
                        pidfds = [os.pidfd_open(pid) for pid in pids]
                        process.kill()  # kill -9 of serve itself
                        await process.wait()
                        for pidfd in pidfds:  # readable once that worker has exited
                            await trio.lowlevel.wait_readable(pidfd)
                            os.close(pidfd)
            finally:
                await stop(process)
        assert process.returncode == 0 or process.returncode == -signal.SIGTERM
        nursery.cancel_scope.cancel()


def test_a_redirect_names_the_address_the_client_reached_when_the_workers_listen_on_every_address():
    """`make run ARGS="--host 0.0.0.0"` on a LAN: a worker registers ws://0.0.0.0:8766, which no phone can
    reach; the redirect names the address the phone reached this server at instead."""
    from server.gateway.requests import reachable

    assert reachable("ws://0.0.0.0:8766", "192.168.1.20") == "ws://192.168.1.20:8766"
    assert reachable("ws://[::]:8766", "fe80::1") == "ws://[fe80::1]:8766"
    assert reachable("ws://10.0.0.5:8766", "192.168.1.20") == "ws://10.0.0.5:8766", "a named node is kept"
    assert reachable("ws://0.0.0.0:8766", "") == "ws://0.0.0.0:8766"
