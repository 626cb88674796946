"""The ``Gateway``: accepts connections (plain HTTP goes to ``server/http.py``, a websocket upgrade runs a
``Connection`` until it closes), counts them per address and in all (a connection over either is told why at
once and cut), and closes each one cleanly.

Closing a connection stops its reader at once but never its writer in the middle of a frame (a frame cut
short is a protocol error at the client, and nothing may follow it on the wire): the writer finishes the
frame it is sending, what is still queued is dropped, then come ``closing`` and the close frame. A client
that takes none of it for ``Limits.close_timeout`` seconds has its TCP connection cut with no more bytes.

Connections that end take their leave ``LEAVING_AT_ONCE`` at a time (the rest of a connection's work, once its
reader has seen its end: its writer, its tables told, the close handshake, the socket closed). A projector's
Wi-Fi dropping, or a stream's thousand viewers leaving at its end, would otherwise tear a thousand connections
down in the same rounds of trio's scheduler, about 0.2 ms each, while a player's action waited for each round:
answers up to 250 ms and a task woken 76 ms late (``bench/spectator_bench.py``'s leave columns).
"""

from __future__ import annotations

import traceback
from dataclasses import replace
from functools import partial

import h11
import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, wrap_server_stream

from ..cluster.directory import Directory
from ..http import HttpLimits, Site, serve_http
from ..limits import Admission, file_limit
from ..lobby import Lobby
from ..protocol import CODECS, Closing
from ..wire.readpath import Reader, open_server
from ..wire.sendpath import send_promptly
from ..wire.spread import Spread
from ..table import intents
from .config import Limits
from .connection import Connection
from .forwarded import Client, client_address, trusted
from .quotas import Quotas

LEAVING_AT_ONCE = 16  # connections whose end is handled at once; the others wait their turn, parked
IDLE_CHECKS = 240  # idleness checks per idle_timeout (4 a second at the default 60 s): closed at most 0.5% late
IDLE_CHECK_LEAST_S = 0.01  # ... but never more often than this (a tiny --idle-timeout must not spin the loop)


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


def local_of(stream: trio.abc.Stream) -> str:
    """The local IP address a connection reached this server at ("" where there is none)."""
    try:
        return str(stream.socket.getsockname()[0])
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
        try:  # (caught here: out of the nursery it would be an ExceptionGroup, printed as a bug's traceback)
            request = await wrap_server_stream(nursery, upgrade, max_message_size=limits.max_frame)
            ws = await request.accept()
            await ws.send_message(CODECS["json"].encode(Closing(code=code, message=message)))
            await ws.aclose(1013, message[:120])
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionClosed):
            pass  # the client went away before it was told: nothing to say, and nothing went wrong here
        nursery.cancel_scope.cancel()


class Gateway:
    """Accepts connections: plain HTTP goes to ``server/http.py``, websockets run until they close."""

    def __init__(self, lobby: Lobby, directory: Directory, limits: Limits = Limits(), site: Site = Site(),
                 http_limits: HttpLimits = HttpLimits()) -> None:
        self.lobby = lobby
        self.directory = directory  # where a table or tournament that is not here lives
        self.limits = limits
        self.site = site  # what a plain GET gets (set once the port is known, for the join URL)
        self.http_limits = http_limits
        self.connections: set[Connection] = set()
        self._closed_one = trio.Event()
        self.quotas = Quotas(limits)
        self.admission = Admission(limits.max_conns_per_address, connection_cap(limits))
        self.refusing = 0  # refused connections still being told why
        self.spread = Spread()  # writes the spectators' shared frames, players first (``server/wire/spread.py``)
        self.leaving = trio.CapacityLimiter(LEAVING_AT_ONCE)  # ends handled at once (the module's docstring)
        self._leaving_tasks: set[trio.lowlevel.Task] = set()  # the tasks holding one of them

    async def serve(self, host: str, port: int, shared: bool = False, own_port: int = 0,
                    task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Listen on ``host:port``; started with the port bound. Each connection is plain HTTP (``self.site``)
        until it asks for a websocket upgrade, which goes to ``handle``. ``shared``: ``port`` is shared with the
        other workers of `serve --workers` (the kernel spreads new connections among them), and this one listens
        on ``own_port`` too (0: a free one), which it is started with (where the others send clients of its
        tables)."""
        if shared:
            listeners = await trio.open_tcp_listeners(own_port, host=host) + [shared_listener(host, port)]
        else:
            listeners = await trio.open_tcp_listeners(port, host=host)
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(self.spread.run)
                nursery.start_soon(self.watch_idle)
                await nursery.start(trio.serve_listeners, self._serve_stream, listeners)
                task_status.started(listeners[0].socket.getsockname()[1])
        finally:
            self.quotas.replays.close()

    async def _serve_stream(self, stream: trio.SocketStream) -> None:
        peer = peer_of(stream)
        proxied = trusted(peer, self.limits.trusted_proxies)  # its client is counted once its head names it
        refusal = self.admission.admit(None if proxied else peer)
        if refusal is not None:
            return await self._refuse(stream, *refusal, peer=peer)
        client = Client(peer, counted=not proxied, proxy=peer if proxied else "")
        try:
            await self._serve_admitted(stream, client)
        finally:
            self.admission.release(client.address if client.counted else None)
            task = trio.lowlevel.current_task()
            if task in self._leaving_tasks:  # (taken in ``handle`` once its reader saw the end)
                self._leaving_tasks.discard(task)
                self.leaving.release()

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

    def _admit_client(self, client: Client, request: h11.Request) -> bool:
        """A trusted proxy's connection, a request head read: counted against the client it is forwarded for
        (``forwarded.py``), or False with ``client.refusal`` set (nothing more counted). A proxy that keeps its
        connection open for more requests (nginx's upstream ``keepalive``) may send each for another client:
        the connection is counted against the client of its latest request."""
        address = client_address(request.headers, client.proxy, self.limits.trusted_proxies)
        if client.counted:
            if address == client.address:
                return True
            self.admission.release_address(client.address)
        client.address = address
        client.refusal = self.admission.admit_address(address)
        client.counted = client.refusal is None
        return client.counted

    async def _serve_admitted(self, stream: trio.SocketStream, client: Client) -> None:
        admit = None if client.counted else partial(self._admit_client, client)
        try:
            try:
                upgrade = await serve_http(stream, self.site, self.http_limits, admit, lambda: client.address)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return  # the client went away mid-request
            except Exception:  # a bug in answering one request must show, and must not stop the server
                traceback.print_exc()
                return
            if upgrade is None:
                return
            if client.refusal is not None:  # told as one over the cap at accept is (the head is replayed)
                return await self._refuse(upgrade, *client.refusal, peer=client.address)
            async with trio.open_nursery() as nursery:
                request = reader = None
                with trio.move_on_after(self.limits.handshake_timeout):  # read here, or by trio-websocket's task
                    request, reader = await open_server(nursery, upgrade, self.limits.max_frame)
                if request is not None:
                    try:
                        await self.handle(request, client.address, local_of(stream), reader)
                    except ConnectionClosed:
                        pass  # the client left during the handshake
                    except Exception:  # a bug on one connection shows on stderr and stops only that one
                        traceback.print_exc()
                nursery.cancel_scope.cancel()  # the websocket's reader, once the connection is done
        finally:
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def watch_idle(self) -> None:
        """Every connection's idleness checked ``IDLE_CHECKS`` times per ``idle_timeout`` (``Connection.check_idle``):
        one task for them all, where a deadline around every frame's read cost each frame a cancel scope."""
        while True:
            await trio.sleep(max(self.limits.idle_timeout / IDLE_CHECKS, IDLE_CHECK_LEAST_S))
            now = trio.current_time()
            for conn in list(self.connections):
                conn.check_idle(now)

    async def handle(self, request: WebSocketRequest, peer: str = "", local: str = "",
                     reader: Reader | None = None) -> None:
        ws = await request.accept()
        send_promptly(ws)  # a frame leaves as soon as it is encoded, not after the other writers' turns
        conn = Connection(ws, self.limits, peer, self.quotas, self.spread, reader and reader.accepted())
        conn.local = local
        self.connections.add(conn)
        self.quotas.by_address.setdefault(conn.peer, set()).add(conn)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(conn.write_loop)
                nursery.start_soon(conn.ping_loop)
                with conn.scope:  # close() stops the reader, never the writer in the middle of a frame
                    try:
                        await conn.read_loop(self.lobby, self.directory)
                    except ConnectionClosed:
                        pass
                await self.leaving.acquire()  # the end's turn (the module's docstring); released in _serve_stream
                self._leaving_tasks.add(trio.lowlevel.current_task())
                conn.ping_scope.cancel()
                conn.spill()  # what waits for ``spread`` goes out first, through the writer
                conn.outbox.close()  # the writer sends what is queued (nothing after close()), then ends...
                nursery.cancel_scope.deadline = trio.current_time() + self.limits.close_timeout  # ... in time
        except ConnectionClosed:
            pass
        except Exception:  # a bug in handling one connection must show, and must not stop the server
            traceback.print_exc()
            conn.closing = conn.closing or ("server_error", "the server failed on this connection; reconnect")
        finally:
            for table in conn.tables:
                table.submit_nowait(intents.Disconnect(conn))
            for director in conn.tournaments:
                director.unwatch(conn)
            await self._close(conn)
            self.connections.discard(conn)
            mates = self.quotas.by_address.get(conn.peer)
            if mates is not None:
                mates.discard(conn)
                if not mates:
                    del self.quotas.by_address[conn.peer]
            conn.ended.set()
            self._closed_one.set()

    async def _close(self, conn: Connection) -> None:
        """``closing`` (if the server is the one closing) and the close handshake, in ``close_timeout``; after a
        frame cut short, or a client that took nothing in that time, the TCP connection is cut instead."""
        if not conn.sending and not (conn.reader is not None and conn.reader.cut):
            with trio.move_on_after(self.limits.close_timeout) as scope:
                scope.shield = True
                async with trio.open_nursery() as reading:
                    if conn.reader is not None:  # the client's close reply, read as trio-websocket's task would
                        reading.start_soon(conn.reader.until_closed)
                    try:
                        if conn.closing is not None:
                            code, message = conn.closing
                            await conn.ws.send_message(conn.codec.encode(Closing(code=code, message=message)))
                            await conn.ws.aclose(1008 if code != "server_shutdown" else 1001, message[:120])
                        else:
                            await conn.ws.aclose()
                    except ConnectionClosed:
                        pass
                    reading.cancel_scope.cancel()
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


def shared_listener(host: str, port: int) -> trio.SocketListener:
    """A listener on ``host:port`` that other processes listen on too (``SO_REUSEPORT``: the kernel hands each
    new connection to one of them)."""
    import socket as stdlib_socket

    family, kind, proto, _, address = stdlib_socket.getaddrinfo(host, port, type=stdlib_socket.SOCK_STREAM,
                                                                flags=stdlib_socket.AI_PASSIVE)[0]
    sock = stdlib_socket.socket(family, kind, proto)
    try:
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_REUSEADDR, 1)
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(stdlib_socket.SOMAXCONN)
    except OSError:
        sock.close()
        raise
    return trio.SocketListener(trio.socket.from_stdlib_socket(sock))
