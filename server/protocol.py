"""The wire protocol, version 1: every message between a client and the server, and their codecs.

One tagged union for client -> server, one for server -> client (``"type"`` is the tag). Game payloads
(actions, events, views) are the games' own msgspec Structs; they travel as ``Any`` here and the receiver
converts them with the game's types (``game.to_action(payload)``).

Frames are JSON text by default; a client may ask for msgpack binary frames in its ``hello``. Every client
message may carry an ``id`` (an int or a string); every answer to it carries the same value as ``ref``.
``server/PROTOCOL.md`` documents each message with a worked session.
"""

from __future__ import annotations

import typing

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
    seed: int | None = None  # None: the server draws one; a chosen seed only with ``practice`` (shown to all)
    practice: bool = False  # a practice table: its creator may choose the seed, so its deal is no secret
    ordering: Literal["arrival", "fair"] | None = None  # None: fair in Challenge Mode, arrival in lockstep
    fair_ms: int = 50  # fair ordering: the most a seat's round trip is credited, and a contested action held
    placed: bool = False  # a cluster node sent this create here (``redirect``): open it here, never send it on


class ListTables(ClientMessage, tag="list_tables"):
    """The tables, ``limit`` of them (None: all) from the ``offset``-th on; the answer says the ``total``."""

    offset: int = 0
    limit: int | None = None


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
    """An action of the connection's seat at ``table``; ``expect_seq``, if given, refuses it when an
    accepted entry came after that sequence number (a stale action; refused intents never make it stale). ``seen``: the seq of the last update or snapshot
    the seat had received when it chose the action (fair ordering measures its reaction from it)."""

    table: str
    action: Any
    expect_seq: int | None = None
    seen: int | None = None


class Pong(ClientMessage, tag="pong"):
    """The answer to the server's ``ping``, at once, with its number: how the server measures the round trip."""

    ping: int


class Leave(ClientMessage, tag="leave"):
    table: str


class OpenPlayback(ClientMessage, tag="open_playback"):
    """Open the finished log of table ``log`` as a read-only table that plays it to watchers at ``speed``."""

    log: str
    speed: float = 1.0


class CreateTournament(ClientMessage, tag="create_tournament"):
    """Open a tournament of one game with its options fixed; the answer carries the organiser's secret."""

    name: str = ""
    game: str = "flag_finish"
    mode: str = "lockstep"
    seats: int = 3  # the table size wanted (smaller tables where the count does not divide)
    options: dict[str, Any] = {}
    format: Literal["swiss", "round_robin", "arena"] = "swiss"
    rounds: int | None = None  # swiss: the number of rounds (None: 3); round robin computes its own, arena has none
    top: int = 0  # after swiss, a final table of the top N (0: none)
    points: list[float] | None = None  # placement points by place, 0 or more, best first (fractions kept as
    # written: 2.5 is 5/2); None: the default for the table size
    bye_points: float | None = None  # None: the points of first place
    round_time_ms: int = 0  # 0: no limit; else unfinished tables end as they stand
    turn_time_ms: int = 60_000  # lockstep tables: a seat's time to act (a walk-away cannot stall a round)
    no_show_ms: int = 60_000  # a seat whose player is not there after this is played by a stand-in bot
    bot_delay_ms: int = 0  # the pace of server bots (stand-ins)
    arena_ms: int = 0  # arena: how long it runs
    late_entry_rounds: int = 0  # registration stays open until this round has started (0: only before start)
    check_in: bool = False  # True: only checked-in players are seated in round 1
    max_players: int = 0  # players holding a place at most; later registrations go on a waitlist (0: no cap)
    seed: int | None = None


class ListTournaments(ClientMessage, tag="list_tournaments"):
    pass


class Register(ClientMessage, tag="register"):
    """Enter ``tournament`` as ``name``; the answer carries the player's secret token."""

    tournament: str
    name: str


class CheckIn(ClientMessage, tag="check_in"):
    tournament: str
    token: str


class Drop(ClientMessage, tag="drop"):
    """Leave a tournament (a player with their ``token``, or the organiser with ``secret`` and ``player``)."""

    tournament: str
    token: str = ""
    secret: str = ""
    player: str | None = None


class StartTournament(ClientMessage, tag="start_tournament"):
    """The organiser starts the tournament, or (``next_round``) the next round before it would start by itself."""

    tournament: str
    secret: str
    next_round: bool = False


class CorrectResult(ClientMessage, tag="correct_result"):
    """The organiser corrects one table's result (each seat's place), with a reason; logged as a correction."""

    tournament: str
    secret: str
    table: str
    places: list[int]
    reason: str


class WatchTournament(ClientMessage, tag="watch_tournament"):
    """Follow a tournament's standings, seatings and results live; with a player's ``token``, also that
    player's ``your_table`` each round."""

    tournament: str
    token: str = ""


class TournamentLog(ClientMessage, tag="tournament_log"):
    """The tournament's log as it stands (its seed revealed only once it has ended): anyone may ask, and
    `photofinish tournament verify` checks the copy on the player's own machine."""

    tournament: str


class Leaderboard(ClientMessage, tag="leaderboard"):
    """The ratings of ``game``'s players (from every finished tournament table), best first."""

    game: str
    limit: int = 50


class Replay(ClientMessage, tag="replay"):
    """A table step by step as ``seat`` saw it (None: as a spectator): ``log`` names a finished table whose log
    this server holds, or ``export`` carries an exported log: the file ``photofinish export`` wrote, as it is,
    gzip-compressed and base64-encoded. Answered with frames ``start`` to ``start + count - 1`` (count 1..200);
    frame 0 is the table before its first entry."""

    log: str = ""
    export: str = ""
    seat: int | None = None
    start: int = 0
    count: int = 100


ClientMessageType = Union[Hello, ListGames, CreateTable, ListTables, TakeSeat, Resume, Watch, Act, Pong, Leave,
                          OpenPlayback, CreateTournament, ListTournaments, Register, CheckIn, Drop, StartTournament,
                          CorrectResult, WatchTournament, Leaderboard, Replay, TournamentLog]


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
    retry_ms: int | None = None  # a refusal for a rate or budget (``over_budget``, ``rate_limited``): send again after


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
    state: str  # "free", "taken", "away" (reserved for its token), "bot", "stand_in" (a bot for an absent player)
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


class TableCreated(ServerMessage, tag="table_created"):
    ref: MessageId
    table: TableInfo


class Tables(ServerMessage, tag="tables"):
    ref: MessageId
    tables: list[TableInfo]
    total: int | None = None  # the tables in all (a page asked with ``offset``/``limit`` holds some of them)


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
    ``receipt`` is the hash-chain hash of the entry's line in the table's log file (none without a file):
    `photofinish verify LOG --receipt SEQ:HASH` proves later whether a log is the one this update came from.
    """

    table: str
    seq: int
    actor: int
    events: list[Any]
    to_act: list[int]
    view: Any = None
    legal: list[Any] | None = None
    result: Any = None
    receipt: str | None = None
    pings: list[float | None] | None = None  # with a view: each seat's round trip in ms (None: not measured)


class Snapshot(ServerMessage, tag="snapshot"):
    """The receiver's whole view of a table now: after seating, watching or catching up.

    ``skipped``: accepted entries a catch-up left out because there were too many to resend (the view is
    whole; only their events are not sent). ``waiting_for``: the free seats, while the game waits for them.
    ``receipt``: the receipt of entry ``seq`` (see ``Update``)."""

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


class TableEnded(ServerMessage, tag="table_ended"):
    """The table was ended before its game's end (``reason``: ``time_limit``, a tournament round's time ran
    out): ``places`` is each seat's place as the game stood (1 = first, ties share). No action is taken after."""

    table: str
    seq: int
    reason: str
    places: list[int]


class TournamentInfo(msgspec.Struct, frozen=True):
    tournament: str
    name: str
    game: str
    mode: str
    seats: int
    options: dict[str, Any]
    format: str
    rounds: int  # planned (swiss: as asked; round_robin: computed once started)
    round: int  # the current round (0 before the start)
    status: str  # "registration", "running", "over"
    players: int  # holding a place (the waitlist apart)
    commitment: str  # sha256 of the seating seed, revealed when the tournament ends
    max_players: int = 0  # the cap of players holding a place (0: none)
    waitlisted: int = 0  # players on the waitlist


class PlayerInfo(msgspec.Struct, frozen=True):
    player: str
    name: str
    checked_in: bool
    dropped: bool
    waitlisted: bool = False  # on the waitlist: never seated unless a place frees before the start


class SeatingInfo(msgspec.Struct, frozen=True):
    """One table of a round: its players in seat order, its places once over (None while it plays)."""

    table: str
    players: list[str]
    places: list[int] | None = None
    stand_ins: list[int] = []  # seats a stand-in bot played


class StandingRow(msgspec.Struct, frozen=True):
    rank: int
    player: str
    name: str
    points: float
    opponents_pct: float  # the first tiebreak
    game_share: float  # the second
    tables: int
    byes: int
    dropped: bool


class TournamentCreated(ServerMessage, tag="tournament_created"):
    ref: MessageId
    tournament: TournamentInfo
    secret: str  # the organiser's: start, next round, corrections, drops


class Tournaments(ServerMessage, tag="tournaments"):
    ref: MessageId
    tournaments: list[TournamentInfo]


class Registered(ServerMessage, tag="registered"):
    ref: MessageId
    tournament: str
    player: str
    name: str
    token: str  # the player's secret: check in, drop, and take each round's reserved seat (``resume``)
    receipt: str | None = None  # the hash of the registration's line in the tournament's log (``verify --receipt``)
    waitlisted: bool = False  # past the cap: on the waitlist, not seated unless a place frees before the start
    waitlist_position: int = 0  # 1 for the first waiting (0: holding a place)


class TournamentState(ServerMessage, tag="tournament"):
    """A tournament as it is now: the answer to every tournament call, and pushed to its watchers on change."""

    tournament: TournamentInfo
    ref: MessageId = None
    players: list[PlayerInfo] = []
    standings: list[StandingRow] = []
    seatings: list[SeatingInfo] = []  # the current round's tables
    byes: list[str] = []  # the current round's byes
    waitlist: list[str] = []  # players waiting for a place, first first


class RatingRow(msgspec.Struct, frozen=True):
    rank: int
    player: str  # a player is their name, case-folded, across tournaments
    ordinal: float  # mu - 3 sigma: what the leaderboard orders by
    mu: float
    sigma: float
    tables: int


class TournamentLogFile(ServerMessage, tag="tournament_log_file"):
    """The answer to ``tournament_log``: the log's text, every whole line so far (``lines`` of them), and the
    hash of its last line (``head``: keep it to prove later that a log is a continuation of this one)."""

    ref: MessageId
    tournament: str
    log: str
    lines: int
    head: str


class Ratings(ServerMessage, tag="ratings"):
    ref: MessageId
    game: str
    ratings: list[RatingRow]


class YourTable(ServerMessage, tag="your_table"):
    """To a player watching their tournament: your seat this round; ``resume`` it with your player token."""

    tournament: str
    round: int
    table: str
    seat: int


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


class Ping(ServerMessage, tag="ping"):
    """Answer at once with ``pong`` and the same ``ping``: the server measures each connection's round trip
    (about once a second, and at once after a seat is taken)."""

    ping: int


class Batch(ServerMessage, tag="batch"):
    """Several messages in one frame, in order (only to a client that said ``batch`` in its hello)."""

    messages: list[Any]


class Redirect(ServerMessage, tag="redirect"):
    """In a cluster: what you asked for (a seat, a resume, a watch, a tournament call, or a new table) is on
    another node; send the same request to ``url``. Nothing was changed here."""

    ref: MessageId
    url: str
    table: str | None = None
    tournament: str | None = None


class Closing(ServerMessage, tag="closing"):
    """The server is closing this connection, and why; sent just before the close."""

    code: str
    message: str


ServerMessageType = Union[Welcome, Error, Games, TableCreated, Tables, Seated, Watching, Left, Accepted,
                          Rejected, Update, Snapshot, TableEnded, TournamentCreated, Tournaments, Registered,
                          TournamentState, YourTable, Ratings, ReplayFrames, Ping, Batch, Redirect, Closing,
                          TournamentLogFile]


# ------------------------------------------------------------------ codecs


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


def json_schema() -> dict:
    """The JSON Schema of the protocol, generated from its types (``photofinish schema``): every client and
    server message (a tagged union on ``type``), and each game's actions and a seat's view."""
    from rules import GAMES

    def union(kind) -> dict:
        (schema,), components = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")
        tags = sorted(t.__struct_config__.tag for t in typing.get_args(kind))
        return {"tags": tags, **schema, "$defs": components}

    def one(kind) -> dict:
        (schema,), components = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")
        return {**schema, "$defs": components}

    return {"protocol": PROTOCOL_VERSION, "client_messages": union(ClientMessageType),
            "server_messages": union(ServerMessageType),
            "games": {name: {"actions": one(game.action_type), "view": one(game.view_type)}
                      for name, game in sorted(GAMES.items())}}
