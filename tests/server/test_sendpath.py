"""The prompt send path: a free lock is taken without a trip through the scheduler, a busy one in FIFO order,
and both ends of a photofinish connection use it (so a trio-websocket that stops matching fails here)."""

from __future__ import annotations

import trio
import trio.testing
from trio_websocket import open_websocket_url, serve_websocket

from clients.client import open_client
from server.sendpath import PromptLock, send_promptly
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


async def test_both_ends_of_a_photofinish_connection_send_promptly():
    async with trio.open_nursery() as nursery:
        running = await start(nursery)
        async with open_client(running.url) as client:
            await client.list_games()
            assert type(client._ws._stream_lock) is PromptLock
            (server_side,) = running.gateway.connections
            assert type(server_side.ws._stream_lock) is PromptLock
        nursery.cancel_scope.cancel()
