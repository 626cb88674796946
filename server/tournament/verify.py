"""Verifying a whole tournament from its log (``photofinish tournament verify LOG``, through ``server.commands.tournament``).

``verify_tournament(path, table_logs_dir=None)`` checks the following and names the first problem (steps 3
and 4 go through the log line by line, so the problem named is the earliest line that has one):
1. the hash chain of every line (``tlog.read_tournament_log``), and that no line is torn;
2. that the tournament ended and the seed it reveals matches the commitment in ``created``;
3. every record folded with that seed (``state.Tournament.apply``): each round's seating recomputed from the
   log's own earlier records and the seed (a shrunk final's note too), each result against its table's
   seating, each correction, each reported table's result from its players' reports or the organiser's
   settlement (``reporting.py``), a ratings-seeded round 1 from the ratings logged before it (``rated.py``),
   why it ended (a last round played, a final skipped, a round that would seat no table: recomputed with its
   words) and the final standings recomputed from every result, bye, drop and
   correction; and that no record follows the end;
4. with ``table_logs_dir``, each result against its table's log ``<table>.log`` there: its chain, that it
   is that table, that the game ended (``end`` reason ``over``) with the same scores and its winners (and
   only they) placed 1st, or was halted as it stood (``time_limit``), with the places its end record gives,
   and that the hash of its ``end`` line is the ``log_hash`` the tournament recorded.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from server.logs.logfile import LogError, read_log, seed_commitment

from ..protocol import Refusal
from .standings import Standing
from .state import Tournament
from .tlog import Ended, TableFinished, read_tournament_log


class VerifyReport(msgspec.Struct, frozen=True):
    """``ok`` or the first ``problem`` (with its 1-based ``line`` in the tournament log when there is one)."""

    ok: bool
    problem: str | None = None
    line: int | None = None
    rounds: int = 0
    results: int = 0
    table_logs: int = 0  # table logs checked
    standings: list[Standing] = []
    names: dict[str, str] = {}  # player id -> the name they registered
    end_reason: str = ""  # why it ended (``tlog.Ended``): no_more_rounds, no_table, time_up, stopped ("" in old logs)
    end_note: str = ""


def verify_tournament(path: Path | str, table_logs_dir: Path | str | None = None) -> VerifyReport:
    try:
        read = read_tournament_log(path)
    except LogError as error:
        return VerifyReport(ok=False, problem=error.message, line=error.line)
    except OSError as error:
        return VerifyReport(ok=False, problem=f"cannot read the log: {error}")
    if read.torn:
        return VerifyReport(ok=False, problem=read.torn, line=len(read.lines) + 2)
    ended = read.ended
    if ended is None:
        return VerifyReport(ok=False, problem="the tournament has not ended: its seed is not revealed, so its "
                                              "seatings cannot be checked")
    end_line = read.lines[read.records.index(ended)]
    if seed_commitment(ended.seed) != read.created.commitment:
        return VerifyReport(ok=False, problem="the revealed seed does not match the commitment published "
                                              "when the tournament was created", line=end_line)
    try:
        state = Tournament(created=read.created, seed=ended.seed)
    except Refusal as error:
        return VerifyReport(ok=False, problem=error.message, line=1)
    checked = 0
    for number, record in zip(read.lines, read.records):
        if state.ended is not None:
            return VerifyReport(ok=False, problem="a record after the end", line=number)
        try:
            state.apply(record)
        except Refusal as error:
            return VerifyReport(ok=False, problem=error.message, line=number, rounds=state.round,
                                results=len(state.results), table_logs=checked)
        if table_logs_dir is not None and type(record) is TableFinished:
            problem = _check_table_log(Path(table_logs_dir), record)
            if problem:
                return VerifyReport(ok=False, problem=problem, line=number, rounds=state.round,
                                    results=len(state.results), table_logs=checked)
            checked += 1
    return VerifyReport(ok=True, rounds=state.round, results=len(state.results), table_logs=checked,
                        standings=state.standings(), names=dict(state.names), end_reason=ended.reason,
                        end_note=ended.note)


def _check_table_log(folder: Path, result: TableFinished) -> str | None:
    path = folder / f"{result.table}.log"
    try:
        log = read_log(path)
    except OSError as error:
        return f"table {result.table}: cannot read its log {path}: {error}"
    except LogError as error:
        return f"table {result.table}: its log is broken at line {error.line}: {error.message}"
    if log.header.table != result.table:
        return f"table {result.table}: {path.name} is the log of table {log.header.table}"
    end = log.end
    if end is None or end.reason not in ("over", "time_limit"):
        return f"table {result.table}: its log does not end with a finished game"
    if end.places is not None and tuple(end.places) != result.places:
        return f"table {result.table}: places {list(result.places)} are not its log's {end.places}"
    if end.reason == "time_limit":  # halted as it stood: its places say it all, there are no final scores
        pass
    elif end.scores is None or tuple(end.scores) != result.scores:
        return f"table {result.table}: the scores {list(result.scores)} are not its log's {end.scores}"
    firsts = {seat for seat, place in enumerate(result.places) if place == 1}
    if end.winners is not None and set(end.winners) != firsts:
        return (f"table {result.table}: places {list(result.places)} do not put its log's winners "
                f"{end.winners} first")
    if _end_line_hash(path) != result.log_hash:
        return f"table {result.table}: its log's end line hash is not the one the tournament recorded"
    return None


def end_line_hash(path: Path | str) -> str | None:
    """The hash of a table log's ``end`` line (what a ``table_result`` records as ``log_hash``); call it on a
    log that ``logfile.read_log`` accepted."""
    return _end_line_hash(Path(path))


def _end_line_hash(path: Path) -> str | None:
    found = None
    for line in path.read_bytes().split(b"\n"):
        if len(line) > 65 and b'"kind":"end"' in line[65:]:
            record = msgspec.json.decode(line[65:])
            if isinstance(record, dict) and record.get("kind") == "end":
                found = line[:64].decode()
    return found
