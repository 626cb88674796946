"""The commands that need no server: `games` (the games, modes and options), `match` (an offline match of
bots, printed race by race with the score table), `tracks` (Checkered Flag's tracks, or track files checked)
and `schema` (the protocol's JSON Schema)."""

from __future__ import annotations

import argparse
import secrets
import sys

from rules import GAMES, RulesError, get_game, make_setup
from rules.bots import POLICY_NAMES, get_policy

from .. import checks
from ..checks import Refused
from ..feed import describe_event
from ..offline import play_game
from ..words import and_list, seat_no
from . import values


def add_schema(sub) -> None:
    schema = sub.add_parser("schema", help="print the JSON Schema of every message and of each game's actions "
                                            "and views (generated from the protocol's types)")
    schema.add_argument("--markdown", action="store_true",
                        help="print the reference instead, as Markdown: every client message's required fields "
                             "and defaults, each game's actions and view field by field "
                             "(server/PROTOCOL-REFERENCE.md is this output)")
    schema.set_defaults(run=cmd_schema)


def add_tracks(sub) -> None:
    tracks = sub.add_parser("tracks", help="list the built-in Checkered Flag tracks, or check track files")
    tracks.add_argument("files", nargs="*", metavar="FILE")
    tracks.set_defaults(run=cmd_tracks)


def add_games(sub) -> None:
    games = sub.add_parser("games", help="list the games, their modes and options")
    games.set_defaults(run=cmd_games)


def add_match(sub) -> None:
    match = sub.add_parser("match", help="play an offline match of bots and print it")
    match.add_argument("--game", default="flag_finish", choices=sorted(GAMES))
    match.add_argument("--mode", default=None, help="default: the game's first mode")
    match.add_argument("--seed", type=checks.seed, default=None, help="the match seed (default: a fresh random one)")
    match.add_argument("--policies", nargs="+", default=["heuristic", "heuristic", "random"],
                       choices=POLICY_NAMES, help="one policy per seat")
    match.add_argument("--option", action="append", type=values.option, default=[],
                       metavar="NAME=VALUE", help="a game option, e.g. races=3 (repeatable)")
    match.set_defaults(run=cmd_match)


def cmd_games(args: argparse.Namespace) -> int:
    for game in GAMES.values():
        info = game.info
        print(f"{info.name}: {info.title} (rules v{info.rules_version}), {info.min_seats}-{info.max_seats} seats, "
              f"modes: {', '.join(info.modes)}")
        for spec in info.options:
            bounds = f" [{spec.minimum}..{spec.maximum}]" if spec.minimum is not None else ""
            print(f"    {spec.name} = {spec.default!r}{bounds}: {spec.doc}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    args.mode = args.mode or game.info.modes[-1]
    setup = make_setup(game.info, len(args.policies), args.mode, dict(args.option))
    policies = [get_policy(args.game, name) for name in args.policies]
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    names = [f"seat {seat_no(i)} ({name})" for i, name in enumerate(args.policies)]
    print(f"{game.info.title}, {args.mode} mode, seed {seed}: " + ", ".join(names))
    endings: list[str] = []  # how the game ended, from its last event that says ("finish", "turn limit")

    def show(session, steps):
        for step in steps:
            for event in step.events:
                kind = type(event).__name__
                if kind in ("RaceEnded", "RoundEnded", "SeatFinished"):  # said as the feed says them
                    print(describe_event(game.info.name, event))
                elif kind in ("RaceWon", "GameEnded") and isinstance(getattr(event, "reason", None), str):
                    endings.append(event.reason.replace("_", " "))

    session = play_game(game, setup, seed, policies, on_steps=show)
    result, places = session.result(), game.placings(session.state)
    winners = and_list(f"seat {seat_no(s)}" for s in result.winners)
    how = f" ({endings[-1]})" if endings else ""
    print(f"{winners} {'wins' if len(result.winners) == 1 else 'share the win'}{how}")
    print()
    # Finish Line's result scores are its places (its rules have no score): the table shows them once.
    scored = game.info.name != "finish_line"
    better = "lower" if result.lower_is_better else "higher"
    print("seat  policy      place" + (f"  score ({better} is better)" if scored else ""))
    for seat, name in enumerate(args.policies):
        score = f"  {result.scores[seat]:>5}" if scored else ""
        mark = "  winner" if seat in result.winners else ""
        print(f"{seat_no(seat):>4}  {name:<10}  {places[seat]:>5}{score}{mark}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    import json

    from server.protocol import json_schema
    from server.protocol.gamedoc import reference_markdown

    if args.markdown:
        print(reference_markdown(json_schema()), end="")
    else:
        print(json.dumps(json_schema(), indent=1))
    return 0


def cmd_tracks(args: argparse.Namespace) -> int:
    from rules.checkered_flag.track import BUILTIN_TRACKS, parse_track

    status = 0
    if not args.files:
        for name, text in BUILTIN_TRACKS.items():
            track = parse_track(text)
            print(f"{name:<16} {track.name}: {track.spaces} spaces x {track.laps} lap(s), "
                  f"{len(track.danger)} danger zones, {len(track.narrow)} narrow sections")
    for path in args.files:
        try:
            track = parse_track(checks.read_text(path, "track file"))
        except Refused as error:
            print(error, file=sys.stderr)
            status = 1
        except RulesError as error:
            print(f"{path}: {error.message}", file=sys.stderr)
            status = 1
        else:
            print(f"{path}: ok - {track.name}, {track.spaces} spaces x {track.laps} lap(s)")
    return status
