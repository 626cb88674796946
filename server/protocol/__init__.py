"""The protocol, shared by the server and its clients: every wire message, their codecs, the error codes,
the bot driver, and the formats a client reads (the log, names, a cluster's address).

Pure: no trio, nothing else of ``server/`` (``tests/test_layers.py`` keeps it so), so a client imports it
without the server. ``from server.protocol import X`` gives every message type, the codecs, ``Code``,
``Refusal``, ``BotDriver`` and ``tag_of`` (the ``"type"`` tag of any message, action or event; each also has
``.type``); the log's format is ``server.protocol.logformat``, names' rules
``server.protocol.names``.

- ``common.py``: the message bases, hello/welcome, error, ping/pong, batch, redirect, closing, join info
- ``lobby.py``, ``table.py``, ``tournament.py``: each group's messages, both ways
- ``codecs.py``: the two tagged unions, JSON and msgpack codecs (and msgpack rows), the JSON Schema
- ``rows.py``: ``update``, ``snapshot`` and ``accepted`` as arrays (hello ``rows``), and back
- ``viewpatch.py``, ``viewrows.py``: view patches and a client's side of them; views as arrays (``rows``), and back
- ``codes.py``: ``Code`` (every error code, once), ``Refusal``, ``NO_RECONNECT``, the browser's ``/js/codes.js``
- ``botdriver.py``: one seat's messages in, that seat's actions out, for any policy
- ``logformat.py``, ``names.py``, ``addresses.py``: the log's records and reader; names; a Redis URL
"""

from rules import tag_of

from .botdriver import BotDriver
from .codecs import (CODECS, ROWS, ClientMessageType, Codec, IdOnly, ServerMessageType, codec_for, convert_server,
                     decode_client, decode_server, id_of, json_schema)
from .codes import NO_RECONNECT, Code, Refusal
from .common import (PROTOCOL_VERSION, Batch, ClientMessage, Closing, Error, Hello, JoinInfo, MessageId, Ping, Pong,
                     Redirect, ServerMessage, Welcome)
from .lobby import (BotSeat, CreateTable, Frame, FrameContest, Games, GameSummary, ListGames, ListTables,
                    OpenPlayback, OptionInfo, Replay, ReplayFrames, Rival, SeatInfo,
                    TableCreated, TableInfo, Tables, delay_behind, game_summary)
from .table import (Accepted, Act, BroadcastView, Contest, Leave, Left, Presence, Rejected, Rematch, RematchOffered,
                    Resume, Seated, Snapshot, TableEnded, TakeSeat, Update, Watch, Watching)
from .tournament import (CheckIn, CorrectResult, CreateTournament, Drop, Leaderboard, ListTournaments, PlayerInfo,
                         RatingRow, Ratings, Register, Registered, ReportResult, SeatingInfo, SetReportedTables,
                         SettleResult, StandingRow, StartTournament,
                         TournamentCreated, TournamentInfo, TournamentLog, TournamentLogFile, Tournaments,
                         TournamentState, WatchTournament, YourTable)
from .tournament_actions import (ActionInfo, CancelTournament, Disqualify, EndRound, Penalise, Reenter, RepairRound,
                                 RoundHistory, SwapPlayers, TableHistory, UndoDrop)

__all__ = [
    "BotDriver", "CODECS", "ROWS", "codec_for", "convert_server", "ClientMessageType", "Codec", "IdOnly",
    "ServerMessageType", "decode_client",
    "decode_server", "id_of", "json_schema", "NO_RECONNECT", "Code", "Refusal", "PROTOCOL_VERSION", "Batch",
    "ClientMessage", "Closing", "Error", "Hello", "JoinInfo", "MessageId", "Ping", "Pong", "Redirect", "ServerMessage",
    "Welcome", "BotSeat", "CreateTable", "Frame", "FrameContest", "Games", "GameSummary", "ListGames", "ListTables",
    "OpenPlayback", "OptionInfo", "Replay", "ReplayFrames", "Rival", "SeatInfo",
    "TableCreated", "TableInfo", "Tables", "game_summary", "Accepted", "Act", "BroadcastView", "Contest", "Leave",
    "Left", "Presence", "Rejected", "Rematch", "RematchOffered", "Resume", "Seated", "Snapshot", "TableEnded",
    "TakeSeat", "Update", "Watch",
    "Watching", "CheckIn",
    "CorrectResult", "CreateTournament", "Drop", "Leaderboard", "ListTournaments", "PlayerInfo", "RatingRow",
    "ReportResult", "SetReportedTables", "SettleResult",
    "Ratings", "Register", "Registered", "SeatingInfo", "StandingRow", "StartTournament", "TournamentCreated",
    "TournamentInfo", "TournamentLog", "TournamentLogFile", "Tournaments", "TournamentState", "WatchTournament",
    "YourTable", "tag_of", "ActionInfo", "CancelTournament", "Disqualify", "EndRound", "Penalise", "Reenter",
    "RepairRound", "RoundHistory", "SwapPlayers", "TableHistory", "UndoDrop",
]
