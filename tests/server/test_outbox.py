"""A connection's outbox: bounded, in order, everything queued taken at once, drained on close."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from server.wire.outbox import Outbox


async def test_the_writer_takes_everything_queued_in_order_up_to_its_frame_limit():
    outbox = Outbox(limit=10)
    for n in range(5):
        assert outbox.put(n)
    assert await outbox.take(3) == [0, 1, 2]
    assert await outbox.take(3) == [3, 4]
    outbox.close()
    assert await outbox.take(3) == []  # nothing was left behind


async def test_a_full_outbox_refuses_more_and_keeps_what_it_holds():
    outbox = Outbox(limit=2)
    assert outbox.put("a") and outbox.put("b")
    assert not outbox.put("c")  # the table closes a client this slow
    assert await outbox.take(10) == ["a", "b"]


async def waiting_writer(nursery, outbox: Outbox) -> list:
    """Start a writer's one ``take``, and return once it waits: the list gets what it took."""
    taken: list = []

    async def writer():
        taken.append(await outbox.take(10))

    nursery.start_soon(writer)
    await trio.testing.wait_all_tasks_blocked()
    return taken


async def test_a_waiting_writer_wakes_on_the_first_message_and_gets_all_queued_by_then(nursery):
    outbox = Outbox(limit=10)
    taken = await waiting_writer(nursery, outbox)
    assert taken == []
    outbox.put("first")
    outbox.put("second")  # queued before the writer runs: the same take, so the same frame
    await trio.testing.wait_all_tasks_blocked()
    assert taken == [["first", "second"]]


async def test_taking_what_is_already_queued_does_not_go_through_the_scheduler(nursery):
    outbox = Outbox(limit=10)
    outbox.put("ready")
    others = []

    async def other():
        others.append("ran")

    nursery.start_soon(other)  # runs at this task's next trip through the scheduler
    assert await outbox.take(10) == ["ready"]
    assert others == []  # the writer goes straight on to its send
    await trio.testing.wait_all_tasks_blocked()
    assert others == ["ran"]


async def test_closing_lets_the_writer_send_what_is_queued_then_end(nursery):
    outbox = Outbox(limit=10)
    outbox.put("last words")
    outbox.close()
    assert outbox.put("too late")  # a client on its way out is not "too slow"
    assert await outbox.take(10) == ["last words"]
    assert await outbox.take(10) == []

    waiting = Outbox(limit=10)
    ended = await waiting_writer(nursery, waiting)
    waiting.close()
    await trio.testing.wait_all_tasks_blocked()
    assert ended == [[]]


async def test_a_cancelled_writer_stops_waiting_and_a_new_one_can_take(autojump_clock):
    outbox = Outbox(limit=10)
    with trio.move_on_after(1) as scope:  # autojump clock: no real second passes
        await outbox.take(10)
    assert scope.cancelled_caught
    outbox.put("after")
    assert await outbox.take(10) == ["after"]


async def test_only_one_writer_may_wait(nursery):
    outbox = Outbox(limit=10)
    nursery.start_soon(outbox.take, 10)
    await trio.testing.wait_all_tasks_blocked()
    with pytest.raises(RuntimeError, match="already taking"):
        await outbox.take(10)
    outbox.close()


async def test_what_a_table_drains_before_the_woken_writer_runs_is_not_the_end_of_the_outbox(nursery):
    """A table writes a player's messages itself (``Connection.push``) once the writer holds nothing: the
    writer, woken by the put and finding the outbox drained, waits on instead of ending as if it were closed."""
    outbox = Outbox(limit=10)
    taken = await waiting_writer(nursery, outbox)
    assert outbox.writer_holds_nothing()
    outbox.put("accepted")
    assert outbox.writer_holds_nothing()  # woken, not yet run: it holds nothing
    assert outbox.drain() == ["accepted"]
    await trio.testing.wait_all_tasks_blocked()
    assert taken == [] and outbox.writer_holds_nothing()  # still waiting, not given [] (the end)
    outbox.put("next")
    await trio.testing.wait_all_tasks_blocked()
    assert taken == [["next"]]
