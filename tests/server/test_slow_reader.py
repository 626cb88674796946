"""A client that reads too slowly, over a real loopback socket: the server finishes the frame it is sending,
then says `closing` `too_slow`, then closes the websocket; the client never sees a frame cut short.

The client here is a bare socket with wsproto and a small receive buffer, so the server's sends really block
on it mid-frame (the trio-websocket client would hide what arrives on the wire)."""

from __future__ import annotations

import socket

import msgspec
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage

from server.app import run_server
from server.gateway import Limits
from server.protocol import BotSeat, CreateTable
from server.table import intents



class RawClient:
    """A websocket client on a bare socket: every byte the server sends goes through wsproto's checks."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.parts: list[str] = []

    @classmethod
    async def connect(cls, port: int) -> "RawClient":
        sock = trio.socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: the server blocks sooner
        await sock.connect(("127.0.0.1", port))
        client = cls(trio.SocketStream(sock))
        await client.stream.send_all(client.ws.send(Request(host="127.0.0.1", target="/")))
        while not any(type(event) is AcceptConnection for event in await client.events()):
            pass
        return client

    async def send(self, message: dict) -> None:
        await self.stream.send_all(self.ws.send(TextMessage(data=msgspec.json.encode(message).decode())))

    async def events(self) -> list:
        data = await self.stream.receive_some(1024)
        self.ws.receive_data(data or None)  # b"": the server closed the TCP connection
        return list(self.ws.events())

    async def read_to_the_end(self, pause: float = 0.0) -> tuple[list[dict], CloseConnection]:
        """Every message until the websocket closes (pausing ``pause`` s after each), and how it closed:
        the server's close frame, 1006 for a TCP close without one, or wsproto's code for a bad frame."""
        messages = []
        while True:
            for event in await self.events():
                if type(event) is TextMessage:
                    self.parts.append(event.data)
                    if event.message_finished:
                        message = msgspec.json.decode("".join(self.parts))
                        messages.extend(message["messages"] if message["type"] == "batch" else [message])
                        self.parts = []
                        await trio.sleep(pause)
                elif type(event) is CloseConnection:
                    if self.ws.state is ConnectionState.REMOTE_CLOSING:  # answer the server's close frame
                        await self.stream.send_all(self.ws.send(event.response()))
                    await self.stream.aclose()
                    return messages, event


async def watch_a_busy_table(running) -> RawClient:
    """A raw client seated (and idle) at a Challenge table where two server bots race as fast as they can (a
    stream of updates), from before the game starts: the catch-up alone would not fill its outbox. It asks for
    batch frames: big frames, so that the server is nearly always in the middle of one when it blocks. (A
    spectator that reads too slowly is not closed but caught up by a snapshot: tests/server/test_spectators.py.)"""
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=3,
                                                   options={"races": 50}, bots=[BotSeat(1, "random"), BotSeat(2)]))
    client = await RawClient.connect(running.port)
    await client.send({"type": "hello", "protocol": 1, "id": 0, "batch": True})
    while not any(type(event) is TextMessage for event in await client.events()):
        pass  # the welcome: the server holds the connection
    await client.send({"type": "take_seat", "table": table.id, "seat": 0, "name": "slow", "id": 1})
    return client  # the game starts once the seat is taken; the client never acts


def assert_closed_cleanly_as_too_slow(messages: list[dict], closed: CloseConnection) -> None:
    assert closed.code == 1008, f"the websocket ended with {closed.code} {closed.reason!r}, not the server's close"
    assert messages[-1] == {"type": "closing", "code": "too_slow", "message": messages[-1]["message"]}
    assert "seated" in [m["type"] for m in messages[:2]] and all("type" in m for m in messages)  # (a ping may lead)


async def test_a_reader_taking_one_message_every_few_ms_gets_a_well_formed_too_slow_close(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, limits=Limits(outbox=256),
                                                                 task_status=task_status))
    client = await watch_a_busy_table(running)
    with trio.fail_after(60):
        messages, closed = await client.read_to_the_end(pause=0.01)
    assert_closed_cleanly_as_too_slow(messages, closed)
    await running.shutdown()


async def test_a_reader_that_reads_nothing_until_it_is_dropped_still_gets_whole_frames_then_too_slow(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, limits=Limits(outbox=256),
                                                                 task_status=task_status))
    client = await watch_a_busy_table(running)
    (connection,) = running.gateway.connections
    with trio.fail_after(60):
        await connection.dropped.wait()  # the server has given up on it: only now does it start reading
        messages, closed = await client.read_to_the_end()
    assert_closed_cleanly_as_too_slow(messages, closed)
    await running.shutdown()


async def test_a_reader_that_takes_nothing_for_the_close_timeout_is_cut_off_without_a_byte_of_garbage(nursery):
    running = await nursery.start(lambda task_status: run_server(
        "127.0.0.1", 0, limits=Limits(outbox=256, close_timeout=0.5), task_status=task_status))
    client = await watch_a_busy_table(running)
    (connection,) = running.gateway.connections
    with trio.fail_after(60):
        await connection.ended.wait()  # the server gave up waiting for it to read
        messages, closed = await client.read_to_the_end()
    assert closed.code == 1006, f"expected the TCP connection cut (1006), got {closed.code} {closed.reason!r}"
    assert "seated" in [m["type"] for m in messages[:2]]
    assert all(m["type"] in ("seated", "ping", "snapshot", "update", "presence") for m in messages)
    await running.shutdown()
