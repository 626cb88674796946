"""How a table is set up beyond its game: one frozen value, from a create request, a log's header, or a
tournament's round."""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol import BotSeat, Refusal
from .seats import Reservation

TURN_TIME_LEAST = 1000  # ms: the shortest lockstep turn clock (0: none). A clock shorter than a person can act
# plays the table by its timeouts: one idle person seat and two zero-delay bots at 1 ms logged 11,000 timeouts in
# a minute (2.4 MB), as fast as a table of bots alone, yet never ended below the free-disk floor (red11)


def check_turn_time(value: int, code: str, least: int = TURN_TIME_LEAST) -> None:
    """Refuse (``code``) a ``turn_time_ms`` that is neither 0 nor ``least``..3600000 (``least`` 1: a tournament's
    table, its clock checked when the tournament was created, perhaps before this rule)."""
    if value and not least <= value <= 3_600_000 or value < 0:
        raise Refusal(code, f"turn_time_ms is 0 (no clock) or {least}..3600000, not {value}")


@dataclass(frozen=True)
class TableSettings:
    name: str = ""  # shown in the lists (the table's id if empty)
    bots: tuple[BotSeat, ...] = ()  # server bots seated from the start
    turn_time_ms: int = 0  # lockstep: the time limit of each action (0: none)
    grace_ms: int = 60_000  # how long an away seat is kept for its player
    bot_delay_ms: int = 0  # server bots think this long (about) before each action
    digest_every: int = 50  # a state digest in the log every this many entries
    read_only: bool = False  # a playback of a finished log: watchers only, entries come from the log
    reserved: tuple[Reservation, ...] = ()  # seats kept for named players from the start (a tournament's)
    stand_in: str | None = None  # a policy: an away seat's player is replaced by this bot after grace_ms
    ordering: str | None = None  # "fair" or "arrival"; None: fair in Challenge Mode, else arrival
    fair_ms: int = 50  # fair ordering's longest hold
    unverified_credit_ms: int | None = None  # the most round trip credited where the kernel did not measure it
    # (`serve --unverified-credit-ms`, default 0; None: no such bound, as in logs before 2026-11-29)
    expire_after: float | None = None  # seconds a table nobody sat at may wait before it is ended (None: ever)
    abandon_after: float | None = None  # seconds a started table may go on with no player connected before it is
    # ended as it stands, ``abandoned`` (None: ever; the lobby gives none to a tournament's or an alias's table)
    chosen_seed: int | None = None  # the creator chose the seed (a practice table): shown to everyone
    practice: bool = False
    spectator_delay_ms: int = 0  # a broadcast delay: spectators see the table this long ago (0: live)
    spectator_delay_entries: int = 0  # ... and this many log entries behind (0: none; its end is shown at once)
    broadcast_key_hash: str | None = None  # the broadcast view's key (its sha256): every hand, past the delay
