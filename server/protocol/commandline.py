"""What the command line (``clients/cli/``) and the server's entry point (``server/commands/``) share that is not a
message: the two kinds of mistake in what a person typed (each said in one line, exit 2), and server bots' pace at
a table a person plays (``human_pace_ms``: `create`'s and `tournament`'s default, and the server's demo)."""

from __future__ import annotations

HUMAN_PACE_MS = {"challenge": 2500, "lockstep": 800}


def human_pace_ms(mode: str) -> int:
    """Server bots' pause before each action (0.5-1.5 times this) at a table a person plays. In Challenge Mode
    everyone acts at once, so this is the bots' speed: at about two and a half seconds a move a person who reads
    the screen and types a card can follow them, and beat them. In lockstep the bots wait for the person
    anyway; 0.8 s lets each of their moves be read before the next."""
    return HUMAN_PACE_MS.get(mode, HUMAN_PACE_MS["lockstep"])


class BadInput(Exception):
    """What a person gave a server-side command cannot be used: a file that is not there or is not a log, a seat
    the table lacks, an address the server cannot listen on; the message says which in one line. Nothing was
    started or changed."""


class ConfigError(ValueError):
    """A setting out of range; the message names its flag and what it may be."""

    @property
    def message(self) -> str:
        return str(self.args[0])
