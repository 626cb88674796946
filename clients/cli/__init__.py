"""The `photofinish` command: one entry point, one subcommand per job, one module per group of them.

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

Here: the parser, built from each group's ``add_*`` functions in the order `photofinish --help` lists them, and
``main``. The groups: ``serve.py`` (its flags and its ``ServeConfig``), ``online.py`` (create, watch, playback,
bots, play, load, tables), ``logs.py`` (replay, verify, export), ``offline.py`` (games, match, tracks, schema),
``tournament.py`` (`tournament ...`); ``values.py`` their own argparse types, ``running.py`` how a command that
talks to a server runs. What runs on the server's side is ``server.commands``'s (the server's entry point).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from rules import RulesError
from server.protocol.commandline import BadInput, ConfigError

from ..checks import Refused
from . import logs, offline, online, serve, tournament


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="photofinish", description="photofinish: racing games, fairly arbitrated")
    parser.add_argument("--version", action="version", version=f"photofinish {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (serve.add_serve, online.add_create, offline.add_schema, offline.add_tracks, online.add_watch,
                online.add_playback, online.add_bots, online.add_play, online.add_load, logs.add_replay,
                logs.add_verify, logs.add_export, offline.add_games, offline.add_match, online.add_tables,
                tournament.add_parser):
        add(sub)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse with its mistakes said in one line (the command, the problem, where the help is)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


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
    except (Refused, BadInput, ConfigError) as error:  # what was typed: checked here, or on the server's side
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
    from ..client import single_error

    return single_error(group)


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null, so the interpreter's last flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # no real stdout (a test's capture): nothing to flush at exit

