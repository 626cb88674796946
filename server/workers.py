"""`photofinish serve --workers N`: every core of one machine behind one port, with nothing to install.

N worker processes listen on the same port P (``SO_REUSEPORT``: the kernel spreads new connections among them)
and worker i on a port of its own too, P + 1 + i (fixed, so a firewall can open P..P+N). They are the nodes of
one cluster whose directory is a SQLite file in the data directory (``server/cluster/sqlite_presence.py``), so a table
lives on one worker, a new one opens on the least loaded, and a client that reaches another worker is sent to
the table's own with the cluster's ``redirect`` (which the client library and the browser follow). Worker 0
keeps its logs, tournaments and node id in ``DATA`` itself, where one process keeps them, so a data directory
moves between one process and several with its tables; worker i > 0 in ``DATA/worker-i/`` (its own data lock).
Each reopens its own tables after a restart; worker 0 alone keeps the demo tables.

The default (``default_workers``) is one worker a core, where the workers can share a port: not with
``--port 0`` (each process would pick another) nor with ``--cluster`` (one node a process).

This process starts the workers, says where the server listens once every one does, and on Ctrl-C or SIGTERM
asks each to shut down cleanly and waits for it. A worker that cannot start stops the others: the exit code
is 1 and its own error line says why. A worker that stops later (a ``kill -9``, the kernel's out-of-memory
killer) is started again and reopens its tables from their logs, as a restarted server does, so one lost
process does not stop an evening; one that stops ``RESTARTS`` times within ``RESTART_WINDOW`` stops the server.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import signal
import sys
from pathlib import Path

from .config import ServeConfig

CLUSTER_FILE = "cluster.sqlite"
START_TIMEOUT = 120.0  # seconds for every worker to listen (each reopens its own tables first)
RESTARTS = 5  # a worker that stops (killed, out of memory) is started again, at most this often ...
RESTART_WINDOW = 60.0  # ... within this many seconds; past that the server stops (exit code 1)


def default_workers(port: int, cluster_url: str | None) -> int:
    """`serve`'s default ``--workers``: the cores this process may run on, where workers can share the port."""
    import os

    if port == 0 or cluster_url:
        return 1
    return max(1, min(256, len(os.sched_getaffinity(0))))


def worker_data(data_dir: Path, index: int) -> Path:
    """Where worker ``index`` keeps its logs: worker 0 in the data directory itself (as one process does)."""
    return Path(data_dir) if index == 0 else Path(data_dir) / f"worker-{index}"


def worker_ports(config: ServeConfig) -> list[int]:
    """Each worker's own port: the shared one + 1 + its index."""
    return [config.port + 1 + index for index in range(config.workers)]


def worker_config(config: ServeConfig, index: int) -> ServeConfig:
    """Worker ``index``'s settings: the shared port, its own port and data folder, the machine's SQLite cluster."""
    return dataclasses.replace(
        config, workers=1, shared_port=True, own_port=worker_ports(config)[index], announce=False,
        demo=config.demo and index == 0, data_dir=worker_data(config.data_dir, index),
        cluster_url=f"sqlite:{Path(config.data_dir) / CLUSTER_FILE}")


def die_with_parent() -> None:
    """Ask the kernel to send this process SIGTERM when the process that started it dies (a ``kill -9`` of
    `serve` itself), so no worker is left holding the ports and its data lock; it then shuts down cleanly."""
    import ctypes
    import os

    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the worker outlives a killed parent, as any process would
        return
    if os.getppid() == 1:  # the parent died before the request: stop now
        os.kill(os.getpid(), signal.SIGTERM)


def _run_worker(config: ServeConfig, index: int, ready) -> None:
    """A worker process: serve until a signal, saying ``(index, its own URL, the URLs for a browser)`` on
    ``ready`` once it listens."""
    import trio

    from . import app, notices

    die_with_parent()
    notices.configure()
    trio.run(app.serve_until_signal, config, lambda running: ready.put((index, running.url, running.join_urls)))


def serve_workers(config: ServeConfig) -> int:
    """Run ``config.workers`` workers until Ctrl-C or SIGTERM; the exit code (1 if any failed)."""
    context = multiprocessing.get_context("spawn")  # a fresh interpreter each: no trio state is inherited
    ready = context.Queue()
    processes = [context.Process(target=_run_worker, args=(worker_config(config, i), i, ready),
                                 name=f"photofinish worker {i}", daemon=False) for i in range(config.workers)]
    stopping = []
    previous = {sig: signal.signal(sig, lambda signum, frame: stopping.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        for process in processes:
            process.start()
        urls = _wait_ready(processes, ready, stopping)
        if urls is None:
            _stop(processes)
            return 1
        print(f"photofinish listening on ws://{config.host}:{config.port} with {len(urls)} workers (data in "
              f"{config.data_dir}; each also at {', '.join(urls[i][0] for i in sorted(urls))})", flush=True)
        if config.web_root is not None:
            from .app import print_join
            from .lan import WILDCARDS

            print_join(urls[0][1], qr=config.host in WILDCARDS)
        if config.demo:
            from .app import demo_lines

            for line in demo_lines(f"ws://{config.host}:{config.port}"):
                print(line, flush=True)
        restarts: dict[int, list[float]] = {}
        while not stopping:
            _say_restarted(ready)
            for index, process in enumerate(processes):
                process.join(timeout=0.2)
                if process.exitcode is None or stopping:
                    continue
                if not _may_restart(restarts.setdefault(index, [])):
                    print(f"photofinish serve: worker {index} stopped {RESTARTS} times within {RESTART_WINDOW:g} s "
                          f"(exit code {process.exitcode}); stopping the server", file=sys.stderr, flush=True)
                    _stop(processes)
                    return 1
                print(f"photofinish serve: worker {index} stopped (exit code {process.exitcode}); starting it "
                      f"again: it reopens its tables from their logs", file=sys.stderr, flush=True)
                processes[index] = context.Process(target=_run_worker, args=(worker_config(config, index), index,
                                                                             ready),
                                                   name=f"photofinish worker {index}", daemon=False)
                processes[index].start()
        _stop(processes)
        return 1 if any(p.exitcode not in (0, -signal.SIGTERM) for p in processes) else 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _say_restarted(ready) -> None:
    """Say where each worker started again listens (its own port is a new one)."""
    import queue

    while True:
        try:
            index, url, _ = ready.get_nowait()
        except queue.Empty:
            return
        print(f"photofinish serve: worker {index} is back, also at {url}", file=sys.stderr, flush=True)


def _may_restart(times: list[float]) -> bool:
    """Whether a worker that stopped may be started again: fewer than ``RESTARTS`` restarts in the last
    ``RESTART_WINDOW`` seconds (``times``, its restarts so far, gets this one)."""
    import time

    now = time.monotonic()
    times[:] = [t for t in times if now - t < RESTART_WINDOW]
    if len(times) >= RESTARTS:
        return False
    times.append(now)
    return True


def _wait_ready(processes, ready, stopping) -> dict[int, tuple[str, tuple[str, ...]]] | None:
    """Each worker's own URL and its URLs for a browser, once all listen; None if one stopped first (it said
    why) or a signal came."""
    import queue
    import time

    urls: dict[int, str] = {}
    deadline = time.monotonic() + START_TIMEOUT
    while len(urls) < len(processes):
        if stopping or any(p.exitcode is not None for p in processes) or time.monotonic() > deadline:
            if time.monotonic() > deadline:
                print(f"photofinish serve: the workers did not all start within {START_TIMEOUT:g} s",
                      file=sys.stderr)
            return None
        try:
            index, url, join = ready.get(timeout=0.2)
        except queue.Empty:
            continue
        urls[index] = (url, join)
    return urls


def _stop(processes) -> None:
    """Ask every worker still running to shut down cleanly (SIGTERM), and wait for each."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=30)
        if process.is_alive():
            process.kill()
            process.join()
