"""The codecs: the two tagged unions of every message, their JSON and msgpack encoders and decoders, and the
protocol's JSON Schema generated from the types (``photofinish schema``).

Frames are JSON text by default; a client may ask for msgpack binary frames in its ``hello``, and with them
``rows``: the per-move messages as arrays (``rows.py``), a third codec whose bytes are its own (``Codec.name``).
"""

from __future__ import annotations

import typing
from typing import Any, Union

import msgspec

from .common import (PROTOCOL_VERSION, Batch, Closing, Error, Hello, MessageId, Ping, Pong, Redirect, Welcome)
from .lobby import (CreateTable, Games, ListGames, ListTables, OpenPlayback, Replay, ReplayFrames, TableCreated,
                    Tables)
from .rows import ROW_TYPES, converted, to_row
from .table import (Accepted, Act, Leave, Left, Presence, Rejected, Rematch, RematchOffered, Resume, Seated, Snapshot,
                    TableEnded, TakeSeat, Update, Watch, Watching)
from .tournament import (CheckIn, CorrectResult, CreateTournament, Drop, Leaderboard, ListTournaments, Ratings,
                         Register, Registered, ReportResult, SetReportedTables, SettleResult, StartTournament,
                         TournamentCreated, TournamentLog, TournamentLogFile, Tournaments, TournamentState, WatchTournament, YourTable)
from .tournament_actions import (CancelTournament, Disqualify, EndRound, Penalise, Reenter, RepairRound, SwapPlayers,
                                 UndoDrop)


ClientMessageType = Union[Hello, ListGames, CreateTable, ListTables, TakeSeat, Resume, Watch, Act, Pong, Leave,
                          OpenPlayback, CreateTournament, ListTournaments, Register, CheckIn, Drop, StartTournament,
                          CorrectResult, WatchTournament, Leaderboard, Replay, TournamentLog, ReportResult,
                          SettleResult, SetReportedTables, Rematch,
                          # the organiser's actions (tournament_actions.py)
                          RepairRound, SwapPlayers, EndRound, CancelTournament, Penalise, Disqualify, UndoDrop,
                          Reenter]


ServerMessageType = Union[Welcome, Error, Games, TableCreated, Tables, Seated, Watching, Left, Accepted,
                          Rejected, Update, Snapshot, TableEnded, TournamentCreated, Tournaments, Registered,
                          TournamentState, YourTable, Ratings, ReplayFrames, Ping, Batch, Redirect, Closing,
                          TournamentLogFile, Presence, RematchOffered]


class IdOnly(msgspec.Struct, frozen=True):
    """Any client object, read for its ``id`` alone (``id_of``)."""

    id: MessageId = None


class Codec:
    """Encodes and decodes frames in one encoding (``json``: text frames; ``msgpack``: binary frames); with
    ``rows`` (msgpack only), ``update``, ``snapshot`` and ``accepted`` go as rows (``rows.py``) and are read
    back as the same messages. ``name`` tells the forms apart (``json``, ``msgpack``, ``msgpack rows``): bytes
    encoded once are kept per name (``server/wire/encodeonce.py``)."""

    def __init__(self, encoding: str, rows: bool = False) -> None:
        self.encoding = encoding
        self.rows = rows
        self.name = encoding + " rows" if rows else encoding
        if rows and encoding != "msgpack":
            raise ValueError("rows are msgpack only")
        if encoding == "json":
            self.encoder = msgspec.json.Encoder()
            self.client_decoder = msgspec.json.Decoder(ClientMessageType)
            self.server_decoder = msgspec.json.Decoder(ServerMessageType)
            self.id_decoder = msgspec.json.Decoder(IdOnly)
        elif encoding == "msgpack":
            self.encoder = msgspec.msgpack.Encoder()
            self.client_decoder = msgspec.msgpack.Decoder(ClientMessageType)
            self.server_decoder = msgspec.msgpack.Decoder(Union[ServerMessageType, list[Any]] if rows
                                                          else ServerMessageType)
            self.id_decoder = msgspec.msgpack.Decoder(IdOnly)
        else:
            raise ValueError(f"no encoding {encoding!r} (json or msgpack)")

    def wire(self, message: Any) -> Any:
        """``message`` in the form this codec sends it: its row, for a rows codec and a message that has one."""
        return to_row(message) if self.rows and type(message) in ROW_TYPES else message

    def bytes_of(self, message: Any) -> bytes:
        return self.encoder.encode(self.wire(message))

    def encode(self, message: Any) -> str | bytes:
        data = self.bytes_of(message)
        return data.decode() if self.encoding == "json" else data


CODECS = {name: Codec(name) for name in ("json", "msgpack")}
ROWS = Codec("msgpack", rows=True)  # a connection that said ``rows`` (and msgpack and patches) in its hello


def codec_for(encoding: str, rows: bool = False) -> Codec:
    """The codec of a hello's ``encoding`` and ``rows``."""
    return ROWS if rows else CODECS[encoding]


def decode_client(frame: str | bytes, codec: Codec) -> ClientMessageType:
    """A client frame as a message; raises ``msgspec.ValidationError``/``DecodeError`` with the reason."""
    return codec.client_decoder.decode(frame)


def id_of(frame: str | bytes, codec: Codec) -> MessageId:
    """The ``id`` of a client frame that is no valid message (a field missing or wrong, an unknown type), so that
    its error can answer the request that waits for it; None where the frame is no object or its id no id."""
    try:
        return codec.id_decoder.decode(frame).id
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def decode_server(frame: str | bytes, codec: Codec) -> ServerMessageType:
    """A server frame as its message; a row (with a rows codec) as the same message a map frame gives."""
    message = codec.server_decoder.decode(frame)
    return converted(message) if type(message) is list else message


def convert_server(value: Any) -> ServerMessageType:
    """A message read as plain values (one of a ``batch``'s) as its message: a map or, from a rows codec, a row."""
    if type(value) is list:
        return converted(value)
    return msgspec.convert(value, ServerMessageType)


def row_places() -> dict:
    """Each message sent as a row (hello ``rows``): its tag and its fields in their places after the tag."""
    return {kind.__struct_config__.tag: {"tag": row.__struct_config__.tag, "fields": list(row.__struct_fields__)}
            for kind, row in ROW_TYPES.items()}


def json_schema() -> dict:
    """The JSON Schema of the protocol, generated from its types (``photofinish schema``): every client and
    server message (a tagged union on ``type``), the places of the rows' fields (``rows``), and each game's
    actions and a seat's view, each game's fields with their meanings (``gamedoc.py``)."""
    from rules import GAMES

    from .gamedoc import describe

    def union(kind) -> dict:
        (schema,), components = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")
        tags = sorted(t.__struct_config__.tag for t in typing.get_args(kind))
        return {"tags": tags, **schema, "$defs": components}

    def one(kind) -> dict:
        (schema,), components = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")
        return {**schema, "$defs": components}

    return {"protocol": PROTOCOL_VERSION, "client_messages": union(ClientMessageType),
            "server_messages": union(ServerMessageType), "rows": row_places(),
            "games": {name: {"actions": describe(game.action_type, one(game.action_type)),
                             "view": describe(game.view_type, one(game.view_type))}
                      for name, game in sorted(GAMES.items())}}
