"""`photofinish tournament export`, `log` and `verify`: a tournament as files (its standings and rounds as CSV or
JSON, its log downloaded) and the check of a log on this machine, which needs no server."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

import msgspec

from .. import checks
from ..tournament_history import HEADER, rounds_rows
from .running import run_client


def add_parsers(cmds, url_help: str, tid_help: str) -> None:
    export = cmds.add_parser("export", help="the standings as CSV or JSON")
    export.add_argument("url", type=checks.server_url, help=url_help)
    export.add_argument("tournament", help=tid_help)
    export.add_argument("--format", default="csv", choices=("csv", "json"),
                        help="csv (default): one row per player; json: the whole tournament state")
    export.add_argument("--rounds", action="store_true",
                        help="csv: every round's seats and results instead of the standings (json has both)")
    export.add_argument("--output", "-o", default=None, metavar="FILE", help="write it here (default: stdout)")
    export.set_defaults(run=cmd_export)

    log = cmds.add_parser("log", help="download a tournament's log as it stands, to verify it on this machine")
    log.add_argument("url", type=checks.server_url, help=url_help)
    log.add_argument("tournament", help=tid_help)
    log.add_argument("--out", default=None, metavar="FILE", help="where to write it (default: <tournament>.log here)")
    log.set_defaults(run=cmd_log)

    verify = cmds.add_parser("verify", help="recompute every seating and standing from a tournament's log")
    verify.add_argument("log", help="the tournament's log, e.g. data/tournaments/T1.log")
    verify.add_argument("--tables", default=None, metavar="DIR",
                        help="where its tables' logs are (default: the tables folder beside the log's folder)")
    verify.add_argument("--receipt", default=None, metavar="HASH",
                        help="also check that the log holds the line with this hash (the receipt your "
                             "registration's answer gave you)")
    verify.set_defaults(run=cmd_verify)



def cmd_export(args: argparse.Namespace) -> int:
    from ..client import open_client

    if args.output:  # a folder that is not there, a directory: said before connecting
        target = Path(args.output)
        if not target.parent.is_dir():
            raise checks.Refused(f"cannot write {args.output}: there is no folder {target.parent}")
        if target.is_dir():
            raise checks.Refused(f"cannot write {args.output}: it is a directory")

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            state = await client.watch_tournament(args.tournament)
        if args.format == "json":
            text = msgspec.json.format(msgspec.json.encode(state).decode(), indent=1) + "\n"
        elif args.rounds:
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(HEADER)
            writer.writerows(rounds_rows(state))
            text = out.getvalue()
        else:
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(["rank", "player", "name", "points", "opponents_pct", "game_share", "tables", "byes",
                             "dropped"])
            for row in state.standings:
                writer.writerow([row.rank, row.player, row.name, row.points, round(row.opponents_pct, 6),
                                 round(row.game_share, 6), row.tables, row.byes, row.dropped])
            text = out.getvalue()
        if args.output:
            checks.write_text(args.output, text)
        else:
            sys.stdout.write(text)
        return 0

    return run_client(run)


def cmd_log(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            got = await client.tournament_log(args.tournament)
        out = Path(args.out or f"{got.tournament}.log")
        out.write_text(got.log)
        print(f"{out}: {got.lines} line(s) of {got.tournament}'s log, the last one's hash {got.head[:16]}...; "
              f"check it with: photofinish tournament verify {out}")
        return 0

    return run_client(run)


def cmd_verify(args: argparse.Namespace) -> int:
    from server.commands import verify_tournament_log

    checks.readable_file(args.log, "tournament log")  # missing, empty, a directory: one line, exit 2 (as `verify`)
    return verify_tournament_log(args.log, args.tables, args.receipt)
