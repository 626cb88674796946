"""`photofinish tournament ...`: the organiser's actions and the round history.

    repair | swap | end-round | cancel | penalise | disqualify | undo-drop | reenter   (the organiser's secret)
    rounds URL T                                                                      (anyone)

Each action is one request (``clients/client.py`` ``organiser_action``) with the organiser's secret and a reason
kept in the tournament's log; players are named by name or id (T1p3). Each prints the tournament as it then
stands and every round's history (``clients/tournament_history.py``); `reenter` prints the new entry's token.
"""

from __future__ import annotations

import argparse
import sys

from .. import checks
from ..tournament_history import rounds_text
from ..tournament_text import state_text
from .running import run_client


def _pair(text: str) -> list[str]:
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"two players, NAME,NAME, not {text!r}")
    return parts


def add_parsers(cmds, url_help: str, tid_help: str) -> None:
    def organiser(name: str, help: str, run, player: bool = False):
        parser = cmds.add_parser(name, help=help)
        parser.add_argument("url", type=checks.server_url, help=url_help)
        parser.add_argument("tournament", help=tid_help)
        parser.add_argument("--secret", required=True, help="the organiser's secret, printed by create")
        parser.add_argument("--reason", required=True, help="why, in words: it is kept in the tournament's log")
        if player:
            parser.add_argument("--player", required=True, help="the player's name or id (T1p3)")
        parser.set_defaults(run=run)
        return parser

    repair = organiser("repair", "seat the round waiting to begin again (--pairings-first), from the standings "
                                 "now, keeping --exclude pairs apart", cmd_repair)
    repair.add_argument("--exclude", type=_pair, action="append", default=[], metavar="NAME,NAME",
                        help="two players who must not share a table if any seating allows it (repeatable)")
    swap = organiser("swap", "two players of the round waiting to begin change places", cmd_swap)
    swap.add_argument("--players", type=_pair, required=True, metavar="NAME,NAME", help="the two players")
    organiser("end-round", "end the current round now: tables still playing end as they stand", cmd_end_round)
    organiser("cancel", "cancel the event: standings frozen as they are, the seed revealed", cmd_cancel)
    penalise = organiser("penalise", "a penalty: --points off, or a --game-loss at a finished table", cmd_penalise,
                         player=True)
    penalise.add_argument("--points", type=float, default=0.0, metavar="POINTS", help="points off their total")
    penalise.add_argument("--game-loss", default="", metavar="TABLE",
                          help="place them last at this finished table (rounds lists the tables)")
    organiser("disqualify", "disqualify a player: seated no more, ranked last", cmd_disqualify, player=True)
    organiser("undo-drop", "undo a player's drop: seated again from the next round", cmd_undo_drop, player=True)
    organiser("reenter", "a dropped player enters again from 0 points (--reentry); prints the new token",
              cmd_reenter, player=True)
    rounds = cmds.add_parser("rounds", help="every round's tables, seats and results, and the organiser's decisions")
    rounds.add_argument("url", type=checks.server_url, help=url_help)
    rounds.add_argument("tournament", help=tid_help)
    rounds.set_defaults(run=cmd_rounds)


def _action(kind: str, fields):
    def command(args: argparse.Namespace) -> int:
        from ..client import open_client

        async def run() -> int:
            async with open_client(args.url, name="photofinish tournament") as client:
                state = await client.organiser_action(kind, args.tournament, args.secret, reason=args.reason,
                                                      **fields(args))
            print(state_text(state))
            print(rounds_text(state))
            return 0

        return run_client(run)

    return command


cmd_repair = _action("repair_round", lambda a: {"exclude": a.exclude})
cmd_swap = _action("swap_players", lambda a: {"players": a.players})
cmd_end_round = _action("end_round", lambda a: {})
cmd_cancel = _action("cancel_tournament", lambda a: {})
cmd_disqualify = _action("disqualify", lambda a: {"player": a.player})
cmd_undo_drop = _action("undo_drop", lambda a: {"player": a.player})


def cmd_penalise(args: argparse.Namespace) -> int:
    if bool(args.points) == bool(args.game_loss):  # said before connecting
        raise checks.Refused("a penalty is --points N or --game-loss TABLE: one of them")
    return _action("penalise", lambda a: {"player": a.player, "points": a.points, "table": a.game_loss})(args)


def cmd_reenter(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            entry = await client.organiser_action("reenter", args.tournament, args.secret, player=args.player,
                                                  reason=args.reason)
        print(entry.token)
        print(f"{entry.name} is player {entry.player} of {entry.tournament}, a new entry from 0 points; the token "
              f"above is theirs.\nplay with:  photofinish play {args.url} --tournament {entry.tournament} --token "
              f"{entry.token}", file=sys.stderr)
        return 0

    return run_client(run)


def cmd_rounds(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            state = await client.watch_tournament(args.tournament)
        print(rounds_text(state) or "no round seated yet")
        return 0

    return run_client(run)
