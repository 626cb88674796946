"""`photofinish replay`, `verify` and `export`, run: a table's log checked by rebuilding its game.

Each takes the path the person typed: a log file, or a document `export` wrote (rebuilt into a temporary log
file first, byte for byte the one exported, so its chain and receipts are the log's own). The checking is
``server/logs/replay.py``'s; this module prints its report and returns the exit code (0: the log checks out, 1: it
does not). How each step of a walk through the log is shown is the caller's (``Show``: the terminal client's
words and drawings); a ``BadInput`` is a path or seat that cannot be used.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

import msgspec

from ..logs.exported import ExportError, log_bytes, looks_exported
from ..logs.finished import finished_marker
from ..logs.logfile import Entry, LogError, ReadLog, read_log
from ..logs.replay import chance_count, check_log, check_receipt, export, verify_seed
from ..protocol.commandline import BadInput

# One step of a walk through a log: (the log as read, its entry, the state after it, the events it made, or
# None for a refused intent). Returns False to stop the walk there (the command then exits 0).
Show = Callable[[ReadLog, Entry, Any, "list | None"], bool]


def replay_log(path: str, seat: int | None = None, show: Show | None = None, allow_unfinished: bool = False) -> int:
    """Rebuild the table in ``path``, every entry through ``show`` if given; print the report. A log with
    no end record fails (1) unless ``allow_unfinished``. ``seat`` (0-based) must be one of the table's."""
    with _as_log(path) as log:
        if seat is not None:
            seats = _log_seats(log)
            if seats is not None and not seat < seats:
                raise BadInput(f"--seat {seat + 1}: the table in {path} has seats 1-{seats}")
        read: list[ReadLog] = []

        def step(entry, state, events) -> None:
            if not read:
                read.append(read_log(log))  # the chain is whole: check_log read it before the first step
            if not show(read[0], entry, state, events):
                raise _Quit

        try:
            report = check_log(log, on_step=step if show is not None else None)
        except _Quit:
            return 0
        report.path = Path(path)
        print(report.summary())
        if report.ok and not report.ended and not allow_unfinished:
            finished = finished_marker(Path(log))
            print("  INCOMPLETE: the log has no end record, so this is not a finished game"
                  + (f", though {finished}: the log lost its end" if finished else
                     " (--allow-unfinished accepts a table still open)"))
            return 1
        return 0 if report.ok else 1


class _Quit(Exception):
    """The walk was stopped (`q` at `replay --step`'s prompt)."""


def verify_log(path: str, receipt: tuple[int, str] | None = None) -> int:
    """Check that every shuffle and roll in ``path`` follows from its revealed seed; or, with ``receipt``
    (seq, hash), only whether the log holds that entry with exactly that hash."""
    with _as_log(path) as log:
        if receipt is not None:
            ok, line = check_receipt(log, *receipt)
            print(line.replace(log, path))  # the rebuilt log's temporary path put back as the one typed
            return 0 if ok else 1
        report = check_log(log)
        report.path = Path(path)
        if not report.ok:
            print(report.summary())
            return 1
        problem = verify_seed(report)
        if problem:
            print(f"{path}: NOT VERIFIED: {problem}")
            return 1
        print(f"{path}: verified: the seed matches its commitment and all {chance_count(report)} "
              f"shuffles and rolls follow from it")
        return 0


def export_log(path: str) -> tuple[str | None, str | None]:
    """``path`` as one JSON document, and the problem its check found (None: it checks out). The document is
    None when nothing of the log could be read."""
    report = check_log(path)
    if report.read is None:  # nothing of it could be read: an error, not a document saying so
        return None, report.problem
    return msgspec.json.format(msgspec.json.encode(export(report)).decode(), indent=1), report.problem


@contextmanager
def _as_log(path: str):
    """The log file to check: ``path`` itself, or, for a document ``photofinish export`` wrote, the log file
    rebuilt from it in a temporary folder (byte for byte the one exported: same chain, same receipts)."""
    if not looks_exported(path):
        yield path
        return
    try:
        data = log_bytes(Path(path).read_bytes())
    except ExportError as error:
        raise BadInput(f"{path}: {error}") from None
    with tempfile.TemporaryDirectory(prefix="photofinish-export-") as folder:
        rebuilt = Path(folder) / Path(path).with_suffix(".log").name
        rebuilt.write_bytes(data)
        yield str(rebuilt)


def _log_seats(path: str) -> int | None:
    """How many seats the table in a log has, or None if its header cannot be read (replay then says why)."""
    try:
        return read_log(path).header.seats
    except (OSError, ValueError, LogError):
        return None
