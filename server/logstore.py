"""Writing a table's log file, with a durability policy, and the table directory of the data folder.

Policies (`photofinish serve --durability`):
- ``always``: every line is fsynced before anything that depends on it is sent (no waiting to group);
- ``batch`` (default): group commit: the flusher waits ``batch_ms`` for more lines, then one fsync covers
  them all; acknowledgements wait for it;
- ``never``: lines reach the OS at once (they survive a killed process, not a power cut), no fsync.

Under ``always`` and ``batch`` an action a seat saw acknowledged is on disk: the table holds every outgoing
message until the line it depends on is durable (see ``Table._deliver``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import trio

from .logfile import GENESIS, Reopened, encode_line

POLICIES = ("always", "batch", "never")


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class FileLog:
    """Appends records to one log file; ``written`` lines so far, ``durable`` of them known to be on disk."""

    def __init__(self, path: Path, policy: str = "batch", batch_ms: float = 2.0, head: str = GENESIS) -> None:
        if policy not in POLICIES:
            raise ValueError(f"durability is one of {', '.join(POLICIES)}, not {policy!r}")
        self.path = path
        self.policy = policy
        self.batch_ms = batch_ms
        self.head = head
        self.file = open(path, "ab", buffering=0)
        self.written = 0
        self.durable = 0
        self.fsyncs = 0
        self._dirty = trio.Event()
        self._progress = trio.Event()

    def append(self, record: Any) -> int:
        """Write one record (straight to the OS); returns its line number in this session."""
        line, self.head = encode_line(self.head, record)
        self.file.write(line)
        self.written += 1
        if self.policy == "never":
            self.durable = self.written
        else:
            self._dirty.set()
        return self.written

    async def wait_durable(self, count: int) -> None:
        while self.durable < count:
            progress = self._progress
            await progress.wait()

    async def run_flusher(self) -> None:
        """The group-commit loop (not needed under ``never``)."""
        if self.policy == "never":
            return
        while True:
            await self._dirty.wait()
            self._dirty = trio.Event()
            if self.policy == "batch" and self.batch_ms:
                await trio.sleep(self.batch_ms / 1000)
            count = self.written
            await trio.to_thread.run_sync(os.fsync, self.file.fileno())
            self.fsyncs += 1
            self.durable = count
            self._progress.set()
            self._progress = trio.Event()

    def sync_now(self) -> None:
        """A last fsync (at shutdown): everything written is durable."""
        os.fsync(self.file.fileno())
        self.durable = self.written

    def close(self) -> None:
        if not self.file.closed:
            try:
                self.sync_now()
            finally:
                self.file.close()


def reopen(path: Path, read, policy: str, batch_ms: float) -> FileLog:
    """Reopen an unfinished log to go on appending: cut a torn last line, mark the reopening."""
    with open(path, "r+b") as handle:
        handle.truncate(read.good_bytes)
    log = FileLog(path, policy, batch_ms, head=read.head)
    entries = read.entries()
    log.append(Reopened(seq=entries[-1].seq if entries else 0, started=utc_now()))
    return log


def table_dir(data_dir: Path) -> Path:
    path = Path(data_dir) / "tables"
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_secret_seed(path: Path, seed: int) -> None:
    """The seed, kept apart from the log until the table ends (a restarted server needs it to go on)."""
    with open(path, "w") as handle:
        handle.write(f"{seed}\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(path, 0o600)
