"""A websocket connection's send path: a frame leaves at once when nobody else is sending on that connection.

trio-websocket (0.12) serializes the senders of a connection with a ``trio.StrictFIFOLock``, and trio's lock
passes through the scheduler even when it is free (``cancel_shielded_checkpoint`` after taking it). So a task
that sends goes to the back of the run queue before its bytes leave: when the arbiter wakes three writers at
once, the first frame leaves only after the other two writers have encoded theirs, and the client on the
other core waits for nothing. Measured at one table, this detour is about a fifth of the action round trip
(830 -> 690 us with the server's sends alone going straight out); it costs the bare echo as much.

``PromptLock`` is that lock, taken at once when it is free: the same FIFO order among waiters (a free lock
with tasks queued for it is not free), and the send is still a checkpoint, since trio's ``socket.send``
checks for cancellation before it writes and yields after. ``send_promptly(ws)`` gives one connection the
prompt lock; it reaches into trio-websocket's ``_stream_lock``, so it checks that the attribute is what it
expects and otherwise leaves the connection as it was (correct, only slower); tests/test_sendpath.py fails
if a later trio-websocket stops matching. The server's connections use it; the clients (which import only
``server.protocol`` of the server) send with trio-websocket's own ``send_message`` (bench/README.md: the A/B).

``plain_frames(ws)`` and ``send_frame``: a server's data frame is a 2-10 byte header and the payload as it is
(no mask, and trio-websocket negotiates no extension), yet wsproto builds it in Python: the payload copied into
a bytearray, each extension asked, a text payload encoded again from a ``str`` the writer had decoded from
msgspec's bytes (9.4 us for a 1,500-byte text frame, 0.3 us for the header). ``send_frame`` writes the header
and the encoded bytes under the connection's send lock, as trio-websocket's own send does, while wsproto's
side of the connection is open with no extension and no message half sent; otherwise (a closing connection,
a client connection, a trio-websocket that stops matching) it goes through ``send_message``. It writes to the
socket's descriptor at once, and only what the socket does not take goes through trio's ``send_all``: trio's
send yields after every write even when the whole frame went, a task step per frame that the writer spent
only to come back and wait for its next message (the writer yields every ``YIELD_EVERY`` frames instead, see
``server/gateway/``).
"""

from __future__ import annotations

import os
import struct
from typing import Any

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection
from wsproto.connection import ConnectionState


class PromptLock:
    """A FIFO lock for ``async with`` that does not yield when it is free; contended, it waits its turn.

    Only ``async with`` (as trio-websocket uses it): a release hands the lock straight to the first waiter,
    so a newcomer cannot jump the queue."""

    __slots__ = ("_held", "_waiting")

    def __init__(self) -> None:
        self._held = False
        self._waiting = trio.lowlevel.ParkingLot()

    def locked(self) -> bool:
        return self._held

    def statistics(self) -> trio.lowlevel.ParkingLotStatistics:
        return self._waiting.statistics()

    async def __aenter__(self) -> None:
        if self._held or self._waiting:  # held, or others queued first: FIFO holds
            await self._waiting.park()  # woken by a release that hands the lock over, still held
        else:
            self._held = True

    async def __aexit__(self, *exc_info) -> None:
        if self._waiting:
            self._waiting.unpark()  # to the first in line; cancelled waiters have left the lot
        else:
            self._held = False


def send_promptly(ws: WebSocketConnection) -> bool:
    """Give ``ws`` the prompt send lock; True if it now has it. Call it before the connection has senders
    of its own (right after the handshake): a lock that is held or waited for is left in place."""
    lock = getattr(ws, "_stream_lock", None)
    if isinstance(lock, PromptLock):
        return True
    if not isinstance(lock, trio.StrictFIFOLock):
        return False
    if lock.locked() or lock.statistics().tasks_waiting:
        return False
    ws._stream_lock = PromptLock()
    return True


def plain_frames(ws: WebSocketConnection) -> Any:
    """The wsproto frame protocol of a server connection whose data frames ``send_frame`` may write itself
    (open, no extension), or None. Call it right after the handshake."""
    connection = getattr(getattr(ws, "_wsproto", None), "connection", None)
    proto = getattr(connection, "_proto", None)
    if (proto is None or getattr(proto, "client", True) or getattr(proto, "extensions", None) != []
            or not hasattr(proto, "_outbound_opcode") or not isinstance(getattr(ws, "_stream_lock", None), PromptLock)
            or not hasattr(ws, "_close_reason") or not hasattr(ws, "_abort_web_socket")
            or not hasattr(getattr(getattr(ws, "_stream", None), "socket", None), "fileno")):
        return None
    return proto


def frame_header(length: int, text: bool) -> bytes:
    """The header of a whole, unmasked data frame of ``length`` payload bytes (RFC 6455 5.2)."""
    first = 0x81 if text else 0x82  # FIN, and the text or binary opcode
    if length < 126:
        return bytes((first, length))
    if length < 65536:
        return struct.pack("!BBH", first, 126, length)
    return struct.pack("!BBQ", first, 127, length)


async def send_frame(ws: WebSocketConnection, proto: Any, payload: bytes, text: bool) -> None:
    """Send one message (``text``: ``payload`` is UTF-8) as one frame; ``proto`` from ``plain_frames`` (None:
    through trio-websocket's ``send_message``). Raises ``ConnectionClosed`` as ``send_message`` does."""
    if (proto is None or ws._close_reason is not None or ws._wsproto.state is not ConnectionState.OPEN
            or proto._outbound_opcode is not None):
        return await ws.send_message(payload.decode() if text else payload)
    data = frame_header(len(payload), text) + payload
    async with ws._stream_lock:
        try:
            try:  # the descriptor as it is now (-1 once closed: an error here, never another socket)
                sent = os.write(ws._stream.socket.fileno(), data)  # the usual case: all of it, no yield
            except BlockingIOError:
                sent = 0
            if sent < len(data):
                await ws._stream.send_all(memoryview(data)[sent:])  # the rest, waiting for the socket
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):  # OSError: the write itself
            await ws._abort_web_socket()
            raise ConnectionClosed(ws._close_reason) from None


def descriptor(ws: WebSocketConnection) -> Any:
    """The connection's socket's ``fileno`` as the standard library's socket gives it (-1 once closed, never
    another socket's), read without trio's and the HTTP layer's wrappers around it: ``write_now`` asks it for
    every frame ``spread`` writes, a thousand times an update at a table watched by a thousand. None where
    trio-websocket or trio do not hold the socket as expected (``write_now`` then asks the stream)."""
    sock = getattr(stream_socket(ws), "_sock", None)
    fileno = getattr(sock, "fileno", None)
    return fileno if callable(fileno) else None


def write_now(ws: WebSocketConnection, proto: Any, data: bytes, fileno: Any = None) -> int | None:
    """Write ``data`` (whole frames, ``frame_header`` and payload each) to the socket at once, never waiting:
    the bytes it took (0 when it would block), or None where nothing may be written straight now (no ``proto``,
    another sender holds the connection, it is closing, or the write failed: the connection's own writer, which
    waits and closes as ``send_frame`` does, is the one to find out). Callers send the rest with ``send_rest``
    before anything else on the connection. ``fileno``: from ``descriptor``, or None."""
    if (proto is None or ws._close_reason is not None or ws._wsproto.state is not ConnectionState.OPEN
            or proto._outbound_opcode is not None or ws._stream_lock.locked()):
        return None
    try:
        return os.write(fileno() if fileno is not None else ws._stream.socket.fileno(), data)
    except BlockingIOError:
        return 0
    except OSError:
        return None


async def send_rest(ws: WebSocketConnection, data: bytes) -> None:
    """The rest of frames ``write_now`` began, under the send lock, waiting for the socket; raises
    ``ConnectionClosed`` as ``send_frame`` does."""
    async with ws._stream_lock:
        try:
            await ws._stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await ws._abort_web_socket()
            raise ConnectionClosed(ws._close_reason) from None


def stream_socket(ws: WebSocketConnection):
    """The connection's socket (for the kernel's round trip, ``latency.kernel_min_rtt``), or None where
    trio-websocket does not hold one as this module expects."""
    sock = getattr(getattr(ws, "_stream", None), "socket", None)
    return sock if hasattr(sock, "getsockopt") else None
