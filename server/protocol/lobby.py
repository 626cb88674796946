"""Lobby messages: the games on offer, opening and listing tables, and replaying a finished table frame by
frame (a server's log, or an exported one the page sends)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from .common import ClientMessage, Int64, MessageId, ServerMessage


class ListGames(ClientMessage, tag="list_games"):
    pass


class OptionInfo(msgspec.Struct, frozen=True, omit_defaults=True):
    name: str
    default: Any
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    choices: list[str] | None = None


class GameSummary(msgspec.Struct, frozen=True):
    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    modes: list[str]
    options: list[OptionInfo]


class Games(ServerMessage, tag="games"):
    """The games on offer; ``human_pace_ms``: server bots' pause before each action at a table a person plays,
    by mode (``commandline.human_pace_ms``): what `create` and the browser's form offer as ``bot_delay_ms``."""

    ref: MessageId
    games: list[GameSummary]
    human_pace_ms: dict[str, int] = {}


def game_summary(info) -> GameSummary:
    return GameSummary(
        name=info.name, title=info.title, rules_version=info.rules_version, min_seats=info.min_seats,
        max_seats=info.max_seats, modes=list(info.modes),
        options=[OptionInfo(name=o.name, default=o.default, doc=o.doc, minimum=o.minimum, maximum=o.maximum,
                            choices=list(o.choices) if o.choices else None) for o in info.options],
    )


class BotSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: Int64
    policy: str = "heuristic"


class CreateTable(ClientMessage, tag="create_table"):
    game: str = "flag_finish"
    mode: str = "lockstep"
    seats: Int64 = 2
    options: dict[str, Any] = {}
    bots: list[BotSeat] = []  # seats the server fills with its own bots
    name: str = ""
    turn_time_ms: Int64 = 0  # lockstep: a seat's time to act, 0 = no limit
    grace_ms: Int64 = 60_000  # how long an away seat stays reserved for its token
    bot_delay_ms: Int64 = 0  # server-side bots wait this long before each action (a watchable pace)
    seed: Int64 | None = None  # None: the server draws one; a chosen seed only with ``practice`` (shown to all)
    practice: bool = False  # a practice table: its creator may choose the seed, so its deal is no secret
    ordering: Literal["arrival", "fair"] | None = None  # None: fair in Challenge Mode, arrival in lockstep
    fair_ms: Int64 = 50  # fair ordering: the most a seat's round trip is credited, and a contested action held
    spectator_delay_ms: Int64 = 0  # a broadcast delay: spectators see the table this long ago (0: live)
    spectator_delay_entries: Int64 = 0  # ... and (or) this many log entries behind (0: none); the end is shown at once
    broadcast: bool = False  # with a delay: a broadcast view (every hand) for whoever has the key it answers with
    placed: bool = False  # a cluster node sent this create here (``redirect``): open it here, never send it on


class ListTables(ClientMessage, tag="list_tables"):
    """The tables, ``limit`` of them (None: all) from the ``offset``-th on; the answer says the ``total``."""

    offset: Int64 = 0
    limit: Int64 | None = None


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    state: str  # "free", "taken", "away" (reserved for its token), "bot", "stand_in" (a bot for an absent player),
    # "left" (a finished table's seat whose player has gone: ``name`` says who played it)
    name: str = ""
    ping_ms: float | None = None  # the seat's connection's round trip (measured by pings); None: not measured
    guesses: int = 0  # fair tables: contested actions this seat sent before it could have seen their card


class TableInfo(msgspec.Struct, frozen=True):
    table: str
    name: str
    game: str
    mode: str
    options: dict[str, Any]
    seats: list[SeatInfo]
    seq: int
    status: str  # "waiting" (free seats), "playing", "over"
    spectators: int
    turn_time_ms: int
    grace_ms: int
    ordering: str = "arrival"  # "arrival" or "fair" (contested actions ordered by reaction time)
    fair_ms: int = 50
    practice: bool = False  # a practice table (created with ``practice``)
    seed: int | None = None  # the seed its creator chose (practice only): its hidden cards are no secret
    spectator_delay_ms: int = 0  # the broadcast delay: spectators see the table this long ago (0: live)
    spectator_delay_entries: int = 0  # ... and (or) this many log entries behind (0: none)
    broadcast: bool = False  # a broadcast view (every hand, past the delay) is open to its key's holders
    revealed_seed: str | None = None  # the table's seed once it is over, in decimal digits (a string: JavaScript's
    # numbers cannot hold every 64-bit seed exactly); its log's end record reveals it too
    rematch: str | None = None  # a finished table: the table opened as its rematch (``rematch``), once one is
    alias: str | None = None  # the name the table is found by too, as well as ``table`` (the demo's "demo")


def delay_behind(spectator_delay_ms: int, spectator_delay_entries: int) -> str:
    """How far behind the table its spectators are shown it (its broadcast delay), as people read it: ``30 s``,
    ``2 moves``, ``1.5 s and 1 move``; ``""`` when they see it live. A move is an entry of the table's log (a
    seat's or the game's own, such as a deal). The server's words and the terminal's; the browser's
    (js/words.js ``behind``) say the same."""
    parts = [f"{spectator_delay_ms / 1000:g} s"] if spectator_delay_ms else []
    if spectator_delay_entries:
        parts.append(f"{spectator_delay_entries} {'move' if spectator_delay_entries == 1 else 'moves'}")
    return " and ".join(parts)


class TableCreated(ServerMessage, tag="table_created"):
    ref: MessageId
    table: TableInfo
    broadcast_key: str | None = None  # a table created with ``broadcast``: the key that watches its broadcast view


class Tables(ServerMessage, tag="tables"):
    ref: MessageId
    tables: list[TableInfo]
    total: int | None = None  # the tables in all (a page asked with ``offset``/``limit`` holds some of them)


class OpenPlayback(ClientMessage, tag="open_playback"):
    """Open the finished log of table ``log`` as a read-only table that plays it to watchers at ``speed``."""

    log: str
    speed: float = 1.0


class Replay(ClientMessage, tag="replay"):
    """A table step by step as ``seat`` saw it (None: as a spectator): ``log`` names a finished table whose log
    this server holds, or ``export`` carries an exported log: the file ``photofinish export`` wrote, as it is,
    gzip-compressed and base64-encoded. Answered with frames ``start`` to ``start + count - 1`` (count 1..200);
    frame 0 is the table before its first entry."""

    log: str = ""
    export: str = ""
    seat: Int64 | None = None
    start: Int64 = 0
    count: Int64 = 100


class Rival(msgspec.Struct, frozen=True):
    """A seat whose same action lost a fair ordering contest, and its reaction time."""

    seat: int
    reaction_ms: float


class FrameContest(msgspec.Struct, frozen=True):
    """How the entry of a frame won its contest: its reaction time, the seats whose same action it beat with
    theirs, and whether a tie within the table's epsilon was decided by lot (``server/LOG-FORMAT.md``, fair)."""

    reaction_ms: float
    rivals: list[Rival]
    lot: bool


class Frame(msgspec.Struct, frozen=True, omit_defaults=True):
    """The table after one accepted entry, as one seat (or a spectator) saw it: the entry's events redacted
    for it and its view then, exactly what a live table sent that receiver; ``contest`` where the entry won a
    fair ordering contest (from its log's ordering decisions)."""

    seq: int
    time: float
    actor: int
    events: list[Any]
    view: Any
    to_act: list[int]
    result: Any = None
    contest: FrameContest | None = None


class ReplayFrames(ServerMessage, tag="replay_frames"):
    ref: MessageId
    game: str
    seats: int
    mode: str
    names: list[str]
    seat: int | None
    total: int  # frames in all: the accepted entries + 1
    start: int
    frames: list[Frame]
