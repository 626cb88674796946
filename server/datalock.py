"""One server per data directory: an exclusive lock on ``DATA/server.lock`` (``DataDir.lock``) while a server runs.

Two servers on one data directory would both reopen the same unfinished tables and append to the same log
files (two hash chains interleaved in one file), replay one journal twice and share one tournament store. The
lock is ``flock`` on that file: the kernel drops it when the process ends, however it ends (``kill -9``
included), so a crashed server never leaves a stale lock behind. The file holds the holder's process id, to
name it in the refusal.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .datadir import DataDir


class DataDirInUse(Exception):
    """Another server holds the data directory (``message`` says which and what to do)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@contextmanager
def data_dir_lock(data_dir: Path) -> Iterator[None]:
    """Hold the data directory for this server, or raise ``DataDirInUse`` (nothing in it touched)."""
    path = DataDir(data_dir).lock
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            raise DataDirInUse(f"the data directory {data_dir} is in use by another photofinish server"
                               + (f" (process {holder})" if holder.isdigit() else "")
                               + ": stop it, or give this one a --data of its own") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
