"""The commands that talk to a running server: `create` (a table), `watch` and `playback` (as a spectator),
`play` (a seat of yours, or your tournament's tables in turn), `bots` (bots seated over the wire), `tables`
(its tables, one line each) and `load` (a bounded load test)."""

from __future__ import annotations

import argparse
import math
import secrets
import sys

from rules import GAMES, get_game
from rules.bots import POLICY_NAMES

from .. import checks
from ..checks import Refused
from ..words import command_name, seat_list
from . import values
from .running import run_client


def add_create(sub) -> None:
    create = sub.add_parser("create", help="open a table of any game on a server; prints its id")
    create.add_argument("url", type=checks.server_url)
    create.add_argument("--game", default="flag_finish", choices=sorted(GAMES))
    create.add_argument("--mode", default=None, help="lockstep or challenge (default: the game's first mode)")
    create.add_argument("--seats", type=checks.positive, default=2)
    create.add_argument("--bot", action="append", type=values.bot, default=[], metavar="SEAT[:POLICY]",
                        help="a seat the server fills with its own bot (repeatable)")
    create.add_argument("--option", action="append", type=values.option, default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. rounds=3 (repeatable)")
    create.add_argument("--track", default=None, metavar="FILE",
                        help="Checkered Flag: race on the track in this file (its text goes into the log)")
    create.add_argument("--name", default="")
    create.add_argument("--turn-time-ms", type=checks.milliseconds, default=0, help="lockstep: a seat's time to act (0: none)")
    create.add_argument("--bot-delay-ms", type=checks.milliseconds, default=None,
                        help="server bots' pause before each action (default: a pace a person can play against, "
                             "2500 in Challenge Mode, 800 in lockstep)")
    create.add_argument("--ordering", default=None, choices=("arrival", "fair"),
                        help="how simultaneous contested actions are ordered (default: fair in Challenge Mode)")
    create.add_argument("--fair-ms", type=checks.milliseconds, default=50,
                        help="fair ordering: the most a seat's round trip is credited (default 50)")
    create.add_argument("--spectator-delay", type=checks.delay_seconds, default=0, metavar="SECONDS",
                        help="a broadcast delay: spectators see the table this many seconds ago (default 0: live)")
    create.add_argument("--spectator-delay-entries", type=checks.delay_entries, default=0, metavar="N",
                        help="a broadcast delay in moves: spectators see the table N log entries behind, however "
                             "long a turn takes; its end at once (default 0: none; with --spectator-delay, both)")
    create.add_argument("--broadcast", action="store_true",
                        help="with a spectator delay: a broadcast view, every hand shown past the delay, for a "
                             "commentator or a stream; prints its key (watch --broadcast-key)")
    create.set_defaults(run=cmd_create)


def add_watch(sub) -> None:
    watch = sub.add_parser("watch", help="watch a table live as a spectator")
    watch.add_argument("url", type=checks.server_url)
    watch.add_argument("table")
    watch.add_argument("--broadcast-key", default="", metavar="KEY",
                       help="the table's broadcast view: every hand shown, past its delay (the key `create "
                            "--broadcast` printed); never from a seat's connection")
    watch.set_defaults(run=cmd_watch)


def add_playback(sub) -> None:
    playback = sub.add_parser("playback", help="watch a finished table's log played back by the server")
    playback.add_argument("url", type=checks.server_url)
    playback.add_argument("log_table", help="the id of a finished table whose log the server holds")
    playback.add_argument("--speed", type=checks.speed, default=1.0)
    playback.set_defaults(run=cmd_playback)


def add_bots(sub) -> None:
    bots = sub.add_parser("bots", help="sit bots at a table over the wire")
    bots.add_argument("url", type=checks.server_url)
    bots.add_argument("--table", required=True)
    bots.add_argument("--seats", type=checks.positive, default=1)
    bots.add_argument("--policy", default="heuristic", choices=POLICY_NAMES)
    bots.add_argument("--seed", type=checks.seed, default=None)
    bots.set_defaults(run=cmd_bots)


def add_play(sub) -> None:
    play = sub.add_parser("play", help="take a seat yourself and type your moves (again: resume your seat)")
    play.add_argument("url")
    play.add_argument("--table", default=None)
    play.add_argument("--tournament", default=None,
                      help="follow this tournament with your player --token: each round's table, played in turn")
    play.add_argument("--seat", type=checks.seat, default=None,
                      help="the seat to take, numbered from 1 as the screen shows it (before issue 30: from 0)")
    play.add_argument("--name", default="")
    play.add_argument("--token", default=None,
                      help="resume the seat of this token (printed when you sat down; `play` remembers it too)")
    play.set_defaults(run=cmd_play)


def add_load(sub) -> None:
    load = sub.add_parser("load", help="bounded load test: N tables of 3 seats acting as fast as they can")
    load.add_argument("url", type=checks.server_url)
    load.add_argument("--tables", type=int, default=10)
    load.add_argument("--seconds", type=float, default=10.0, help="stop after this long (at most 600)")
    load.add_argument("--actions", type=int, default=1_000_000, help="... or after this many answers")
    load.add_argument("--rate", type=float, default=0.0,
                      help="offer this many actions a second in all, on a schedule (0: as fast as they can)")
    load.add_argument("--patches", action="store_true",
                      help="seats ask for updates that carry only what changed (hello patches: true), as a bot may")
    load.add_argument("--no-events", dest="events", action="store_false",
                      help="with --patches: seats ask for updates without events (hello events: false)")
    load.add_argument("--encoding", choices=("json", "msgpack"), default="json", help="the seats' frames")
    load.add_argument("--rows", action="store_true",
                      help="with --patches --encoding msgpack: updates come as arrays, not maps (hello rows: true)")
    load.set_defaults(run=cmd_load)


def add_tables(sub) -> None:
    tables = sub.add_parser("tables", help="list a server's tables, one line each")
    tables.add_argument("url", type=checks.server_url)
    tables.set_defaults(run=cmd_tables)


def cmd_create(args: argparse.Namespace) -> int:
    from server.protocol import CreateTable
    from server.protocol.commandline import human_pace_ms

    from ..client import open_client

    game = get_game(args.game)
    mode = args.mode or game.info.modes[0]
    if args.track:
        args.option.append(("track", checks.read_text(args.track, "track file")))
    if args.broadcast and not (args.spectator_delay or args.spectator_delay_entries):
        raise Refused("--broadcast shows every hand: it needs --spectator-delay or --spectator-delay-entries, so "
                      "that what it shows is over before anyone can see it")

    async def run() -> int:
        async with open_client(args.url, name="photofinish create") as client:
            created = await client.request(CreateTable(
                game=args.game, mode=mode, seats=args.seats, options=dict(args.option), name=args.name,
                bots=[{"seat": seat, "policy": policy} for seat, policy in args.bot],
                turn_time_ms=args.turn_time_ms, ordering=args.ordering, fair_ms=args.fair_ms,
                spectator_delay_ms=round(args.spectator_delay * 1000),
                spectator_delay_entries=args.spectator_delay_entries,
                bot_delay_ms=human_pace_ms(mode) if args.bot_delay_ms is None else args.bot_delay_ms,
                broadcast=args.broadcast))
        info = created.table
        print(info.table)
        me = command_name()
        if len({seat for seat, _ in args.bot}) >= args.seats:  # no seat to take: only to watch
            print(f"{game.info.title}, {mode}, {args.seats} seats, every one a server bot's; watch with:\n"
                  f"  {me} watch {args.url} {info.table}", file=sys.stderr)
        else:
            print(f"{game.info.title}, {mode}, {args.seats} seats; join with:\n"
                  f"  {me} play {args.url} --table {info.table}\n"
                  f"  {me} watch {args.url} {info.table}", file=sys.stderr)
        if created.broadcast_key:  # the creator's alone: shown once
            page = args.url.replace("ws://", "http://", 1).replace("wss://", "https://", 1).rstrip("/")
            print(f"its broadcast view (every hand, past the delay; keep the key to yourself):\n"
                  f"  {me} watch {args.url} {info.table} --broadcast-key {created.broadcast_key}\n"
                  f"  in a browser (a stream's source): {page}/#/broadcast/{info.table}/{created.broadcast_key}",
                  file=sys.stderr)
        return 0

    return run_client(run)


def cmd_watch(args: argparse.Namespace) -> int:
    from ..terminal import watch

    return run_client(watch, args.url, args.table, broadcast_key=args.broadcast_key)


def cmd_playback(args: argparse.Namespace) -> int:
    from ..terminal import playback

    return run_client(playback, args.url, args.log_table, args.speed)


def cmd_play(args: argparse.Namespace) -> int:
    from ..terminal import play

    if args.tournament:
        from ..tournament_play import follow_tournament

        if not args.token:
            print("photofinish play: --tournament needs your player --token (from `tournament register`)",
                  file=sys.stderr)
            return 2
        return run_client(follow_tournament, args.url, args.tournament, args.token)
    if not args.table:
        print("photofinish play: say which --table (or --tournament T --token TOKEN)", file=sys.stderr)
        return 2
    return run_client(play, args.url, args.table, seat=args.seat, name=args.name, token=args.token)


def cmd_bots(args: argparse.Namespace) -> int:
    from ..client import open_client
    from ..remote_bots import play_seats
    from ..tables import find_table

    async def run() -> int:
        async with open_client(args.url, name="photofinish bots", reconnect=False) as client:
            info = await find_table(client, args.table)
        free = [seat.seat for seat in info.seats if seat.state == "free"]
        if info.status == "over":
            raise Refused(f"the game at table {info.table} is over; nobody was seated")
        if len(free) < args.seats:
            noun = "seat" if len(free) == 1 else "seats"
            which = f" ({seat_list(free)})" if free else ""
            bots = "bot" if args.seats == 1 else "bots"
            raise Refused(f"table {info.table} has {len(free) or 'no'} free {noun}{which}, too few for "
                          f"{args.seats} {bots}; nobody was seated")
        seed = args.seed if args.seed is not None else secrets.randbits(32)

        def lost(reason: str) -> None:
            print(f"photofinish bots: connection lost ({reason}); reconnecting, the bots resume their seats",
                  file=sys.stderr)

        seats, missed, stopped = await play_seats(args.url, info.table, args.seats, args.policy, seed, on_lost=lost)
        if seats:
            print(f"{args.policy} {'bot' if len(seats) == 1 else 'bots'} played {seat_list(seats)} at {info.table} "
                  f"to the end")
        for seat, why in stopped:
            print(f"photofinish bots: the bot at seat {seat + 1} stopped before the end: {why}", file=sys.stderr)
        if missed:
            print(f"photofinish bots: {len(missed)} of {args.seats} bots found no seat (someone sat down "
                  f"first: {missed[0]})", file=sys.stderr)
        return 1 if missed or stopped else 0

    return run_client(run)


def cmd_load(args: argparse.Namespace) -> int:
    from ..load import Speech, print_load, run_load, summarize

    if not 1 <= args.tables <= 2000 or not 0 < args.seconds <= 600 or args.rate < 0 or args.actions < 1:
        print("photofinish load: --tables is 1..2000, --seconds 0..600, --rate >= 0 and --actions >= 1",
              file=sys.stderr)
        return 2

    from server.protocol.gctune import settle_gc

    if not math.isfinite(args.rate) or not math.isfinite(args.seconds):
        print("photofinish load: --seconds and --rate are numbers", file=sys.stderr)
        return 2
    if not args.events and not args.patches:
        print("photofinish load: --no-events needs --patches (a connection without patches is always sent events)",
              file=sys.stderr)
        return 2
    if args.rows and (not args.patches or args.encoding != "msgpack"):
        print("photofinish load: --rows needs --patches and --encoding msgpack (rows are msgpack arrays of the "
              "patched updates)", file=sys.stderr)
        return 2
    speech = Speech(patches=args.patches, events=args.events, encoding=args.encoding, rows=args.rows)
    settle_gc()  # the load's own pauses would show as the server's latency

    async def run() -> int:
        from ..client import open_client

        async with open_client(args.url, name="photofinish load", reconnect=False):
            pass  # is a server there? One clear line now rather than a failure per table later
        stats = await run_load(args.url, args.tables, args.seconds, rate=args.rate, max_actions=args.actions,
                               speech=speech)
        pace = f"paced to {args.rate:g} actions/s" if args.rate else "each seat acting as fast as it can"
        said = f"; seats say patches {speech.patches}, events {speech.events}, {speech.encoding}" \
            f"{' rows' if speech.rows else ''}" \
            if speech != Speech() else ""
        print(f"{args.tables} Flag Finish Challenge tables x 3 seats against {args.url}, {pace}, "
              f"{stats.elapsed:.1f} s; {stats.games} games ran to their end and were replaced{said}")
        row = summarize(stats, args.tables, rate=args.rate)
        print_load([row])
        print(f"the seats were sent {row['received_bytes_per_action']:.0f} bytes per action (frame payloads)")
        return 0

    return run_client(run)


def cmd_tables(args: argparse.Namespace) -> int:
    from ..client import open_client
    from ..tables import describe_table

    async def run() -> int:
        async with open_client(args.url, name="photofinish tables", reconnect=False) as client:
            tables = await client.list_tables()
        for info in tables:
            print(describe_table(info))
        if not tables:
            print(f"no tables at {args.url}", file=sys.stderr)
        return 0

    return run_client(run)
