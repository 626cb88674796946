"""Writing a table's log file, with a durability policy; the group commit of ``always``; the table directory
of the data folder.

Policies (`photofinish serve --durability`):
- ``batch`` (default): group commit across the server through one write-ahead journal (``server/logs/journal.py``):
  each line goes to its log file at once (no fsync) and to the journal, which a round writes and fdatasyncs
  once for every line of every log handed over since the last round. The first line starts a round at once;
  lines appended while a round runs are covered by the next, which starts as soon as that one ends. Log
  files are fsynced at the journal's checkpoints; at start the journal writes back any line a log file lacks.
- ``always``: each table's log has a ``Syncer`` of its own: rounds of one fdatasync of the log file itself
  (its syncs never wait for another table's).
- ``never``: lines reach the OS at once (they survive a killed process, not a power cut), no fsync.

Under ``always`` and ``batch`` an action a seat saw acknowledged is on disk: the table holds every outgoing
message until the line it depends on is durable (it reads ``FileLog.durable``, or awaits ``wait_durable``: see
``server/table/durable.py``). Either group commit is a ``GroupCommit``; it reports each round to the log
(``FileLog.synced``), and the log never calls anyone back. A failed
fsync is final for its log: nothing after it counts as durable again (an fsync that follows a failed one may
succeed without the lost pages having reached the disk).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Protocol

import trio

from . import disk
from ..datadir import DataDir
from .logfile import GENESIS, Reopened, encode_line

POLICIES = ("always", "batch", "never")
MAX_THREADS = 8  # worker threads syncing one round's files at once


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def sync_file(fd: int) -> None:
    """Make a file's written bytes durable: fdatasync (enough for appends: it also flushes the new size)."""
    disk.current().fdatasync(fd)


class GroupCommit(Protocol):
    """What a log needs from the group commit it hands its lines to: the journal of ``batch``
    (``server/logs/journal.py``) or a ``Syncer`` (``always``). Each round ends with ``FileLog.synced`` on every log it
    covered."""

    def mark(self, log: "FileLog", offset: int, line: bytes) -> None:
        """``log`` wrote ``line`` at byte ``offset`` of its file: a round makes it durable."""

    def begin_group(self) -> None:
        """Lines marked from now until ``end_group`` go to a round together (a table's arbiter batch)."""

    def end_group(self) -> None:
        """The group is complete: a round may cover it (the journal may run it here and now)."""

    def flush(self, log: "FileLog") -> None:
        """Make everything ``log`` wrote durable now, on this thread (the log is closing)."""

    def forget(self, log: "FileLog") -> None:
        """``log`` is closed: no more lines come from it."""


class Syncer(GroupCommit):
    """Group commit for any number of logs: rounds of one fdatasync per dirty log, run one after another in a
    worker thread. ``sync`` is the call that makes one file durable (tests pass a fake)."""

    def __init__(self, sync: Callable[[int], None] | None = None) -> None:
        self.sync = sync or sync_file
        self.rounds = 0
        self._dirty: dict[FileLog, None] = {}  # an ordered set: logs with lines written but not yet in a round
        self._wake = trio.Event()
        self._closing = False

    def mark(self, log: "FileLog", offset: int = 0, line: bytes = b"") -> None:
        """``log`` has lines to sync: the next round covers them (now, if no round is running)."""
        self._dirty[log] = None
        self._wake.set()

    def begin_group(self) -> None:
        pass  # each log's lines are synced by the next round whatever the batch: nothing to group

    def end_group(self) -> None:
        pass

    def flush(self, log: "FileLog") -> None:
        sync_file(log.file.fileno())
        log.synced(log.written, None)

    def forget(self, log: "FileLog") -> None:
        self._dirty.pop(log, None)  # its lines were synced as it closed

    def close(self) -> None:
        """Let ``run`` return once nothing is left to sync."""
        self._closing = True
        self._wake.set()

    async def run(self) -> None:
        """The rounds, until ``close``. Each round takes every dirty log at the line it has reached, syncs them
        in worker threads, then tells each log how far it is durable (or why it failed)."""
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            if not self._dirty:
                if self._closing:
                    return
                continue
            group = [(log, log.written) for log in self._dirty if log.error is None and not log.file.closed]
            self._dirty.clear()
            if not group:
                continue
            errors = await self._sync_round([log.file.fileno() for log, _ in group])
            self.rounds += 1
            for (log, count), error in zip(group, errors):
                log.synced(count, error)

    async def _sync_round(self, fds: list[int]) -> list[OSError | None]:
        """Sync every file of a round: one worker thread for one file; for more, up to ``MAX_THREADS`` at
        once, as the file system's journal commits concurrent syncs together (one after another, each sync
        waits for a commit of its own)."""
        if len(fds) == 1:
            return await trio.to_thread.run_sync(self._sync_all, fds)
        shares = [fds[i::MAX_THREADS] for i in range(min(MAX_THREADS, len(fds)))]
        results: list = [None] * len(shares)

        async def sync_share(index: int) -> None:
            results[index] = await trio.to_thread.run_sync(self._sync_all, shares[index])

        async with trio.open_nursery() as nursery:
            for index in range(len(shares)):
                nursery.start_soon(sync_share, index)
        errors: list[OSError | None] = [None] * len(fds)
        for index, share_errors in enumerate(results):
            errors[index::MAX_THREADS] = share_errors
        return errors

    def _sync_all(self, fds: list[int]) -> list[OSError | None]:
        """In a worker thread: sync each file; an error stays with its file, the others go on."""
        errors: list[OSError | None] = []
        for fd in fds:
            try:
                self.sync(fd)
                errors.append(None)
            except OSError as error:
                errors.append(error)
        return errors


class FileLog:
    """Appends records to one log file; ``written`` lines so far, ``durable`` of them known to be on disk.

    ``syncer`` is the server's shared group commit under ``batch`` (its ``Journal``); without one (``always``,
    or a log used on its own) the log has a ``Syncer`` of its own, which ``run_flusher`` runs. Whoever needs
    to know how far it is durable reads ``durable`` or awaits ``wait_durable``."""

    def __init__(self, path: Path, policy: str = "batch", head: str = GENESIS,
                 syncer: GroupCommit | None = None) -> None:
        if policy not in POLICIES:
            raise ValueError(f"durability is one of {', '.join(POLICIES)}, not {policy!r}")
        self.path = path
        self.policy = policy
        self.head = head
        fd = disk.current().open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, disk.FILE_MODE)
        self.file = open(fd, "ab", buffering=0)
        self.size = os.fstat(self.file.fileno()).st_size  # where the next line goes
        self.written = 0
        self.durable = 0
        self.fsyncs = 0  # rounds that synced this file
        self.error: OSError | None = None  # the failed sync that stopped this log
        self._own = None if policy == "never" or syncer is not None else Syncer()
        self.syncer: GroupCommit | None = syncer or self._own
        self._progress = trio.Event()
        self._failed = trio.Event()

    def append(self, record: Any) -> int:
        """Write one record (straight to the OS); returns its line number in this session.

        The whole line or nothing: a short write is carried on, and a write that fails (a full disk, an I/O
        error) cuts the file back to where the line began and raises; the log then takes no more lines
        (``error``), so no torn line can ever sit in the middle of a log, and nothing after it is acknowledged."""
        if self.error is not None:
            raise self.error
        line, head = encode_line(self.head, record)
        try:
            disk.write_all(self.file.fileno(), line)
        except OSError as error:
            self._cut_back()
            self._fail(error)
            raise
        self.head = head
        offset, self.size = self.size, self.size + len(line)
        self.written += 1
        if self.policy == "never":
            self.durable = self.written
        else:
            self.syncer.mark(self, offset, line)
        return self.written

    def begin_group(self) -> None:
        """Lines appended from now until ``end_group`` go to the shared group commit together (a table's
        arbiter batch; see ``Journal.begin_group``). Under ``never``, nothing changes."""
        if self.syncer is not None:
            self.syncer.begin_group()

    def end_group(self) -> None:
        if self.syncer is not None:
            self.syncer.end_group()

    def _cut_back(self) -> None:
        """After a failed append: the file back to where that line began. If even that fails, the torn line
        stays last (nothing follows it: the log is failed), and reopening the log cuts it."""
        try:
            disk.current().ftruncate(self.file.fileno(), self.size)
        except OSError:
            pass

    def _fail(self, error: OSError) -> None:
        """This log failed for good: nothing written from now on counts as durable."""
        if self.error is None:
            self.error = error
            self._failed.set()
            self._progress.set()  # wake the waiters: they raise it

    def synced(self, count: int, error: OSError | None) -> None:
        """A round of its group commit ended for this log: lines up to ``count`` are durable, or the log
        failed for good."""
        if self.error is not None:
            return
        if error is not None:
            self._fail(error)
            return
        self.fsyncs += 1
        if count > self.durable:
            self.durable = count
            self._progress.set()
            self._progress = trio.Event()

    async def wait_durable(self, count: int) -> None:
        """Wait until line ``count`` is durable; raises the sync's error if this log failed first."""
        while self.durable < count:
            if self.error is not None:
                raise self.error
            await self._progress.wait()

    async def run_flusher(self) -> None:
        """Run this log's own syncer if it has one; raise the ``OSError`` of a failed sync of this log
        (whichever syncer ran it). Returns at once under ``never``."""
        if self.policy == "never":
            return
        async with trio.open_nursery() as nursery:
            if self._own is not None:
                nursery.start_soon(self._own.run)
            await self._failed.wait()
            nursery.cancel_scope.cancel()
        raise self.error

    def sync_now(self) -> None:
        """A last sync (at shutdown): everything written is durable, unless a sync of this log failed before.
        Through the journal, the lines still pending are written and synced there (the journal's checkpoint
        syncs the file itself)."""
        if self.error is not None:
            return
        if self.syncer is None:  # never: a last sync all the same
            sync_file(self.file.fileno())
            self.durable = self.written
        elif self.durable < self.written:
            self.syncer.flush(self)

    def close(self) -> None:
        if not self.file.closed:
            try:
                self.sync_now()
            finally:
                self.file.close()
                if self.syncer is not None:
                    self.syncer.forget(self)


def reopen(path: Path, read, policy: str, syncer: Syncer | None = None) -> FileLog:
    """Reopen an unfinished log to go on appending: cut a torn last line, mark the reopening."""
    if read.torn is not None:
        fd = disk.current().open(path, os.O_WRONLY)
        try:
            disk.current().ftruncate(fd, read.good_bytes)
        finally:
            os.close(fd)
    log = FileLog(path, policy, head=read.head, syncer=syncer)
    entries = read.entries()
    log.append(Reopened(seq=entries[-1].seq if entries else 0, started=utc_now()))
    return log


def numbered_logs(folder: Path, prefix: str) -> tuple[list[Path], list[Path]]:
    """The logs of ``folder`` named ``<prefix><number>.log`` (a table's ``t12.log``, a tournament's ``T3.log``),
    in number order, and the other ``<prefix>*.log`` files there (a copy someone made, ``t5-copy.log``), which
    the server leaves alone."""
    numbered, others = [], []
    for path in Path(folder).glob(f"{prefix}*.log"):
        digits = path.stem[len(prefix):]
        (numbered if digits.isascii() and digits.isdigit() else others).append(path)
    return sorted(numbered, key=lambda p: int(p.stem[len(prefix):])), sorted(others)


def table_dir(data: DataDir) -> Path:
    """The data directory's folder of table logs, made (0700, and the data directory too) if missing."""
    disk.private_dir(data.root)
    return disk.private_dir(data.tables)


def write_secret_seed(path: Path, seed: int, sync: bool = True) -> None:
    """The seed (0600), kept apart from the log until the table ends (a restarted server needs it to go on);
    ``sync`` False (``--durability never``): left to the OS like the log lines, it survives a killed process.
    Written whole or not at all (``disk.write_file``)."""
    disk.write_file(path, f"{seed}\n".encode(), sync)
