"""The `photofinish` command: one entry point, one subcommand per job.

- `photofinish serve`: the server (the main job); `--demo` adds a table of bots racing and an open table.
- `photofinish watch URL TABLE`: a table live in the terminal, as a spectator.
- `photofinish bots URL --table T --seats N --policy P`: sit bots at a table over the wire.
- `photofinish play URL --table T`: take a seat yourself and type your moves.
- `photofinish replay LOG`, `verify LOG`, `export LOG`: check a table's log, its seed, or dump it as JSON.
- `photofinish games`: the games, their modes and options.
- `photofinish match`: an offline match of bots, printed race by race with the score table.
- `photofinish tables URL`: a server's tables, one line each.

Every mistake is one line on stderr and a non-zero exit, never a traceback: argparse's own errors (2), a
``Refused`` from the checks in `checks.py` (2), a server that is not there (1) or refuses (2); Ctrl-C ends
quietly (130), and output into a closed pipe (`| head`) stops quietly (141, as if killed by SIGPIPE).
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import sys
import tempfile
import warnings
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import msgspec

from rules import GAMES, RulesError, get_game, make_setup

from rules.bots import POLICY_NAMES, get_policy
from . import checks
from .checks import Refused
from .offline import play_game
from .words import and_list, command_name, seat_list, seat_no


def _parse_option(text: str) -> tuple[str, object]:
    name, sep, raw = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE, not {text!r}")
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        value = raw
    return name, value


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
                if kind == "RaceEnded":
                    how = (f"won by {seat_list(event.winners)}" if event.winners
                           else f"no finisher ({event.reason.replace('_', ' ')})")
                    print(f"race {event.race}: {how}; scores {and_list(event.scores)}; totals {and_list(event.totals)}")
                elif kind == "RoundEnded":
                    how = f"seat {seat_no(event.winner)} out first" if event.winner is not None else "turn limit"
                    out = f"; out of the game: {seat_list(event.eliminated)}" if getattr(event, "eliminated", None) else ""
                    print(f"round {event.round}: {how}; scores {and_list(event.scores)}; "
                          f"totals {and_list(event.totals)}{out}")
                elif kind == "SeatFinished":
                    print(f"seat {seat_no(event.seat)} home: place {event.place}")
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


def cmd_serve(args: argparse.Namespace) -> int:
    import trio

    from server.app import serve_until_signal
    from server.gateway import Limits
    from server.lan import WILDCARDS
    from server.datalock import DataDirInUse
    from server.quotas import Quotas
    from server.tournament.model import TournamentError

    from .client import single_error

    if not 0 < args.rate < math.inf:
        print("photofinish serve: --rate is messages a second per connection, more than 0", file=sys.stderr)
        return 2
    if not 0.01 <= args.heartbeat <= 60:
        print("photofinish serve: --heartbeat is 0.01..60 seconds", file=sys.stderr)
        return 2
    if not 0 <= args.forget_after <= 30 * 86400:
        print("photofinish serve: --forget-after is 0..2592000 seconds (30 days)", file=sys.stderr)
        return 2
    if args.public_url and not args.cluster:
        print("photofinish serve: --public-url is for a cluster node: give --cluster redis://HOST:PORT too",
              file=sys.stderr)
        return 2
    if args.cluster and not args.public_url and args.host in WILDCARDS:
        print(f"photofinish serve: with --host {args.host} say which address other nodes send clients to: "
              f"--public-url ws://THIS-HOST:{args.port}", file=sys.stderr)
        return 2
    for flag, value, most in (("--waiting-per-connection", args.waiting_per_connection, 10_000),
                              ("--waiting-per-address", args.waiting_per_address, 100_000),
                              ("--playbacks-per-address", args.playbacks_per_address, 10_000),
                              ("--waiting-expiry", args.waiting_expiry, 30 * 86400),
                              ("--keep-finished", args.keep_finished, 30 * 86400),
                              ("--registrations-per-connection", args.registrations_per_connection, 100_000),
                              ("--registrations-per-address", args.registrations_per_address, 100_000)):
        if not 0 <= value <= most:
            print(f"photofinish serve: {flag} is 0..{most}", file=sys.stderr)
            return 2
    quotas = Quotas(waiting_per_connection=args.waiting_per_connection, waiting_per_address=args.waiting_per_address,
                    waiting_expiry=args.waiting_expiry, playbacks_per_address=args.playbacks_per_address,
                    keep_finished=args.keep_finished, registrations_per_connection=args.registrations_per_connection,
                    registrations_per_address=args.registrations_per_address)
    checks.check_listen(args.host, args.port)  # before any table is reopened from the data directory
    checks.check_data_dir(args.data)
    try:
        limits = Limits(rate=args.rate, burst=max(Limits.burst, int(2 * args.rate)),
                        address_rate=args.address_rate,
                        address_burst=max(Limits.address_burst, int(2 * args.address_rate)),
                        max_conns_per_address=args.max_conns_per_address, max_connections=args.max_connections,
                        idle_timeout=args.idle_timeout, max_depth=args.max_depth, budget_rate=args.budget_rate,
                        budget_burst=args.budget_burst, tournaments_per_minute=args.tournaments_per_minute,
                        registrations_per_minute=args.registrations_per_minute, kernel_rtt=args.kernel_rtt)
        web_root = None if args.no_web else Path(__file__).resolve().parent / "web"
        trio.run(partial(serve_until_signal, args.host, args.port, Path(args.data), args.demo, args.durability,
                         limits, web_root, cluster_url=args.cluster, public_url=args.public_url,
                         heartbeat=args.heartbeat, forget_after=args.forget_after, quotas=quotas))
    except (OSError, TournamentError, DataDirInUse, BaseExceptionGroup) as raised:
        error = single_error(raised)
        if isinstance(error, (TournamentError, DataDirInUse)):  # another server's data directory; a bad store
            print(f"photofinish serve: {error.message}", file=sys.stderr)
            return 1
        if not isinstance(error, OSError):
            raise
        if error.filename is not None:  # the data directory, not the socket
            print(f"photofinish serve: cannot use the data directory {args.data}: {error.filename}: "
                  f"{error.strerror or error}", file=sys.stderr)
        else:
            print(f"photofinish serve: cannot listen on {args.host}:{args.port}: {error.strerror or error}",
                  file=sys.stderr)
        return 1
    return 0


def _run_client(fn, *args, **kwargs) -> int:
    import trio
    from trio_websocket import HandshakeError

    from .client import BadUrl, ServerError, connect_reason, single_error

    try:
        return trio.run(partial(fn, *args, **kwargs)) or 0
    except (ConnectionError, ServerError, BadUrl, HandshakeError, BaseExceptionGroup) as raised:
        error = single_error(raised)
        if isinstance(error, BrokenPipeError):  # a ConnectionError too, but of our stdout (`| head`), not the server
            raise error from None  # main stops quietly
        if isinstance(error, ConnectionError):
            print(f"photofinish: {error}", file=sys.stderr)
            return 1
        if isinstance(error, HandshakeError):  # a connection made without the client library (load)
            print(f"photofinish: cannot connect ({connect_reason(error)}): is a photofinish server running there?",
                  file=sys.stderr)
            return 1
        if isinstance(error, ServerError):
            print(f"photofinish: the server refused: {error.message} ({error.code})", file=sys.stderr)
            return 2
        if isinstance(error, BadUrl):
            print(f"photofinish: {error}", file=sys.stderr)
            return 2
        raise  # Ctrl-C, a closed pipe, a Refused: main says it


def _parse_bot(text: str) -> tuple[int, str]:
    """``SEAT`` or ``SEAT:POLICY``, the seat numbered from 1 as a person counts; returns the wire's 0-based seat."""
    seat, _, policy = text.partition(":")
    if not seat.isdigit() or int(seat) < 1 or (policy and policy not in POLICY_NAMES):
        raise argparse.ArgumentTypeError(f"a bot is SEAT or SEAT:POLICY (seats from 1; {', '.join(POLICY_NAMES)}), "
                                         f"not {text!r}")
    return int(seat) - 1, policy or "heuristic"


def cmd_create(args: argparse.Namespace) -> int:
    from server.app import human_pace_ms

    from .client import open_client

    game = get_game(args.game)
    mode = args.mode or game.info.modes[0]
    if args.track:
        args.option.append(("track", checks.read_text(args.track, "track file")))

    async def run() -> int:
        async with open_client(args.url, name="photofinish create") as client:
            info = await client.create_table(
                game=args.game, mode=mode, seats=args.seats, options=dict(args.option), name=args.name,
                bots=[{"seat": seat, "policy": policy} for seat, policy in args.bot],
                turn_time_ms=args.turn_time_ms, ordering=args.ordering, fair_ms=args.fair_ms,
                bot_delay_ms=human_pace_ms(mode) if args.bot_delay_ms is None else args.bot_delay_ms)
        print(info.table)
        me = command_name()
        print(f"{game.info.title}, {mode}, {args.seats} seats; join with:\n"
              f"  {me} play {args.url} --table {info.table}\n"
              f"  {me} watch {args.url} {info.table}", file=sys.stderr)
        return 0

    return _run_client(run)


def cmd_schema(args: argparse.Namespace) -> int:
    import json

    from server.protocol import json_schema

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


def cmd_watch(args: argparse.Namespace) -> int:
    from .terminal import watch

    return _run_client(watch, args.url, args.table)


def cmd_playback(args: argparse.Namespace) -> int:
    from .terminal import playback

    return _run_client(playback, args.url, args.log_table, args.speed)


def cmd_play(args: argparse.Namespace) -> int:
    from .terminal import play

    if args.tournament:
        from .tournament_play import follow_tournament

        if not args.token:
            print("photofinish play: --tournament needs your player --token (from `tournament register`)",
                  file=sys.stderr)
            return 2
        return _run_client(follow_tournament, args.url, args.tournament, args.token)
    if not args.table:
        print("photofinish play: say which --table (or --tournament T --token TOKEN)", file=sys.stderr)
        return 2
    return _run_client(play, args.url, args.table, seat=args.seat, name=args.name, token=args.token)


def cmd_bots(args: argparse.Namespace) -> int:
    from .client import open_client
    from .remote_bots import play_seats
    from .tables import find_table

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

    return _run_client(run)


def cmd_load(args: argparse.Namespace) -> int:
    from .load import print_load, run_load, summarize

    if not 1 <= args.tables <= 2000 or not 0 < args.seconds <= 600 or args.rate < 0 or args.actions < 1:
        print("photofinish load: --tables is 1..2000, --seconds 0..600, --rate >= 0 and --actions >= 1",
              file=sys.stderr)
        return 2

    from server.gctune import settle_gc

    if not math.isfinite(args.rate) or not math.isfinite(args.seconds):
        print("photofinish load: --seconds and --rate are numbers", file=sys.stderr)
        return 2
    settle_gc()  # the load's own pauses would show as the server's latency

    async def run() -> int:
        from .client import open_client

        async with open_client(args.url, name="photofinish load", reconnect=False):
            pass  # is a server there? One clear line now rather than a failure per table later
        stats = await run_load(args.url, args.tables, args.seconds, rate=args.rate, max_actions=args.actions)
        pace = f"paced to {args.rate:g} actions/s" if args.rate else "each seat acting as fast as it can"
        print(f"{args.tables} Flag Finish Challenge tables x 3 seats against {args.url}, {pace}, "
              f"{stats.elapsed:.1f} s; {stats.games} games ran to their end and were replaced")
        print_load([summarize(stats, args.tables, rate=args.rate)])
        return 0

    return _run_client(run)


@contextmanager
def _as_log(path: str):
    """The log file to check: ``path`` itself, or, for a document ``photofinish export`` wrote, the log file
    rebuilt from it in a temporary folder (byte for byte the one exported: same chain, same receipts)."""
    from server.exported import ExportError, log_bytes, looks_exported

    if not looks_exported(path):
        yield path
        return
    try:
        data = log_bytes(Path(path).read_bytes())
    except ExportError as error:
        raise Refused(f"{path}: {error}") from None
    with tempfile.TemporaryDirectory(prefix="photofinish-export-") as folder:
        rebuilt = Path(folder) / Path(path).with_suffix(".log").name
        rebuilt.write_bytes(data)
        yield str(rebuilt)


def _named(text: str, rebuilt: str, path: str) -> str:
    """``text`` with the rebuilt log's temporary path put back as the path the user gave."""
    return text.replace(rebuilt, path)


def cmd_replay(args: argparse.Namespace) -> int:
    with _as_log(args.log) as log:
        return _replay(args, log)


def _replay(args: argparse.Namespace, log: str) -> int:
    import time

    from .render import render

    from server.logfile import read_log
    from server.replay import check_log

    from .feed import feed_lines
    from .log_words import LogPeople, fair_words, refused_words

    last: dict = {"time": None, "game": None, "people": None}

    def step(entry, state, events) -> None:
        if last["game"] is None:
            read = read_log(log)  # the chain is whole: check_log read it before the first step
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
                raise _Quit

    if args.seat is not None:
        seats = _log_seats(log)
        if seats is not None and not args.seat < seats:
            raise Refused(f"--seat {args.seat + 1}: the table in {args.log} has seats 1-{seats}")
    walk = args.step or args.seat is not None or args.speed
    try:
        report = check_log(log, on_step=step if walk else None)
    except _Quit:
        return 0
    report.path = Path(args.log)
    print(report.summary())
    if report.ok and not report.ended and not args.allow_unfinished:
        from server.finished import finished_marker

        finished = finished_marker(Path(log))
        print("  INCOMPLETE: the log has no end record, so this is not a finished game"
              + (f", though {finished}: the log lost its end" if finished else
                 " (--allow-unfinished accepts a table still open)"))
        return 1
    return 0 if report.ok else 1


class _Quit(Exception):
    """`q` at `replay --step`'s prompt."""


def _log_seats(path: str) -> int | None:
    """How many seats the table in a log has, or None if its header cannot be read (replay then says why)."""
    from server.logfile import LogError, read_log

    try:
        return read_log(path).header.seats
    except (OSError, ValueError, LogError):
        return None


def _parse_receipt(text: str) -> tuple[int, str]:
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isdigit() or len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest):
        raise argparse.ArgumentTypeError(f"a receipt is SEQ:HASH (an entry number and 64 hex digits), not {text!r}")
    return int(seq), digest


def cmd_verify(args: argparse.Namespace) -> int:
    checks.readable_file(args.log)  # missing, a directory, empty: a mistake in what was typed (2, stderr)
    with _as_log(args.log) as log:
        return _verify(args, log)


def _verify(args: argparse.Namespace, log: str) -> int:
    from server.replay import chance_count, check_log, check_receipt, verify_seed

    if args.receipt is not None:
        ok, line = check_receipt(log, *args.receipt)
        print(_named(line, log, args.log))
        return 0 if ok else 1
    report = check_log(log)
    report.path = Path(args.log)
    if not report.ok:
        print(report.summary())
        return 1
    problem = verify_seed(report)
    if problem:
        print(f"{args.log}: NOT VERIFIED: {problem}")
        return 1
    print(f"{args.log}: verified: the seed matches its commitment and all {chance_count(report)} "
          f"shuffles and rolls follow from it")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from server.replay import check_log, export

    checks.readable_file(args.log)  # no document at all for a file that is not there
    report = check_log(args.log)
    if report.read is None:  # nothing of it could be read: an error, not a document saying so
        print(f"photofinish export: {args.log}: {report.problem}", file=sys.stderr)
        return 1
    document = msgspec.json.format(msgspec.json.encode(export(report)).decode(), indent=1)
    if args.output:
        checks.write_text(args.output, document)
    else:
        print(document)
    if not report.ok:
        print(f"photofinish export: {args.log}: {report.problem}", file=sys.stderr)
    return 0 if report.ok else 1


def cmd_tables(args: argparse.Namespace) -> int:
    from .client import open_client
    from .tables import describe_table

    async def run() -> int:
        async with open_client(args.url, name="photofinish tables", reconnect=False) as client:
            tables = await client.list_tables()
        for info in tables:
            print(describe_table(info))
        if not tables:
            print(f"no tables at {args.url}", file=sys.stderr)
        return 0

    return _run_client(run)


class _Parser(argparse.ArgumentParser):
    """argparse with its mistakes said in one line (the command, the problem, where the help is)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _limit_flags(serve: argparse.ArgumentParser, limits) -> None:
    """`serve`'s abuse limits (docs/operators.md, "The server": no anonymous client can lock the others out)."""
    serve.add_argument("--address-rate", type=checks.amount, default=limits.address_rate, metavar="N",
                       help=f"messages a second all the connections of one IP address may send together (default "
                            f"{limits.address_rate:g}; twice as many at once); past it they are read no faster, never refused")
    serve.add_argument("--max-conns-per-address", type=checks.positive, default=limits.max_conns_per_address,
                       metavar="N", help=f"connections open at once from one IP address (default "
                                         f"{limits.max_conns_per_address}; a LAN behind one NAT is one address)")
    serve.add_argument("--max-connections", type=checks.positive, default=limits.max_connections, metavar="N",
                       help=f"connections open at once in all (default: the open-file limit, raised to its hard "
                            f"limit at start, less {limits.fd_reserve}); more are refused at once with a reason")
    serve.add_argument("--idle-timeout", type=checks.amount, default=limits.idle_timeout, metavar="SECONDS",
                       help=f"close a connection that sends no whole frame, not even a pong, for this long "
                            f"(default {limits.idle_timeout:g}; it is pinged at half)")
    serve.add_argument("--max-depth", type=checks.positive, default=limits.max_depth, metavar="N",
                       help=f"containers nested in one frame (default {limits.max_depth}); deeper is malformed")
    serve.add_argument("--budget-rate", type=checks.amount, default=limits.budget_rate, metavar="UNITS",
                       help=f"request-cost units a second one address may spend (default {limits.budget_rate:g}): "
                            f"list_tables and list_tournaments 1 (+1 per 16 KiB of tables), leaderboard 2, "
                            f"replay and open_playback 8; over it: over_budget")
    serve.add_argument("--budget-burst", type=checks.amount, default=limits.budget_burst, metavar="UNITS",
                       help=f"... and at once (default {limits.budget_burst:g})")
    serve.add_argument("--tournaments-per-minute", type=checks.amount, default=limits.tournaments_per_minute,
                       metavar="N", help=f"tournaments one address may create a minute (default "
                                         f"{limits.tournaments_per_minute:g})")
    serve.add_argument("--registrations-per-minute", type=checks.amount, default=limits.registrations_per_minute,
                       metavar="N", help=f"tournament registrations one address may make a minute (default "
                                         f"{limits.registrations_per_minute:g})")
    serve.add_argument("--kernel-rtt", choices=("direct", "always", "never"), default=limits.kernel_rtt,
                       help="fair ordering credits a seat no more round trip than the kernel measured on its "
                            "connection: 'direct' (default) for connections not from loopback (a local proxy "
                            "hides the path), 'always', or 'never'")


def build_parser() -> argparse.ArgumentParser:
    from server.gateway import Limits
    from server.quotas import Quotas

    parser = _Parser(prog="photofinish", description="photofinish: racing games, fairly arbitrated")
    parser.add_argument("--version", action="version", version=f"photofinish {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    serve.add_argument("--port", type=checks.port, default=8765)
    serve.add_argument("--data", default="./data", help="the data directory")
    serve.add_argument("--demo", action="store_true", help="open a demo table of bots and an open table")
    serve.add_argument("--durability", default="batch", choices=("always", "batch", "never"),
                       help="when log lines are fsynced: before each acknowledgement, in groups (default), never")
    serve.add_argument("--rate", type=float, default=Limits.rate,
                       help=f"messages a second one connection may send on average (default {Limits.rate:g}; "
                            "twice as many at once); more are dropped with a rate_limited error")
    _limit_flags(serve, Limits)
    serve.add_argument("--no-web", action="store_true", help="serve no web client, only the websocket protocol")
    serve.add_argument("--cluster", type=checks.redis_url, metavar="redis://HOST:PORT",
                       help="join the cluster whose lobby is kept in this Redis (see docs/operators.md, More than one process)")
    serve.add_argument("--public-url", type=checks.server_url, metavar="ws://HOST:PORT",
                       help="with --cluster: the URL other nodes send clients to for this node's tables "
                            "(default ws://HOST:PORT as it listens)")
    serve.add_argument("--heartbeat", type=float, default=1.0, metavar="SECONDS",
                       help="with --cluster: seconds between this node's heartbeats (default 1); a node silent "
                            "for 5 heartbeats is taken for dead")
    serve.add_argument("--forget-after", type=float, default=600.0, metavar="SECONDS",
                       help="with --cluster: seconds a dead node's tables stay listed as unavailable before they "
                            "leave every node's lists (default 600); if it comes back, they are listed again")
    quotas = Quotas()
    serve.add_argument("--waiting-per-connection", type=int, default=quotas.waiting_per_connection, metavar="N",
                       help="tables waiting for players one connection may have created (0: no limit; default: %(default)s)")
    serve.add_argument("--waiting-per-address", type=int, default=quotas.waiting_per_address, metavar="N",
                       help="... all connections from one IP address (default: %(default)s)")
    serve.add_argument("--waiting-expiry", type=float, default=quotas.waiting_expiry, metavar="SECONDS",
                       help="a table nobody sat at is closed after this long (0: never; default: %(default)s)")
    serve.add_argument("--playbacks-per-address", type=int, default=quotas.playbacks_per_address, metavar="N",
                       help="playbacks one IP address may have open (0: no limit; default: %(default)s)")
    serve.add_argument("--keep-finished", type=float, default=quotas.keep_finished, metavar="SECONDS",
                       help="a finished table stays watchable this long, then only its summary and log "
                            "(default: %(default)s)")
    serve.add_argument("--registrations-per-connection", type=int, default=quotas.registrations_per_connection,
                       metavar="N", help="players one connection may register in one tournament (0: no limit; "
                                         "default: %(default)s)")
    serve.add_argument("--registrations-per-address", type=int, default=quotas.registrations_per_address,
                       metavar="N", help="... all connections from one IP address (default: %(default)s)")
    serve.set_defaults(run=cmd_serve)

    create = sub.add_parser("create", help="open a table of any game on a server; prints its id")
    create.add_argument("url", type=checks.server_url)
    create.add_argument("--game", default="flag_finish", choices=sorted(GAMES))
    create.add_argument("--mode", default=None, help="lockstep or challenge (default: the game's first mode)")
    create.add_argument("--seats", type=checks.positive, default=2)
    create.add_argument("--bot", action="append", type=_parse_bot, default=[], metavar="SEAT[:POLICY]",
                        help="a seat the server fills with its own bot (repeatable)")
    create.add_argument("--option", action="append", type=_parse_option, default=[], metavar="NAME=VALUE",
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
    create.set_defaults(run=cmd_create)

    schema = sub.add_parser("schema", help="print the JSON Schema of every message and of each game's actions "
                                            "and views (generated from the protocol's types)")
    schema.set_defaults(run=cmd_schema)

    tracks = sub.add_parser("tracks", help="list the built-in Checkered Flag tracks, or check track files")
    tracks.add_argument("files", nargs="*", metavar="FILE")
    tracks.set_defaults(run=cmd_tracks)

    watch = sub.add_parser("watch", help="watch a table live as a spectator")
    watch.add_argument("url", type=checks.server_url)
    watch.add_argument("table")
    watch.set_defaults(run=cmd_watch)

    playback = sub.add_parser("playback", help="watch a finished table's log played back by the server")
    playback.add_argument("url", type=checks.server_url)
    playback.add_argument("log_table", help="the id of a finished table whose log the server holds")
    playback.add_argument("--speed", type=checks.speed, default=1.0)
    playback.set_defaults(run=cmd_playback)

    bots = sub.add_parser("bots", help="sit bots at a table over the wire")
    bots.add_argument("url", type=checks.server_url)
    bots.add_argument("--table", required=True)
    bots.add_argument("--seats", type=checks.positive, default=1)
    bots.add_argument("--policy", default="heuristic", choices=POLICY_NAMES)
    bots.add_argument("--seed", type=checks.seed, default=None)
    bots.set_defaults(run=cmd_bots)

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

    load = sub.add_parser("load", help="bounded load test: N tables of 3 seats acting as fast as they can")
    load.add_argument("url", type=checks.server_url)
    load.add_argument("--tables", type=int, default=10)
    load.add_argument("--seconds", type=float, default=10.0, help="stop after this long (at most 600)")
    load.add_argument("--actions", type=int, default=1_000_000, help="... or after this many answers")
    load.add_argument("--rate", type=float, default=0.0,
                      help="offer this many actions a second in all, on a schedule (0: as fast as they can)")
    load.set_defaults(run=cmd_load)

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

    verify = sub.add_parser("verify", help="check that every shuffle and roll follows from the revealed seed")
    verify.add_argument("log")
    verify.add_argument("--receipt", type=_parse_receipt, default=None, metavar="SEQ:HASH",
                        help="only say whether the log holds entry SEQ with exactly this hash (from an update)")
    verify.set_defaults(run=cmd_verify)

    export = sub.add_parser("export", help="a log as one JSON document")
    export.add_argument("log")
    export.add_argument("--format", default="json", choices=["json"])
    export.add_argument("--output", "-o", default=None)
    export.set_defaults(run=cmd_export)

    games = sub.add_parser("games", help="list the games, their modes and options")
    games.set_defaults(run=cmd_games)

    match = sub.add_parser("match", help="play an offline match of bots and print it")
    match.add_argument("--game", default="flag_finish", choices=sorted(GAMES))
    match.add_argument("--mode", default=None, help="default: the game's first mode")
    match.add_argument("--seed", type=checks.seed, default=None, help="the match seed (default: a fresh random one)")
    match.add_argument("--policies", nargs="+", default=["heuristic", "heuristic", "random"],
                       choices=POLICY_NAMES, help="one policy per seat")
    match.add_argument("--option", action="append", type=_parse_option, default=[],
                       metavar="NAME=VALUE", help="a game option, e.g. races=3 (repeatable)")
    match.set_defaults(run=cmd_match)

    tables = sub.add_parser("tables", help="list a server's tables, one line each")
    tables.add_argument("url", type=checks.server_url)
    tables.set_defaults(run=cmd_tables)

    from .tournament_cli import add_parser as add_tournament_parser

    add_tournament_parser(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("photofinish")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the real command: a Ctrl-C can land between a coroutine's making and its await, and
        # the tasks torn down on the way out drop it before the KeyboardInterrupt below is even reached
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:  # `photofinish` alone: what it can do, then the one-line mistake
            parser.print_help()
            print("photofinish: a command is required: one of the above (photofinish COMMAND --help says more)",
                  file=sys.stderr)
            return 2
        try:
            code = args.run(args)
        except BaseExceptionGroup as group:  # one error from inside trio: say it as if raised alone
            raise _plain(group) from None
        sys.stdout.flush()  # a closed pipe is found here, not at exit
        return code
    except RulesError as error:
        print(f"photofinish: {error.message} ({error.code})", file=sys.stderr)
        return 2
    except Refused as error:
        print(f"photofinish {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C: the person asked to stop; nothing more to say. A task trio had not yet started when it
        # came is a coroutine never awaited: not worth a warning on the way out (see the top, for the real
        # command; here for a caller's main([...]))
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 141  # `| head` stopped reading: stop as quietly as a tool killed by SIGPIPE


def _plain(group: BaseExceptionGroup) -> BaseException:
    """The error a person should hear about in a group from trio: a Ctrl-C or a closed pipe wins over
    the cancellations it caused; a group of one error is that error; anything else stays the group."""
    for kind in (KeyboardInterrupt, BrokenPipeError):
        found = group.subgroup(kind)
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        if found is not None:
            return found
    from .client import single_error

    return single_error(group)


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null, so the interpreter's last flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # no real stdout (a test's capture): nothing to flush at exit


if __name__ == "__main__":
    sys.exit(main())
