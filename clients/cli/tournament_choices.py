"""`photofinish tournament` for the organiser's scoring choices and reported tables: the flags of `create`
(``--points-at``, ``--tiebreaks``, ``--first-round-by-ratings``, ``--reported-tables``), the suggested number of
Swiss rounds it prints, and the `report` (a player, with their token), `settle` and `reported-tables` (the organiser)
commands for tables played off the server with real cards.
"""

from __future__ import annotations

import argparse
import sys

from .. import checks
from . import values

TIEBREAKS = ("opponents", "share")  # server/tournament/scoring.py's, in words the server checks again


def points_at(text: str) -> tuple[int, list[float]]:
    """``SIZE=P1,P2,...``: the placement points at tables of SIZE, best first."""
    size, sep, row = text.partition("=")
    if not sep or not size.strip().isdigit():
        raise argparse.ArgumentTypeError(f"say the table size, then its points: 4=5,3,1,0; not {text!r}")
    return int(size), values.points(row)


def tiebreaks(text: str) -> list[str]:
    """``share,opponents``: the tiebreaks after points, in order."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    wrong = [t for t in names if t not in TIEBREAKS]
    if wrong or not names:
        raise argparse.ArgumentTypeError(f"tiebreaks are among {', '.join(TIEBREAKS)}, in the order wanted, "
                                         f"e.g. share,opponents; not {text!r}")
    return names


def add_create_flags(create) -> None:
    create.add_argument("--points-at", type=points_at, action="append", default=[], metavar="SIZE=P1,P2,...",
                        help="placement points at tables of SIZE, best first, e.g. --points-at 4=5,3,1,0 "
                             "--points-at 3=4,2,0 (repeatable; --points gives the --seats size's)")
    create.add_argument("--tiebreaks", type=tiebreaks, default=[], metavar="T1,T2",
                        help="the tiebreaks after points, in order, among opponents (opponents' points "
                             "percentage) and share (share of game points); the seeded lot is always last "
                             "(default opponents,share)")
    create.add_argument("--first-round-by-ratings", action="store_true",
                        help="swiss: seat round 1 from the players' ratings (the leaderboard's), the best rated "
                             "at different tables, instead of by lot")
    create.add_argument("--reported-tables", type=checks.count, default=0, metavar="N",
                        help="each round, the last N tables play with real cards, off the server: their players "
                             "report the places (photofinish tournament report) and the organiser settles a "
                             "disagreement (settle) (default 0)")


def create_fields(args: argparse.Namespace) -> dict:
    """The create request's fields these flags give."""
    by_size: dict[int, list[float]] = {}
    for size, row in args.points_at:
        if size in by_size:
            raise checks.Refused(f"--points-at {size}= is given twice")
        by_size[size] = row
    return {"points_by_size": by_size, "tiebreaks": args.tiebreaks,
            "seeding": "ratings" if args.first_round_by_ratings else "", "reported_tables": args.reported_tables}


def created_text(info) -> str:
    """What create adds to its lines: the suggested rounds of a Swiss event, and the reported tables."""
    lines = []
    if info.format == "swiss":
        lines.append(f"rounds: {info.rounds}; suggested for the field (ceil(log_{info.seats} players)): "
                     + ", ".join(f"{info.seats ** (r - 1) + 1}-{info.seats ** r} players: {r}" for r in range(2, 6)))
    if info.reported_tables:
        lines.append(f"the last {info.reported_tables} table(s) of each round play with real cards: their players "
                     f"report with: photofinish tournament report URL {info.tournament} --token TOKEN --table T "
                     "--places P,P,...")
    return "\n".join(lines)


def add_parsers(cmds, url_help: str, tid_help: str) -> None:
    report = cmds.add_parser("report", help="a player at a table played with real cards reports its places")
    report.add_argument("url", type=checks.server_url, help=url_help)
    report.add_argument("tournament", help=tid_help)
    report.add_argument("--token", required=True, help="your token, printed by register")
    report.add_argument("--table", required=True, help="your table, e.g. t5 (standings lists the round's tables)")
    report.add_argument("--places", type=values.places, required=True, metavar="P,P,...",
                        help="each seat's place, seat 1 first (1 = first, ties share their best place: 1,1,3)")
    report.set_defaults(run=cmd_report)

    settle = cmds.add_parser("settle", help="the organiser gives the places of a table played with real cards "
                                            "(its players disagree, or one cannot report)")
    settle.add_argument("url", type=checks.server_url, help=url_help)
    settle.add_argument("tournament", help=tid_help)
    settle.add_argument("--secret", required=True, help="the organiser's secret, printed by create")
    settle.add_argument("--table", required=True, help="the table, e.g. t5")
    settle.add_argument("--places", type=values.places, required=True, metavar="P,P,...",
                        help="each seat's place, seat 1 first")
    settle.add_argument("--reason", default="", help="why, in words: it is kept in the tournament's log")
    settle.set_defaults(run=cmd_settle)

    count = cmds.add_parser("reported-tables", help="the organiser: how many tables a round play with real cards, "
                                                    "from the next round seated on")
    count.add_argument("url", type=checks.server_url, help=url_help)
    count.add_argument("tournament", help=tid_help)
    count.add_argument("--secret", required=True, help="the organiser's secret, printed by create")
    count.add_argument("--tables", type=checks.count, required=True, metavar="N",
                       help="the last N tables of each round from the next one (0: every table on the server)")
    count.set_defaults(run=cmd_count)


def _call(call):
    def command(args: argparse.Namespace) -> int:
        from ..client import open_client
        from ..tournament_text import state_text
        from .running import run_client

        async def run() -> int:
            async with open_client(args.url, name="photofinish tournament") as client:
                state = await call(client, args)
            print(state_text(state))
            return 0

        return run_client(run)

    return command


cmd_report = _call(lambda client, a: client.report_result(a.tournament, a.token, a.table, a.places))
cmd_count = _call(lambda client, a: client.set_reported_tables(a.tournament, a.secret, a.tables))
cmd_settle = _call(lambda client, a: client.settle_result(a.tournament, a.secret, a.table, a.places, a.reason))


def print_created(info) -> None:
    text = created_text(info)
    if text:
        print(text, file=sys.stderr)
