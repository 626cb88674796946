"""The record of finished tables, kept apart from their logs: ``DATA/tables/<table>.done`` beside the log
(``datadir.marker_beside``).

A table's marker is written, and fsynced with its folder, once the log's end record is on disk. It holds the
last entry's seq, the end record's line hash and, from markers written since, the wall-clock time the game ended
(``ended``): a table with a broadcast delay keeps its replay shut until that time plus its delay, even across a
restart (``ended_at``: an older marker's own time, or the log's, stands in for it). A finished log that later loses its tail (a disk fault, a
cut copy) has no end record any more and would look like a table whose server died mid-game; recovery reads
the marker first and leaves such a log alone instead of reopening it to be played to another result.

A client names a finished table's log by its id (a replay, a playback): ``finished_log`` finds it in any worker's
directory of this machine (``DataDir.find_table_log``), and opens another worker's only once its marker says the
table finished: that worker may still be writing a live table's log.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from ..datadir import DataDir, marker_beside
from ..limits import LOG_ID
from ..protocol import Code, Refusal
from .disk import write_file


class Finished(msgspec.Struct, frozen=True):
    table: str
    seq: int  # the table's last entry when the game ended
    end_hash: str  # the hash of the end record's line in the log
    ended: float | None = None  # Unix time when the game ended (None: a marker written before this was kept)


def marker_path(log_path: Path) -> Path:
    return marker_beside(log_path)


def write_marker(log_path: Path, finished: Finished) -> None:
    """Write the marker durably: a temporary file, fsynced, renamed into place, then the folder fsynced."""
    write_file(marker_path(log_path), msgspec.json.encode(finished) + b"\n")


def read_finished(log_path: Path) -> Finished | str | None:
    """The marker beside ``log_path``: None if there is none, its name if it cannot be read (it still says the
    table finished: only a finished table ever gets one), else what it holds."""
    path = marker_path(log_path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return path.name
    try:
        return msgspec.json.decode(data, type=Finished)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return path.name


def ended_at(log_path: Path) -> float:
    """Unix time when the table of ``log_path`` (a log with its end record) ended: its marker's ``ended``, else
    the time its marker was written, else the time its log was last written (it is closed at its end)."""
    finished = read_finished(log_path)
    if isinstance(finished, Finished) and finished.ended is not None:
        return finished.ended
    for path in (marker_path(log_path), log_path):
        try:
            return path.stat().st_mtime
        except OSError:
            continue
    return 0.0


def finished_marker(log_path: Path) -> str | None:
    """None if no marker says the table of ``log_path`` finished; otherwise what it says, in words."""
    finished = read_finished(log_path)
    if finished is None or isinstance(finished, str):
        return finished and f"{finished} says it finished"
    return f"{marker_path(log_path).name} says it finished at entry {finished.seq}"


def finished_log(data_dir: DataDir | None, table: str) -> Path:
    """The log a client asks for by its table's id, in whichever worker's directory of this machine keeps it; or
    ``Refusal``: ``no_logs``, ``no_log``, ``not_finished`` for another worker's table without its marker (its
    log is never read here). This worker's own log is returned whatever it holds: reading it says if it ended."""
    if data_dir is None:
        raise Refusal(Code.NO_LOGS, "this server keeps no logs (it runs without a data directory)")
    if not LOG_ID.fullmatch(table):  # a file name is made only of an id of the right shape (and length)
        raise Refusal(Code.NO_LOG, f"no log for table {table[:24]!r}")
    path = data_dir.find_table_log(table)
    if not path.exists():
        raise Refusal(Code.NO_LOG, f"no log for table {table!r}")
    if not data_dir.keeps(path) and read_finished(path) is None:
        raise Refusal(Code.NOT_FINISHED, f"table {table} has not finished: watch it live instead")
    return path
