"""The read path (server/wire/readpath.py): a connection's client frames read in its own task give what
trio-websocket's reader task and ``get_message`` give, message for message and byte for byte back to the
client, however the bytes arrive; and where trio-websocket stops matching, its own reader is used instead.

Both readers are fed the same bytes, cut at the same places, by a stream that hands them over one piece a
read and then ends (``Pieces``): the messages each yields, the reason its ``ConnectionClosed`` gives and every
byte it sends back are compared."""

from __future__ import annotations

from collections import deque

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st
from trio_websocket import ConnectionClosed, WebSocketConnection, wrap_server_stream
from wsproto import ConnectionType, WSConnection
from wsproto.connection import Connection as FrameConnection
from wsproto.events import BytesMessage, CloseConnection, Ping, Pong, Request, TextMessage

from clients.client import open_client
from server.wire import readpath
from server.gateway import Limits
from server.wire.readpath import Reader, open_server
from tests.server.test_gateway import start

HELLO = '{"type": "hello", "protocol": 1, "id": 0}'


class Pieces(trio.abc.Stream):
    """A stream whose reads give ``pieces`` one at a time (a read of fewer bytes leaves the rest for the
    next), then the end of the stream; what is sent to it is kept in ``sent``."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = [piece for piece in pieces if piece]
        self.sent = bytearray()
        self.closed = False
        self.first = len(self.pieces)
        self.accepted = trio.Event()  # the second piece waits for it: the handshake done, as on a socket

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        if len(self.pieces) < self.first:
            await self.accepted.wait()
        if self.closed:
            raise trio.ClosedResourceError
        if not self.pieces:
            return b""
        piece = self.pieces.pop(0)
        if max_bytes is not None and len(piece) > max_bytes:
            piece, rest = piece[:max_bytes], piece[max_bytes:]
            self.pieces.insert(0, rest)
        return piece

    async def send_all(self, data) -> None:
        await trio.lowlevel.checkpoint()
        if self.closed:
            raise trio.ClosedResourceError
        self.sent += data

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        self.closed = True
        await trio.lowlevel.checkpoint()


REQUEST = WSConnection(ConnectionType.CLIENT).send(Request(host="127.0.0.1", target="/"))  # the upgrade


def cut(data: bytes, at: list[int]) -> list[bytes]:
    edges = [0, *sorted(set(at)), len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:])]


async def read_all(pieces: list[bytes], own: bool, limit: int = 2 ** 20) -> tuple[list, tuple | None, bytes]:
    """Every message one reader yields from ``pieces`` (the upgrade request first), the code and reason of
    the ``ConnectionClosed`` that ends them, and every byte sent back (the 101 answer first)."""
    stream, messages, reason = Pieces(pieces), [], None
    async with trio.open_nursery() as nursery:
        if own:
            request, reader = await open_server(nursery, stream, limit)
            assert reader is not None
            await request.accept()
            receive = reader.accepted().get_message
        else:
            request = await wrap_server_stream(nursery, stream, max_message_size=limit)
            receive = (await request.accept()).get_message
        stream.accepted.set()  # (trio-websocket's reader fed bytes read before this to the handshake: lost)
        with trio.fail_after(10):
            try:
                while True:
                    messages.append(await receive())
            except ConnectionClosed as closed:
                reason = (closed.reason.code, closed.reason.reason) if closed.reason else None
        nursery.cancel_scope.cancel()
    return messages, reason, bytes(stream.sent)


def client_frames(messages: list, pings: list[bool], splits: list[list[int]]) -> tuple[bytes, list[bytes]]:
    """``messages`` framed as a client's wsproto frames them, and the pings' payloads in order: a message
    split at ``splits`` goes as fragments, with a ping (payload its index) after each fragment but the last
    where ``pings`` says so."""
    client, data, sent_pings = FrameConnection(ConnectionType.CLIENT), bytearray(), []
    for index, (message, ping, at) in enumerate(zip(messages, pings, splits)):
        parts = cut(message, [cut_at for cut_at in at if 0 < cut_at < len(message)]) or [message]
        event = TextMessage if isinstance(message, str) else BytesMessage
        for number, part in enumerate(parts):
            last = number == len(parts) - 1
            data += client.send(event(data=part, message_finished=last))
            if ping and not last:
                data += client.send(Ping(payload=str(index).encode()))
                sent_pings.append(str(index).encode())
    return bytes(data), sent_pings


def answers(sent: bytes) -> list:
    """The frames a server sent after its 101 answer, as the client's wsproto reads them."""
    client = FrameConnection(ConnectionType.CLIENT)
    client.receive_data(sent[sent.index(b"\r\n\r\n") + 4:])
    return list(client.events())


SIZES = st.one_of(st.sampled_from([0, 1, 125, 126, 127, 4096, 65535, 65536, 65537]), st.integers(0, 70000))
TEXTS = SIZES.map(lambda n: ("a\u00e9\u20ac\U0001f600" * (n // 4 + 1))[:n])  # one to four bytes a character
BINARIES = st.tuples(SIZES, st.integers(0, 255)).map(lambda s: bytes((i * 7 + s[1]) & 255 for i in range(s[0])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_any_messages_cut_anywhere_are_read_as_trio_websocket_reads_them_and_every_ping_gets_its_pong(data):
    messages = data.draw(st.lists(st.one_of(TEXTS, BINARIES), min_size=1, max_size=5))
    pings = data.draw(st.lists(st.booleans(), min_size=len(messages), max_size=len(messages)))
    splits = [data.draw(st.lists(st.integers(0, max(len(m), 1)), max_size=3)) for m in messages]
    frames, sent_pings = client_frames(messages, pings, splits)
    pieces = [REQUEST, *cut(frames, data.draw(st.lists(st.integers(0, len(frames)), max_size=12)))]
    own_pieces = pieces
    if data.draw(st.booleans()):  # the first frames in the same read as the request (trio-websocket lost them)
        own_pieces = [pieces[0] + pieces[1], *pieces[2:]]

    async def both():
        return await read_all(own_pieces, own=True), await read_all(pieces, own=False)

    own, theirs = trio.run(both)
    assert own == theirs
    assert own[0] == messages
    assert [event.payload for event in answers(own[2]) if type(event) is Pong] == sent_pings


async def test_text_that_is_not_utf8_closes_1007_as_wsproto_says():
    client = FrameConnection(ConnectionType.CLIENT)
    frames = client.send(TextMessage(data="fine")) + client.send(BytesMessage(data=b"\xff\xfe"))
    frames = frames[:-8] + b"\x81" + frames[-7:]  # binary -> text, the same payload
    own = await read_all([REQUEST, frames], own=True)
    assert own == await read_all([REQUEST, frames], own=False)
    assert own[0] == ["fine"] and own[1][0] == 1007


async def test_a_message_over_the_limit_closes_1009_and_the_client_is_told():
    client = FrameConnection(ConnectionType.CLIENT)
    frames = client.send(TextMessage(data="x" * 100)) + client.send(BytesMessage(data=b"y" * 101))
    own = await read_all([REQUEST, frames], own=True, limit=100)
    assert own == await read_all([REQUEST, frames], own=False, limit=100)
    assert own[0] == ["x" * 100] and own[1][0] == 1009
    assert [(type(e), e.code) for e in answers(own[2])] == [(CloseConnection, 1009)]


async def test_an_unmasked_frame_is_a_protocol_error_1002():
    unmasked = b"\x81\x05hello"
    own = await read_all([REQUEST, unmasked], own=True)
    assert own == await read_all([REQUEST, unmasked], own=False)
    assert own[0] == [] and own[1][0] == 1002


async def test_a_length_not_in_its_shortest_form_is_a_protocol_error_1002():
    mask = b"\x01\x02\x03\x04"
    long_form = b"\x81\xfe\x00\x05" + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(b"hello"))
    own = await read_all([REQUEST, long_form], own=True)
    assert own == await read_all([REQUEST, long_form], own=False)
    assert own[0] == [] and own[1][0] == 1002


async def test_a_close_from_the_client_is_answered_and_ends_the_reading_with_its_reason():
    client = FrameConnection(ConnectionType.CLIENT)
    frames = client.send(TextMessage(data="last")) + client.send(CloseConnection(code=1000, reason="bye"))
    own = await read_all([REQUEST, frames], own=True)
    assert own == await read_all([REQUEST, frames], own=False)
    assert own[:2] == (["last"], (1000, "bye"))
    assert [(type(e), e.code) for e in answers(own[2])] == [(CloseConnection, 1000)]


async def test_where_trio_websocket_lacks_an_attribute_its_own_reader_task_reads(monkeypatch):
    monkeypatch.delattr(WebSocketConnection, "_abort_web_socket")  # (its reader needs it only at the end)
    client = FrameConnection(ConnectionType.CLIENT)
    stream = Pieces([REQUEST, client.send(TextMessage(data=HELLO))])
    async with trio.open_nursery() as nursery:
        request, reader = await open_server(nursery, stream, 2 ** 20)
        assert reader is None  # trio-websocket's reader task was started instead
        ws = await request.accept()
        stream.accepted.set()
        assert await ws.get_message() == HELLO
        nursery.cancel_scope.cancel()


async def test_where_wsproto_does_not_match_every_frame_goes_through_wsproto(monkeypatch):
    monkeypatch.setattr(readpath, "_frames_of", lambda ws: None)
    client = FrameConnection(ConnectionType.CLIENT)
    frames = client.send(TextMessage(data=HELLO)) + client.send(BytesMessage(data=b"\x00" * 70000))
    fed = []
    real_feed = Reader._feed
    monkeypatch.setattr(Reader, "_feed", lambda self, data: (fed.append(len(data)), real_feed(self, data)))
    own = await read_all([REQUEST, frames], own=True)
    assert own[0] == [HELLO, b"\x00" * 70000] and sum(fed) == len(REQUEST) + len(frames)  # every byte


async def test_a_hello_sent_right_behind_the_upgrade_request_is_answered(nursery):
    running = await start(nursery)
    port = int(running.url.rstrip("/").rsplit(":", 1)[1])
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    client = WSConnection(ConnectionType.CLIENT)
    data = client.send(Request(host="127.0.0.1", target="/"))
    await stream.send_all(data + FrameConnection(ConnectionType.CLIENT).send(TextMessage(data=HELLO)))
    with trio.fail_after(10):  # the old reader lost the hello: no welcome until the hello timeout closed it
        while True:
            client.receive_data(await stream.receive_some(65536))
            texts = [event.data for event in client.events() if type(event) is TextMessage]
            if texts:
                break
    assert msgspec.json.decode(texts[0])["type"] == "welcome"
    await stream.aclose()


@pytest.mark.parametrize("limit", [125, 126, 65536])
def test_the_fast_path_takes_frames_up_to_the_limit_and_leaves_the_rest_to_wsproto(limit):
    client = FrameConnection(ConnectionType.CLIENT)
    small, big = client.send(BytesMessage(data=b"a" * limit)), client.send(BytesMessage(data=b"b" * (limit + 1)))
    reader = Reader.__new__(Reader)  # only what ``_take`` reads
    reader.ready, reader.limit = deque(), limit
    assert reader._take(small + big) == len(small) and list(reader.ready) == [b"a" * limit]


@pytest.mark.parametrize("ping_first", [False, True])
async def test_the_servers_close_handshake_ends_when_the_client_answers_not_at_its_timeout(nursery, ping_first):
    running = await start(nursery, limits=Limits(close_timeout=30))
    port = int(running.url.rstrip("/").rsplit(":", 1)[1])
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    client = WSConnection(ConnectionType.CLIENT)
    await stream.send_all(client.send(Request(host="127.0.0.1", target="/")))
    first = FrameConnection(ConnectionType.CLIENT).send(TextMessage(data='{"type": "list_games", "id": 1}'))
    await stream.send_all(first)  # no hello first: refused, then closed
    codes = []
    with trio.fail_after(10):  # without a reader for the close reply the server waits out its 30 s
        while data := await stream.receive_some(65536):
            client.receive_data(data)
            for event in client.events():
                if type(event) is CloseConnection:
                    codes.append(event.code)
                    if ping_first:  # a ping the server may no longer answer: it is ignored, nothing fails
                        await stream.send_all(client.connection._proto.ping(b"late"))
                    await stream.send_all(client.send(event.response()))
    assert codes == [1008]
    await stream.aclose()
    async with open_client(running.url) as again:  # the server serves on
        assert await again.list_games() is not None


async def test_over_a_socket_the_reader_reads_it_directly_and_gets_every_message_then_1006_at_its_end():
    client_sock, server_sock = trio.socket.socketpair()
    client_stream, server_stream = trio.SocketStream(client_sock), trio.SocketStream(server_sock)
    messages = [HELLO, b"\x01" * 70000, "\u20ac" * 30000, b""]
    client = FrameConnection(ConnectionType.CLIENT)
    frames = b"".join(client.send((TextMessage if isinstance(m, str) else BytesMessage)(data=m)) for m in messages)
    got = []

    async def send_then_end():
        await client_stream.send_all(REQUEST)
        await client_stream.receive_some(65536)  # the 101
        for at in range(0, len(frames), 5000):
            await client_stream.send_all(frames[at:at + 5000])
        await client_stream.send_eof()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(send_then_end)
        request, reader = await open_server(nursery, server_stream, 2 ** 20)
        await request.accept()
        reader.accepted()
        assert reader.sock is not None  # the socket read directly, not through the stream
        with trio.fail_after(10), pytest.raises(ConnectionClosed) as closed:
            while True:
                got.append(await reader.get_message())
    assert got == messages and closed.value.reason.code == 1006
    await client_stream.aclose()
    await server_stream.aclose()


async def test_a_read_cancelled_while_it_waits_for_the_socket_loses_nothing():
    client_sock, server_sock = trio.socket.socketpair()
    client_stream, server_stream = trio.SocketStream(client_sock), trio.SocketStream(server_sock)
    async with trio.open_nursery() as nursery:
        await client_stream.send_all(REQUEST)
        request, reader = await open_server(nursery, server_stream, 2 ** 20)
        await request.accept()
        reader.accepted()
        await client_stream.receive_some(65536)  # the 101
        waiting = trio.CancelScope()

        async def wait_in_vain():
            with waiting:
                await reader.get_message()
            assert waiting.cancelled_caught

        nursery.start_soon(wait_in_vain)
        await trio.testing.wait_all_tasks_blocked()
        waiting.cancel()  # (an idle watch, a hello timeout, a close)
        await trio.testing.wait_all_tasks_blocked()
        await client_stream.send_all(FrameConnection(ConnectionType.CLIENT).send(TextMessage(data=HELLO)))
        assert await reader.get_message() == HELLO
    await client_stream.aclose()
    await server_stream.aclose()
