"""The write-ahead journal of ``--durability batch``: one file for every log of the server (tables and
tournaments), fsynced once per group of lines, and replayed into the logs at start.

A log line is written to its own file at once (no fsync: it survives a killed process) and handed to the
journal. A round appends every line handed over since the last round to the journal in one write and makes it
durable with one fdatasync; then each log is told how far its lines are durable (``FileLog.synced``). The
first line starts a round at once; lines that arrive while a round runs go into the next, which starts as soon
as that one ends (group commit with no fixed wait). When the journal passes ``limit`` bytes a checkpoint
starts a new journal file and, while rounds go on in the new one, fsyncs every log file that has lines in the
old one, then deletes it; a clean shutdown does the same with the last one.

The records, the journal files and the replay at start are ``server/logs/walfile.py``'s. Zeros follow the last
record: a round writes ``PREALLOC`` bytes of them ahead whenever fewer than half are left, so that the rounds
after it overwrite blocks the file already has and their fdatasync commits no new size (no file-system journal
commit: two waits for the disk instead of three).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import trio

from . import disk
from .logstore import GroupCommit
from .walfile import (MAGIC, add_to_span, journal_files, journal_folder, logs_hold, read_records, sync_folder,
                      sync_path, write_back)

if TYPE_CHECKING:
    from .logstore import FileLog
LIMIT = 8 * 1024 * 1024  # a checkpoint starts a new journal file past this many bytes
PREALLOC = 1024 * 1024  # zeros written ahead of the records, so that a round's fdatasync changes no metadata
MAX_THREADS = 8  # log files a checkpoint fsyncs at once (the file system commits concurrent syncs together)
INLINE = ("auto", "always", "never")


def tasks_runnable() -> int:
    """How many tasks are ready to run. ``trio.lowlevel.current_statistics()`` says it too, but also counts
    every registered file descriptor, each time: a cost per call that grows with the connections (a thousand
    spectators), paid at every arbiter batch. So the run queue's length, where trio keeps it; the public call
    where it does not (another trio version)."""
    try:
        return len(trio._core._run.GLOBAL_RUN_CONTEXT.runner.runq)
    except AttributeError:
        return trio.lowlevel.current_statistics().tasks_runnable


def sync_file(fd: int) -> None:
    disk.current().fdatasync(fd)


class Journal(GroupCommit):
    """The server's group commit under ``batch`` (see the module's docstring). ``mark`` takes each line as
    its log writes it; ``run`` is the task that writes and syncs the rounds; ``sync`` makes the journal file
    durable (tests pass a fake they can hold). ``inline``: where a round's fdatasync runs. ``auto``: the tasks
    ready to run when a round starts run once first (adding their lines to it); then, if no task is ready any
    more, on the event loop's thread (nothing waits for it, and a hand-off to a worker thread costs more CPU
    and latency than it saves), else in a worker thread, so a busy server goes on working meanwhile.
    ``always`` / ``never`` force one way."""

    def __init__(self, data_dir: Path, sync: Callable[[int], None] | None = None, limit: int = LIMIT,
                 inline: str = "auto", prealloc: int = PREALLOC) -> None:
        if inline not in INLINE:
            raise ValueError(f"inline is one of {', '.join(INLINE)}, not {inline!r}")
        self.data_dir = Path(data_dir)
        self.sync = sync or sync_file
        self.limit = limit
        self.prealloc = prealloc
        self.inline = inline
        self.rounds = 0
        self.inline_rounds = 0  # rounds whose sync ran on the event loop's thread
        self.checkpoints = 0
        self.checkpointed = trio.Event()  # set (and replaced) each time an old journal is retired
        self.error: OSError | None = None  # the failed write or sync that stopped the journal, for good
        self.folder = disk.private_dir(journal_folder(self.data_dir))
        existing = journal_files(self.data_dir)
        self.generation = int(existing[-1].stem) + 1 if existing else 1
        self._kept: list[Path] = []  # journals a failed checkpoint could not retire (replayed at the next start)
        self.path, self._fd = self._create(self.generation)
        self._size = self._end = len(MAGIC)  # where the records end; where the zeros written ahead end
        self._new_file = True  # its directory entry is not yet durable: the first round syncs the folder too
        self._marked: list[tuple[bytes, int, bytes, Path]] = []  # lines marked since the last round's take:
        # (name in the record, offset, line, the log's path); a round takes them as records (``_take``)
        self._counts: dict[FileLog, int] = {}  # the lines of each log that the pending marks hold
        self._touched: dict[Path, FileLog] = {}  # log files with lines in the current journal file
        self._spans: dict[Path, list] = {}  # what each of them holds of its lines: ``Span``'s fields
        self._names: dict[FileLog, bytes] = {}
        self._wake = trio.Event()
        self._grouping = 0  # > 0 inside a group (``begin_group``): marks wake no round until it ends
        self._in_round = False  # the journal's task is in a round (its sync may be in a worker thread)
        self._closing = False
        self._closed = False  # the last round is over: nothing more is written
        self._done = trio.Event()
        self._checkpoint_done: trio.Event | None = None
        self._writing = threading.Lock()  # one write-and-sync of the journal at a time, on either thread

    @property
    def size(self) -> int:
        """Bytes of the current journal file up to the end of its last record (the zeros ahead not counted)."""
        return self._size

    def _create(self, generation: int) -> tuple[Path, int]:
        path = self.folder / f"{generation:08d}.wal"
        fd = disk.current().open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, disk.FILE_MODE)
        try:
            disk.write_all(fd, MAGIC)
        except OSError:
            os.close(fd)
            try:
                os.unlink(path)
            except OSError:
                pass
            raise
        return path, fd

    def mark(self, log: FileLog, offset: int, line: bytes) -> None:
        """``log`` wrote ``line`` at byte ``offset`` of its file: the next round makes it durable (now, if no
        round is running). After a failure of the journal, the log fails at once."""
        if self.error is not None:
            log.synced(log.written, self.error)
            return
        if self._closed:
            return  # after the last round (the server is stopping): the line is in its file, never acknowledged
        name = self._names.get(log)
        if name is None:
            name = self._names[log] = os.path.relpath(log.path, self.data_dir).encode()
        self._marked.append((name, offset, line, log.path))
        self._counts[log] = log.written
        if not self._grouping:
            self._wake.set()

    def begin_group(self) -> None:
        """Lines marked from now until ``end_group`` start no round (a table's arbiter batch: its lines go
        together, and its answers are released together)."""
        self._grouping += 1

    def end_group(self) -> None:
        """The group's lines are marked. If nothing else is ready to run on the event loop and no round is
        under way, write and sync them here and now: the round the journal's task would run next, without the
        task switch and scheduler pass to get there (the one-table case). Otherwise the journal's task runs it."""
        self._grouping -= 1
        if self._grouping or not self._marked:
            return
        if (not self._in_round and self.error is None and not self._closed and self.inline != "never"
                and (self.inline == "always" or tasks_runnable() == 0)):
            chunks, counts = self._take()
            self.inline_rounds += 1
            self._finish(counts, self._write_and_sync(chunks))
            if self._size >= self.limit:
                self._wake.set()  # the journal's task starts the checkpoint
        else:
            self._wake.set()

    def forget(self, log: FileLog) -> None:
        """``log`` is closed: its name is no longer needed (its pending lines are still written)."""
        self._names.pop(log, None)

    def close(self) -> None:
        """Let ``run`` finish: the last round, then a checkpoint that leaves no journal behind."""
        self._closing = True
        self._wake.set()

    async def aclose(self) -> None:
        """``close``, and wait until ``run`` has finished."""
        self.close()
        await self._done.wait()

    async def run(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                while True:
                    if not self._closing:  # closing, it goes on until nothing is pending: the ``close`` that set
                        await self._wake.wait()  # the wake may have come during a round, whose lines were then
                    self._wake = trio.Event()  # taken, and no other wake may ever come (a stop hung so)
                    if self._marked:
                        await self._round()
                    elif self._closing:
                        break
                    if self._size >= self.limit and self.error is None and self._checkpoint_done is None:
                        try:
                            old = self._switch()
                        except OSError:  # no new journal file (a full or read-only disk): go on in this one,
                            continue  # and try again after the next round (a round that fails stops the journal)
                        nursery.start_soon(self._checkpoint, *old)
            self._closed = True
            if self.error is None:  # a clean stop: every log file synced, no journal left to replay
                await self._checkpoint(self.path, self._fd, self._touched, self._spans)
        finally:
            self._done.set()

    def flush(self, log: FileLog) -> None:
        """``log`` is closing: write and sync its pending lines (and whatever else is pending) now."""
        if log.durable < log.written:
            self.flush_now()

    def flush_now(self) -> None:
        """Write and sync what is pending now, on this thread (a log closing must leave nothing unsynced)."""
        if self._marked and self.error is None and not self._closed:
            chunks, counts = self._take()
            self._finish(counts, self._write_and_sync(chunks))

    def _take(self) -> tuple[list[bytes], dict]:
        """The pending lines as records for the current journal file, each added to its log's span."""
        marked, counts = self._marked, self._counts
        self._marked, self._counts = [], {}
        for log in counts:
            self._touched[log.path] = log
        return [add_to_span(self._spans, *mark) for mark in marked], counts

    async def _round(self) -> None:
        self._in_round = True
        try:
            await self._round_in()
        finally:
            self._in_round = False

    async def _round_in(self) -> None:
        inline = self.inline == "always"
        if self.inline == "auto":
            if tasks_runnable():
                await trio.lowlevel.cancel_shielded_checkpoint()  # the tasks ready now add their lines first
            inline = tasks_runnable() == 0
        if not self._marked:
            return  # a closing log flushed them meanwhile
        chunks, counts = self._take()
        self.inline_rounds += inline
        if inline:
            error = self._write_and_sync(chunks)
        else:
            error = await trio.to_thread.run_sync(self._write_and_sync, chunks)
        self._finish(counts, error)

    def _write_and_sync(self, chunks: list[bytes]) -> OSError | None:
        """Append the records in one write and make them durable (on either thread). One at a time: a
        ``flush_now`` while a round syncs in its worker thread waits for it, so a log's lines reach the
        journal in order and a round reports only lines its own sync covered."""
        data = b"".join(chunks)
        with self._writing:
            return self._write_and_sync_locked(data)

    def _write_and_sync_locked(self, data: bytes) -> OSError | None:
        end = self._size + len(data)
        ahead = self._end - end < self.prealloc // 2  # the zeros ahead run short: the next stretch, in this write
        try:
            disk.pwrite_all(self._fd, data + bytes(self.prealloc) if ahead else data, self._size)
        except OSError as error:
            if not ahead or not self._records_fit(data, end):
                self._cut(self._size)  # no part of a record the failed write began (the journal stops here)
                self._end = self._size
                return error
        else:
            self._end = max(self._end, end + self.prealloc if ahead else end)
        try:
            if self._new_file:
                sync_folder(self.folder)
                self._new_file = False
            self.sync(self._fd)
        except OSError as error:
            return error
        self._size, self._end = end, max(self._end, end)
        return None

    def _records_fit(self, data: bytes, end: int) -> bool:
        """The records and their zeros ahead did not fit (a disk nearly full): write the records alone, the file
        cut back to them, and go on without zeros ahead (each sync then commits the file's new size) rather than
        stop every table for space the records do not need; a later round writes zeros ahead again."""
        try:
            self._cut(self._size)
            disk.pwrite_all(self._fd, data, self._size)
        except OSError:
            return False
        self._end = end
        return True

    def _cut(self, size: int) -> None:
        """The file cut back to ``size`` bytes: no part of a record a failed write began, no zeros that did not
        all fit, holding the disk's last space (best effort: the write's own error is what is reported)."""
        try:
            disk.current().ftruncate(self._fd, size)
        except OSError:
            pass

    def _finish(self, counts: dict, error: OSError | None) -> None:
        self.rounds += 1
        if error is not None and self.error is None:
            self.error = error
        error = error or self.error
        for log, count in counts.items():
            log.synced(count, error)
        if error is not None:
            for log in list(self._counts):  # lines marked meanwhile: the journal cannot take them any more
                log.synced(log.written, error)
            self._marked, self._counts = [], {}

    def _retire(self, path: Path, spans: dict[Path, list]) -> None:
        """In a worker thread: check the old journal's lines against the log files, then delete it. Each
        log's lines in it are one run of bytes, so one read and one crc32 per log file check them all
        (``logs_hold``); only where that fails is the journal read record by record and every line a log
        lacks written back (``write_back``)."""
        if not logs_hold(spans):
            records, _ = read_records(path.read_bytes())
            write_back(self.data_dir, records)
        disk.current().unlink(path)

    def _switch(self) -> tuple[Path, int, dict]:
        """Start the next journal file; returns the old one and the log files with lines in it. Raises
        ``OSError`` (and changes nothing) if the new file cannot be made."""
        path, fd = self._create(self.generation + 1)
        old = (self.path, self._fd, self._touched, self._spans)
        self.generation += 1
        self.path, self._fd = path, fd
        self._size = self._end = len(MAGIC)
        self._new_file, self._touched, self._spans = True, {}, {}
        self._checkpoint_done = trio.Event()
        return old

    async def _checkpoint(self, path: Path, fd: int, touched: dict, spans: dict) -> None:
        """Retire a journal file that takes no more records: fsync every log file with lines in it (up to
        ``MAX_THREADS`` at once), check that every line it holds is in its log file (and write back any that
        is not: ``write_back``), then delete it. A log file that cannot be synced fails its log (its table
        stops), and the journal file is kept whenever anything failed, so the next start writes its lines
        back: a checkpoint never removes a line the logs do not hold."""
        items = list(touched.items())
        failed: list[tuple[FileLog, OSError]] = []

        def sync_share(share: list) -> None:
            for log_path, log in share:
                try:
                    sync_path(log_path)
                except OSError as error:
                    failed.append((log, error))

        try:
            async with trio.open_nursery() as nursery:
                for index in range(min(MAX_THREADS, len(items))):
                    nursery.start_soon(trio.to_thread.run_sync, sync_share, items[index::MAX_THREADS])
        finally:
            os.close(fd)
            done, self._checkpoint_done = self._checkpoint_done, None
            if done is not None:
                done.set()
        for log, error in failed:
            log.synced(log.written, error)
        if not failed:
            try:
                await trio.to_thread.run_sync(self._retire, path, spans)
            except OSError as error:
                for log in touched.values():
                    log.synced(log.written, error)
                failed.append((None, error))
        if failed:
            self._kept.append(path)
            return
        self.checkpoints += 1
        self.checkpointed.set()
        self.checkpointed = trio.Event()
