"""The wire protocol, version 1: every message between a client and the server, and their codecs.

One tagged union for client -> server, one for server -> client (``"type"`` is the tag). Game payloads
(actions, events, views) are the games' own msgspec Structs; they travel as ``Any`` here and the receiver
converts them with the game's types (``game.to_action(payload)``).

Frames are JSON text by default; a client may ask for msgpack binary frames in its ``hello``. Every client
message may carry an ``id`` (an int or a string); every answer to it carries the same value as ``ref``.
``server/PROTOCOL.md`` documents each message with a worked session.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

PROTOCOL_VERSION = 1
MessageId = int | str | None


# ------------------------------------------------------------------ client -> server


class ClientMessage(msgspec.Struct, tag_field="type", frozen=True, forbid_unknown_fields=True, kw_only=True):
    id: MessageId = None


class Hello(ClientMessage, tag="hello"):
    """The first message of every connection."""

    protocol: int = PROTOCOL_VERSION
    encoding: Literal["json", "msgpack"] = "json"
    client: str = ""
    batch: bool = False  # True: the server may put several queued messages into one `batch` frame


class ListGames(ClientMessage, tag="list_games"):
    pass


class BotSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: int
    policy: str = "heuristic"


class CreateTable(ClientMessage, tag="create_table"):
    game: str = "flag_finish"
    mode: str = "lockstep"
    seats: int = 2
    options: dict[str, Any] = {}
    bots: list[BotSeat] = []  # seats the server fills with its own bots
    name: str = ""
    turn_time_ms: int = 0  # lockstep: a seat's time to act, 0 = no limit
    grace_ms: int = 60_000  # how long an away seat stays reserved for its token
    bot_delay_ms: int = 0  # server-side bots wait this long before each action (a watchable pace)
    seed: int | None = None  # None: the server draws one


class ListTables(ClientMessage, tag="list_tables"):
    pass


class TakeSeat(ClientMessage, tag="take_seat"):
    """Sit at a free seat (``seat`` None: any free seat). The answer carries the seat's secret token."""

    table: str
    seat: int | None = None
    name: str = ""


class Resume(ClientMessage, tag="resume"):
    """Take back a seat with its token after a reconnect; every update after ``last_seq`` is sent again."""

    table: str
    token: str
    last_seq: int = 0


class Watch(ClientMessage, tag="watch"):
    """Follow a table as a spectator, from ``last_seq`` on."""

    table: str
    last_seq: int = 0


class Act(ClientMessage, tag="act"):
    """An action of the connection's seat at ``table``; ``expect_seq``, if given, refuses it when the table
    has moved past that sequence number (a stale action)."""

    table: str
    action: Any
    expect_seq: int | None = None


class Leave(ClientMessage, tag="leave"):
    table: str


class OpenPlayback(ClientMessage, tag="open_playback"):
    """Open the finished log of table ``log`` as a read-only table that plays it to watchers at ``speed``."""

    log: str
    speed: float = 1.0


ClientMessageType = Union[Hello, ListGames, CreateTable, ListTables, TakeSeat, Resume, Watch, Act, Leave,
                          OpenPlayback]


# ------------------------------------------------------------------ server -> client


class ServerMessage(msgspec.Struct, tag_field="type", frozen=True, omit_defaults=True, kw_only=True, gc=False):
    """The base of server messages: values with no reference cycles, kept out of the cycle collector (a seat
    keeps its first answer to each message id)."""


class Welcome(ServerMessage, tag="welcome"):
    ref: MessageId
    protocol: int
    encoding: str
    server: str


class Error(ServerMessage, tag="error"):
    """A message the server could not take: malformed, unknown, not allowed. Nothing was changed."""

    ref: MessageId
    code: str
    message: str


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
    ref: MessageId
    games: list[GameSummary]


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    state: str  # "free", "taken", "away" (reserved for its token), "bot"
    name: str = ""


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


class TableCreated(ServerMessage, tag="table_created"):
    ref: MessageId
    table: TableInfo


class Tables(ServerMessage, tag="tables"):
    ref: MessageId
    tables: list[TableInfo]


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


class Rejected(ServerMessage, tag="rejected"):
    """Your action was not applied: the rules' (or the arbiter's) ``code`` and ``message``. Nothing changed."""

    ref: MessageId
    table: str
    code: str
    message: str
    seq: int  # the table's sequence number when it was refused


class Update(ServerMessage, tag="update"):
    """What one accepted log entry did, as the receiver may see it.

    ``view`` and ``legal`` (the receiver's legal actions, seats only) are the state after this entry; they
    are left out of updates sent again to catch a reconnecting client up, which end with a ``snapshot``.
    """

    table: str
    seq: int
    actor: int
    events: list[Any]
    to_act: list[int]
    view: Any = None
    legal: list[Any] | None = None
    result: Any = None


class Snapshot(ServerMessage, tag="snapshot"):
    """The receiver's whole view of a table now: after seating, watching or catching up."""

    table: str
    seq: int
    view: Any
    to_act: list[int]
    legal: list[Any] | None = None
    result: Any = None


class Batch(ServerMessage, tag="batch"):
    """Several messages in one frame, in order (only to a client that said ``batch`` in its hello)."""

    messages: list[Any]


class Closing(ServerMessage, tag="closing"):
    """The server is closing this connection, and why; sent just before the close."""

    code: str
    message: str


ServerMessageType = Union[Welcome, Error, Games, TableCreated, Tables, Seated, Watching, Left, Accepted,
                          Rejected, Update, Snapshot, Batch, Closing]


# ------------------------------------------------------------------ codecs


class Codec:
    """Encodes and decodes frames in one encoding (``json``: text frames; ``msgpack``: binary frames)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        if encoding == "json":
            self.encoder = msgspec.json.Encoder()
            self.client_decoder = msgspec.json.Decoder(ClientMessageType)
            self.server_decoder = msgspec.json.Decoder(ServerMessageType)
        elif encoding == "msgpack":
            self.encoder = msgspec.msgpack.Encoder()
            self.client_decoder = msgspec.msgpack.Decoder(ClientMessageType)
            self.server_decoder = msgspec.msgpack.Decoder(ServerMessageType)
        else:
            raise ValueError(f"no encoding {encoding!r} (json or msgpack)")

    def encode(self, message: Any) -> str | bytes:
        data = self.encoder.encode(message)
        return data.decode() if self.encoding == "json" else data


CODECS = {name: Codec(name) for name in ("json", "msgpack")}


def decode_client(frame: str | bytes, codec: Codec) -> ClientMessageType:
    """A client frame as a message; raises ``msgspec.ValidationError``/``DecodeError`` with the reason."""
    return codec.client_decoder.decode(frame)


def decode_server(frame: str | bytes, codec: Codec) -> ServerMessageType:
    return codec.server_decoder.decode(frame)


def game_summary(info) -> GameSummary:
    return GameSummary(
        name=info.name, title=info.title, rules_version=info.rules_version, min_seats=info.min_seats,
        max_seats=info.max_seats, modes=list(info.modes),
        options=[OptionInfo(name=o.name, default=o.default, doc=o.doc, minimum=o.minimum, maximum=o.maximum,
                            choices=list(o.choices) if o.choices else None) for o in info.options],
    )


# ------------------------------------------------------------------ plain HTTP


class JoinInfo(msgspec.Struct, frozen=True):
    """``GET /join.json``: the URL other machines open to join this server (``url``), and every one found."""

    url: str
    urls: list[str]
