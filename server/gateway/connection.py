"""One websocket connection: the hello and protocol version, JSON or msgpack frames read and checked (nesting
measured before decoding, malformed and unknown messages answered with a typed ``error``), the connection's own
message rate and its address's turn, the idle timeout, a bounded outbox drained by the writer (a connection that
cannot keep up is closed with a reason instead of slowing its table), and its round trip (``server/latency.py``):
a ``ping`` about once a second and at once when the connection asks for a seat, stamped when its frame is sent.
It is the ``Receiver`` a table sends to. What each request does is ``requests.py``'s.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec
import trio
from trio_websocket import ConnectionClosed, WebSocketConnection

from ..wire import encodeonce
from ..cluster.directory import Directory
from ..latency import LatencyMeter, kernel_min_rtt
from ..limits import shallow_json_id, shallow_msgpack_id, too_deep
from ..lobby import Lobby
from ..wire.outbox import Outbox
from ..protocol import (CODECS, PROTOCOL_VERSION, Error, Hello, Ping, Pong, Welcome, codec_for, decode_client, id_of)
from ..quotas import new_owner, peer_address
from ..wire.readpath import Reader
from ..wire.sendpath import descriptor, frame_header, plain_frames, send_frame, send_rest, stream_socket, write_now
from ..wire.spread import Spread
from ..table import Receiver, Table
from . import requests
from .config import Limits
from .forwarded import direct
from .quotas import Quotas

SERVER_NAME = "photofinish 0.1.0"
MAX_BATCH = 64
YIELD_EVERY = 16  # frames a writer sends at most before it lets other tasks run (a frame written whole never yields)


def _problem(frame: str | bytes, error: Exception) -> str:
    """What was wrong with a frame, saying how it was read: a bot that sent bytes by mistake, or text that
    is no JSON, learns that before the decoder's words (which alone said "Expected `object`, got `int`")."""
    if isinstance(frame, bytes):
        return f"a binary frame is read as msgpack: {error}"
    if isinstance(error, msgspec.DecodeError) and not isinstance(error, msgspec.ValidationError):  # (a subclass)
        return f"not JSON: {error}"
    return str(error)


def kernel_reader(ws: WebSocketConnection, policy: str, proxies: tuple = ()):
    """What reads the kernel's min round trip of ``ws`` (fair ordering credits no more than it), or None:
    a connection from loopback (a local client or a local proxy) or from one of the trusted ``proxies``
    measures the proxy's path, which says nothing of the player's, unless ``policy`` is ``always``."""
    sock = stream_socket(ws)
    if sock is None or policy == "never":
        return None
    if policy != "always":
        host = getattr(getattr(ws, "remote", None), "address", None)
        if host is None or not direct(str(host), proxies):
            return None
    return partial(kernel_min_rtt, sock)


class _Rest:
    """Bytes of frames ``spread`` began writing that the socket did not take: the writer sends them first."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class Connection(Receiver):
    """One client: a table ``Receiver`` whose messages go out through a bounded outbox."""

    def __init__(self, ws: WebSocketConnection, limits: Limits, peer: str = "", quotas: Quotas | None = None,
                 spread: Spread | None = None, reader: Reader | None = None) -> None:
        self.ws = ws
        self.reader = reader  # reads the frames in ``read_loop``'s task (server/wire/readpath.py); None: trio-websocket's
        self.limits = limits
        self.peer = peer  # the remote IP address: the key of every per-address limit
        self.local = ""  # the local IP address the client reached this server at (a redirect's host on a LAN)
        self.quotas = quotas if quotas is not None else Quotas(limits)
        self.heard_at = trio.current_time()  # when the client's last whole frame arrived
        self.reading = False  # the reader waits for the client's next frame (after its hello): ``check_idle`` watches
        self.idle_pinged = False  # pinged for being quiet since ``heard_at``
        self.codec = CODECS["json"]
        self.frames = plain_frames(ws)  # the writer frames its messages itself (server/wire/sendpath.py), or None
        self.fileno = descriptor(ws)  # the socket's descriptor, as ``write_now`` reads it (or None)
        self.outbox = Outbox(limits.outbox)
        self.spread = spread  # writes shared frames straight to the socket while the outbox is empty, or None
        self.direct: list[Any] | None = None  # messages waiting for ``spread`` (it holds this connection), in order
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
        self.patches = False
        self.events = True  # False: with patches, no events (``patching.quiet``)
        self.rows = False  # True: with patches, views as rows too (``patching.rows``)
        self.latency = LatencyMeter()  # the tables read the seat's round trip here (fair ordering, pings shown)
        self.latency.kernel = kernel_reader(ws, limits.kernel_rtt, limits.trusted_proxies)
        self.ping_now = trio.Event()  # set to ping at once (a seat was asked for)
        self._pings_queued = 0  # pings in the outbox, stamped by the writer as their frame leaves
        self.ping_scope = trio.CancelScope()  # cancelled when the reader stops
        self.owner = new_owner(peer or peer_address(ws))  # what it creates is counted against it and its address

    def deliver(self, message: Any) -> bool:
        """Queue a message; False when too many wait. A shared message (a spectator's update) to a connection
        with nothing queued goes to ``spread``, and so does everything after it until ``spread`` writes them."""
        direct = self.direct
        if direct is not None:
            if len(direct) >= self.limits.outbox:
                return False
            direct.append(message)
            self.spread.fresh = True
            return True
        spread = self.spread
        if (spread is not None and spread.running and self.frames is not None and encodeonce.shared(message)
                and self.outbox.idle()):
            self.direct = [message]
            spread.add(self)
            return True
        return self.outbox.put(message)

    def write_direct(self) -> None:
        """``spread``'s turn for this connection: its waiting messages written to the socket at once, as the
        writer would frame them; what the socket does not take (or all, where nothing may be written straight
        now) goes to the writer, first in the outbox."""
        queued, self.direct = self.direct, None
        if not queued or self.outbox.closed:
            return
        if not self.outbox.idle():
            return self.spill(queued)
        self._write_now(queued)

    def hush(self) -> None:
        """A table is about to hand this connection messages and will ``push`` them: its writer is not woken
        for them meanwhile (``Outbox.hush``)."""
        self.outbox.hush()

    def push(self) -> None:
        """Write what is queued now, from the table that queued it, when the writer holds nothing (a player's
        ``accepted`` and update at the end of the table's batch, and before the table goes on to its spectators:
        ``table/fanout.py``); otherwise the writer sends it as usual. Ends a ``hush``. Not while a frame is
        half on the wire (``sending``): the rest of it is queued first, and only the writer sends it."""
        outbox = self.outbox
        if (self.frames is None or self.direct is not None or outbox.closed or self.sending
                or not outbox.writer_holds_nothing()):
            return outbox.unhush()
        outbox.hushed = False  # what ``_write_now`` leaves for the writer wakes it
        queued = outbox.drain()
        if queued:
            self._write_now(queued)

    def _write_now(self, queued: list[Any]) -> None:
        """``queued`` written to the socket at once, as the writer would frame them (nothing queued before
        them is unsent); what the socket does not take, or all where nothing may be written straight now,
        goes to the writer, first in the outbox."""
        data = encodeonce.whole_frame(queued[0], self.codec) if len(queued) == 1 else None  # the usual case
        if data is None:
            step, text = MAX_BATCH if self.batch else 1, self.codec.encoding == "json"
            parts = []
            for start in range(0, len(queued), step):
                payload = encodeonce.frame(self.codec, queued[start:start + step])
                parts += (frame_header(len(payload), text), payload)
            data = b"".join(parts)
        sent = write_now(self.ws, self.frames, data, self.fileno)
        if sent is None:
            return self.spill(queued)
        if self._pings_queued:
            self._stamp_pings(queued)
        if sent < len(data):  # a frame begun on the wire: the writer sends its rest before anything else
            self.sending = True
            self.outbox.put(_Rest(data[sent:]))

    def spill(self, queued: list[Any] | None = None) -> None:
        """Hand messages waiting for ``spread`` to this connection's own writer, in order."""
        queued = self.direct if queued is None else queued
        self.direct = None
        for message in queued or ():
            self.outbox.put(message)

    def close(self, code: str, message: str) -> None:
        """Close with a reason (without blocking): the reader stops, the frame being sent is finished, what is
        still queued is never sent, then ``closing`` and the close frame follow (``Gateway.handle``)."""
        if self.closing is None:
            self.closing = (code, message)
        self.dropped.set()
        self.direct = None  # nor what waits for ``spread``
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
                if type(queued[0]) is _Rest:  # the rest of frames ``spread`` began (``write_direct``)
                    await send_rest(self.ws, queued.pop(0).data)
                    self.sending = False
                    if not queued:
                        continue
                if encodeonce.shared(queued[0]):  # a spectator's copy: a player's writer woken with this one first
                    await trio.lowlevel.checkpoint()
                payload = encodeonce.frame(self.codec, queued)  # bytes: text (UTF-8 JSON) or binary (msgpack)
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

    def check_idle(self, now: float) -> None:
        """The gateway's idle watch (``Gateway.watch_idle``), a few times a second for every connection, instead
        of a deadline around each frame's read: a client that sent no whole frame for half ``idle_timeout`` is
        pinged (its pong is a frame), and at the whole it is closed ``no_answer``. The server's own pings never
        count as hearing from it; a frame stalled halfway is no frame."""
        if not self.reading or self.closing is not None:
            return  # (a message being handled, or a wait for its address's turn, is never cut short: checked
        idle = self.limits.idle_timeout  # again once the reader waits for the next frame)
        if now >= self.heard_at + idle:
            self.closing = ("no_answer", f"nothing heard for {idle:g} s, not even a pong, the most serve "
                                         "--idle-timeout allows")
            self.scope.cancel()
        elif now >= self.heard_at + idle / 2 and not self.idle_pinged:
            self.idle_pinged = True
            self._ping()

    def _id_of(self, frame: str | bytes):
        """The id of a frame that is no valid message, where it can be read (else None)."""
        found = id_of(frame, self._codec_of(frame))
        if found is None and too_deep(frame, self.limits.max_depth):  # the decoder may run out of stack skipping
            return shallow_json_id(frame) if isinstance(frame, str) else shallow_msgpack_id(frame)  # the deep part
        return found

    @staticmethod
    def _codec_of(frame: str | bytes):
        return CODECS["json"] if isinstance(frame, str) else CODECS["msgpack"]

    async def read_loop(self, lobby: Lobby, directory: Directory) -> None:
        receive = self.ws.get_message if self.reader is None else self.reader.get_message
        frame = None
        with trio.move_on_after(self.limits.hello_timeout):
            frame = await receive()
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
        if hello.rows and (hello.encoding != "msgpack" or not hello.patches):
            return self._finish("bad_hello", "rows need encoding msgpack and patches true in the hello (rows are "
                                "msgpack arrays of the patched updates)", ref=hello.id)
        self.codec = codec_for(hello.encoding, hello.rows)  # rows: update, snapshot, accepted as arrays
        self.batch = hello.batch
        self.patches = hello.patches  # updates carry their view's patch (server/table/patching.py)
        self.events = hello.events
        self.rows = hello.rows
        self.deliver(Welcome(ref=hello.id, protocol=PROTOCOL_VERSION, encoding=hello.encoding, server=SERVER_NAME))
        self.heard_at = trio.current_time()
        while True:
            self.reading = True
            frame = await receive()
            self.reading = False
            self.heard_at = now = trio.current_time()
            self.idle_pinged = False
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
            await self._dispatch(lobby, directory, message, now)

    async def _dispatch(self, lobby: Lobby, directory: Directory, message, now: float) -> None:
        await requests.dispatch(self, lobby, directory, message, now)
