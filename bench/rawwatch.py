"""The spectator bench's spectators, cheap enough that the server is what is measured.

Hundreds of spectators in one process, each a plain non-blocking socket on one ``selectors`` (epoll) loop: a
minimal websocket handshake (RFC 6455 4.1: the key, the ``101`` and nothing else checked), a frame reader for the
server's unmasked frames, the client's own two frames (``hello``, ``watch``) masked as a client must; each frame
decoded by msgspec into only what the lag needs (type, table, seq; a batch's messages). The server's ``ping`` is
answered with a ``pong`` (it pings a connection silent for half its idle timeout), a websocket ping with a pong
frame. At 1,000 spectators of a table at 20 updates a second this process takes about 18 us of CPU per spectator
update (37% of a core), where the trio-websocket spectators took the machine's two cores (bench/README.md).

``watch_many(url, tables, count, seconds, joined)`` runs ``count`` spectators round robin over ``tables`` and
returns, per ``"table seq"``, each spectator's arrival time (``time.perf_counter``, stamped when its socket is
read) in the measured seconds (``arrivals``) and while they joined (``joining``), the count of spectators with no
first snapshot by the join's bound (``unserved``), and this process's CPU seconds while it measured.
"""

from __future__ import annotations

import base64
import errno
import os
import resource
import selectors
import socket
import struct
import time
from urllib.parse import urlparse

import msgspec

SETTLE_S = 1.0  # seconds after the last first snapshot that still count as joining: a thousand joining at once
# leave the server's spectators' writer behind by up to a second (jobs 0.85 s old just after, at ten tables),
# the join's lag, not the steady one the measured seconds are for
CONNECTING_AT_ONCE = 64  # handshakes under way at once (the server's accept queue is not flooded)
READ_SIZE = 262_144


class _Seen(msgspec.Struct):
    type: str
    table: str = ""
    seq: int = 0
    ping: int = 0
    messages: "list[_Seen] | None" = None


_decode = msgspec.json.Decoder(_Seen).decode
_encode = msgspec.json.encode


def client_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """One whole client frame: FIN, ``opcode``, masked (a client must mask; a zero mask is a mask)."""
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    return header + b"\0\0\0\0" + payload  # XOR with zeros leaves the payload as it is


def read_frames(buffer: bytearray) -> tuple[list[tuple[bool, int, bytes]], int]:
    """The whole frames at the start of ``buffer`` as (fin, opcode, payload), and how many bytes they took.
    The server's frames are unmasked; a fragmented message's pieces come as they are (opcode 0 for the rest)."""
    frames, at, size = [], 0, len(buffer)
    while size - at >= 2:
        first, second = buffer[at], buffer[at + 1]
        length, start = second & 0x7F, at + 2
        if length == 126:
            if size - at < 4:
                break
            length, start = struct.unpack_from("!H", buffer, at + 2)[0], at + 4
        elif length == 127:
            if size - at < 10:
                break
            length, start = struct.unpack_from("!Q", buffer, at + 2)[0], at + 10
        if second & 0x80:  # masked (never from a server): the key comes first
            start += 4
        if size < start + length:
            break
        frames.append((bool(first & 0x80), first & 0x0F, bytes(buffer[start:start + length])))
        at = start + length
    return frames, at


class _Spectator:
    __slots__ = ("sock", "table", "buffer", "upgraded", "watching", "pieces", "out", "asked", "got")

    def __init__(self, sock: socket.socket, table: str) -> None:
        self.sock, self.table = sock, table
        self.buffer = bytearray()
        self.upgraded = self.watching = False
        self.pieces: list[bytes] = []  # a fragmented message's frames so far
        self.out = b""  # bytes the socket did not take yet
        self.asked = 0.0  # when its hello and watch were sent
        self.got: list[str] = []  # the types of the messages before its first snapshot


def watch_many(url: str, tables: list[str], count: int, seconds: float, joined=lambda: None,
               join_wait: float = 10.0) -> dict:
    """``count`` spectators (round robin over ``tables``) for ``seconds`` once all have a first snapshot (or
    ``join_wait`` has passed: those still without one are ``unserved``) and ``SETTLE_S`` more; ``joined()`` is
    called then."""
    where = urlparse(url)
    address = (where.hostname, where.port)
    selector = selectors.DefaultSelector()
    arrivals: dict[str, list[float]] = {}  # while they join, then (anew) while they are measured
    ready = [0]
    waits: list[float] = []  # seconds from each spectator's watch to its first snapshot
    spectators: list[_Spectator] = []
    waiting = list(range(count - 1, -1, -1))  # indexes still to connect (popped from the end)
    connecting = [0]
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET / HTTP/1.1\r\nHost: {where.hostname}:{where.port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    hello = client_frame(_encode({"type": "hello", "protocol": 1, "id": 0, "batch": True, "patches": True}))

    def send(spectator: _Spectator, data: bytes) -> None:
        if spectator.out:
            spectator.out += data
            return
        try:
            sent = spectator.sock.send(data)
        except BlockingIOError:
            sent = 0
        if sent < len(data):
            spectator.out = data[sent:]
            selector.modify(spectator.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, spectator)

    def connect_more() -> None:
        while waiting and connecting[0] < CONNECTING_AT_ONCE:
            index = waiting.pop()
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            code = sock.connect_ex(address)
            if code not in (0, errno.EINPROGRESS):
                raise OSError(code, os.strerror(code))
            spectator = _Spectator(sock, tables[index % len(tables)])
            spectators.append(spectator)
            spectator.out = request
            selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, spectator)
            connecting[0] += 1

    def take(spectator: _Spectator, payload: bytes, now: float) -> None:
        frame = _decode(payload)
        for message in frame.messages if frame.type == "batch" else (frame,):
            kind = message.type
            if not spectator.watching:
                spectator.got.append(kind)
            if kind == "update":
                arrivals.setdefault(f"{message.table} {message.seq}", []).append(now)
            elif kind == "snapshot" and not spectator.watching:  # in the stream: its first snapshot
                spectator.watching = True
                ready[0] += 1
                waits.append(now - spectator.asked)
            elif kind == "ping":
                send(spectator, client_frame(_encode({"type": "pong", "ping": message.ping})))

    def readable(spectator: _Spectator, now: float) -> bool:
        """Read what the socket holds; False once the server closed it."""
        try:
            data = spectator.sock.recv(READ_SIZE)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        buffer = spectator.buffer
        buffer += data
        if not spectator.upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return True
            if not buffer.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(f"no websocket: {bytes(buffer[:end])!r}")
            del buffer[:end + 4]
            spectator.upgraded = True
            connecting[0] -= 1
            spectator.asked = time.perf_counter()
            send(spectator, hello + client_frame(_encode({"type": "watch", "table": spectator.table, "id": 1})))
        frames, used = read_frames(buffer)
        if used:
            del buffer[:used]
        for fin, opcode, payload in frames:
            if opcode == 0x8:  # close
                return False
            if opcode == 0x9:  # a websocket ping: its pong
                send(spectator, client_frame(payload, 0xA))
            elif opcode in (0x0, 0x1, 0x2):  # a data frame, or the rest of a fragmented one
                spectator.pieces.append(payload)
                if fin:
                    take(spectator, b"".join(spectator.pieces), now)
                    spectator.pieces = []
        return True

    def loop_until(deadline: float, stop=lambda: False) -> None:
        while not stop():
            left = deadline - time.perf_counter()
            if left <= 0:
                return
            events = selector.select(min(left, 0.05))
            now = time.perf_counter()
            for selected, mask in events:
                spectator = selected.data
                if mask & selectors.EVENT_WRITE:
                    try:
                        sent = spectator.sock.send(spectator.out) if spectator.out else 0
                    except BlockingIOError:
                        sent = 0
                    except OSError:
                        sent, spectator.out = 0, b""
                    spectator.out = spectator.out[sent:]
                    if not spectator.out:
                        selector.modify(spectator.sock, selectors.EVENT_READ, spectator)
                if mask & selectors.EVENT_READ and not readable(spectator, now):
                    selector.unregister(spectator.sock)
                    spectator.sock.close()
                    if not spectator.upgraded:
                        connecting[0] -= 1
            connect_more()

    connect_more()
    loop_until(time.perf_counter() + join_wait + count / 100, lambda: ready[0] == count)
    loop_until(time.perf_counter() + SETTLE_S)  # (still ``joining``): the server's work of the joins drains
    joined()
    joining, arrivals = arrivals, {}
    cpu0 = _cpu()
    loop_until(time.perf_counter() + seconds)
    cpu = _cpu() - cpu0
    for selected in list(selector.get_map().values()):
        selected.fileobj.close()
    selector.close()
    unanswered = [(s.upgraded, s.got) for s in spectators if not s.watching]
    return {"unserved": count - ready[0], "arrivals": arrivals, "joining": joining, "cpu_s": cpu,
            "waits": sorted(waits), "unanswered": unanswered[:20]}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
