"""Tournament messages: creating, entering, checking in, dropping, starting, correcting, reporting and watching a
tournament, its log, a player's table each round, and the leaderboard."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from .common import ClientMessage, Int64, MessageId, ServerMessage
from .tournament_actions import ActionInfo, RoundHistory


class CreateTournament(ClientMessage, tag="create_tournament"):
    """Open a tournament of one game with its options fixed; the answer carries the organiser's secret."""

    name: str = ""
    game: str = "flag_finish"
    mode: str = "lockstep"
    seats: Int64 = 3  # the table size wanted (smaller tables where the count does not divide)
    options: dict[str, Any] = {}
    format: Literal["swiss", "round_robin", "arena"] = "swiss"
    rounds: Int64 | None = None  # swiss: the number of rounds (None: 3); round robin computes its own, arena has none
    top: Int64 = 0  # after swiss, a final table of the top N (0: none)
    points: list[float] | None = None  # placement points by place, 0 or more, best first (fractions kept as
    # written: 2.5 is 5/2); None: the default for the table size
    bye_points: float | None = None  # None: the points of first place
    round_time_ms: Int64 = 0  # 0: no limit; else unfinished tables end as they stand
    turn_time_ms: Int64 = 60_000  # lockstep tables: a seat's time to act (a walk-away cannot stall a round)
    no_show_ms: Int64 = 60_000  # a seat whose player is not there after this is played by a stand-in bot
    bot_delay_ms: Int64 = 0  # the pace of server bots (stand-ins)
    spectator_delay_ms: Int64 = 0  # a broadcast delay at every table: spectators see it this long ago (0: live)
    spectator_delay_entries: Int64 = 0  # ... and (or) this many log entries behind (0: none)
    arena_ms: Int64 = 0  # arena: how long it runs
    late_entry_rounds: Int64 = 0  # registration stays open until this round has started (0: only before start)
    check_in: bool = False  # True: only checked-in players are seated in round 1
    max_players: Int64 = 0  # players holding a place at most; later registrations go on a waitlist (0: no cap)
    pairings_first: bool = False  # swiss: each round is seated first and begins when the organiser starts it
    reentry: bool = False  # swiss: a dropped player may enter again as a new entry from 0 points
    seed: Int64 | None = None
    # scoring and seeding choices (server/tournament/scoring.py, rated.py, reporting.py)
    points_by_size: dict[Int64, list[float]] = {}  # table size -> placement points best first (other sizes)
    tiebreaks: list[str] = []  # the order of "opponents" and "share" after points (the lot is last); []: default
    seeding: str = ""  # "ratings": a Swiss round 1 seated from the players' ratings; "": by lot
    reported_tables: Int64 = 0  # each round, the last N tables play off the server and their players report


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
    places: list[Int64]
    reason: str


class ReportResult(ClientMessage, tag="report_result"):
    """A player at a reported table (played off the server) gives each seat's place; the result stands when
    every player at the table has reported the same places."""

    tournament: str
    token: str
    table: str
    places: list[Int64]


class SettleResult(ClientMessage, tag="settle_result"):
    """The organiser gives a reported table's places (its players disagree, or one cannot report)."""

    tournament: str
    secret: str
    table: str
    places: list[Int64]
    reason: str = ""


class SetReportedTables(ClientMessage, tag="set_reported_tables"):
    """The organiser changes how many tables a round play off the server, from the next round seated on."""

    tournament: str
    secret: str
    tables: Int64


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
    limit: Int64 = 50


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
    suggested_rounds: int = 0  # Swiss: the rounds its players need (ceil(log_seats(players))); 0 otherwise
    tiebreaks: list[str] = []  # the tiebreaks after points, in order (the lot follows)
    seeding: str = ""  # "ratings": round 1 was (or will be) seated from ratings
    reported_tables: int = 0  # tables of the next round seated that play off the server and report
    waiting_round: int = 0  # the round seated and waiting for the organiser to begin it (pairings_first), 0: none


class PlayerInfo(msgspec.Struct, frozen=True):
    player: str
    name: str
    checked_in: bool
    dropped: bool
    waitlisted: bool = False  # on the waitlist: never seated unless a place frees before the start
    disqualified: bool = False


class SeatingInfo(msgspec.Struct, frozen=True):
    """One table of a round: its players in seat order, its places once over (None while it plays)."""

    table: str
    players: list[str]
    places: list[int] | None = None
    stand_ins: list[int] = []  # seats a stand-in bot played
    reported: bool = False  # played off the server: its players report its places (``report_result``)
    reports: dict[str, list[int]] = {}  # reported table: each player who reported -> the places they gave


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
    rounds: list[RoundHistory] = []  # every round so far, the current one last
    actions: list[ActionInfo] = []  # every organiser decision, in log order


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
    reported: bool = False  # played off the server with real cards: report its places (``report_result``)


def scoring_places(places: tuple[int, ...], stand_ins: tuple[bool, ...] | None = None) -> tuple[int, ...]:
    """The places that score at a finished table (a ``SeatingInfo``'s): the game's ``places``, with the seats a
    stand-in bot played for a no-show moved to the last places (several share the last), the others closing up.
    The tournament's standings and the clients' standings text both place seats by it."""
    stand_ins = stand_ins or (False,) * len(places)
    if not any(stand_ins):
        return tuple(places)
    present = [p for p, s in zip(places, stand_ins) if not s]
    return tuple(len(present) + 1 if stand_in else 1 + sum(1 for other in present if other < place)
                 for place, stand_in in zip(places, stand_ins))
