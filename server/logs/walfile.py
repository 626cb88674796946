"""The journal's files (``--durability batch``, see ``server/logs/journal.py``): where they are, the record format,
reading records back, and the replay at start that writes every journaled line back into its log file.

A record: ``@ <offset> <length> <crc32 hex> <path>\\n`` followed by the line's ``length`` bytes exactly as
written at byte ``offset`` of ``<path>`` (relative to the data directory); the crc32 covers the first line of
the record and the bytes. Zeros follow the last record (written ahead by the journal's rounds).

At start (``replay``), before any log is read, every journal's records are checked in order up to the first
torn or damaged one (the tail of a round the process did not finish: nothing in it was acknowledged), every
line whose bytes are not in its log file at its offset is written there, the log files are fsynced and the
journals deleted. So a log file always holds every line that was acknowledged.

A checkpoint (``Journal._retire``) checks an old journal against the logs without reading it back: each log's
lines in one journal file are one run of its bytes, whose extent and crc32 the journal keeps as it takes them
(``add_to_span``), so one read and one crc32 per log file say whether the logs hold them all (``logs_hold``).
Only where one does not is the journal read record by record and each missing line written back.

Journal files: ``DATA/journal/<generation>.wal`` (numbered from 1, one more per checkpoint).
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from . import disk
from ..datadir import DataDir

MAGIC = b"photofinish journal 1\n"


def sync_path(path: Path) -> None:
    """fsync a file by its path (its log may be closed by now: fsync works on any descriptor of the file)."""
    disk.sync_path(path)


def sync_folder(folder: Path) -> None:
    """Make a folder's entries (a file created or removed in it) durable: its own fsync, by its path."""
    sync_path(folder)


def journal_folder(data_dir: Path) -> Path:
    return DataDir(data_dir).journal


def journal_files(data_dir: Path) -> list[Path]:
    """The journal files of a data directory, oldest first."""
    folder = journal_folder(data_dir)
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.glob("*.wal") if p.stem.isdigit()), key=lambda p: int(p.stem))


def encode_record(path: bytes, offset: int, line: bytes) -> bytes:
    head = b"%d %d" % (offset, len(line))
    crc = zlib.crc32(line, zlib.crc32(path, zlib.crc32(head)))
    return b"@ %s %08x %s\n%s" % (head, crc, path, line)


def add_to_span(spans: dict[Path, list], name: bytes, offset: int, line: bytes, path: Path) -> bytes:
    """The record of ``line`` (at ``offset`` of the log file ``path``, named ``name`` in the record), which
    extends that file's span in ``spans``: ``[first, end, crc32]``, the bytes ``first..end`` of the file that
    the journal's lines of it cover and their crc32 (``first`` is -1 where its lines are not one run)."""
    span = spans.get(path)
    if span is None:
        spans[path] = [offset, offset + len(line), zlib.crc32(line)]
    elif span[1] == offset:
        span[1] += len(line)
        span[2] = zlib.crc32(line, span[2])
    else:
        span[0] = -1
    return encode_record(name, offset, line)


def logs_hold(spans: dict[Path, list]) -> bool:
    """Whether every log file holds the bytes of its span (``add_to_span``) exactly: one read and one crc32
    per file. False where any does not, or cannot be read, or its lines were not one run: then the journal's
    records are checked one by one (``write_back``)."""
    for path, (first, end, crc) in spans.items():
        if first < 0:
            return False
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            data = os.pread(fd, end - first, first)
        except OSError:
            return False
        finally:
            os.close(fd)
        if len(data) != end - first or zlib.crc32(data) != crc:
            return False
    return True


@dataclass(frozen=True)
class Record:
    path: str  # the log file, relative to the data directory
    offset: int
    line: bytes


def read_records(data: bytes) -> tuple[list[Record], str | None]:
    """The whole records of a journal file's bytes, in order, and why reading stopped early (a torn or
    damaged record: nothing from there on was acknowledged), or None."""
    if not data.startswith(MAGIC):
        return [], "not a photofinish journal" if data else None
    records, at = [], len(MAGIC)
    while at < len(data):
        if data[at] == 0:  # the zeros written ahead of the records: the end, if nothing but zeros follows
            return records, None if data.count(0, at) == len(data) - at else f"a damaged record at byte {at}"
        end = data.find(b"\n", at)
        if end < 0:
            return records, f"a record cut short at byte {at}"
        fields = data[at:end].split(b" ", 4)
        try:
            if len(fields) != 5 or fields[0] != b"@":
                raise ValueError
            offset, length, crc, path = int(fields[1]), int(fields[2]), int(fields[3], 16), fields[4]
        except ValueError:
            return records, f"a damaged record at byte {at}"
        line = data[end + 1:end + 1 + length]
        if len(line) < length:
            return records, f"a record cut short at byte {at}"
        if zlib.crc32(line, zlib.crc32(path, zlib.crc32(b"%d %d" % (offset, length)))) != crc:
            return records, f"a damaged record at byte {at}"
        name = path.decode("utf-8", "replace")
        if os.path.isabs(name) or ".." in Path(name).parts:
            return records, f"a record at byte {at} names a file outside the data directory"
        records.append(Record(name, offset, line))
        at = end + 1 + length
    return records, None


@dataclass(frozen=True)
class Replayed:
    """What ``replay`` did: journal files read, lines written back into their logs, and any tail it left."""

    journals: int
    restored: int
    logs: tuple[str, ...]  # the log files it wrote to
    notes: tuple[str, ...]  # a torn tail per journal that had one


def write_back(data_dir: Path, records: list[Record]) -> tuple[int, tuple[str, ...]]:
    """Make every log file hold its journal ``records``: each line whose bytes are not in its file at its
    offset is written there, and the files written to (and folders created) are fsynced. Returns the lines
    written and the files. Raises ``OSError`` if any of it fails: the journal must then be kept."""
    restored, written, fds, created = 0, {}, {}, set()
    try:
        for record in records:
            fd = fds.get(record.path)
            if fd is None:
                target = Path(data_dir) / record.path
                if not target.exists():
                    disk.private_dir(target.parent)
                    created.add(target.parent)
                fd = fds[record.path] = disk.current().open(target, os.O_RDWR | os.O_CREAT, disk.FILE_MODE)
            if os.pread(fd, len(record.line), record.offset) != record.line:
                disk.pwrite_all(fd, record.line, record.offset)
                restored += 1
                written[record.path] = None
        for path in written:
            disk.current().fsync(fds[path])
    finally:
        for fd in fds.values():
            os.close(fd)
    for folder in created:
        sync_folder(folder)
    return restored, tuple(written)


def replay(data_dir: Path) -> Replayed:
    """Bring every log file up to its journals (see the module's docstring), fsync what was written, then
    delete the journals. Call before any log of the data directory is read or opened. Raises ``OSError`` if
    the disk fails meanwhile: then no journal is deleted (the next start tries again)."""
    data_dir = Path(data_dir)
    files = journal_files(data_dir)
    records, notes = [], []
    for journal in files:
        found, problem = read_records(journal.read_bytes())
        if problem:
            notes.append(f"{journal.name}: {problem}")
        records.extend(found)
    restored, logs = write_back(data_dir, records)
    for journal in files:
        disk.current().unlink(journal)
    if files:
        sync_folder(journal_folder(data_dir))
    return Replayed(journals=len(files), restored=restored, logs=logs, notes=tuple(notes))
