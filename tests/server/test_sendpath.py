"""The prompt send path: a free lock is taken without a trip through the scheduler, a busy one in FIFO order,
and both ends of a photofinish connection use it (so a trio-websocket that stops matching fails here)."""

from __future__ import annotations

import trio
import trio.testing
from trio_websocket import ConnectionClosed, open_websocket_url, serve_websocket

from clients.client import open_client
from server.gateway import Limits
from server.gateway.connection import YIELD_EVERY, Connection
from server.protocol import Error
from server.wire.sendpath import PromptLock, descriptor, frame_header, plain_frames, send_frame, send_promptly, write_now
from tests.server.test_gateway import start


async def test_a_free_lock_is_taken_without_yielding_to_other_tasks():
    lock = PromptLock()
    with trio.testing.assert_no_checkpoints():  # trio's own lock passes through the scheduler here
        async with lock:
            assert lock.locked()
    assert not lock.locked()


async def test_a_held_lock_is_handed_on_in_arrival_order_even_to_a_newcomer_when_it_frees():
    lock, order = PromptLock(), []

    async def waiter(name):
        async with lock:
            order.append(name)
            await trio.lowlevel.checkpoint()  # hold it across a yield: nobody else may get in meanwhile
            order.append(f"/{name}")

    async with trio.open_nursery() as nursery:
        async with lock:
            for name in ("a", "b", "c"):
                nursery.start_soon(waiter, name)
                await trio.testing.wait_all_tasks_blocked()
            assert lock.statistics().tasks_waiting == 3
        async with lock:  # the lock is free of an owner only after the three queued have had it
            order.append("newcomer")
    assert order == ["a", "/a", "b", "/b", "c", "/c", "newcomer"]


async def test_a_waiter_cancelled_in_the_queue_does_not_keep_the_lock():
    lock, got = PromptLock(), []

    async def waiter(name, scope=None):
        with scope or trio.CancelScope():
            async with lock:
                got.append(name)

    async with trio.open_nursery() as nursery:
        scope = trio.CancelScope()
        async with lock:
            nursery.start_soon(waiter, "cancelled", scope)
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(waiter, "next")
            await trio.testing.wait_all_tasks_blocked()
            scope.cancel()
            await trio.testing.wait_all_tasks_blocked()
    assert got == ["next"]
    assert not lock.locked()


async def test_concurrent_senders_on_one_prompt_connection_each_get_every_frame_through_whole_and_in_order():
    received, done = [], trio.Event()

    async def collect(request):
        ws = await request.accept()
        for _ in range(3 * 50):
            received.append(await ws.get_message())
        done.set()

    async with trio.open_nursery() as nursery:
        listener = await nursery.start(serve_websocket, collect, "127.0.0.1", 0, None)
        async with open_websocket_url(f"ws://127.0.0.1:{listener.port}") as ws:
            assert send_promptly(ws)

            async def sender(name):
                for n in range(50):
                    await ws.send_message(f"{name}:{n}:" + name * 2000)  # several KB: more than one write's worth

            async with trio.open_nursery() as senders:
                for name in "xyz":
                    senders.start_soon(sender, name)
            with trio.fail_after(10):
                await done.wait()
        nursery.cancel_scope.cancel()
    for name in "xyz":
        mine = [frame.split(":") for frame in received if frame.startswith(name)]
        assert [int(n) for _, n, _ in mine] == list(range(50))
        assert all(body == name * 2000 for _, _, body in mine)


async def test_a_lock_already_in_use_is_left_in_place():
    class Held:
        _stream_lock = trio.StrictFIFOLock()

    conn = Held()
    async with conn._stream_lock:
        assert not send_promptly(conn)
        assert type(conn._stream_lock) is trio.StrictFIFOLock
    assert send_promptly(conn)
    assert type(conn._stream_lock) is PromptLock
    assert not send_promptly(object())  # not a trio-websocket connection as this module knows it: untouched


async def test_the_server_end_of_a_connection_sends_promptly_and_the_client_library_through_the_public_api():
    async with trio.open_nursery() as nursery:
        running = await start(nursery)
        async with open_client(running.url) as client:
            await client.list_games()
            assert type(client._ws._stream_lock) is trio.StrictFIFOLock  # the clients import no server module but
            # server.protocol: they send with trio-websocket's own send_message (bench/README.md, the A/B)
            (server_side,) = running.gateway.connections
            assert type(server_side.ws._stream_lock) is PromptLock
            assert server_side.frames is not None, "the server frames its own messages (see send_frame)"
        nursery.cancel_scope.cancel()


# payload lengths at and around each of the header's three length forms (RFC 6455 5.2), and a few others
LENGTHS = [0, 1, 124, 125, 126, 127, 1500, 65535, 65536, 70001]


async def test_frames_written_by_send_frame_reach_a_websocket_client_whole_in_either_encoding():
    received, done = [], trio.Event()
    expected = [("é" * (n // 2) + "x" * (n % 2)).encode() if text else bytes(range(256)) * (n // 256) + bytes(n % 256)
                for n in LENGTHS for text in (True, False)]

    async def serve(request):
        ws = await request.accept()
        send_promptly(ws)
        proto = plain_frames(ws)
        assert proto is not None
        for index, payload in enumerate(expected):
            await send_frame(ws, proto, payload, text=index % 2 == 0)
        await send_frame(ws, None, b"through send_message", text=True)  # the fallback
        await done.wait()

    async with trio.open_nursery() as nursery:
        listener = await nursery.start(serve_websocket, serve, "127.0.0.1", 0, None)
        async with open_websocket_url(f"ws://127.0.0.1:{listener.port}", max_message_size=1 << 20) as ws:
            assert plain_frames(ws) is None, "a client's frames are masked: never framed by hand"
            with trio.fail_after(10):
                for _ in range(len(expected) + 1):
                    received.append(await ws.get_message())
            done.set()
        nursery.cancel_scope.cancel()
    assert received[:-1] == [p.decode() if i % 2 == 0 else p for i, p in enumerate(expected)]
    assert received[-1] == "through send_message"


async def test_send_frame_on_a_closed_connection_raises_connection_closed_as_send_message_does():
    outcome, tried = [], trio.Event()

    async def serve(request):
        ws = await request.accept()
        send_promptly(ws)
        proto = plain_frames(ws)
        await ws.aclose()
        try:
            await send_frame(ws, proto, b"too late", text=True)
        except ConnectionClosed:
            outcome.append("closed")
        tried.set()

    async with trio.open_nursery() as nursery:
        listener = await nursery.start(serve_websocket, serve, "127.0.0.1", 0, None)
        async with open_websocket_url(f"ws://127.0.0.1:{listener.port}") as ws:
            with trio.fail_after(10):
                await tried.wait()
        nursery.cancel_scope.cancel()
    assert outcome == ["closed"]


async def test_a_frame_larger_than_the_socket_takes_at_once_arrives_whole():
    payload = bytes(range(256)) * (24 * 1024 * 1024 // 256)  # 24 MiB: the first write takes only part of it
    got = []

    async def serve(request):
        ws = await request.accept()
        send_promptly(ws)
        await send_frame(ws, plain_frames(ws), payload, text=False)
        await send_frame(ws, plain_frames(ws), b"next", text=True)

    async with trio.open_nursery() as nursery:
        listener = await nursery.start(serve_websocket, serve, "127.0.0.1", 0, None)
        async with open_websocket_url(f"ws://127.0.0.1:{listener.port}", max_message_size=32 << 20) as ws:
            with trio.fail_after(20):
                got = [await ws.get_message(), await ws.get_message()]
        nursery.cancel_scope.cancel()
    assert got[0] == payload and got[1] == "next"


async def test_a_writer_with_a_long_queue_lets_other_tasks_run_while_it_sends():
    frames, turns, sent = 10 * YIELD_EVERY, [], trio.Event()

    async def serve(request):
        ws = await request.accept()
        send_promptly(ws)
        conn = Connection(ws, Limits())
        for n in range(frames):  # one frame each: the client did not ask for batches
            conn.deliver(Error(ref=n, code="x", message="y"))
        conn.outbox.close()

        async def other_task():
            while not sent.is_set():
                turns.append(len(conn.outbox._queue))
                await trio.lowlevel.checkpoint()

        async with trio.open_nursery() as tasks:
            tasks.start_soon(other_task)
            await conn.write_loop()
            sent.set()

    async with trio.open_nursery() as nursery:
        listener = await nursery.start(serve_websocket, serve, "127.0.0.1", 0, None)
        async with open_websocket_url(f"ws://127.0.0.1:{listener.port}") as ws:
            with trio.fail_after(10):
                for _ in range(frames):
                    await ws.get_message()
                await sent.wait()
        nursery.cancel_scope.cancel()
    assert len([left for left in turns if 0 < left < frames]) >= frames // YIELD_EVERY - 2, \
        "the other task ran while the queue was being sent, not only before and after"


async def test_write_now_through_the_socket_s_own_descriptor_reaches_the_client_and_a_closed_one_takes_nothing():
    """``descriptor`` reads the socket's number past trio's wrappers: a frame written through it arrives whole,
    and once the socket is closed it says -1, so nothing is written (never to a socket that reused the number)."""
    got, closed = [], []

    async def serve(request):
        ws = await request.accept()
        send_promptly(ws)
        proto, fileno = plain_frames(ws), descriptor(ws)
        assert fileno is not None and fileno() == ws._stream.socket.fileno()
        data = frame_header(5, True) + b"hello"
        assert write_now(ws, proto, data, fileno) == len(data)
        ws._stream.socket.close()
        closed.append((fileno(), write_now(ws, proto, data, fileno)))

    async with trio.open_nursery() as nursery:
        listener = await nursery.start(serve_websocket, serve, "127.0.0.1", 0, None)
        async with open_websocket_url(f"ws://127.0.0.1:{listener.port}") as ws:
            with trio.fail_after(10):
                got.append(await ws.get_message())
        nursery.cancel_scope.cancel()
    assert got == ["hello"]
    assert closed == [(-1, None)]
