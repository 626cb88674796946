"""The file-system seam: the few calls the stores make to put bytes on disk, behind one object a test swaps.

Every write path of the server (table logs, the journal and its checkpoints, seeds, ``.done`` markers, the
tournament's log) goes through ``current()``: ``write``/``pwrite`` (which may return a short count: callers
use ``write_all``/``pwrite_all``, which loop and raise), ``fsync``/``fdatasync``, ``ftruncate``, ``open`` and
``unlink``. ``using(disk)`` installs another object for a ``with`` block: ``FaultyDisk`` fails the Nth call
the way a real disk does (a short write, ENOSPC, EIO, EROFS), which is how the tests prove that whatever the
failure point nothing acknowledged is lost and no log breaks its chain (SQLite's I/O error testing).

It also owns the data directory's privacy: ``private_dir`` makes a folder 0700, and files are created 0600
(``FILE_MODE``): logs and the journal hold live deck orders.
"""

from __future__ import annotations

import errno
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

FILE_MODE = 0o600
DIR_MODE = 0o700


class Disk:
    """The real calls (``os``)."""

    def open(self, path: Path | str, flags: int, mode: int = FILE_MODE) -> int:
        return os.open(path, flags, mode)

    def write(self, fd: int, data: bytes | memoryview) -> int:
        return os.write(fd, data)

    def pwrite(self, fd: int, data: bytes | memoryview, offset: int) -> int:
        return os.pwrite(fd, data, offset)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def fdatasync(self, fd: int) -> None:
        (getattr(os, "fdatasync", None) or os.fsync)(fd)

    def ftruncate(self, fd: int, size: int) -> None:
        os.ftruncate(fd, size)

    def unlink(self, path: Path | str) -> None:
        os.unlink(path)


_REAL = Disk()
_current: Disk = _REAL


def current() -> Disk:
    return _current


@contextmanager
def using(disk: Disk) -> Iterator[Disk]:
    """Route every store's disk calls through ``disk`` inside the block (tests)."""
    global _current
    before, _current = _current, disk
    try:
        yield disk
    finally:
        _current = before


def write_all(fd: int, data: bytes) -> None:
    """Write every byte at the file's position; a short count is retried, a failure raises ``OSError``."""
    disk, view = current(), memoryview(data)
    while view:
        written = disk.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def pwrite_all(fd: int, data: bytes, offset: int) -> None:
    """Write every byte at ``offset``; a short count is retried, a failure raises ``OSError``."""
    disk, view = current(), memoryview(data)
    while view:
        written = disk.pwrite(fd, view, offset)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view, offset = view[written:], offset + written


def sync_path(path: Path | str) -> None:
    """fsync a file or a folder by its path (a folder's fsync makes its entries durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        current().fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes, sync: bool = True) -> None:
    """A small file written whole (0600), through a temporary file renamed into place, so a failure leaves
    the old file or none, never a part; with ``sync`` the file and its folder are made durable."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    disk = current()
    fd = disk.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, data)
        if sync:
            disk.fsync(fd)
    except OSError:
        os.close(fd)
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    os.close(fd)
    os.replace(temporary, path)
    if sync:
        sync_path(path.parent)


def private_dir(path: Path | str) -> Path:
    """Create ``path`` (and its parents) if needed, owner-only (0700): the data directory and its folders."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    try:
        if path.stat().st_mode & 0o777 != DIR_MODE:
            os.chmod(path, DIR_MODE)
    except OSError:
        pass  # not ours to change (a shared folder given as --data): the files in it are still 0600
    return path


def error_text(error: BaseException) -> str:
    """An ``OSError`` in a person's words: its strerror ("No space left on device"), else its text."""
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


class FaultyDisk(Disk):
    """A disk that fails like a real one, for tests: counts every call that changes a file (open for writing,
    write, pwrite, fsync, fdatasync, ftruncate, unlink) and from call ``at`` (1-based) on fails ``times`` of
    them (``times`` None: until ``heal()``) as ``kind`` says:

    - ``short``: the first failing write writes half its bytes and returns that count (a full disk's first
      answer); every failing call after it raises ENOSPC;
    - ``enospc`` / ``eio`` / ``erofs``: each failing call raises that error.
    ``calls`` counts the calls so far; ``failures`` the ones it failed."""

    KINDS = ("short", "enospc", "eio", "erofs")
    _ERRNO = {"short": errno.ENOSPC, "enospc": errno.ENOSPC, "eio": errno.EIO, "erofs": errno.EROFS}

    def __init__(self, at: int | None = None, kind: str = "enospc", times: int | None = None) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"kind is one of {self.KINDS}, not {kind!r}")
        self.at, self.kind, self.times = at, kind, times
        self.calls = 0
        self.failures = 0
        self._shorted = False
        self._healed = False
        self._lock = threading.Lock()  # calls come from worker threads too

    def heal(self) -> None:
        """The disk works again (space freed, remounted)."""
        self._healed = True

    def fail_now(self) -> None:
        """Fail from the next call on (until ``heal``)."""
        with self._lock:
            self.at, self.times, self._healed = self.calls + 1, None, False

    def _failing(self) -> bool:
        with self._lock:
            self.calls += 1
            if self._healed or self.at is None or self.calls < self.at:
                return False
            if self.times is not None and self.failures >= self.times:
                return False
            self.failures += 1
            return True

    def _raise(self) -> None:
        code = self._ERRNO[self.kind]
        raise OSError(code, os.strerror(code))

    def open(self, path, flags, mode=FILE_MODE):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and self._failing():
            self._raise()
        return super().open(path, flags, mode)

    def _short(self, data) -> int | None:
        if self.kind == "short" and not self._shorted and len(data) > 1:
            self._shorted = True
            return len(data) // 2
        return None

    def write(self, fd, data):
        if self._failing():
            half = self._short(data)
            if half is None:
                self._raise()
            return os.write(fd, data[:half])
        return super().write(fd, data)

    def pwrite(self, fd, data, offset):
        if self._failing():
            half = self._short(data)
            if half is None:
                self._raise()
            return os.pwrite(fd, data[:half], offset)
        return super().pwrite(fd, data, offset)

    def fsync(self, fd):
        if self._failing():
            self._raise()
        super().fsync(fd)

    def fdatasync(self, fd):
        if self._failing():
            self._raise()
        super().fdatasync(fd)

    def ftruncate(self, fd, size):
        if self._failing():
            self._raise()
        super().ftruncate(fd, size)

    def unlink(self, path):
        if self._failing():
            self._raise()
        super().unlink(path)
