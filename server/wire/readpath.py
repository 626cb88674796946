"""A server connection's read path: its client's frames read in the connection's own task, not trio-websocket's.

trio-websocket (0.12) reads each connection in a task of its own (``_reader_task``) that waits for the socket,
feeds wsproto and hands every message through a memory channel to the task that called ``get_message``: two
tasks woken per message, and wsproto's generator-based parsing, for frames that are nearly always one whole,
masked text or binary frame in one read (py-spy at 100 tables: 10.7% of the server's samples in the reader
task, 3.6% in ``get_message``'s receive, 5.6% in wsproto's parsing).

``open_server`` reads the handshake in the caller's task (``wrap_server_stream`` without its reader task) and
gives the request with a ``Reader``; after ``request.accept()`` the connection calls ``Reader.accepted``, then
``Reader.get_message`` where it called ``ws.get_message``. A read that finds wsproto holding nothing (no byte
buffered, no message begun) takes the whole plain data frames at its front itself: FIN, no RSV bit, text or
binary, masked, the length in its shortest form, at most ``max_message_size`` bytes; the payload unmasked by
one XOR of two integers, text decoded as UTF-8. Everything else from the first frame it cannot take whole (a
fragment, a control frame, a close, a frame begun but not ended, an unmasked or oversized frame, text that is
no UTF-8) goes to wsproto, and wsproto's events to trio-websocket's own handlers, as its reader task would: the
same pong, the same close handshake and ``ConnectionClosed`` reason, the same ends: a message over the size
closed 1009, and a frame wsproto refuses (no UTF-8, unmasked, an RSV bit, a bad close code) the TCP connection
ended with no close frame, as trio-websocket's own reader does.
A frame is never split between the two: the fast path starts only where wsproto holds nothing.

Bytes the client sent right behind its upgrade request, in the same read, were lost with trio-websocket's
reader (wsproto's server keeps them in its HTTP parser's ``trailing_data`` and never gives them to the
websocket); ``accepted`` feeds them to the websocket first.

Closing: ``ws.aclose()`` waits for the client's close reply, which only a reader sees; the gateway runs
``Reader.until_closed`` beside it (``Gateway._close``). ``cut``: a control frame's answer was cancelled mid-send
(the gateway then cuts the TCP connection, as after a frame of its own writer cut short).

Pinned on trio-websocket's and wsproto's private attributes as ``server/wire/sendpath.py`` is: ``open_server``
checks trio-websocket's (else ``wrap_server_stream`` and its reader task, as before), ``accepted`` wsproto's
(else every frame goes through wsproto, in this task all the same); tests/server/test_readpath.py fails if an
upgrade stops matching.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import trio
import wsproto.utilities
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, wrap_server_stream
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import BytesMessage, CloseConnection, Ping, Pong, Request, TextMessage

from ..http import ReplayStream

_OPEN, _CLOSED = ConnectionState.OPEN, ConnectionState.CLOSED
_HANDLERS = {BytesMessage: "_handle_message_event", TextMessage: "_handle_message_event",
             CloseConnection: "_handle_close_connection_event", Ping: "_handle_ping_event",
             Pong: "_handle_pong_event", Request: "_handle_request_event"}  # trio-websocket's, for a server
_NEEDED = ("_stream", "_wsproto", "_send_channel", "_recv_channel", "_receive_buffer_size", "_reader_running",
           "_close_reason", "_max_message_size", "_get_request", "_abort_web_socket", "_close_stream", "_send",
           *set(_HANDLERS.values()))


def own_reading(ws: WebSocketConnection) -> bool:
    """Whether ``ws`` (a server connection not yet read from) has every trio-websocket attribute ``Reader``
    stands on."""
    return all(hasattr(ws, name) for name in _NEEDED) and not getattr(ws._wsproto, "client", True)


async def open_server(nursery: trio.Nursery, stream: trio.abc.Stream,
                      max_message_size: int) -> tuple[WebSocketRequest | None, Reader | None]:
    """The client's handshake request read on ``stream`` in this task, and the ``Reader`` that goes on reading
    it; a request of None: the stream ended or was no upgrade (nothing to answer). Where trio-websocket does
    not match, ``wrap_server_stream`` in ``nursery`` with its reader task, and no ``Reader``."""
    try:
        ws = WebSocketConnection(stream, WSConnection(ConnectionType.SERVER), max_message_size=max_message_size)
    except TypeError:
        ws = None
    if ws is None or not own_reading(ws):
        return await wrap_server_stream(nursery, stream, max_message_size=max_message_size), None
    reader = Reader(ws)
    return await reader.request(), reader


def _frames_of(ws: WebSocketConnection) -> Any:
    """wsproto's connection of an open server websocket, where its buffer and message state read as this
    module expects (else None: no fast path)."""
    connection = getattr(ws._wsproto, "connection", None)
    proto = getattr(connection, "_proto", None)
    decoder = getattr(proto, "_frame_decoder", None)
    if (not isinstance(getattr(connection, "_events", None), deque) or getattr(proto, "extensions", None) != []
            or getattr(proto, "client", True) or not isinstance(getattr(getattr(decoder, "buffer", None), "buffer",
                                                                        None), bytearray)
            or not hasattr(decoder, "header") or not hasattr(getattr(proto, "_message_decoder", None), "opcode")
            or getattr(connection, "_state", None) is not _OPEN):
        return None
    return connection


class Reader:
    """Reads one server websocket's client frames in the task that asks for them (``get_message``)."""

    def __init__(self, ws: WebSocketConnection) -> None:
        self.ws = ws
        ws._send_channel, ws._recv_channel = trio.open_memory_channel(math.inf)  # handlers never wait on it
        self.handlers = {kind: getattr(ws, name) for kind, name in _HANDLERS.items()}
        self.receive = ws._stream.receive_some
        self.size = ws._receive_buffer_size
        self.limit = ws._max_message_size
        self.ready: deque = deque()  # whole messages read, in order
        self.backlog: deque = deque()  # wsproto's events not yet handled
        self.stopped = False  # trio-websocket's reader would have ended: no more reads
        self.closed = False  # its channel has ended: ``get_message`` raises once ``ready`` is empty
        self.cut = False  # a control frame's answer was cancelled, perhaps mid-frame: no close handshake
        self.connection = None  # wsproto's frame side, once the fast path may read (``accepted``)
        self.replay = ws._stream if type(ws._stream) is ReplayStream else None
        self.sock = None  # the socket read directly (``_receive``), once the replayed bytes are read
        if self.replay is None:
            self._read_directly(ws._stream)

    async def request(self) -> WebSocketRequest | None:
        """The handshake, read as trio-websocket's reader reads it."""
        ws = self.ws
        while True:
            while self.backlog:
                event = self.backlog.popleft()
                if type(event) is Request:
                    await ws._handle_request_event(event)
                    return await ws._get_request()
                await self._handle(event)
            if self.stopped:
                return None
            await self._read()

    def accepted(self) -> Reader:
        """After ``request.accept()``: what the client sent behind its request in the same read is the
        websocket's first bytes, and the fast path is on where wsproto matches."""
        ws = self.ws
        h11 = getattr(getattr(ws._wsproto, "handshake", None), "_h11_connection", None)
        trailing = getattr(h11, "trailing_data", (b"", False))[0]
        if trailing and ws._wsproto.state is _OPEN:
            self._feed(bytes(trailing))
        self.connection = _frames_of(ws)
        return self

    async def get_message(self) -> str | bytes:
        """The next message, as ``ws.get_message()`` gives it; raises ``ConnectionClosed`` as it does."""
        ready = self.ready
        if ready:  # read before: a checkpoint all the same, as a channel's receive is
            await trio.lowlevel.checkpoint()
        while not ready:
            if self.backlog:
                await self._handle_all()
            elif self.closed or self.stopped:
                raise ConnectionClosed(self.ws._close_reason)
            else:
                await self._read()
        return ready.popleft()

    async def until_closed(self) -> None:
        """Read on, as trio-websocket's reader would, until the websocket ends (the close handshake, the
        stream closed or broken); what messages come meanwhile are dropped."""
        while not self.stopped:
            self.ready.clear()
            if self.backlog:
                await self._handle_all()
            else:
                await self._read()
        self.ready.clear()

    async def _read(self) -> None:
        """One read from the stream: whole plain frames taken at once where wsproto holds nothing, the rest
        fed to wsproto, its events queued in ``backlog``; or the websocket's end where the stream ended."""
        ws = self.ws
        try:
            data = await self.receive(self.size)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await ws._abort_web_socket()
            return self._stop()
        if self.replay is not None and not self.replay._data:  # the request and what came with it are read
            self.receive, self.replay = self.replay.stream.receive_some, None
            self._read_directly(self.receive.__self__)
        if not data:
            if ws._wsproto.state is not _CLOSED:
                await ws._abort_web_socket()
            return self._stop()
        if ws._wsproto.state is _CLOSED:
            return
        connection = self.connection
        if connection is not None and self._idle(connection):
            taken = self._take(data)
            if taken == len(data):
                return
            data = data[taken:]
        self._feed(data)

    def _read_directly(self, stream: Any) -> None:
        """Read ``stream`` through ``_receive`` where it is a trio ``SocketStream`` over a standard socket."""
        sock = getattr(getattr(stream, "socket", None), "_sock", None) if type(stream) is trio.SocketStream else None
        if callable(getattr(sock, "recv", None)):
            self.sock, self.receive = sock, self._receive

    async def _receive(self, size: int) -> bytes:
        """``SocketStream.receive_some`` without its pass through the scheduler after a wait: cancelled before
        anything is read, as it is; the bytes there at once are taken, then the task yields (shielded, as it
        does); bytes that had to be waited for are returned at once (the wait was the yield)."""
        await trio.lowlevel.checkpoint_if_cancelled()
        sock = self.sock
        try:
            try:
                data = sock.recv(size)
            except BlockingIOError:
                while True:
                    await trio.lowlevel.wait_readable(sock)
                    try:
                        return sock.recv(size)
                    except BlockingIOError:
                        pass
            await trio.lowlevel.cancel_shielded_checkpoint()
            return data
        except OSError as error:  # closed here (no descriptor) or by the client
            raise (trio.ClosedResourceError if sock.fileno() == -1 else trio.BrokenResourceError)() from error

    def _feed(self, data: bytes) -> None:
        ws = self.ws
        try:
            ws._wsproto.receive_data(data)
        except wsproto.utilities.RemoteProtocolError as err:  # (only in the handshake)
            self.backlog.append(err)
            return
        self.backlog.extend(ws._wsproto.events())

    @staticmethod
    def _idle(connection: Any) -> bool:
        """wsproto holds no byte, no event and no message begun: the next byte begins a frame."""
        proto = connection._proto
        decoder = proto._frame_decoder
        return (decoder.header is None and not decoder.buffer.buffer and proto._message_decoder.opcode is None
                and not connection._events and connection._state is _OPEN)

    def _take(self, data: bytes) -> int:
        """The whole plain data frames at the front of ``data`` read into ``ready``; where the first frame
        it does not take begins (``len(data)``: all taken)."""
        ready, limit, end, at = self.ready, self.limit, len(data), 0
        while end - at >= 6:
            first, length = data[at], data[at + 1] ^ 0x80  # FIN and the opcode; the length, mask bit taken off
            if (first != 0x81 and first != 0x82) or length > 127:  # (> 127: the mask bit was not set)
                return at
            start = at + 2
            if length >= 126:
                if length == 126:
                    length, start = int.from_bytes(data[start:start + 2], "big"), start + 2
                    if length < 126:
                        return at  # not the shortest form: wsproto's error
                else:
                    length, start = int.from_bytes(data[start:start + 8], "big"), start + 8
                    if length < 65536 or length >> 63:
                        return at
            after = start + 4 + length
            if after > end or length > limit:
                return at
            if length:
                mask = data[start:start + 4] * ((length >> 2) + 1)
                payload = (int.from_bytes(data[start + 4:after], "little")
                           ^ int.from_bytes(mask[:length], "little")).to_bytes(length, "little")
            else:
                payload = b""
            if first == 0x81:
                try:
                    payload = payload.decode()
                except UnicodeDecodeError:
                    return at  # wsproto closes 1007, as it says
            ready.append(payload)
            at = after
        return at

    async def _handle_all(self) -> None:
        while self.backlog and not self.stopped:
            await self._handle(self.backlog.popleft())

    async def _handle(self, event: Any) -> None:
        """One wsproto event handled by trio-websocket's own handler, its message (if any) moved to ``ready``."""
        ws = self.ws
        if isinstance(event, wsproto.utilities.RemoteProtocolError):  # a bad handshake: as its reader does
            self.backlog.clear()
            try:
                if event.event_hint:
                    await ws._send(event.event_hint)
            except ConnectionClosed:
                pass
            await ws._close_stream()
            return self._stop()
        handler = self.handlers.get(type(event))
        if handler is not None:
            try:
                await handler(event)
            except ConnectionClosed:
                ws._reader_running = False
            except wsproto.utilities.LocalProtocolError:
                pass  # a ping after the server's close frame: no pong may follow it (trio-websocket's reader raised)
            except trio.Cancelled:
                if type(event) is Ping or type(event) is CloseConnection or ws._close_reason is not None:
                    self.cut = True  # its answer may be on the wire in part
                raise
        self._drain()
        if not ws._reader_running:
            self._stop()

    def _drain(self) -> None:
        recv = self.ws._recv_channel
        while True:
            try:
                self.ready.append(recv.receive_nowait())
            except trio.WouldBlock:
                return
            except (trio.EndOfChannel, trio.ClosedResourceError):
                self.closed = True
                return

    def _stop(self) -> None:
        """trio-websocket's reader ends here: its channel is closed behind the messages it sent."""
        self.stopped = True
        self.backlog.clear()
        self.ws._send_channel.close()
        self._drain()
