"""Table messages: taking, resuming, watching and leaving a seat, acting, and what a table sends back (each
accepted entry's update, a whole snapshot, a refusal and, with fair ordering, the contest it lost)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from .common import ClientMessage, Int64, MessageId, ServerMessage
from .lobby import SeatInfo


class TakeSeat(ClientMessage, tag="take_seat"):
    """Sit at a free seat (``seat`` None: any free seat). The answer carries the seat's secret token."""

    table: str
    seat: Int64 | None = None
    name: str = ""


SeqNumber = Annotated[int, msgspec.Meta(ge=0)]  # a table's seq (0: before its first entry); negative: malformed


class Resume(ClientMessage, tag="resume"):
    """Take back a seat with its token after a reconnect; every update after ``last_seq`` is sent again
    (0, the default: from the start)."""

    table: str
    token: str
    last_seq: SeqNumber = 0


class Watch(ClientMessage, tag="watch"):
    """Follow a table as a spectator, from ``last_seq`` on. ``broadcast_key``: the key its creator was given
    (a table with ``broadcast``): the view is then a ``BroadcastView``, every hand shown, past the delay."""

    table: str
    last_seq: Int64 = 0
    broadcast_key: str = ""


class BroadcastView(msgspec.Struct, frozen=True):
    """A broadcast's view of a table (a commentator's screen, a stream), only past its spectator delay and never
    to a seat: ``public`` is what every spectator sees, ``seats`` each seat's own view (its hand), in seat order."""

    public: Any
    seats: list[Any]


class Act(ClientMessage, tag="act"):
    """An action of the connection's seat at ``table``; ``expect_seq``, if given, refuses it when an
    accepted entry came after that sequence number (a stale action; refused intents never make it stale). ``seen``: the seq of the last update or snapshot
    the seat had received when it chose the action (fair ordering measures its reaction from it)."""

    table: str
    action: Any
    expect_seq: Int64 | None = None
    seen: Int64 | None = None


class Leave(ClientMessage, tag="leave"):
    table: str


class Rematch(ClientMessage, tag="rematch"):
    """Play the finished ``table`` again: a new table set up as it was (its game, mode, seats, options, server
    bots and their pace, its clocks and name; a fresh deal), offered to everyone still at the finished table
    (``rematch_offered``). Answered with ``table_created``; asked again, by anyone, it answers the same new
    table while that one is held, so two players who both click "play again" meet at one table."""

    table: str


class Seated(ServerMessage, tag="seated"):
    """You hold ``seat`` at ``table``; keep ``token`` to resume it after a reconnect."""

    ref: MessageId
    table: str
    game: str
    seat: int
    token: str
    seq: int


class Watching(ServerMessage, tag="watching"):
    ref: MessageId
    table: str
    game: str
    seq: int


class Left(ServerMessage, tag="left"):
    ref: MessageId
    table: str


class Accepted(ServerMessage, tag="accepted"):
    """Your action is in the log at ``seq``; its ``update`` follows (or came first, on a resend)."""

    ref: MessageId
    table: str
    seq: int
    duplicate: bool = False
    receipt: str | None = None  # the hash-chain hash of the entry's log line (tables with a log file)


class Contest(msgspec.Struct, frozen=True):
    """Why a contested action lost (fair ordering): ``winner`` did the same first, by ``rule``: ``reaction``
    (it reacted first), ``lot`` (the reactions tied and a seeded lot decided; ``lot`` true) or ``guess``
    (every ask was a guess: first asked, first served). The winner's reaction time is not told (it would help
    a client tune a cheat); the log has every input, and replay shows them once the table is over."""

    winner: int
    rule: str = "reaction"
    lot: bool = False


class Rejected(ServerMessage, tag="rejected"):
    """Your action was not applied: the rules' (or the arbiter's) ``code`` and ``message``. Nothing changed.
    ``contest``: another seat's same action went first by reaction time (fair ordering)."""

    ref: MessageId
    table: str
    code: str
    message: str
    seq: int  # the table's sequence number when it was refused
    contest: Contest | None = None


class Update(ServerMessage, tag="update"):
    """What one accepted log entry did, as the receiver may see it.

    ``view`` and ``legal`` (the receiver's legal actions, seats only) are the state after this entry; they
    are left out of updates sent again to catch a reconnecting client up, which end with a ``snapshot``.
    To a connection that said ``patches`` in its hello, one update comes per group of entries the arbiter applied
    in one go: ``seq`` the group's last, ``actor`` its first entry's, every entry's ``events`` in order and, for
    more than one entry, ``entries`` (each one's [seq, actor, number of its events]; ``viewpatch.split``);
    ``view_patch`` comes instead of ``view``: what changed since the last view this connection was sent for this
    table (``viewpatch.py``); ``legal`` is left out when the seat's legal actions are those it was last sent, and
    may come as ``legal_patch``, a patch of the last non-empty list sent; and once it holds a view, it
    is not sent what would repeat: ``to_act`` and ``pings`` equal to the last sent are left out, and ``receipt``
    but on the update with the game's result (``accepted`` and ``snapshot`` carry theirs). With ``events`` false
    in the hello as well, no ``events`` nor ``entries``, and only the updates with a view or the result.
    ``receipt`` is the hash-chain hash of the entry's line in the table's log file (none without a file):
    `photofinish verify LOG --receipt SEQ:HASH` proves later whether a log is the one this update came from.
    ``time_left_ms`` (to a seat, at a lockstep table with ``turn_time_ms``, while a seat is to act): the ms the seat
    to act has left, counted from when the server built this message; when they run out the server logs a
    ``timeout`` and the game moves for it.
    """

    table: str
    seq: int
    actor: int
    events: list[Any] = msgspec.field(default_factory=list)  # left out when empty
    to_act: list[int] | None = None  # always, but to a `patches` connection: left out when unchanged
    view: Any = None
    legal: list[Any] | None = None
    result: Any = None
    receipt: str | None = None
    pings: list[float | None] | None = None  # with a view: each seat's round trip in ms (None: not measured)
    time_left_ms: int | None = None  # with a view, at a timed lockstep table: ms left to the seat to act (see below)
    view_patch: list[list[Any]] | None = None  # with `patches`: the view as a patch of the last one sent
    legal_same: bool = False  # older servers' `legal` left out as unchanged (this one leaves `legal` out instead)
    entries: list[list[int]] | None = None  # with `patches`, a group of more than one entry: [seq, actor, events]
    legal_patch: list[list[Any]] | None = None  # with `patches`: `legal` as a patch of the last non-empty one sent


class Snapshot(ServerMessage, tag="snapshot"):
    """The receiver's whole view of a table now: after seating, watching or catching up.

    ``skipped``: accepted entries a catch-up left out because there were too many to resend (the view is
    whole; only their events are not sent). ``waiting_for``: the free seats, while the game waits for them.
    ``receipt``: the receipt of entry ``seq`` (see ``Update``). ``time_left_ms``: as in ``Update``."""

    table: str
    seq: int
    view: Any
    to_act: list[int]
    legal: list[Any] | None = None
    result: Any = None
    skipped: int = 0
    waiting_for: list[int] | None = None
    receipt: str | None = None
    pings: list[float | None] | None = None  # each seat's round trip in ms (None: not measured)
    time_left_ms: int | None = None  # a timed lockstep table: ms left to the seat to act


class RematchOffered(ServerMessage, tag="rematch_offered"):
    """Pushed to every seat and spectator of the finished ``table``: a rematch of it is open at ``rematch``
    (take a seat there); ``seat``: the seat of this table whose player asked for it (None: someone else)."""

    table: str
    rematch: str
    seat: int | None = None


class TableEnded(ServerMessage, tag="table_ended"):
    """The table was ended before its game's end (``reason``: ``time_limit``, a tournament round's time ran
    out; ``abandoned``, no player was connected for ``serve --abandoned-after`` seconds; ``disk_low``, played by
    server bots alone while the server's disk was below ``serve --min-free-mb``; ``expired``, nobody sat
    at it, ``places`` empty): ``places`` is each seat's place as the game stood (1 = first, ties share). No
    action is taken after."""

    table: str
    seq: int
    reason: str
    places: list[int]


class Presence(ServerMessage, tag="presence"):
    """Who is at a table now, pushed to its seated players and spectators whenever it changes: a seat taken,
    left, gone away or back, a stand-in started, a spectator come or gone. ``seats`` as in the table info
    (``ping_ms`` as measured then; null for a seat whose connection is gone), ``spectators`` how many watch."""

    table: str
    seats: list[SeatInfo]
    spectators: int
