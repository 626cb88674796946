"""`photofinish replay`, `verify` and `export` of a table's log: their flags, and how a walk through a log is
shown (each entry in words, fair ordering's decisions, the table drawn for a seat). The checking itself is the
server's (``server.commands``: ``replay_log``, ``verify_log``, ``export_log``); what was typed is checked here
first (a missing, empty or directory path is one line, exit 2)."""

from __future__ import annotations

import argparse
import sys
import time

from rules import get_game

from .. import checks
from . import values


def add_replay(sub) -> None:
    replay = sub.add_parser("replay", help="rebuild a table from its log and check every step")
    replay.add_argument("log")
    replay.add_argument("--step", action="store_true",
                        help="walk it one entry at a time (Enter for the next, q to quit)")
    replay.add_argument("--seat", type=checks.seat, default=None,
                        help="show what this seat saw (numbered from 1; before issue 30: from 0)")
    replay.add_argument("--speed", type=checks.replay_speed, default=0.0, help="play it in time, X times as fast")
    replay.add_argument("--allow-unfinished", action="store_true",
                        help="exit 0 for a log with no end record (a table still open) that checks out so far")
    replay.set_defaults(run=cmd_replay)


def add_verify(sub) -> None:
    verify = sub.add_parser("verify", help="check that every shuffle and roll follows from the revealed seed")
    verify.add_argument("log")
    verify.add_argument("--receipt", type=values.receipt, default=None, metavar="SEQ:HASH",
                        help="only say whether the log holds entry SEQ with exactly this hash (from an update)")
    verify.set_defaults(run=cmd_verify)


def add_export(sub) -> None:
    export = sub.add_parser("export", help="a log as one JSON document")
    export.add_argument("log")
    export.add_argument("--format", default="json", choices=["json"])
    export.add_argument("--output", "-o", default=None)
    export.set_defaults(run=cmd_export)


def cmd_replay(args: argparse.Namespace) -> int:
    from server.commands import replay_log

    walk = args.step or args.seat is not None or args.speed
    return replay_log(args.log, seat=args.seat, show=_shower(args) if walk else None,
                      allow_unfinished=args.allow_unfinished)


def _shower(args: argparse.Namespace):
    """How `replay` shows each entry of its walk: in words (as the seat of ``--seat`` saw it), with fair
    ordering's decision, the table drawn, in time at ``--speed``; with ``--step``, waiting for Enter."""
    from ..feed import feed_lines
    from ..log_words import LogPeople, fair_words, refused_words
    from ..render import render

    last: dict = {"time": None, "game": None, "people": None}

    def show(read, entry, state, events) -> bool:
        if last["game"] is None:
            last["game"], last["people"] = get_game(read.header.game), LogPeople.of(read)
        game, people = last["game"], last["people"]
        if args.speed and last["time"] is not None:
            time.sleep(max(0.0, entry.time - last["time"]) / args.speed)
        last["time"] = entry.time
        if events is None:  # a refused intent: shown with its reason, the table unchanged
            print(refused_words(entry, people, args.seat))
        else:
            shown = feed_lines(game.info.name, [game.redact(e, args.seat) for e in events], args.seat,
                               game.view(state, args.seat))
            print(f"#{entry.seq} t={entry.time:.3f}s {people.who(entry)}: " + ("; ".join(shown) or "-"))
        decision = fair_words(entry, people)
        if decision:
            print(decision)
        if events is not None and (args.seat is not None or args.step):
            print(render(game.info.name, game.view(state, args.seat)))
        if args.step:
            try:
                answer = input("-- Enter for the next entry, q to quit --")
            except EOFError:
                answer = "q"
            if answer.strip().lower() in ("q", "quit"):
                return False
        return True

    return show


def cmd_verify(args: argparse.Namespace) -> int:
    from server.commands import verify_log

    checks.readable_file(args.log)  # missing, a directory, empty: a mistake in what was typed (2, stderr)
    return verify_log(args.log, args.receipt)


def cmd_export(args: argparse.Namespace) -> int:
    from server.commands import export_log

    checks.readable_file(args.log)  # no document at all for a file that is not there
    document, problem = export_log(args.log)
    if document is None:
        print(f"photofinish export: {args.log}: {problem}", file=sys.stderr)
        return 1
    if args.output:
        checks.write_text(args.output, document)
    else:
        print(document)
    if problem is not None:
        print(f"photofinish export: {args.log}: {problem}", file=sys.stderr)
    return 0 if problem is None else 1
