"""The websocket gateway: one task pair per connection (a reader and a writer) between a socket and the lobby.

A connection starts as plain HTTP (``server/http.py``: the web client's files) and comes here when it asks
for a websocket upgrade. It owns framing and abuse control: the hello and protocol version, JSON or msgpack frames, malformed and
unknown messages (a typed ``error``, nothing changes), oversize frames (trio-websocket closes with 1009),
a per-connection rate limit, and a bounded outbox: a connection that cannot keep up is closed with a reason
instead of slowing its table. It never touches a game state: table work goes to the table's arbiter.

Closing a connection stops its reader at once but never its writer in the middle of a frame (a frame cut
short is a protocol error at the client, and nothing may follow it on the wire): the writer finishes the
frame it is sending, what is still queued is dropped, then come ``closing`` and the close frame. A client
that takes none of it for ``Limits.close_timeout`` seconds has its TCP connection cut with no more bytes.

It also measures each connection's round trip (``server/latency.py``): a ``ping`` about once a second and at
once when the connection asks for a seat (from then on), stamped when its frame is sent, and the client's
``pong``.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

import msgspec
import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, wrap_server_stream

from rules import RulesError

from .http import HttpLimits, Site, serve_http
from .latency import LatencyMeter
from .lobby import Lobby
from .outbox import Outbox
from .quotas import new_owner, peer_address
from .protocol import (CODECS, PROTOCOL_VERSION, Act, Replay, Batch, CheckIn, Closing, CorrectResult, CreateTable,
                       CreateTournament, Drop, Error, Games, Hello, Leaderboard, Leave, ListGames, ListTables, ListTournaments,
                       OpenPlayback, Ping, Pong, Ratings, Redirect, Register, Registered, Resume, StartTournament,
                       TableCreated, Tables, TakeSeat, TournamentCreated, Tournaments, Watch, WatchTournament, Welcome,
                       decode_client, id_of)
from . import frames
from .tournament.model import TournamentError
from .sendpath import plain_frames, send_frame, send_promptly
from .table import Intent, Table

SERVER_NAME = "photofinish 0.1.0"
MAX_BATCH = 64
YIELD_EVERY = 16  # frames a writer sends at most before it lets other tasks run (a frame written whole never yields)
TABLE_INTENTS = {TakeSeat: "take_seat", Resume: "resume", Watch: "watch", Act: "act", Leave: "leave"}
TOURNAMENT_CALLS = {CreateTournament, ListTournaments, Register, CheckIn, Drop, StartTournament, CorrectResult,
                    WatchTournament, Leaderboard}


def _problem(frame: str | bytes, error: Exception) -> str:
    """What was wrong with a frame, saying how it was read: a bot that sent bytes by mistake, or text that
    is no JSON, learns that before the decoder's words (which alone said "Expected `object`, got `int`")."""
    if isinstance(frame, bytes):
        return f"a binary frame is read as msgpack: {error}"
    if isinstance(error, msgspec.DecodeError):
        return f"not JSON: {error}"
    return str(error)


@dataclass(frozen=True)
class Limits:
    max_frame: int = 64 * 1024  # bytes; larger frames close the connection (1009)
    outbox: int = 1024  # messages queued for one connection before it counts as too slow
    rate: float = 200.0  # messages per second a connection may send on average
    burst: int = 400  # ... and at once
    flood: int = 1000  # messages refused for rate before the connection is closed
    hello_timeout: float = 10.0
    close_timeout: float = 5.0  # seconds a closing client has to take its last frame, then `closing`
    handshake_timeout: float = 10.0  # seconds for a websocket upgrade's handshake
    ping_every: float = 1.0  # seconds between round-trip pings (and one at once when a seat is asked for)


class Connection:
    """One client: a table ``Receiver`` whose messages go out through a bounded outbox."""

    def __init__(self, ws: WebSocketConnection, limits: Limits) -> None:
        self.ws = ws
        self.limits = limits
        self.codec = CODECS["json"]
        self.frames = plain_frames(ws)  # the writer frames its messages itself (server/sendpath.py), or None
        self.outbox = Outbox(limits.outbox)
        self.tables: set[Table] = set()
        self.tournaments: set = set()  # the directors this connection watches
        self.closing: tuple[str, str] | None = None
        self.dropped = trio.Event()  # set when the server decides to close this connection (``close``)
        self.ended = trio.Event()  # set when the socket is closed (or cut) and the connection forgotten
        self.scope = trio.CancelScope()  # the reader's: cancelled to close; the writer is never cancelled mid-frame
        self.sending = False  # the writer is in the middle of a frame
        self.tokens = float(limits.burst)
        self.refill_at = trio.current_time()
        self.refused = 0
        self.batch = False
        self.latency = LatencyMeter()  # the tables read the seat's round trip here (fair ordering, pings shown)
        self.ping_now = trio.Event()  # set to ping at once (a seat was asked for)
        self._pings_queued = 0  # pings in the outbox, stamped by the writer as their frame leaves
        self.ping_scope = trio.CancelScope()  # cancelled when the reader stops
        self.owner = new_owner(peer_address(ws))  # what it creates is counted against it and its address

    def deliver(self, message: Any) -> bool:
        return self.outbox.put(message)

    def close(self, code: str, message: str) -> None:
        """Close with a reason (without blocking): the reader stops, the frame being sent is finished, what is
        still queued is never sent, then ``closing`` and the close frame follow (``Gateway.handle``)."""
        if self.closing is None:
            self.closing = (code, message)
        self.dropped.set()
        self.outbox.close(drop=True)
        self.scope.cancel()

    def _finish(self, code: str, message: str, ref: Any = None) -> None:
        """Refuse the connection politely: an error, then the outbox drains and the socket closes."""
        self.deliver(Error(ref=ref, code=code, message=message))
        self.closing = (code, message)

    def _allow(self, now: float) -> bool:
        self.tokens = min(self.limits.burst, self.tokens + (now - self.refill_at) * self.limits.rate)
        self.refill_at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    async def write_loop(self) -> None:
        """Send what is queued; to a client that allows it, everything queued at once goes in one frame."""
        unyielded = 0
        try:
            while queued := await self.outbox.take(MAX_BATCH if self.batch else 1):  # [] once closed and sent
                message = Batch(messages=queued) if len(queued) > 1 else queued[0]
                payload = self.codec.encoder.encode(message)  # bytes: text (UTF-8 JSON) or binary (msgpack)
                if self._pings_queued:
                    self._stamp_pings(queued)
                self.sending = True  # stays True if this send is cut off (see Gateway._close)
                await send_frame(self.ws, self.frames, payload, self.codec.encoding == "json")
                self.sending = False
                unyielded += 1
                if unyielded == YIELD_EVERY:  # a long queue of frames each written at once: others run too
                    unyielded = 0
                    await trio.lowlevel.checkpoint()
        except ConnectionClosed:
            self.scope.cancel()  # the client went away: stop reading too

    def _stamp_pings(self, queued: list) -> None:
        now = trio.current_time()
        for message in queued:
            if type(message) is Ping:
                self.latency.sent(message.ping, now)
                self._pings_queued -= 1

    async def ping_loop(self) -> None:
        """From the first seat the connection asks for (only seats need a round trip), a ping about once a
        second, and at once whenever ``ping_now`` is set; the writer stamps each as its frame leaves. Stops
        with the reader (``ping_scope``)."""
        with self.ping_scope:
            await self.ping_now.wait()
            self.ping_now = trio.Event()
            while not self.outbox.closed:
                if self.deliver(Ping(ping=self.latency.ping())):
                    self._pings_queued += 1
                with trio.move_on_after(self.limits.ping_every):
                    await self.ping_now.wait()
                self.ping_now = trio.Event()

    def _decode(self, frame: str | bytes):
        return decode_client(frame, self._codec_of(frame))

    def _id_of(self, frame: str | bytes):
        """The id of a frame that is no valid message, where it can be read (else None)."""
        return id_of(frame, self._codec_of(frame))

    @staticmethod
    def _codec_of(frame: str | bytes):
        return CODECS["json"] if isinstance(frame, str) else CODECS["msgpack"]

    async def read_loop(self, lobby: Lobby) -> None:
        frame = None
        with trio.move_on_after(self.limits.hello_timeout):
            frame = await self.ws.get_message()
        if frame is None:
            return self._finish("hello_timeout", f"say hello within {self.limits.hello_timeout:g} s")
        try:
            hello = self._decode(frame)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            return self._finish("bad_hello", f"the first message must be a hello: {error}", ref=self._id_of(frame))
        if type(hello) is not Hello:
            return self._finish("hello_first", "the first message must be a hello", ref=hello.id)
        if hello.protocol != PROTOCOL_VERSION:
            return self._finish("protocol_mismatch", f"this server speaks protocol {PROTOCOL_VERSION}, "
                                f"not {hello.protocol}; update your client", ref=hello.id)
        self.codec = CODECS[hello.encoding]
        self.batch = hello.batch
        self.deliver(Welcome(ref=hello.id, protocol=PROTOCOL_VERSION, encoding=hello.encoding, server=SERVER_NAME))
        while True:
            frame = await self.ws.get_message()
            now = trio.current_time()
            try:
                message, problem = self._decode(frame), None
            except (msgspec.DecodeError, msgspec.ValidationError) as error:
                message, problem = None, _problem(frame, error)
            if type(message) is Pong:  # the answer to the server's own ping: never counted against the rate
                self.latency.pong(message.ping, now)
                continue
            if not self._allow(now):
                self.refused += 1
                if self.refused >= self.limits.flood:
                    return self._finish("flood", "too many messages; slow down and reconnect")
                # with the message's id, so that a request waiting for its answer gets one (and may send again)
                ref = self._id_of(frame) if message is None else message.id
                self.deliver(Error(ref=ref, code="rate_limited",
                                   message=f"more than {self.limits.rate:g} messages a second: this one was dropped"))
                continue
            if message is None:
                self.deliver(Error(ref=self._id_of(frame), code="malformed", message=problem))
                continue
            await self._dispatch(lobby, message, now)

    async def _dispatch(self, lobby: Lobby, message, now: float) -> None:
        kind = type(message)
        if kind is Pong:
            self.latency.pong(message.ping, now)
            return
        try:
            if kind in TOURNAMENT_CALLS:
                return await self._tournament_call(lobby.tournaments, message)
            if kind is Hello:
                raise RulesError("already_greeted", "hello comes once, first")
            if kind is ListGames:
                self.deliver(Games(ref=message.id, games=lobby.games()))
            elif kind is ListTables:
                tables = lobby.list() if lobby.cluster is None else await lobby.cluster.list_tables(lobby.list())
                self.deliver(Tables(ref=message.id, tables=tables))
            elif kind is CreateTable:
                table = await (lobby.create(message, owner=self.owner) if lobby.cluster is None
                               else self._create_here(lobby, message))
                if table is not None:
                    self.deliver(TableCreated(ref=message.id, table=table.info()))
            elif kind is OpenPlayback:
                table = await lobby.open_playback(message.log, message.speed, owner=self.owner)
                self.deliver(TableCreated(ref=message.id, table=table.info()))
            elif kind is Replay:  # rebuilt off the event loop, two at a time for the whole server
                self.deliver(await trio.to_thread.run_sync(frames.answer, lobby.data_dir, message,
                                                           limiter=_replay_limiter()))
            else:
                try:
                    table = lobby.find(message.table)
                except RulesError:
                    if lobby.cluster is None or kind is Act or kind is Leave:  # an action never leaves its node
                        raise
                    url = await lobby.cluster.locate("table", message.table)
                    return self.deliver(Redirect(ref=message.id, url=url, table=message.table))
                if kind is not Act:
                    self.tables.add(table)
                if kind is TakeSeat or kind is Resume:
                    self.ping_now.set()  # the seat's round trip, measured as soon as it plays
                await table.submit(Intent(TABLE_INTENTS[kind], self, message, now))
        except (RulesError, TournamentError) as error:
            self.deliver(Error(ref=message.id, code=error.code, message=error.message))

    async def _create_here(self, lobby: Lobby, message: CreateTable) -> Table | None:
        """In a cluster: send the create to a less loaded node (``redirect``, answered here; None), or claim
        the new table's id for this node and open it."""
        if not message.placed and (url := lobby.cluster.placement()) is not None:
            self.deliver(Redirect(ref=message.id, url=url))
            return None
        lobby.check(message, self.owner)  # a bad request claims nothing
        table_id = lobby.new_table_id()
        await lobby.cluster.claim("table", table_id)
        try:
            table = await lobby.create(message, table_id=table_id, owner=self.owner)
        except BaseException:
            with trio.CancelScope(shield=True):
                await lobby.cluster.release("table", table_id)
            raise
        await lobby.cluster.announce(table.info())  # listed everywhere once answered, even if this node dies
        return table

    async def _tournament_call(self, hub, message) -> None:
        """A tournament call: the director checks the secret or token and answers; refusals raise."""
        kind = type(message)
        if hub is None:
            raise TournamentError("no_tournaments", "this server runs no tournaments")
        cluster = getattr(hub.lobby, "cluster", None)
        if kind is CreateTournament:
            if cluster is not None:
                cluster.require_online()  # tournaments open where they are asked for, while Redis is there
            director, secret = await hub.create(message)
            if cluster is not None:
                await cluster.announce(director.info())
            return self.deliver(TournamentCreated(ref=message.id, tournament=director.info(), secret=secret))
        if kind is ListTournaments:
            tournaments = hub.list() if cluster is None else await cluster.list_tournaments(hub.list())
            return self.deliver(Tournaments(ref=message.id, tournaments=tournaments))
        if kind is Leaderboard:
            rows = await hub.leaderboard(message.game, message.limit)
            return self.deliver(Ratings(ref=message.id, game=message.game, ratings=rows))
        try:
            director = hub.find(message.tournament)
        except TournamentError:
            if cluster is None:
                raise
            url = await cluster.locate("tournament", message.tournament)
            return self.deliver(Redirect(ref=message.id, url=url, tournament=message.tournament))
        if kind is Register:
            player, token = await director.register(message.name)
            return self.deliver(Registered(ref=message.id, tournament=director.id, player=player,
                                           name=director.state.names[player], token=token))
        if kind is WatchTournament:
            director.watch(self, message.token, message.id)
            self.tournaments.add(director)
            return
        if kind is CheckIn:
            await director.check_in(message.token)
        elif kind is Drop:
            await director.drop(message.token, message.secret, message.player)
        elif kind is StartTournament:
            await director.start(message.secret, message.next_round)
        elif kind is CorrectResult:
            await director.correct(message.secret, message.table, message.places, message.reason)
        self.deliver(director.snapshot(message.id))


_REPLAY_LIMITER: trio.lowlevel.RunVar = trio.lowlevel.RunVar("replay_limiter")


def _replay_limiter() -> trio.CapacityLimiter:
    """One limiter for every connection's replay requests in this trio run (made on first use)."""
    try:
        return _REPLAY_LIMITER.get()
    except LookupError:
        _REPLAY_LIMITER.set(trio.CapacityLimiter(2))
        return _REPLAY_LIMITER.get()

async def abort(ws: WebSocketConnection) -> None:
    """Cut the TCP connection with no further byte on the wire (after a frame cut short, any byte would be
    garbage to the client). trio-websocket's ``aclose`` checks for cancellation before it writes its close
    frame and closes the stream in any case, so a cancelled ``aclose`` does exactly that."""
    with trio.CancelScope() as scope:
        scope.cancel()
        await ws.aclose()


class Gateway:
    """Accepts connections: plain HTTP goes to ``server/http.py``, websockets run until they close."""

    def __init__(self, lobby: Lobby, limits: Limits = Limits(), site: Site = Site(),
                 http_limits: HttpLimits = HttpLimits()) -> None:
        self.lobby = lobby
        self.limits = limits
        self.site = site  # what a plain GET gets (set once the port is known, for the join URL)
        self.http_limits = http_limits
        self.connections: set[Connection] = set()
        self._closed_one = trio.Event()

    async def serve(self, host: str, port: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Listen on ``host:port``; started with the port bound. Each connection is plain HTTP (``self.site``)
        until it asks for a websocket upgrade, which goes to ``handle``."""
        listeners = await trio.open_tcp_listeners(port, host=host)
        async with trio.open_nursery() as nursery:
            await nursery.start(trio.serve_listeners, self._serve_stream, listeners)
            task_status.started(listeners[0].socket.getsockname()[1])

    async def _serve_stream(self, stream: trio.SocketStream) -> None:
        try:
            try:
                upgrade = await serve_http(stream, self.site, self.http_limits)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return  # the client went away mid-request
            except Exception:  # a bug in answering one request must show, and must not stop the server
                traceback.print_exc()
                return
            if upgrade is None:
                return
            async with trio.open_nursery() as nursery:
                request = None
                with trio.move_on_after(self.limits.handshake_timeout):
                    request = await wrap_server_stream(nursery, upgrade, max_message_size=self.limits.max_frame)
                if request is not None:
                    try:
                        await self.handle(request)
                    except ConnectionClosed:
                        pass  # the client left during the handshake
                nursery.cancel_scope.cancel()  # the websocket's reader, once the connection is done
        finally:
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def handle(self, request: WebSocketRequest) -> None:
        ws = await request.accept()
        send_promptly(ws)  # a frame leaves as soon as it is encoded, not after the other writers' turns
        conn = Connection(ws, self.limits)
        self.connections.add(conn)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(conn.write_loop)
                nursery.start_soon(conn.ping_loop)
                with conn.scope:  # close() stops the reader, never the writer in the middle of a frame
                    try:
                        await conn.read_loop(self.lobby)
                    except ConnectionClosed:
                        pass
                conn.ping_scope.cancel()
                conn.outbox.close()  # the writer sends what is queued (nothing after close()), then ends...
                nursery.cancel_scope.deadline = trio.current_time() + self.limits.close_timeout  # ... in time
        except ConnectionClosed:
            pass
        except Exception:  # a bug in handling one connection must show, and must not stop the server
            traceback.print_exc()
            conn.closing = conn.closing or ("server_error", "the server failed on this connection; reconnect")
        finally:
            for table in conn.tables:
                table.submit_nowait(Intent("disconnect", conn))
            for director in conn.tournaments:
                director.unwatch(conn)
            await self._close(conn)
            self.connections.discard(conn)
            conn.ended.set()
            self._closed_one.set()

    async def _close(self, conn: Connection) -> None:
        """``closing`` (if the server is the one closing) and the close handshake, in ``close_timeout``; after a
        frame cut short, or a client that took nothing in that time, the TCP connection is cut instead."""
        if not conn.sending:
            with trio.move_on_after(self.limits.close_timeout) as scope:
                scope.shield = True
                try:
                    if conn.closing is not None:
                        code, message = conn.closing
                        await conn.ws.send_message(conn.codec.encode(Closing(code=code, message=message)))
                        await conn.ws.aclose(1008 if code != "server_shutdown" else 1001, message[:120])
                    else:
                        await conn.ws.aclose()
                except ConnectionClosed:
                    pass
            if not scope.cancelled_caught:
                return
        await abort(conn.ws)

    async def close_all(self, code: str, message: str, timeout: float = 3.0) -> None:
        """Close every connection with a reason and wait (at most ``timeout``) for their close handshakes."""
        for conn in list(self.connections):
            conn.close(code, message)
        with trio.move_on_after(timeout):
            while self.connections:
                self._closed_one = trio.Event()
                await self._closed_one.wait()
