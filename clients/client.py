"""The async client library: a connection to a photofinish server that bots, `watch`, `play` and the tests use.

    async with open_client("ws://127.0.0.1:8765") as client:
        table = await client.create_table(game="flag_finish", mode="challenge", seats=2)
        seated = await client.take_seat(table.table)
        async for message in client.messages:   # updates and snapshots, game payloads already typed
            ...
        await client.act(table.table, action)    # returns Accepted, raises ActionRejected

Requests carry ids and wait for the answer with the same ``ref``. In a cluster, a request for a table (or
tournament, or a new table) that lives on another node is answered with a ``redirect``: the client opens a
connection to that node (a peer, sharing this client's seats, messages and state) and sends the request
there; from then on everything about that table goes over that connection. If the connection drops, the client
reconnects (with backoff), says hello again, resumes every seat with its token and every watched table
from the last sequence number it saw, and resends unanswered requests with their original ids: the server
answers a resent action with its first answer and never applies it twice. Updates arrive once each, in order.
The client answers the server's pings at once (``pong_delay`` delays it, for tests of the fair ordering's cap),
and each action says which update it was chosen on (``seen``: by default the last one received).

A server can die without a word (its machine gone, the network cut): the client asks a connection that has been
silent for ``PROBE_AFTER`` s something cheap (the server pings a seated connection about once a second anyway),
and one silent for ``DEAD_AFTER`` s is dropped and reconnected. ``on_lost`` hears of each lost connection at
once (`play` and `watch` say it on screen). One connect, handshake and hello take at most ``CONNECT_TIMEOUT``
s, even against a port that accepts and never answers.
"""

from __future__ import annotations

import itertools
import math
import os
import secrets
import socket
import urllib.parse
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import msgspec
import trio
from trio_websocket import ConnectionClosed, ConnectionTimeout, HandshakeError, open_websocket_url

from rules import Game, get_game
from server.protocol import (CODECS, Accepted, Act, Batch, Closing, CreateTable, Error, Hello, Leave, codec_for,
                             convert_server,
                             ListGames, ListTables, Ping, Pong, Redirect, Rejected, Resume, Seated, Snapshot, TableCreated,
                             TableEnded, TakeSeat, Update, Watch, Watching, Welcome, decode_server)
from server.protocol import BroadcastView, RematchOffered
from server.protocol import (CheckIn, CorrectResult, CreateTournament, Drop, Leaderboard, ListTournaments, Register,
                             ReportResult, SetReportedTables, SettleResult, TournamentLog,
                             StartTournament, TournamentState, WatchTournament, YourTable)
from server.protocol import NO_RECONNECT, PROTOCOL_VERSION, Code
from server.protocol.viewpatch import PatchError, Views, split
from server.protocol import (CancelTournament, Disqualify, EndRound, Penalise, Reenter, RepairRound, SwapPlayers,
                             UndoDrop)

ORGANISER_ACTIONS = {kind.__struct_config__.tag: kind for kind in (RepairRound, SwapPlayers, EndRound, CancelTournament,
                                                                   Penalise, Disqualify, UndoDrop, Reenter)}

CONNECT_TIMEOUT = 10.0  # seconds for the TCP connect, the TLS handshake (wss://), the websocket handshake and hello
PROBE_AFTER = 2.0  # seconds without a frame from the server before the client asks it something (a probe)
DEAD_AFTER = 5.0  # ... and without a frame at all: the server (or the way to it) is dead; close, reconnect
DISCONNECT_TIMEOUT = 1.0  # seconds a closing handshake may take before the socket is dropped anyway
MAX_REDIRECTS = 3  # a cluster sends a request on at most once or twice; more is a loop


class BadUrl(ValueError):
    """A server address the client cannot use; the message says what a good one looks like."""


def check_url(url: str) -> str:
    """``url`` if it is a server address the client can use (``ws://HOST:PORT`` or ``wss://...``), else
    ``BadUrl`` saying what is wrong with it. ``http://`` is refused with the ``ws://`` address it likely meant."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number in 0-65535)
    except ValueError as error:
        raise BadUrl(f"{url!r} is not a server address ({error}); one looks like ws://127.0.0.1:8765") from None
    if "://" not in url:
        raise BadUrl(f"{url!r} is not a server address: did you mean ws://{url}?")
    if parts.scheme in ("http", "https"):
        meant = urllib.parse.urlunsplit(parts._replace(scheme="ws" if parts.scheme == "http" else "wss"))
        raise BadUrl(f"{url!r} is a web address; a photofinish server's is {meant}")
    if parts.scheme not in ("ws", "wss"):
        raise BadUrl(f"{url!r} is not a server address: it starts with ws:// (or wss:// for TLS)")
    if not parts.hostname:
        raise BadUrl(f"{url!r} names no host; one looks like ws://127.0.0.1:8765")
    return url


def _connect_failure(url: str, error: BaseException) -> str:
    """Why the first connection to ``url`` failed, in one sentence."""
    cause = error.__cause__ if isinstance(error, HandshakeError) else error
    if isinstance(cause, socket.gaierror):
        return f"cannot connect to {url}: cannot resolve host {urllib.parse.urlsplit(url).hostname}"
    if isinstance(error, (ConnectionTimeout, trio.TooSlowError)):
        if url.startswith("wss://"):
            return (f"cannot connect to {url}: no answer to the TLS handshake within {CONNECT_TIMEOUT:g} s; "
                    f"a plain photofinish server is ws://{url[len('wss://'):]}")
        return f"cannot connect to {url}: no answer within {CONNECT_TIMEOUT:g} s"
    return f"cannot connect to {url} ({connect_reason(error)}): is a photofinish server running there?"


def connect_reason(error: BaseException) -> str:
    """The operating system's reason under a failed connect ("Connection refused"), else the error's text."""
    if isinstance(error, HandshakeError) and error.__cause__ is not None:
        error = error.__cause__
    if isinstance(error.__cause__, ExceptionGroup) and error.__cause__.exceptions:  # trio's "all attempts..."
        error = error.__cause__.exceptions[0]
    if isinstance(error, socket.gaierror):
        return "cannot resolve the host"
    if isinstance(error, OSError) and error.errno:
        return os.strerror(error.errno)
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


class ServerError(Exception):
    """The server refused a request: ``code`` and ``message`` say why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ActionRejected(ServerError):
    """An action the table did not apply (illegal, out of turn, stale...). Nothing changed. ``contest``: the
    seat whose same action went first and both reaction times, when fair ordering decided it."""

    def __init__(self, code: str, message: str, contest: Any = None) -> None:
        super().__init__(code, message)
        self.contest = contest


SEEN_LAST = object()  # ``act``'s default ``seen``: the last update received from that table


@dataclass
class _Pending:
    message: Any
    done: trio.Event = field(default_factory=trio.Event)
    answer: Any = None


@dataclass
class _Seat:
    token: str
    seat: int


class Client:
    def __init__(self, url: str, *, encoding: str = "json", reconnect: bool = True, name: str = "",
                 pong_delay: float = 0.0, patches: bool = True, events: bool = True, rows: bool = False) -> None:
        self.url = check_url(url)
        if rows and (encoding != "msgpack" or not patches):
            raise ValueError("rows need encoding msgpack and patches")
        self.codec = codec_for(encoding, rows)  # rows: updates, snapshots, accepted as arrays, read back alike
        self.patches = patches  # ask for updates that carry their view's patch; ``views`` makes them whole again
        self.events = events  # False (with patches): updates carry no events (a bot that reads only views)
        self.views = Views()
        self.reconnect = reconnect
        self.name = name
        self.games: dict[str, Game] = {}  # table -> its game, for typing payloads
        self.seats: dict[str, _Seat] = {}
        self.watching: set[str] = set()
        self.broadcast_keys: dict[str, str] = {}  # tables watched through their broadcast view: its key
        self.tournaments: dict[str, str] = {}  # watched tournaments -> the player token they were watched with
        self.last_seq: dict[str, int] = {}
        self.receipts: dict[str, tuple[int, str]] = {}  # table -> the newest (seq, log line hash) received
        self.reconnects = 0
        self.on_reconnecting: Callable[[int], None] | None = None  # called with `reconnects` as each try begins
        self.on_lost: Callable[[str], None] | None = None  # called with the reason as soon as a connection is lost
        self.dead_after = DEAD_AFTER  # seconds without any frame from the server: the connection is dead
        self.lost_reason = ""  # why the last connection was lost, in words
        self._heard = 0.0  # trio time of the last frame from the server
        self._silent = False  # the watchdog dropped the connection
        self.pong_delay = pong_delay  # seconds: answer pings this late (only a test or a benchmark wants it)
        self._pongs: list[Pong] = []  # pongs due, sent by the reader
        self._ids = itertools.count(1)
        self._nonce = secrets.token_hex(4)  # ids stay unique across client processes resuming one seat
        self._pending: dict[str, _Pending] = {}
        self._ws = None
        self._connected = trio.Event()
        self._closed = False
        self._gone = False  # the client stopped for good: no reconnect is coming
        self._send, self.messages = trio.open_memory_channel[Any](math.inf)
        self.routes: dict[str, str] = {}  # table or tournament -> the URL of the node it lives on (a cluster's)
        self._peers: dict[str, Client] = {}  # URL -> the connection to that node (this one for self.url)
        self._nursery: trio.Nursery | None = None  # where peers run (open_client's)
        self._home = self  # the client the caller holds; a peer shares its state

    def _share(self, home: "Client") -> None:
        """Become a peer of ``home``: one more connection, to another node, with the same seats and stream."""
        for name in ("games", "seats", "watching", "broadcast_keys", "tournaments", "last_seq", "receipts", "routes",
                     "_ids", "_nonce", "_send", "messages", "_peers", "_nursery"):
            setattr(self, name, getattr(home, name))
        self._home = home

    def _mine(self, key: str) -> bool:
        """Whether table or tournament ``key`` is reached over this connection."""
        return self.routes.get(key, self._home.url) == self.url

    async def _peer(self, url: str) -> "Client":
        """The connection to ``url``: this client's own, or a peer opened now (it reconnects like this one)."""
        if url == self._home.url:
            return self._home
        peer = self._peers.get(url)
        if peer is None:
            peer = Client(url, encoding=self.codec.encoding, reconnect=self.reconnect, name=self.name,
                          patches=self.patches, events=self.events, rows=self.codec.rows)
            peer._share(self._home)
            self._peers[url] = peer
            try:
                await self._nursery.start(peer._run)
            except BaseException:
                del self._peers[url]
                raise
        await peer._connected.wait()
        return peer

    # ------------------------------------------------------------------ requests

    async def request(self, message: Any) -> Any:
        """Send a message with a fresh id and wait for the answer that refers to it, following a cluster's
        redirects to the node that has what it asks for."""
        key = getattr(message, "table", None) or getattr(message, "tournament", None)
        link = await self._peer(self.routes[key]) if key in self.routes else self._home
        for _ in range(MAX_REDIRECTS + 1):
            answer = await link._call(message)
            if type(answer) is not Redirect:
                break
            url = check_url(answer.url)
            if key is not None:
                self.routes[key] = url
            if type(message) is CreateTable:
                message = msgspec.structs.replace(message, placed=True)
            link = await self._peer(url)
        else:
            raise ServerError(Code.REDIRECT_LOOP, f"sent on more than {MAX_REDIRECTS} times; the cluster is confused")
        if link is not self._home:
            if type(answer) is TableCreated:
                self.routes[answer.table.table] = link.url
            elif type(answer) in (Seated, Watching):
                self.routes[answer.table] = link.url
        if type(answer) is Error:
            raise ServerError(answer.code, answer.message)
        if type(answer) is Rejected:
            raise ActionRejected(answer.code, answer.message, answer.contest)
        return answer

    async def _call(self, message: Any) -> Any:
        """Send a message with a fresh id over this connection and return the answer that refers to it."""
        message = msgspec.structs.replace(message, id=f"{self._nonce}.{next(self._ids)}")
        pending = self._pending[message.id] = _Pending(message)  # registered first: a resync resends it
        await self._connected.wait()
        ws = self._ws
        if self._gone:
            self._fail_pending()
        elif ws is not None:  # None: a reconnect is under way, and its resync sends this request
            try:
                await ws.send_message(self.codec.encode(message))
            except ConnectionClosed:
                pass  # the reconnect's resync resends every unanswered request, this one included
        await pending.done.wait()
        del self._pending[message.id]
        return pending.answer

    async def list_games(self):
        return (await self.request(ListGames())).games

    async def create_table(self, **fields) -> Any:
        return (await self.request(CreateTable(**fields))).table

    async def list_tables(self):
        return (await self.request(ListTables())).tables

    async def take_seat(self, table: str, seat: int | None = None, name: str = "") -> Seated:
        seated = await self.request(TakeSeat(table=table, seat=seat, name=name or self.name))
        self.games[table] = get_game(seated.game)
        self.seats[table] = _Seat(seated.token, seated.seat)
        self.watching.discard(table)  # a seat watches no more (the server's rule): not watched again on resync
        return seated

    async def resume(self, table: str, token: str, last_seq: int = 0) -> Seated:
        seated = await self.request(Resume(table=table, token=token, last_seq=last_seq))
        self.games[table] = get_game(seated.game)
        self.seats[table] = _Seat(token, seated.seat)
        self.watching.discard(table)
        return seated

    async def watch(self, table: str, broadcast_key: str = "") -> Watching:
        """Watch ``table`` as a spectator; with its ``broadcast_key``, its broadcast view (every hand, past its
        delay): each view is then a ``BroadcastView`` of the game's views."""
        if broadcast_key:  # (before the answer: the snapshot may be read with it, before this goes on)
            self.broadcast_keys[table] = broadcast_key
        try:
            watching = await self.request(Watch(table=table, last_seq=self.last_seq.get(table, 0),
                                                broadcast_key=broadcast_key))
        except BaseException:
            self.broadcast_keys.pop(table, None)
            raise
        self.games[table] = get_game(watching.game)
        self.watching.add(table)
        return watching

    async def act(self, table: str, action: Any, expect_seq: int | None = None, seen: Any = SEEN_LAST) -> Accepted:
        """Send an action; ``seen`` is the seq of the update it was chosen on (by default the last received:
        a fair table measures the seat's reaction from when it sent that update)."""
        if seen is SEEN_LAST:
            seen = self.last_seq.get(table)
        return await self.request(Act(table=table, action=action, expect_seq=expect_seq, seen=seen))

    # ------------------------------------------------------------------ tournaments

    async def create_tournament(self, **fields) -> Any:
        """Returns ``tournament_created``: the tournament's info and the organiser's ``secret``."""
        return await self.request(CreateTournament(**fields))

    async def list_tournaments(self):
        return (await self.request(ListTournaments())).tournaments

    async def register(self, tournament: str, name: str) -> Any:
        """Returns ``registered``: your player id and secret ``token`` (keep it: it takes your seats)."""
        return await self.request(Register(tournament=tournament, name=name))

    async def tournament_log(self, tournament: str) -> Any:
        """Returns ``tournament_log_file``: the tournament's log as it stands (``log``), ``lines`` and ``head``."""
        return await self.request(TournamentLog(tournament=tournament))

    async def check_in(self, tournament: str, token: str) -> TournamentState:
        return await self.request(CheckIn(tournament=tournament, token=token))

    async def drop(self, tournament: str, token: str = "", secret: str = "", player: str | None = None):
        return await self.request(Drop(tournament=tournament, token=token, secret=secret, player=player))

    async def start_tournament(self, tournament: str, secret: str, next_round: bool = False) -> TournamentState:
        return await self.request(StartTournament(tournament=tournament, secret=secret, next_round=next_round))

    async def correct_result(self, tournament: str, secret: str, table: str, places: list[int], reason: str):
        return await self.request(CorrectResult(tournament=tournament, secret=secret, table=table, places=places,
                                                reason=reason))

    async def report_result(self, tournament: str, token: str, table: str, places: list[int]) -> TournamentState:
        """A player at a reported table (played off the server) gives each seat's place."""
        return await self.request(ReportResult(tournament=tournament, token=token, table=table, places=places))

    async def settle_result(self, tournament: str, secret: str, table: str, places: list[int],
                            reason: str = "") -> TournamentState:
        """The organiser gives a reported table's places (a disagreement, or a player who cannot report)."""
        return await self.request(SettleResult(tournament=tournament, secret=secret, table=table, places=places,
                                               reason=reason))

    async def set_reported_tables(self, tournament: str, secret: str, tables: int) -> TournamentState:
        """The organiser: how many tables a round play with real cards, from the next round seated on."""
        return await self.request(SetReportedTables(tournament=tournament, secret=secret, tables=tables))

    async def organiser_action(self, kind: str, tournament: str, secret: str, **fields: Any) -> Any:
        """One of the organiser's actions (``server/protocol/tournament_actions.py``), by its message type:
        ``repair_round``, ``swap_players``, ``end_round``, ``cancel_tournament``, ``penalise``, ``disqualify``,
        ``undo_drop`` (answered with ``tournament``) or ``reenter`` (answered with ``registered``)."""
        return await self.request(ORGANISER_ACTIONS[kind](tournament=tournament, secret=secret, **fields))

    async def watch_tournament(self, tournament: str, token: str = "") -> TournamentState:
        """The tournament now; then every change (``tournament``) and, with a player's token, that player's
        ``your_table`` each round, arrive in ``messages``."""
        state = await self.request(WatchTournament(tournament=tournament, token=token))
        self.tournaments[tournament] = token
        return state

    async def leaderboard(self, game: str, limit: int = 50):
        return (await self.request(Leaderboard(game=game, limit=limit))).ratings

    async def leave(self, table: str) -> None:
        await self.request(Leave(table=table))
        self.seats.pop(table, None)
        self.watching.discard(table)
        self.broadcast_keys.pop(table, None)

    # ------------------------------------------------------------------ the connection

    async def _run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        delay = 0.05
        started = False
        while not self._closed:
            failure: BaseException | None = None
            self._silent = False
            # Everything about one connection is in `link`: its deadline bounds the connect, the handshake and the
            # hello (a port that accepts but never answers); the watchdog cancels it when the server falls silent
            # (a dead machine, a cut cable: no close ever arrives), and that drops the socket at once.
            with trio.CancelScope(deadline=trio.current_time() + CONNECT_TIMEOUT) as link:
                try:
                    async with open_websocket_url(self.url, max_message_size=16 * 1024 * 1024,
                                                  connect_timeout=CONNECT_TIMEOUT,
                                                  disconnect_timeout=DISCONNECT_TIMEOUT) as ws:
                        await self._hello(ws)
                        link.deadline = math.inf
                        self._ws = ws
                        self._heard = trio.current_time()
                        async with trio.open_nursery() as nursery:
                            nursery.start_soon(self._read, ws, nursery)
                            nursery.start_soon(self._watchdog, ws, link)
                            if started:
                                await self._resync(ws)
                            self._connected.set()
                            if not started:
                                started = True
                                task_status.started()
                            delay = 0.05
                    self.lost_reason = "the connection closed"
                except (ConnectionClosed, HandshakeError, OSError) as error:
                    failure = error
                    self.lost_reason = f"the connection broke ({connect_reason(error)})"
                except ServerError:
                    if not started:
                        raise
                    return
            if link.cancelled_caught and not self._silent:
                failure = trio.TooSlowError()  # the connect, the handshake or the hello took too long
                self.lost_reason = f"no answer within {CONNECT_TIMEOUT:g} s"
            if not started:
                raise ConnectionError(_connect_failure(self.url, failure or ConnectionClosed(None)))
            if self._connected.is_set():  # a new event only when the connection was up: a request made between
                self._connected = trio.Event()  # failed reconnects waits on this one, set when one succeeds
                if self.on_lost is not None and not self._closed:
                    self.on_lost(self.lost_reason)
            self._ws = None
            if self._closed or not self.reconnect:
                self._send.send_nowait(Closing(code=Code.DISCONNECTED, message="the connection is closed"))
                self._gone = True
                self._fail_pending()
                self._connected.set()  # wake anyone waiting to send: they fail at once
                return
            self.reconnects += 1
            if self.on_reconnecting is not None:
                self.on_reconnecting(self.reconnects)
            await trio.sleep(delay)
            delay = min(delay * 2, 2.0)

    async def _watchdog(self, ws, link: trio.CancelScope) -> None:
        """The server pings a seated connection about once a second, and answers every request: after
        ``PROBE_AFTER`` s without a frame, ask it something cheap; after ``dead_after`` s without any, the
        connection is dead (a server killed with its machine, a network gone): drop it, so the reconnect begins."""
        probes = itertools.count(1)
        probed = -1.0
        planned: float | None = None
        while True:
            now = trio.current_time()
            if planned is not None and now - planned > 1.0:  # this process stalled, not the server: its frames
                self._heard = max(self._heard, now - min(PROBE_AFTER, self.dead_after / 2))  # may wait unread: ask again
            quiet = now - self._heard
            if quiet >= self.dead_after:
                self.lost_reason = f"no word from the server for {self.dead_after:g} s"
                self._silent = True
                link.cancel()
                return
            if quiet >= min(PROBE_AFTER, self.dead_after / 2) and probed != self._heard:
                probed = self._heard
                try:
                    with trio.move_on_after(self.dead_after - quiet):
                        await ws.send_message(self.codec.encode(ListGames(id=f"probe-{next(probes)}")))
                except ConnectionClosed:
                    return
                planned = None
                continue
            wait = (self.dead_after if probed == self._heard else min(PROBE_AFTER, self.dead_after / 2)) - quiet
            planned = trio.current_time() + max(wait, 0.05)
            await trio.sleep_until(planned)

    def _fail_pending(self) -> None:
        """The client will not reconnect: every unanswered request fails instead of waiting forever."""
        for ref, pending in self._pending.items():
            if not pending.done.is_set():
                pending.answer = Error(ref=ref, code="disconnected", message="the connection closed before an answer")
                pending.done.set()

    async def _hello(self, ws) -> None:
        await ws.send_message(CODECS["json"].encode(Hello(id=0, protocol=PROTOCOL_VERSION, encoding=self.codec.encoding, client=self.name,
                                                          batch=True, patches=self.patches, events=self.events,
                                                          rows=self.codec.rows)))
        frame = await ws.get_message()
        answer = decode_server(frame, CODECS["json"] if isinstance(frame, str) else CODECS["msgpack"])
        if type(answer) is not Welcome:
            self._closed = True
            raise ServerError(getattr(answer, "code", "refused"), getattr(answer, "message", repr(answer)))

    async def _resync(self, ws) -> None:
        """After a reconnect: resume seats and watches from the last seq seen, then resend what is unanswered."""
        for table, seat in list(self.seats.items()):
            if not self._mine(table):
                continue
            await ws.send_message(self.codec.encode(Resume(id=f"resume-{table}", table=table, token=seat.token,
                                                           last_seq=self.last_seq.get(table, 0))))
        for table in list(self.watching):
            if not self._mine(table):
                continue
            await ws.send_message(self.codec.encode(Watch(id=f"watch-{table}", table=table,
                                                          last_seq=self.last_seq.get(table, 0),
                                                          broadcast_key=self.broadcast_keys.get(table, ""))))
        for tournament, token in list(self.tournaments.items()):
            if not self._mine(tournament):
                continue
            await ws.send_message(self.codec.encode(WatchTournament(id=f"tournament-{tournament}",
                                                                    tournament=tournament, token=token)))
        for pending in list(self._pending.values()):
            if not pending.done.is_set():
                await ws.send_message(self.codec.encode(pending.message))

    async def _read(self, ws, nursery: trio.Nursery) -> None:
        scope = nursery.cancel_scope
        try:
            while True:
                frame = await ws.get_message()
                self._heard = trio.current_time()
                self._take(decode_server(frame, self.codec))
                while self._pongs:
                    pong = self._pongs.pop(0)
                    if self.pong_delay:
                        nursery.start_soon(self._pong_later, ws, pong)
                    else:
                        await ws.send_message(self.codec.encode(pong))
        except ConnectionClosed:
            pass
        except PatchError:  # a patch that does not fit the view held (never, unless a bug): resync from snapshots
            self.views = Views()
            await ws.aclose()
        scope.cancel()

    async def _pong_later(self, ws, pong: Pong) -> None:
        await trio.sleep(self.pong_delay)
        try:
            await ws.send_message(self.codec.encode(pong))
        except ConnectionClosed:
            pass

    def _take(self, message: Any) -> None:
        kind = type(message)
        if kind is Ping:
            self._pongs.append(Pong(ping=message.ping))
            return
        if kind is Batch:
            for inner in message.messages:
                self._take(convert_server(inner))  # a map, or a row from a rows connection
            return
        if kind is Update or kind is Snapshot:
            table = message.table
            if kind is Update and message.seq <= self.last_seq.get(table, 0):
                return  # already seen before a reconnect: never twice
            message = self.views.whole(message)  # a view patch applied (PatchError: not taken, see ``_read``)
            parts = split(message)  # a group of entries: one update each, as without patches
            if message.seq >= 0:  # a snapshot after a long gap moves last_seq past updates it did not resend
                self.last_seq[table] = max(self.last_seq.get(table, 0), message.seq)
            self._keep_receipt(table, message.seq, message.receipt)
            for part in parts:
                self._send.send_nowait(self._typed(part))
            return
        if kind is Accepted:
            self._keep_receipt(message.table, message.seq, message.receipt)
        if kind in (TableEnded, YourTable, RematchOffered) or (kind is TournamentState and message.ref is None):
            self._send.send_nowait(message)  # pushed: a table ended early, your seat this round, a change, a rematch
            return
        if kind is Closing:
            if message.code in NO_RECONNECT:
                self._closed = True
            self._send.send_nowait(message)
            return
        if kind is Seated or kind is Watching:
            self.games[message.table] = get_game(message.game)  # before the snapshot that follows is typed
        ref = getattr(message, "ref", None)
        pending = self._pending.get(ref) if ref is not None else None
        if pending is not None and not pending.done.is_set():
            pending.answer = message
            pending.done.set()
        elif kind is Error:
            self._send.send_nowait(message)  # an error no request waits for: show it to the reader

    def _keep_receipt(self, table: str, seq: int, receipt: str | None) -> None:
        """Keep the newest receipt per table: `photofinish verify LOG --receipt SEQ:HASH` checks it later."""
        if receipt and seq >= self.receipts.get(table, (0, ""))[0]:
            self.receipts[table] = (seq, receipt)

    def _typed(self, message: Any) -> Any:
        """An update or snapshot with its game payloads converted to the game's own types."""
        game = self.games.get(message.table)
        if game is None:
            return message
        changes: dict[str, Any] = {}
        if message.view is not None and message.table in self.broadcast_keys:  # every seat's view too
            whole = msgspec.convert(message.view, BroadcastView)
            changes["view"] = BroadcastView(public=msgspec.convert(whole.public, game.view_type),
                                            seats=msgspec.convert(whole.seats, list[game.view_type]))
        elif message.view is not None:
            changes["view"] = msgspec.convert(message.view, game.view_type)
        if message.legal is not None:
            changes["legal"] = msgspec.convert(message.legal, list[game.action_type])
        if type(message) is Update and message.events:
            changes["events"] = msgspec.convert(message.events, list[game.event_type])
        return msgspec.structs.replace(message, **changes) if changes else message

    async def aclose(self) -> None:
        self._closed = True
        if self._ws is not None:
            await self._ws.aclose()
        if self._home is self:
            for peer in list(self._peers.values()):
                await peer.aclose()


@asynccontextmanager
async def open_client(url: str, *, encoding: str = "json", reconnect: bool = True,
                      name: str = "", pong_delay: float = 0.0, patches: bool = True,
                      events: bool = True, rows: bool = False) -> AsyncIterator[Client]:
    """Connect and say hello; the client reconnects by itself until the block ends. ``patches`` (the default):
    the server sends each update's view as a patch of the last, and the client hands on whole views, one update
    per entry; ``events`` False (with patches): updates without events, only those with a view; ``rows`` (with
    msgpack and patches): updates, snapshots and ``accepted`` come as arrays, handed on as the same messages."""
    client = Client(url, encoding=encoding, reconnect=reconnect, name=name, pong_delay=pong_delay, patches=patches,
                    events=events, rows=rows)
    try:
        async with trio.open_nursery() as nursery:
            client._nursery = nursery
            await nursery.start(client._run)
            try:
                yield client
            finally:
                client._closed = True
                for peer in client._peers.values():
                    peer._closed = True
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        leaf = single_error(group)
        if isinstance(leaf, (ConnectionError, ServerError)):
            raise leaf from None  # say plainly that we could not connect, or what the server said
        raise


def single_error(error: BaseException) -> BaseException:
    """The one error inside (nested) exception groups of one error each, or the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


__all__ = ["Client", "ServerError", "ActionRejected", "BadUrl", "check_url", "open_client", "single_error"]
