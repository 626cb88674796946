"""The wire protocol's frame of every connection: the two message bases, the greeting, errors, pings, batches,
redirects and the closing word; the join URL that plain HTTP serves.

Protocol version 1. One tagged union for client -> server, one for server -> client (``"type"`` is the tag,
``codecs.py`` builds them). Game payloads (actions, events, views) are the games' own msgspec Structs; they
travel as ``Any`` here and the receiver converts them with the game's types (``game.to_action(payload)``).
Every client message may carry an ``id`` (an int or a string); every answer to it carries the same value as
``ref``. ``server/PROTOCOL.md`` documents each message with a worked session.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

PROTOCOL_VERSION = 1
# Every integer a client sends fits in 64 bits, as msgpack carries it (JSON has no bound): a larger one is refused
# ``malformed`` as it is read, never met later by an answer that echoes it (a msgpack ``ref`` of 10**30 cannot be
# written)
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
MessageId = Int64 | str | None


class ClientMessage(msgspec.Struct, tag_field="type", frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The base of client messages; ``message.type`` is the tag (``Hello(protocol=1).type == "hello"``)."""

    id: MessageId = None

    @property
    def type(self) -> str:
        return self.__struct_config__.tag


class ServerMessage(msgspec.Struct, tag_field="type", frozen=True, omit_defaults=True, kw_only=True, gc=False):
    """The base of server messages: values with no reference cycles, kept out of the cycle collector (a seat
    keeps its first answer to each message id). ``message.type`` is the tag, as on the wire (``"update"``)."""

    @property
    def type(self) -> str:
        return self.__struct_config__.tag


class Hello(ClientMessage, tag="hello"):
    """The first message of every connection: ``protocol`` is required (a hello without it is refused
    ``bad_hello``, so a client never speaks a version it did not name); the rest have defaults."""

    protocol: Int64
    encoding: Literal["json", "msgpack"] = "json"
    client: str = ""
    batch: bool = False  # True: the server may put several queued messages into one `batch` frame
    patches: bool = False  # True: updates carry `view_patch` (what changed) instead of the whole `view`, one a group
    events: bool = True  # False (a receiver that shows no events: a bot, a compact spectator): with `patches`,
    # updates carry no `events`, only those with a view or a result are sent, and `accepted` has no `receipt`
    rows: bool = False  # True (with msgpack and patches): `update`, `snapshot`, `accepted` as arrays, not maps


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
    retry_ms: int | None = None  # a refusal for a rate or budget (``over_budget``, ``rate_limited``): send again after


class Pong(ClientMessage, tag="pong"):
    """The answer to the server's ``ping``, at once, with its number: how the server measures the round trip."""

    ping: Int64


class Ping(ServerMessage, tag="ping"):
    """Answer at once with ``pong`` and the same ``ping``: the server measures each connection's round trip
    (about once a second, and at once after a seat is taken)."""

    ping: int


class Batch(ServerMessage, tag="batch"):
    """Several messages in one frame, in order (only to a client that said ``batch`` in its hello)."""

    messages: list[Any]


class Redirect(ServerMessage, tag="redirect"):
    """In a cluster: what you asked for (a seat, a resume, a watch, a tournament call, a new table, or a finished
    table's replay or playback) is on another node; send the same request to ``url``. Nothing was changed here."""

    ref: MessageId
    url: str
    table: str | None = None
    tournament: str | None = None


class Closing(ServerMessage, tag="closing"):
    """The server is closing this connection, and why; sent just before the close."""

    code: str
    message: str


class JoinInfo(msgspec.Struct, frozen=True):
    """``GET /join.json``: the URL other machines open to join this server (``url``), and every one found."""

    url: str
    urls: list[str]
