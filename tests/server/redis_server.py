"""A real ``redis-server`` for tests: on a free loopback port, in a temporary directory, nothing saved, stopped
after. Where Debian's ``redis-server`` is not installed the tests that need it skip and say how to install it;
under CI=true they fail instead (``.ci/run`` installs it)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from bench.server_bench import free_port

REDIS = shutil.which("redis-server")
INSTALL = "redis-server is not installed: apt-get install -y redis-server"


def need_redis() -> str:
    if REDIS is None:
        if os.environ.get("CI") == "true":
            pytest.fail(INSTALL + " (.ci/run installs it)")
        pytest.skip(INSTALL)
    return REDIS


class RedisServer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: trio.Process | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Start it and return once it says it accepts connections (at most 10 s)."""
        self.process = await trio.lowlevel.open_process(
            [need_redis(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--loglevel", "notice"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        seen = b""
        with trio.fail_after(10):
            while b"Ready to accept connections" not in seen:
                chunk = await self.process.stdout.receive_some()
                if not chunk:
                    raise RuntimeError(f"redis-server exited: {seen.decode(errors='replace')[-400:]}")
                seen += chunk

    async def stop(self, how: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(how)
            with trio.move_on_after(10):
                await self.process.wait()
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()


@asynccontextmanager
async def redis_server(folder: Path):
    server = RedisServer(folder)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
