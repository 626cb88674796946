"""`photofinish tournament ...`: run a tournament from the command line.

    create URL --game G ...        open one; prints its id and the organiser's secret
    register URL T --name NAME     enter a player; prints their id and secret token
    check-in | drop | start | correct | standings | rounds | list | export | bots | verify
    report | settle | reported-tables   tables played with real cards: players' places, the organiser's word
    repair | swap | end-round | cancel | penalise | disqualify | undo-drop | reenter  (tournament_actions.py)

Every call is one request to the server (``clients/client.py``); `verify` needs no server: it checks a
tournament's log and its tables' logs on disk (``server.commands.verify_tournament_log``).
"""

from __future__ import annotations

import argparse
import sys

from rules import GAMES
from rules.bots import POLICY_NAMES

from .. import checks
from ..tournament_history import rounds_text
from ..tournament_text import count_of, state_text
from . import tournament_actions, tournament_choices, tournament_files, values
from .running import run_client


def add_parser(sub) -> None:
    parser = sub.add_parser("tournament", help="run a tournament: create, register, start, standings, export, "
                                               "verify, bots")
    cmds = parser.add_subparsers(dest="tournament_command", metavar="SUBCOMMAND")

    def what_it_can_do(args) -> int:  # `photofinish tournament` alone: its subcommands, then the mistake
        parser.print_help()
        print("photofinish tournament: a subcommand is required: one of the above", file=sys.stderr)
        return 2

    parser.set_defaults(run=what_it_can_do)

    url_help = "the server, e.g. ws://127.0.0.1:8765"
    tid_help = "the tournament's id, e.g. T1 (create prints it, list shows them)"

    create = cmds.add_parser("create", help="open a tournament; prints its id and the organiser's secret")
    create.add_argument("url", type=checks.server_url, help=url_help)
    create.add_argument("--game", default="flag_finish", choices=sorted(GAMES),
                        help="the game every table plays (default flag_finish; `photofinish games` lists them)")
    create.add_argument("--mode", default=None, help="lockstep or challenge (default: the game's first mode)")
    create.add_argument("--seats", type=checks.positive, default=3, metavar="N",
                        help="players per table (default 3; smaller tables when the count does not divide)")
    create.add_argument("--format", default="swiss", choices=("swiss", "round_robin", "arena"),
                        help="swiss (default): pairs by standings; round_robin: everyone meets everyone; "
                             "arena: a new table as soon as enough players are free, for --arena-time")
    create.add_argument("--rounds", type=checks.positive, default=None, metavar="N",
                        help="swiss: the number of rounds (default 3); other formats refuse it")
    create.add_argument("--top", type=checks.count, default=0, metavar="N",
                        help="swiss: a final table of the top N after the rounds (default 0: none; shrinks to the "
                             "players left if fewer remain); other formats refuse it")
    create.add_argument("--option", action="append", type=values.option, default=[], metavar="NAME=VALUE",
                        help="a game option for every table, e.g. races=3 (repeatable)")
    create.add_argument("--points", type=values.points, default=None, metavar="P1,P2,...",
                        help="placement points, best first, 0 or more; fractions are kept (2.5,1,0) (default by table "
                             "size: 3,0 / 3,1,0 / 5,3,1,0 ...)")
    create.add_argument("--bye-points", type=values.point, default=None, metavar="POINTS",
                        help="what a bye is worth (default: the points of 1st place)")
    create.add_argument("--round-time", type=values.seconds, default=0, metavar="SECONDS",
                        help="end unfinished tables as they stand after this long (0: no limit)")
    create.add_argument("--turn-time", type=values.seconds, default=60_000, metavar="SECONDS",
                        help="lockstep tables: a seat's time to act (default 60)")
    create.add_argument("--no-show", type=values.seconds, default=60_000, metavar="SECONDS",
                        help="an absent player's seat is played by a stand-in bot after this long (default 60)")
    create.add_argument("--arena-time", type=values.seconds, default=0, metavar="SECONDS",
                        help="arena: how long it runs (default 10 minutes)")
    create.add_argument("--late-rounds", type=checks.count, default=0, metavar="N",
                        help="accept entries until round N starts (default 0: only before the start)")
    create.add_argument("--check-in", action="store_true", help="seat only players who checked in")
    create.add_argument("--spectator-delay", type=checks.delay_seconds, default=0, metavar="SECONDS",
                        help="a broadcast delay at every table: spectators see each game this many seconds ago "
                             "(default 0: live)")
    create.add_argument("--spectator-delay-entries", type=checks.delay_entries, default=0, metavar="N",
                        help="a broadcast delay in moves at every table: spectators see each game N log entries "
                             "behind, however long a turn takes (default 0: none; with --spectator-delay, both)")
    create.add_argument("--max-players", type=checks.count, default=0, metavar="N",
                        help="at most N players hold a place; later registrations go on a waitlist, and a player "
                             "who withdraws before the start gives their place to the first waiting (default 0: no "
                             "cap)")
    create.add_argument("--pairings-first", action="store_true",
                        help="swiss: each round is seated and published first; `start` begins it (until then it may be "
                             "re-paired or players swapped)")
    create.add_argument("--reentry", action="store_true",
                        help="swiss: a dropped player may enter again (`reenter`), as a new entry from 0 points")
    create.add_argument("--bot-delay-ms", type=checks.milliseconds, default=None, metavar="MS",
                        help="stand-in bots' pause before each action (default: a pace a person can play against, "
                             "2500 in Challenge Mode, 800 in lockstep)")
    create.add_argument("--name", default="", help="the tournament's name, shown to everyone (default: its id)")
    tournament_choices.add_create_flags(create)
    create.set_defaults(run=cmd_create)

    register = cmds.add_parser("register", help="enter a player; prints their id and secret token")
    register.add_argument("url", type=checks.server_url, help=url_help)
    register.add_argument("tournament", help=tid_help)
    register.add_argument("--name", required=True, help="the player's name (a name already taken, in any case, "
                                                        "is refused)")
    register.set_defaults(run=cmd_register)

    check_in = cmds.add_parser("check-in", help="a registered player says they are here")
    check_in.add_argument("url", type=checks.server_url, help=url_help)
    check_in.add_argument("tournament", help=tid_help)
    check_in.add_argument("--token", required=True, help="the player's token, printed by register")
    check_in.set_defaults(run=cmd_check_in)

    drop = cmds.add_parser("drop", help="leave (with your --token) or drop a player (--secret and --player)")
    drop.add_argument("url", type=checks.server_url, help=url_help)
    drop.add_argument("tournament", help=tid_help)
    drop.add_argument("--token", default="", help="a player leaving: their token, printed by register")
    drop.add_argument("--secret", default="", help="the organiser dropping a player: the secret create printed")
    drop.add_argument("--player", default=None, help="with --secret: the player's name or id (T1p3)")
    drop.set_defaults(run=cmd_drop)

    start = cmds.add_parser("start", help="start the tournament (or, with --next-round, the next round now)")
    start.add_argument("url", type=checks.server_url, help=url_help)
    start.add_argument("tournament", help=tid_help)
    start.add_argument("--secret", required=True, help="the organiser's secret, printed by create")
    start.add_argument("--next-round", action="store_true",
                       help="start the next round now, before every table of this one is over")
    start.set_defaults(run=cmd_start)

    correct = cmds.add_parser("correct", help="correct a table's result (each seat's place) with a reason")
    correct.add_argument("url", type=checks.server_url, help=url_help)
    correct.add_argument("tournament", help=tid_help)
    correct.add_argument("--secret", required=True, help="the organiser's secret, printed by create")
    correct.add_argument("--table", required=True, help="the table whose result is corrected, e.g. t5 "
                                                         "(standings lists the round's tables)")
    correct.add_argument("--places", type=values.places, required=True, metavar="P,P,...",
                         help="each seat's place, seat 1 first (1 = first), e.g. 2,1,3")
    correct.add_argument("--reason", required=True, help="why, in words: it is kept in the tournament's log")
    correct.set_defaults(run=cmd_correct)

    standings = cmds.add_parser("standings", help="print the standings, the current round and every round before")
    standings.add_argument("url", type=checks.server_url, help=url_help)
    standings.add_argument("tournament", help=tid_help)
    standings.set_defaults(run=cmd_standings)

    listing = cmds.add_parser("list", help="the server's tournaments")
    listing.add_argument("url", type=checks.server_url, help=url_help)
    listing.set_defaults(run=cmd_list)

    ratings = cmds.add_parser("leaderboard", help="a game's ratings across tournaments, best first")
    ratings.add_argument("url", type=checks.server_url, help=url_help)
    ratings.add_argument("--game", default="flag_finish", choices=sorted(GAMES),
                         help="whose ratings (default flag_finish)")
    ratings.add_argument("--limit", type=checks.positive, default=20, metavar="N",
                         help="show the best N players (default 20)")
    ratings.set_defaults(run=cmd_leaderboard)

    bots = cmds.add_parser("bots", help="fill a tournament with bots over the wire and play it to the end")
    bots.add_argument("url", type=checks.server_url, help=url_help)
    bots.add_argument("tournament", help=tid_help)
    bots.add_argument("--players", type=checks.positive, default=12, metavar="N",
                      help="how many bots register, 1-300 (default 12)")
    bots.add_argument("--policy", default="heuristic", choices=POLICY_NAMES,
                      help="how they play (default heuristic)")
    bots.add_argument("--seed", type=checks.seed, default=None,
                      help="the bots' seed, a whole number: the same seed plays the same moves (default: random)")
    bots.add_argument("--pace-ms", type=checks.milliseconds, default=0, metavar="MS",
                      help="a pause of about this long before each action (e.g. 2500 when people play too)")
    bots.add_argument("--secret", default="", help="the organiser's secret: start the tournament once all are in")
    bots.set_defaults(run=cmd_bots)

    tournament_files.add_parsers(cmds, url_help, tid_help)  # export, log, verify: the event as files
    tournament_choices.add_parsers(cmds, url_help, tid_help)  # report, settle, reported-tables
    tournament_actions.add_parsers(cmds, url_help, tid_help)  # the organiser's actions, and `rounds`


def cmd_create(args: argparse.Namespace) -> int:
    from rules import get_game
    from server.protocol.commandline import human_pace_ms

    from ..client import open_client

    mode = args.mode or get_game(args.game).info.modes[0]
    # a stand-in plays against the people at its table: at full speed it would end a Challenge race at once
    bot_delay_ms = human_pace_ms(mode) if args.bot_delay_ms is None else args.bot_delay_ms

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            created = await client.create_tournament(
                name=args.name, game=args.game, mode=mode, seats=args.seats, options=dict(args.option),
                format=args.format, rounds=args.rounds, top=args.top, points=args.points,
                bye_points=args.bye_points, round_time_ms=args.round_time, turn_time_ms=args.turn_time,
                no_show_ms=args.no_show, arena_ms=args.arena_time, late_entry_rounds=args.late_rounds,
                check_in=args.check_in, bot_delay_ms=bot_delay_ms, max_players=args.max_players,
                spectator_delay_ms=round(args.spectator_delay * 1000),
                spectator_delay_entries=args.spectator_delay_entries, pairings_first=args.pairings_first,
                reentry=args.reentry,
                **tournament_choices.create_fields(args))
        info = created.tournament
        print(info.tournament)
        print(f"{info.name}: {args.game} {mode}, {info.format}, tables of {info.seats}; seed commitment "
              f"{info.commitment[:16]}...\norganiser secret: {created.secret} (keep it: start, corrections, drops)\n"
              f"players join with:  photofinish tournament register {args.url} {info.tournament} --name NAME\n"
              f"start it with:      photofinish tournament start {args.url} {info.tournament} --secret "
              f"{created.secret}", file=sys.stderr)
        tournament_choices.print_created(info)
        return 0

    return run_client(run)


def cmd_register(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            entry = await client.register(args.tournament, args.name)
        print(entry.token)
        if entry.waitlisted:
            print(f"{entry.tournament} is full: {entry.name} is number {entry.waitlist_position} on its waitlist, "
                  "and takes a place if one frees before the start", file=sys.stderr)
        print(f"{entry.name} is player {entry.player} of {entry.tournament}; your token is above (keep it).\n"
              f"play your tables with:  photofinish play {args.url} --tournament {entry.tournament} "
              f"--token {entry.token}", file=sys.stderr)
        return 0

    return run_client(run)


def _simple(call):
    def command(args: argparse.Namespace) -> int:
        from ..client import open_client

        async def run() -> int:
            async with open_client(args.url, name="photofinish tournament") as client:
                state = await call(client, args)
            print_state(state)
            return 0

        return run_client(run)

    return command


cmd_check_in = _simple(lambda client, a: client.check_in(a.tournament, a.token))


async def _drop(client, args: argparse.Namespace):
    player = args.player
    if not args.token:  # the organiser names the player by id (T1p3) or by name (Ana, ana, ANA: as registration
        from server.protocol.names import skeleton  # compares them)

        state = await client.watch_tournament(args.tournament)
        player = next((p.player for p in state.players if p.player == player), None) or next(
            (p.player for p in state.players if skeleton(p.name) == skeleton(player)), player)
    return await client.drop(args.tournament, token=args.token, secret=args.secret, player=player)


def cmd_drop(args: argparse.Namespace) -> int:
    if not args.token and not (args.secret and args.player):  # said before connecting
        raise checks.Refused("say who leaves: --token TOKEN (yourself), or --secret SECRET --player NAME "
                             "(the organiser)")
    return _simple(_drop)(args)


cmd_start = _simple(lambda client, a: client.start_tournament(a.tournament, a.secret, a.next_round))
cmd_correct = _simple(lambda client, a: client.correct_result(a.tournament, a.secret, a.table, a.places, a.reason))
def cmd_standings(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            state = await client.watch_tournament(args.tournament)
        print_state(state)
        earlier = rounds_text(state, earlier_only=True)
        if earlier:
            print("\nearlier rounds:\n" + earlier)
        return 0

    return run_client(run)


def cmd_list(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            infos = await client.list_tournaments()
        for info in infos:
            print(f"{info.tournament:<6} {info.name:<24} {info.game:<18} {info.format:<11} round {info.round}/"
                  f"{info.rounds or '?'}  {count_of(info.players, 'player')}  {info.status}")
        if not infos:
            print("no tournaments on this server")
        return 0

    return run_client(run)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from ..client import open_client

    async def run() -> int:
        async with open_client(args.url, name="photofinish tournament") as client:
            rows = await client.leaderboard(args.game, args.limit)
        print(f"{args.game}: ratings (openskill Plackett-Luce; ordered by mu - 3 sigma)")
        print(" rank  player                    rating     mu  sigma  tables")
        for row in rows:
            print(f" {row.rank:>4}  {row.player:<24} {row.ordinal:>7.2f} {row.mu:>6.2f} {row.sigma:>6.2f}  {row.tables:>6}")
        if not rows:
            print("  nobody rated yet: ratings come from finished tournament tables")
        return 0

    return run_client(run)


def print_state(state) -> None:
    print(state_text(state))


def cmd_bots(args: argparse.Namespace) -> int:
    import secrets
    from functools import partial

    import trio

    from ..client import open_client
    from ..tournament_bots import fill_tournament

    if not 1 <= args.players <= 300:
        print("photofinish tournament bots: --players is 1..300", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)

    async def run() -> int:
        async with trio.open_nursery() as nursery:
            ids = await nursery.start(partial(fill_tournament, args.url, args.tournament, args.players, args.policy,
                                              seed, pace_ms=args.pace_ms))
            print(f"{len(ids)} {args.policy} bots registered in {args.tournament}", file=sys.stderr)
            if args.secret:
                async with open_client(args.url, name="photofinish tournament") as client:
                    await client.start_tournament(args.tournament, args.secret)
        async with open_client(args.url, name="photofinish tournament") as client:
            print_state(await client.watch_tournament(args.tournament))
        return 0

    return run_client(run)
