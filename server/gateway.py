"""The websocket gateway: one task pair per connection (a reader and a writer) between a socket and the lobby.

A connection starts as plain HTTP (``server/http.py``: the web client's files) and comes here when it asks
for a websocket upgrade. It owns framing and abuse control: the hello and protocol version, JSON or msgpack frames, malformed and
unknown messages (a typed ``error``, nothing changes), oversize frames (trio-websocket closes with 1009),
a per-connection rate limit, and a bounded outbox: a connection that cannot keep up is closed with a reason
instead of slowing its table. It never touches a game state: table work goes to the table's arbiter.

So that no anonymous client can lock the others out (``server/limits.py`` has the machinery, ``Limits`` the
figures): connections are counted per address and in all at accept (over either: told why at once), a
connection that sends no whole frame for ``idle_timeout`` is closed, frames nested too deep are malformed before
they are decoded, ids are checked by shape before any lookup, and per address a message rate, a budget for
expensive requests and rates for tournaments and registrations are shared by all its connections.

Closing a connection stops its reader at once but never its writer in the middle of a frame (a frame cut
short is a protocol error at the client, and nothing may follow it on the wire): the writer finishes the
frame it is sending, what is still queued is dropped, then come ``closing`` and the close frame. A client
that takes none of it for ``Limits.close_timeout`` seconds has its TCP connection cut with no more bytes.

It also measures each connection's round trip (``server/latency.py``): a ``ping`` about once a second and at
once when the connection asks for a seat (from then on), stamped when its frame is sent, and the client's
``pong``.
"""

from __future__ import annotations

import math
import multiprocessing
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from dataclasses import dataclass, replace
from typing import Any

import msgspec
import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, wrap_server_stream

from rules import RulesError

from .http import HttpLimits, Site, serve_http
from .latency import LatencyMeter, kernel_min_rtt
from .limits import (Admission, Buckets, check_ids, file_limit, shallow_json_id, shallow_msgpack_id,
                     too_deep)
from .lobby import Lobby
from .outbox import Outbox
from .quotas import new_owner, peer_address
from .protocol import (CODECS, PROTOCOL_VERSION, Act, Replay, Batch, CheckIn, Closing, CorrectResult, CreateTable,
                       CreateTournament, Drop, Error, Games, Hello, Leaderboard, Leave, ListGames, ListTables, ListTournaments,
                       OpenPlayback, Ping, Pong, Ratings, Redirect, Register, Registered, Resume, StartTournament,
                       TableCreated, Tables, TakeSeat, TournamentCreated, TournamentLog, TournamentLogFile, Tournaments, Watch,
                       WatchTournament, Welcome,
                       decode_client, id_of)
from . import frames
from .tournament.model import TournamentError
from .sendpath import plain_frames, send_frame, send_promptly, stream_socket
from .table import Intent, Table

SERVER_NAME = "photofinish 0.1.0"
MAX_BATCH = 64
YIELD_EVERY = 16  # frames a writer sends at most before it lets other tasks run (a frame written whole never yields)
TABLE_INTENTS = {TakeSeat: "take_seat", Resume: "resume", Watch: "watch", Act: "act", Leave: "leave"}
TOURNAMENT_CALLS = {CreateTournament, ListTournaments, Register, CheckIn, Drop, StartTournament, CorrectResult,
                    WatchTournament, Leaderboard, TournamentLog}
COSTS = {ListTables: 1, ListTournaments: 1, Leaderboard: 2, Replay: 8, OpenPlayback: 8,
         TournamentLog: 8}  # request-cost units
EXPLAINED_RATE, EXPLAINED_BURST = 2.0, 16  # refused connections an address is told why, a second and at once
UNIT_BYTES = 16 * 1024  # a list_tables answer costs one unit more for each this many bytes
CACHE_BYTES = 64 * 1024  # a list of tables this large is reused for ``Limits.tables_cache`` s (a smaller one: never)
MOST_PAGES = 8  # encoded pages of the cached list kept at once


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
    """Every limit a connection meets, with its default; each has a `serve` flag (docs/operators.md, "The server")."""

    max_frame: int = 64 * 1024  # bytes; larger frames close the connection (1009)
    outbox: int = 1024  # messages queued for one connection before it counts as too slow
    rate: float = 200.0  # messages per second a connection may send on average
    burst: int = 400  # ... and at once
    flood: int = 1000  # messages refused for rate before the connection is closed
    hello_timeout: float = 10.0
    close_timeout: float = 5.0  # seconds a closing client has to take its last frame, then `closing`
    handshake_timeout: float = 10.0  # seconds for a websocket upgrade's handshake
    ping_every: float = 1.0  # seconds between round-trip pings (and one at once when a seat is asked for)
    kernel_rtt: str = "direct"  # read the kernel's round trip: "direct" (not from loopback), "always", "never"
    address_rate: float = 500.0  # messages a second the connections of one IP address are read at, together
    address_burst: int = 1000  # ... and at once
    max_conns_per_address: int = 64  # connections open at once from one IP address (a LAN behind one NAT)
    max_connections: int | None = None  # in all; None: the open-file limit less ``fd_reserve``
    fd_reserve: int = 256  # file descriptors kept for logs, journals and refusals when the cap is derived
    refuse_timeout: float = 2.0  # seconds a refused connection has to read its reason before it is cut
    idle_timeout: float = 60.0  # seconds after hello without one whole frame from the client (pinged at half)
    max_depth: int = 32  # containers nested in one frame, checked before it is decoded
    budget_rate: float = 40.0  # request-cost units a second per address (list_tables, replay, ...)
    budget_burst: float = 120.0  # ... and at once
    tables_cache: float = 0.25  # seconds a list_tables answer is reused, encoded
    tournaments_per_minute: float = 10.0  # tournaments one address may create a minute
    registrations_per_minute: float = 60.0  # tournament registrations one address may make a minute


def kernel_reader(ws: WebSocketConnection, policy: str):
    """What reads the kernel's min round trip of ``ws`` (fair ordering credits no more than it), or None:
    a connection from loopback is a local client or a local proxy, whose kernel measure says nothing of the
    player's path, unless ``policy`` is ``always``."""
    sock = stream_socket(ws)
    if sock is None or policy == "never":
        return None
    if policy != "always":
        host = getattr(getattr(ws, "remote", None), "address", None)
        if host is None or str(host).startswith("127.") or str(host) in ("::1", "::ffff:127.0.0.1"):
            return None
    return partial(kernel_min_rtt, sock)


class OverQuota(RulesError):
    """A refusal for a rate or a budget (nothing was done): the error says when to send again."""

    def __init__(self, code: str, message: str, retry: float) -> None:
        super().__init__(code, message)
        self.retry_ms = max(1, math.ceil(retry * 1000))


LIST_STEP = 100  # tables listed or encoded between two checkpoints: a big lobby's list never stalls a table


async def encoded(items: list, encoding: str) -> msgspec.Raw:
    """``items`` encoded as one array, JSON in steps of ``LIST_STEP`` items with checkpoints between."""
    encoder = CODECS[encoding].encoder
    if encoding != "json" or len(items) <= LIST_STEP:
        return msgspec.Raw(encoder.encode(items))
    parts = []
    for start in range(0, len(items), LIST_STEP):
        parts.append(encoder.encode(items[start:start + LIST_STEP])[1:-1])
        await trio.lowlevel.checkpoint()
    return msgspec.Raw(b"[" + b",".join(parts) + b"]")


class TablesCache:
    """The list of tables, reused for ``ttl`` seconds once it is large (invalidated by nothing but time), with
    its pages already encoded: a lobby of a thousand tables asked for at a high rate is listed and encoded once
    per ``ttl`` for every connection. A small list (most events) is made afresh for each request."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self.until = -math.inf
        self.tables: list = []
        self.pages: dict[tuple, msgspec.Raw] = {}

    async def page(self, lobby: Lobby, encoding: str, offset: int, limit: int | None) -> tuple[msgspec.Raw, int]:
        """The tables ``offset`` to ``offset + limit`` encoded, and how many there are in all."""
        if trio.current_time() >= self.until:
            tables = await lobby.list_in_steps(LIST_STEP)
            self.tables = tables if lobby.cluster is None else await lobby.cluster.list_tables(tables)
            self.pages = {}
            whole = await encoded(self.tables, encoding)
            self.pages[(encoding, 0, None)] = whole
            large = len(whole) >= CACHE_BYTES
            self.until = trio.current_time() + self.ttl if large else -math.inf
        key = (encoding, offset, limit)
        raw = self.pages.get(key)
        if raw is None:
            if len(self.pages) >= MOST_PAGES:
                self.pages.clear()
            chosen = self.tables[offset:] if limit is None else self.tables[offset:offset + limit]
            raw = self.pages[key] = msgspec.Raw(CODECS[encoding].encoder.encode(chosen))
        return raw, len(self.tables)


class ReplayWorker:
    """Replays run in a worker process of their own (spawned at the first, recycled every ``RECYCLE`` replays):
    a replay reads, checks and replays a finished log whole, and for a log of 24,000 entries that allocates and
    collects hundreds of thousands of objects. In a thread of the server it held the event loop up to 30 ms at
    a time (the GIL, the garbage collector) and left the memory behind; in a process it does neither. Two wait
    at most, the rest queue behind them."""

    RECYCLE = 200

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.limiter = trio.CapacityLimiter(2)

    async def answer(self, data_dir, message: Replay):
        async with self.limiter:
            if self.pool is None:
                self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                max_tasks_per_child=self.RECYCLE)
            future = self.pool.submit(frames.answer, data_dir, message)
            try:
                return await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
            except BrokenProcessPool:  # the worker died (killed, out of memory): the next replay starts another
                self.pool = None
                raise RulesError("replay_failed", "the replay's worker process stopped; ask again") from None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


class Quotas:
    """What one gateway's connections share: the per-address request budget, the tournament and registration
    rates per address, and the cached list of tables."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.budget = Buckets(limits.budget_rate, limits.budget_burst)
        self.messages = Buckets(limits.address_rate, limits.address_burst)
        self.explained = Buckets(EXPLAINED_RATE, EXPLAINED_BURST)  # refusals told in words, per address
        self.turns: dict[str, list] = {}  # address -> [its lock, connections waiting] while it is over its rate
        self.replays = ReplayWorker()
        self.created = Buckets(limits.tournaments_per_minute / 60, limits.tournaments_per_minute)
        self.registered = Buckets(limits.registrations_per_minute / 60, limits.registrations_per_minute)
        self.tables = TablesCache(limits.tables_cache)

    def spend(self, peer: str, cost: float, now: float) -> None:
        """Take ``cost`` from the address's budget, or refuse the request (``over_budget``, nothing done)."""
        cost = min(cost, self.budget.burst)  # a request dearer than the burst is still possible, when it is full
        retry = self.budget.take(peer, cost, now)
        if retry:
            limits = self.limits
            raise OverQuota("over_budget", f"this address asks for more than {limits.budget_rate:g} request units a "
                                           f"second (at once {limits.budget_burst:g}), the most serve --budget-rate "
                                           f"allows; this request costs {cost:g}: nothing was done, retry in "
                                           f"{math.ceil(retry * 1000)} ms", retry)

    def count(self, kind: type, peer: str, now: float) -> None:
        """A tournament created or a registration made from ``peer``, or its refusal (``rate_limited``)."""
        if kind is CreateTournament:
            buckets, what, flag = self.created, "tournaments", "--tournaments-per-minute"
        elif kind is Register:
            buckets, what, flag = self.registered, "registrations", "--registrations-per-minute"
        else:
            return
        retry = buckets.take(peer, 1, now)
        if retry:
            raise OverQuota("rate_limited", f"this address makes more than {buckets.burst:g} {what} a minute, the "
                                            f"most serve {flag} allows: nothing was done, retry in "
                                            f"{math.ceil(retry * 1000)} ms", retry)


class Connection:
    """One client: a table ``Receiver`` whose messages go out through a bounded outbox."""

    def __init__(self, ws: WebSocketConnection, limits: Limits, peer: str = "", quotas: Quotas | None = None) -> None:
        self.ws = ws
        self.limits = limits
        self.peer = peer  # the remote IP address: the key of every per-address limit
        self.quotas = quotas if quotas is not None else Quotas(limits)
        self.heard_at = trio.current_time()  # when the client's last whole frame arrived
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
        self.latency.kernel = kernel_reader(ws, limits.kernel_rtt)
        self.ping_now = trio.Event()  # set to ping at once (a seat was asked for)
        self._pings_queued = 0  # pings in the outbox, stamped by the writer as their frame leaves
        self.ping_scope = trio.CancelScope()  # cancelled when the reader stops
        self.owner = new_owner(peer or peer_address(ws))  # what it creates is counted against it and its address

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

    def _over_rate(self, now: float) -> str | None:
        """Why this message is dropped for the connection's own rate (None: it is not); it counts towards
        ``flood``: a connection that keeps sending too fast is closed, not answered with errors for ever."""
        if not self._allow(now):
            self.refused += 1
            return f"more than {self.limits.rate:g} messages a second: this one was dropped"
        return None

    async def _address_turn(self) -> None:
        """Wait until this connection's address may send one more message: the connections of one address are
        read no faster than ``--address-rate`` together. Waiting costs nothing (the socket fills and the sender
        is slowed by TCP itself), where answering each message with an error would cost as much as serving it."""
        if not self.quotas.messages.take(self.peer, 1, trio.current_time()):
            return
        turn = self.quotas.turns.setdefault(self.peer, [trio.Lock(), 0])
        turn[1] += 1
        try:
            async with turn[0]:  # one connection of the address waits on the clock, the others on the lock
                for _ in range(1_000_000):
                    retry = self.quotas.messages.take(self.peer, 1, trio.current_time())
                    if not retry:
                        return
                    await trio.sleep(retry)
        finally:
            turn[1] -= 1
            if not turn[1]:
                del self.quotas.turns[self.peer]

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
                self._ping()
                with trio.move_on_after(self.limits.ping_every):
                    await self.ping_now.wait()
                self.ping_now = trio.Event()

    def _ping(self) -> None:
        if self.deliver(Ping(ping=self.latency.ping())):
            self._pings_queued += 1

    def _decode(self, frame: str | bytes):
        return decode_client(frame, self._codec_of(frame))

    def _read(self, frame: str | bytes) -> tuple[Any, str | None]:
        """A frame as a message, or None and what is wrong with it. Nesting is measured before decoding (nearly
        free for an ordinary frame), so a deep frame costs no recursion and never reaches a table."""
        if too_deep(frame, self.limits.max_depth):
            return None, (f"the frame nests deeper than {self.limits.max_depth} levels, the most serve --max-depth "
                          f"allows")
        try:
            return self._decode(frame), None
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            return None, _problem(frame, error)
        except RecursionError:
            return None, "the frame nests too deep to read"

    async def _next_frame(self) -> str | bytes | None:
        """The client's next whole frame, or None once it has sent none for ``idle_timeout`` seconds: at half
        that it is pinged (its pong is a frame); the server's own pings never count as hearing from it. A
        frame stalled halfway is no frame."""
        idle = self.limits.idle_timeout
        with trio.move_on_at(self.heard_at + idle / 2):
            return self._heard(await self.ws.get_message())
        self._ping()
        with trio.move_on_at(self.heard_at + idle):
            return self._heard(await self.ws.get_message())
        return None

    def _heard(self, frame: str | bytes) -> str | bytes:
        self.heard_at = trio.current_time()
        return frame

    def _id_of(self, frame: str | bytes):
        """The id of a frame that is no valid message, where it can be read (else None)."""
        found = id_of(frame, self._codec_of(frame))
        if found is None and too_deep(frame, self.limits.max_depth):  # the decoder may run out of stack skipping
            return shallow_json_id(frame) if isinstance(frame, str) else shallow_msgpack_id(frame)  # the deep part
        return found

    @staticmethod
    def _codec_of(frame: str | bytes):
        return CODECS["json"] if isinstance(frame, str) else CODECS["msgpack"]

    async def read_loop(self, lobby: Lobby) -> None:
        frame = None
        with trio.move_on_after(self.limits.hello_timeout):
            frame = await self.ws.get_message()
        if frame is None:
            return self._finish("hello_timeout", f"say hello within {self.limits.hello_timeout:g} s")
        hello, problem = self._read(frame)
        if hello is None:
            return self._finish("bad_hello", f"the first message must be a hello: {problem}", ref=self._id_of(frame))
        if type(hello) is not Hello:
            return self._finish("hello_first", "the first message must be a hello", ref=hello.id)
        if hello.protocol != PROTOCOL_VERSION:
            return self._finish("protocol_mismatch", f"this server speaks protocol {PROTOCOL_VERSION}, "
                                f"not {hello.protocol}; update your client", ref=hello.id)
        self.codec = CODECS[hello.encoding]
        self.batch = hello.batch
        self.deliver(Welcome(ref=hello.id, protocol=PROTOCOL_VERSION, encoding=hello.encoding, server=SERVER_NAME))
        self.heard_at = trio.current_time()
        while True:
            frame = await self._next_frame()
            if frame is None:
                self.closing = ("no_answer", f"nothing heard for {self.limits.idle_timeout:g} s, not even a pong, "
                                             f"the most serve --idle-timeout allows")
                return
            now = trio.current_time()
            message, problem = self._read(frame)
            if type(message) is Pong:  # the answer to the server's own ping: never counted against the rate
                self.latency.pong(message.ping, now)
                continue
            await self._address_turn()
            limited = self._over_rate(now)
            if limited is not None:
                if self.refused >= self.limits.flood:
                    return self._finish("flood", "too many messages; slow down and reconnect")
                # with the message's id, so that a request waiting for its answer gets one (and may send again)
                ref = self._id_of(frame) if message is None else message.id
                self.deliver(Error(ref=ref, code="rate_limited", message=limited))
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
            check_ids(message)  # before anything looks an id up, or opens a file by it
            if kind is ListTables:
                return await self._list_tables(lobby, message, now)
            if kind in COSTS:
                extra = frames.log_units(lobby.data_dir, message) if kind is Replay else 0
                self.quotas.spend(self.peer, COSTS[kind] + extra, now)
            if kind in TOURNAMENT_CALLS:
                return await self._tournament_call(lobby.tournaments, message)
            if kind is Hello:
                raise RulesError("already_greeted", "hello comes once, first")
            if kind is ListGames:
                self.deliver(Games(ref=message.id, games=lobby.games()))
            elif kind is CreateTable:
                table = await (lobby.create(message, owner=self.owner) if lobby.cluster is None
                               else self._create_here(lobby, message))
                if table is not None:
                    self.deliver(TableCreated(ref=message.id, table=table.info()))
            elif kind is OpenPlayback:
                table = await lobby.open_playback(message.log, message.speed, owner=self.owner)
                self.deliver(TableCreated(ref=message.id, table=table.info()))
            elif kind is Replay:  # rebuilt in a worker process, never on the event loop's
                self.deliver(await self.quotas.replays.answer(lobby.data_dir, message))
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
            self.deliver(Error(ref=message.id, code=error.code, message=error.message,
                               retry_ms=getattr(error, "retry_ms", None)))
        except RecursionError:  # never with frames --max-depth allows; a bug must not close the connection
            self.deliver(Error(ref=message.id, code="malformed", message="the message nests too deep to handle"))

    async def _list_tables(self, lobby: Lobby, message: ListTables, now: float) -> None:
        """The tables (a page of them), from the cached list; it costs one unit of the address's budget, and one
        more for each 64 KiB of the answer."""
        if message.offset < 0 or (message.limit is not None and not 1 <= message.limit <= 1000):
            raise RulesError("bad_page", "a page of tables starts at offset 0 or more and holds 1..1000 tables")
        self.quotas.spend(self.peer, COSTS[ListTables], now)  # refused before the list is made
        tables, total = await self.quotas.tables.page(lobby, self.codec.encoding, message.offset, message.limit)
        if len(tables) >= UNIT_BYTES:
            self.quotas.spend(self.peer, len(tables) // UNIT_BYTES, now)
        self.deliver(Tables(ref=message.id, tables=tables, total=total))

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
        self.quotas.count(kind, self.peer, trio.current_time())
        if kind is CreateTournament:
            if message.seed is not None:  # it decides every seating and lot: nobody may choose it
                raise TournamentError("bad_seed", "a tournament's seed is drawn by the server and committed to in "
                                                  "its log (revealed at the end); no client chooses it")
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
            player, token = await director.register(message.name, self.owner)
            waitlist = director.state.waitlist
            return self.deliver(Registered(ref=message.id, tournament=director.id, player=player,
                                           name=director.state.names[player], token=token,
                                           receipt=director.receipts.get(player), waitlisted=player in waitlist,
                                           waitlist_position=waitlist.index(player) + 1 if player in waitlist else 0))
        if kind is TournamentLog:
            text, lines, head = await director.log_text()
            return self.deliver(TournamentLogFile(ref=message.id, tournament=director.id, log=text, lines=lines,
                                                  head=head))
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


async def abort(ws: WebSocketConnection) -> None:
    """Cut the TCP connection with no further byte on the wire (after a frame cut short, any byte would be
    garbage to the client). trio-websocket's ``aclose`` checks for cancellation before it writes its close
    frame and closes the stream in any case, so a cancelled ``aclose`` does exactly that."""
    with trio.CancelScope() as scope:
        scope.cancel()
        await ws.aclose()


def peer_of(stream: trio.abc.Stream) -> str:
    """The remote IP address of a connection ("" where there is none: a stream that is no socket)."""
    try:
        return str(stream.socket.getpeername()[0])
    except (AttributeError, OSError, IndexError, TypeError):
        return ""


def connection_cap(limits: Limits) -> int | None:
    """The most connections open at once: ``max_connections``, else the open-file limit less ``fd_reserve``
    (so that logs, journals and refusals still get descriptors); None where no file limit is known."""
    if limits.max_connections is not None:
        return limits.max_connections
    soft = file_limit()
    return None if soft is None else max(16, soft - limits.fd_reserve)


async def refuse(stream: trio.abc.Stream, site: Site, code: str, message: str, limits: Limits) -> None:
    """Answer one request on a connection that is over a limit: a websocket upgrade is accepted only to say
    ``closing`` with ``code`` and close (1013, try again later); a plain request gets a 503 with the message."""
    busy = replace(site, busy=f"{code}: {message}\n")
    upgrade = await serve_http(stream, busy, HttpLimits(head_timeout=limits.refuse_timeout, max_requests=1))
    if upgrade is None:
        return
    async with trio.open_nursery() as nursery:
        request = await wrap_server_stream(nursery, upgrade, max_message_size=limits.max_frame)
        ws = await request.accept()
        await ws.send_message(CODECS["json"].encode(Closing(code=code, message=message)))
        await ws.aclose(1013, message[:120])
        nursery.cancel_scope.cancel()


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
        self.quotas = Quotas(limits)
        self.admission = Admission(limits.max_conns_per_address, connection_cap(limits))
        self.refusing = 0  # refused connections still being told why

    async def serve(self, host: str, port: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Listen on ``host:port``; started with the port bound. Each connection is plain HTTP (``self.site``)
        until it asks for a websocket upgrade, which goes to ``handle``."""
        listeners = await trio.open_tcp_listeners(port, host=host)
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(trio.serve_listeners, self._serve_stream, listeners)
                task_status.started(listeners[0].socket.getsockname()[1])
        finally:
            self.quotas.replays.close()

    async def _serve_stream(self, stream: trio.SocketStream) -> None:
        peer = peer_of(stream)
        refusal = self.admission.admit(peer)
        if refusal is not None:
            return await self._refuse(stream, *refusal, peer=peer)
        try:
            await self._serve_admitted(stream, peer)
        finally:
            self.admission.release(peer)

    async def _refuse(self, stream: trio.SocketStream, code: str, message: str, peer: str = "") -> None:
        """Tell a connection over a limit why, quickly: a websocket gets ``closing`` with the code as soon as
        its handshake is done, plain HTTP a 503 with the message; either is cut after ``refuse_timeout`` s.
        While too many are being told, or one address has been told ``EXPLAINED_BURST`` times within a few
        seconds (it knows: telling it again would cost a handshake each), the next ones are closed at once."""
        self.refusing += 1
        try:
            if self.refusing > max(1, self.limits.fd_reserve // 2):
                return
            if self.quotas.explained.take(peer, 1, trio.current_time()):
                return
            with trio.move_on_after(self.limits.refuse_timeout):
                await refuse(stream, self.site, code, message, self.limits)
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionClosed):
            pass  # the client went away before it was told
        except Exception:  # a bug in refusing one connection must show, and must not stop the server
            traceback.print_exc()
        finally:
            self.refusing -= 1
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _serve_admitted(self, stream: trio.SocketStream, peer: str) -> None:
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
                        await self.handle(request, peer)
                    except ConnectionClosed:
                        pass  # the client left during the handshake
                    except Exception:  # a bug on one connection shows on stderr and stops only that one
                        traceback.print_exc()
                nursery.cancel_scope.cancel()  # the websocket's reader, once the connection is done
        finally:
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def handle(self, request: WebSocketRequest, peer: str = "") -> None:
        ws = await request.accept()
        send_promptly(ws)  # a frame leaves as soon as it is encoded, not after the other writers' turns
        conn = Connection(ws, self.limits, peer, self.quotas)
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
