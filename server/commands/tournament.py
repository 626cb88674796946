"""`photofinish tournament verify`, run: every seating and standing recomputed from a tournament's log.

The checking is ``server/tournament/verify.py``'s; this prints its report and the final standings and
returns the exit code (0: verified, 1: not).
"""

from __future__ import annotations

from pathlib import Path

from ..tournament.verify import verify_tournament


def verify_tournament_log(path: str, tables: str | None = None, receipt: str | None = None) -> int:
    """Verify the tournament log at ``path`` with its tables' logs in ``tables`` (default: the tables folder
    beside the log's folder, if there is one); with ``receipt``, also that a line of it has that hash."""
    log = Path(path)
    folder = Path(tables) if tables else log.resolve().parent.parent / "tables"
    report = verify_tournament(log, folder if folder.is_dir() else None)
    if report.ok and receipt and not _holds_line(log, receipt):
        print(f"{log}: NOT VERIFIED: no line of this log has the hash {receipt}: it is not the log that "
              "gave that receipt, or not all of it")
        return 1
    if not report.ok:
        where = f"line {report.line}: " if report.line else ""
        print(f"{log}: NOT VERIFIED: {where}{report.problem}")
        return 1
    print(f"{log}: verified: {report.rounds} round(s) seated as the standings, history and seed give, "
          f"{report.results} result(s)" + (f" matching their {report.table_logs} table logs" if report.table_logs
                                             else " (no table logs checked)")
          + (f", ended: {report.end_reason.replace('_', ' ')}" if report.end_reason else "")
          + (f" ({report.end_note})" if report.end_note else "") + ", final standings recomputed:")
    for row in report.standings:
        name = report.names.get(row.player)
        who = f"{name} ({row.player})" if name else row.player
        print(f"  {row.rank:>3}. {who} {row.points:g} point{'' if row.points == 1 else 's'}"
              + (" (dropped)" if row.dropped else ""))
    return 0


def _holds_line(log: Path, receipt: str) -> bool:
    """Whether a line of the (chain-checked) log has the hash ``receipt``."""
    return any(line[:64] == receipt.strip().lower() for line in log.read_text().splitlines())
