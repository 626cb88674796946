"""The codecs: the two tagged unions of every message, their JSON and msgpack encoders and decoders, and the
protocol's JSON Schema generated from the types (``photofinish schema``).

Frames are JSON text by default; a client may ask for msgpack binary frames in its ``hello``.
"""

from __future__ import annotations

import typing
from typing import Any, Union

import msgspec

from .common import (PROTOCOL_VERSION, Batch, Closing, Error, Hello, MessageId, Ping, Pong, Redirect, Welcome)
from .lobby import (CreateTable, Games, ListGames, ListTables, OpenPlayback, Replay, ReplayFrames, TableCreated,
                    Tables)
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
    """Encodes and decodes frames in one encoding (``json``: text frames; ``msgpack``: binary frames)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        if encoding == "json":
            self.encoder = msgspec.json.Encoder()
            self.client_decoder = msgspec.json.Decoder(ClientMessageType)
            self.server_decoder = msgspec.json.Decoder(ServerMessageType)
            self.id_decoder = msgspec.json.Decoder(IdOnly)
        elif encoding == "msgpack":
            self.encoder = msgspec.msgpack.Encoder()
            self.client_decoder = msgspec.msgpack.Decoder(ClientMessageType)
            self.server_decoder = msgspec.msgpack.Decoder(ServerMessageType)
            self.id_decoder = msgspec.msgpack.Decoder(IdOnly)
        else:
            raise ValueError(f"no encoding {encoding!r} (json or msgpack)")

    def encode(self, message: Any) -> str | bytes:
        data = self.encoder.encode(message)
        return data.decode() if self.encoding == "json" else data


CODECS = {name: Codec(name) for name in ("json", "msgpack")}


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
    return codec.server_decoder.decode(frame)


def json_schema() -> dict:
    """The JSON Schema of the protocol, generated from its types (``photofinish schema``): every client and
    server message (a tagged union on ``type``), and each game's actions and a seat's view, each game's fields
    with their meanings (``gamedoc.py``)."""
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
            "server_messages": union(ServerMessageType),
            "games": {name: {"actions": describe(game.action_type, one(game.action_type)),
                             "view": describe(game.view_type, one(game.view_type))}
                      for name, game in sorted(GAMES.items())}}
