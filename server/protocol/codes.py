"""The server's error vocabulary: every code it sends in an ``error``, a ``rejected`` or a ``closing``, listed
once, and ``Refusal``, the one exception for a request the server refuses.

``Code`` is a ``StrEnum``: a member equals its string, so the wire carries the same text as ever and a
client compares ``message.code == Code.STALE`` or ``== "stale"`` alike. A game's own refusals (a player's
illegal move: ``not_your_turn``, ``card_not_in_discard``, ...) are the rules' codes (``rules.RulesError``),
listed per game in ``server/PROTOCOL.md``; they are not here. Each member's comment says what it means;
``server/PROTOCOL.md`` lists them all ("Error codes"), and ``tests/test_codes.py`` fails when the server or
a client writes a code that is not a member.

``Refusal(code, message)``: the server will not do what was asked (a bad request, a limit, a missing table,
storage or the cluster away); nothing was changed, and ``message`` says why in words. It is not
``RulesError``: that one is a player's illegal move, checked by the rules. A caller that answers a request
catches both and sends ``error`` with the code.

``NO_RECONNECT``: the ``closing`` codes after which a client must not reconnect by itself (the browser's
copy is ``/js/codes.js``, generated from this module by ``codes_js``).
"""

from __future__ import annotations

import json
from enum import StrEnum


class Code(StrEnum):
    # -- the connection (``closing``, or an ``error`` and then ``closing``)
    HELLO_TIMEOUT = "hello_timeout"  # no hello within the time after the handshake
    BAD_HELLO = "bad_hello"  # the first message was no valid hello
    HELLO_FIRST = "hello_first"  # the first message was another message than hello
    PROTOCOL_MISMATCH = "protocol_mismatch"  # the hello asked for a protocol version this server does not speak
    ALREADY_GREETED = "already_greeted"  # a second hello on one connection
    NO_ANSWER = "no_answer"  # nothing heard from the client for the idle timeout, not even a pong
    FLOOD = "flood"  # far too many messages over the rate: the socket is closed
    TOO_SLOW = "too_slow"  # the client fell too far behind its outbox: reconnect to catch up
    REPLACED = "replaced"  # the seat was resumed from another connection
    SERVER_SHUTDOWN = "server_shutdown"  # the server is shutting down
    SERVER_ERROR = "server_error"  # the server failed on this connection (a bug); reconnect
    SERVER_FULL = "server_full"  # the server holds as many connections as it allows
    TOO_MANY_CONNECTIONS = "too_many_connections"  # this address holds as many connections as it may
    DISCONNECTED = "disconnected"  # never sent: the client library's own closing when the connection dropped
    REDIRECT_LOOP = "redirect_loop"  # never sent: the client library's own error when redirects go round

    # -- any request
    MALFORMED = "malformed"  # a frame that is no message (bad JSON, a field missing or wrong, nested too deep)
    RATE_LIMITED = "rate_limited"  # over the connection's (or the address's) rate: dropped, send again later
    OVER_BUDGET = "over_budget"  # the address spent its request budget: send again after ``retry_ms``
    BAD_NAME = "bad_name"  # a name too long, empty where one is needed, holding control/invisible characters, or more than two marks on a letter
    BAD_SEED = "bad_seed"  # a seed out of range, chosen without ``practice``, or sent for a tournament
    CLUSTER_UNAVAILABLE = "cluster_unavailable"  # this cluster node cannot reach the cluster's store now
    STORAGE_FAILED = "storage_failed"  # the server cannot write to its data directory now
    DISK_LOW = "disk_low"  # the data directory's disk is below serve --min-free-mb: no new table or tournament

    # -- the lobby: tables
    NO_TABLE = "no_table"  # no such table (or an id of the wrong shape); a tournament round that would seat none
    TABLE_EXISTS = "table_exists"  # a table of that id exists already (a cluster's placed create)
    TABLE_UNAVAILABLE = "table_unavailable"  # the table lives on a cluster node that is down
    TABLE_OVER = "table_over"  # the table is over (ended, or no longer held): play its log back instead
    BAD_BOTS = "bad_bots"  # bot seats that are not distinct seats of the table
    BAD_OPTION = "bad_option"  # a table option (turn time, grace, bot delay, fair_ms, spectator delay) out of range
    BAD_PAGE = "bad_page"  # a page of tables with a negative offset or a limit outside 1..1000
    TOO_MANY_TABLES = "too_many_tables"  # the server holds as many tables as it may
    TOO_MANY_WAITING = "too_many_waiting"  # this connection or address holds its share of tables waiting for players
    # (or played by server bots alone, or kept behind a broadcast delay)

    # -- the lobby: logs, playbacks and replays
    NO_LOGS = "no_logs"  # this server keeps no logs (no data directory)
    NO_LOG = "no_log"  # no log of that name (or a name of the wrong shape)
    BAD_LOG = "bad_log"  # a log that does not check out (its chain, its seed, its entries)
    NOT_FINISHED = "not_finished"  # the table has not finished: watch it live instead
    BAD_SPEED = "bad_speed"  # a playback speed outside 0.01..10000
    TOO_MANY_PLAYBACKS = "too_many_playbacks"  # this address has its share of playbacks open
    BAD_REPLAY = "bad_replay"  # a replay request that names no log or both, or asks for too many frames
    REPLAY_FAILED = "replay_failed"  # the replay's worker process stopped: ask again

    # -- a table: seats and actions
    TABLE_CLOSED = "table_closed"  # the table has stopped (shutting down, its log failed): nothing applied
    READ_ONLY = "read_only"  # a playback: it takes no seat and no action
    ALREADY_SEATED = "already_seated"  # this connection holds a seat at the table already (take_seat; resume: another)
    TABLE_FULL = "table_full"  # no free seat at the table
    NO_SUCH_SEAT = "no_such_seat"  # a seat number the table does not have
    SEAT_TAKEN = "seat_taken"  # the seat asked for is held by someone (or a bot)
    SEAT_CLOSED = "seat_closed"  # a table with a broadcast delay, its game begun: a seat would see it live
    TOO_MANY_SEATS = "too_many_seats"  # this connection or address holds its share of seats at tables still playing
    BAD_TOKEN = "bad_token"  # no seat (or tournament player) holds that token
    NOT_HERE = "not_here"  # this connection neither sits at nor watches the table
    NOT_SEATED = "not_seated"  # this connection holds no seat at the table
    NOT_STARTED = "not_started"  # rejected: the game starts when every seat is filled
    STALE = "stale"  # rejected: an accepted entry came after the action's ``expect_seq``
    BAD_ACTION = "bad_action"  # rejected: not an action of this game
    TOO_EARLY = "too_early"  # rejected (fair ordering): sooner after its card than the seat's round trip allows
    TOO_LATE = "too_late"  # rejected (fair ordering): in reaction time, after the photo-finish window closed
    REFUSED = "refused"  # rejected: a refused intent whose log entry recorded no code
    TOO_MANY_REFUSED = "too_many_refused"  # rejected, not logged, nothing changed: the seat's refusals are over its
    # budget (100 at once, 5 a second); until it has room again no contested card is taken for it either
    LOG_FAILED = "log_failed"  # the table's log could not be written, so the table stopped
    INTERNAL_ERROR = "internal_error"  # a bug stopped the table; the server and its other tables go on

    # -- tournaments: requests
    NO_TOURNAMENTS = "no_tournaments"  # this server runs no tournaments
    NO_TOURNAMENT = "no_tournament"  # no such tournament (or an id of the wrong shape)
    TOURNAMENT_EXISTS = "tournament_exists"  # a tournament of that id exists already (another node, the store)
    TOURNAMENT_UNAVAILABLE = "tournament_unavailable"  # the tournament lives on a cluster node that is down
    TOO_MANY_TOURNAMENTS = "too_many_tournaments"  # the server holds as many tournaments not over as it may
    BAD_SETTINGS = "bad_settings"  # tournament settings that do not fit (rounds, points, times, format)
    BAD_SIZES = "bad_sizes"  # table sizes that are not 2 <= min <= wanted <= max
    BAD_LIMIT = "bad_limit"  # a leaderboard of other than 1..1000 players
    BAD_SECRET = "bad_secret"  # not the organiser's secret
    NAME_TAKEN = "name_taken"  # a player whose name looks the same is registered already
    TOO_MANY_REGISTRATIONS = "too_many_registrations"  # this connection or address registered its share of players
    ALREADY_REGISTERED = "already_registered"  # that player is registered already
    REGISTRATION_CLOSED = "registration_closed"  # the tournament takes no more entries
    ALREADY_DROPPED = "already_dropped"  # that player has dropped already (drop; check_in)
    UNKNOWN_PLAYER = "unknown_player"  # no such player in the tournament (or none named)
    UNKNOWN_TABLE = "unknown_table"  # no such table in the tournament, or none with a result to correct
    UNKNOWN_TOURNAMENT = "unknown_tournament"  # the store holds no such tournament
    ALREADY_STARTED = "already_started"  # the tournament has started (or is an arena, which starts once)
    TOO_FEW_PLAYERS = "too_few_players"  # too few players to seat a table
    NO_MORE_ROUNDS = "no_more_rounds"  # the tournament has played all its rounds
    ROUND_NOT_OVER = "round_not_over"  # the current round still has tables playing
    NO_REASON = "no_reason"  # a correction without a reason
    TOURNAMENT_OVER = "tournament_over"  # the tournament is over: nothing is accepted after its end
    # -- tournaments: reported results (tables played off the server)
    NOT_REPORTED = "not_reported"  # the table plays on the server: its result comes from its own end
    NOT_YOUR_TABLE = "not_your_table"  # a report from a player not seated at that table
    ALREADY_SETTLED = "already_settled"  # the reported table's result stands already (agreed or settled)
    BAD_PLACES = "bad_places"  # reported places that are not one place per seat, 1..n, ties sharing their best
    REPORTS_PENDING = "reports_pending"  # the next round now, while reported tables have no result yet
    ROUND_NOT_BEGUN = "round_not_begun"  # a report or settlement at a table of a round seated, not yet begun
    TOO_MANY_REPORTS = "too_many_reports"  # a player who changed their report at one table too often
    # -- the organiser's actions (server/tournament/actions.py)
    ROUND_BEGUN = "round_begun"  # the round has begun (its tables are open): its seating is fixed
    NO_ROUND_WAITING = "no_round_waiting"  # no round is seated and waiting to begin (re-pair, swap, begin)
    CANNOT_REPAIR = "cannot_repair"  # a round the Swiss seater does not pair (a top-N final)
    BAD_EXCLUDE = "bad_exclude"  # an excluded pair that is not two different players of the tournament
    SAME_TABLE = "same_table"  # a swap of two players at the same table, or of a player with themselves
    NOT_IN_ROUND = "not_in_round"  # a player who is neither at a table nor on a bye this round
    NO_ROUND_PLAYING = "no_round_playing"  # ending a round now, with no table of it playing (or ending already)
    BAD_PENALTY = "bad_penalty"  # a penalty of no points and no game loss, or of both, or of a bad amount
    NOT_DROPPED = "not_dropped"  # undoing the drop of a player who has not dropped
    DISQUALIFIED = "disqualified"  # the player is disqualified: no undo, no re-entry, no second one
    NO_REENTRY = "no_reentry"  # re-entry is off in the settings, or not possible now
    NO_PLACE = "no_place"  # every place is held: a drop cannot be undone before the start

    # -- tournaments: a record or a result that does not follow (a log read back, a table's finish)
    BAD_RESULT = "bad_result"  # a table result that is no table's finish, or names other players
    BAD_PLAYERS = "bad_players"  # a player listed twice, or waiting players not in the standings
    BAD_FINAL = "bad_final"  # a top-N final that cannot be seated at one table
    BAD_RATING = "bad_rating"  # a rating of another game
    BAD_RECORD = "bad_record"  # a log record that cannot follow ``created``
    BAD_ROUND = "bad_round"  # a round seated out of order
    BAD_TABLE = "bad_table"  # a table id used twice
    NOT_WAITING = "not_waiting"  # a player listed as waiting who is dropped, inactive or at a table
    ALREADY_FINISHED = "already_finished"  # a second result for one table
    WRONG_SEATING = "wrong_seating"  # a round's seating is not the one its seed gives
    WRONG_SEED = "wrong_seed"  # the revealed seed is not the committed one
    WRONG_END = "wrong_end"  # an end record whose reason does not fit the tournament
    WRONG_STANDINGS = "wrong_standings"  # final standings that do not follow from the results
    WRONG_WAITLIST = "wrong_waitlist"  # a registration logged as waitlisted (or not) against the cap
    TABLES_FAILED = "tables_failed"  # a round is seated in the log but one of its tables could not open (the server
    # holds as many tables as it may, say): the answer to the request that opened the round; retried every 5 s
    PLAYER_EXISTS = "player_exists"  # the store holds that player already
    ALREADY_RATED = "already_rated"  # the store has rated that table's result already
    STORE_UNREADABLE = "store_unreadable"  # the tournament store cannot be opened
    STORE_TOO_NEW = "store_too_new"  # the tournament store is of a later schema than this server knows


NO_RECONNECT = frozenset({Code.REPLACED, Code.PROTOCOL_MISMATCH, Code.HELLO_FIRST, Code.BAD_HELLO, Code.FLOOD})


class Refusal(Exception):
    """A request the server will not do: ``code`` (a ``Code``) says why, machine-readably, ``message`` in
    words; ``retry_ms``: for a rate or a budget, when the same request would be taken. Nothing changed."""

    def __init__(self, code: Code, message: str, retry_ms: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_ms = retry_ms

    def __reduce__(self):  # pickled whole (a replay rebuilt in a worker process raises it back)
        return type(self), (self.code, self.message, self.retry_ms)


def codes_js() -> str:
    """``/js/codes.js``: the codes and ``NO_RECONNECT`` for the browser, from this module (never written by hand)."""
    codes = {member.name: member.value for member in Code}
    return ("// Generated by server/protocol/codes.py (served as /js/codes.js): the server's error codes.\n"
            f"export const CODE = Object.freeze({json.dumps(codes, indent=2)});\n"
            f"export const NO_RECONNECT = new Set({json.dumps(sorted(NO_RECONNECT))});\n")
