"""A table writes what one batch gave a seat's connection itself, in one write, at the batch's end
(``Connection.hush``/``push``, ``table/fanout.py``): the writer task is not woken for it."""

from __future__ import annotations

import trio

from clients.client import open_client
from server.wire import sendpath
from server.wire.outbox import Outbox
from server.protocol import BotSeat, CreateTable

from .test_outbox import waiting_writer
from .test_spread import Wire, messages_of, play_seat_zero, start


async def test_a_hushed_outbox_wakes_its_writer_only_when_unhushed_and_then_with_everything_queued(nursery):
    outbox = Outbox(limit=10)
    taken = await waiting_writer(nursery, outbox)
    outbox.hush()
    outbox.put("accepted")
    outbox.put("update")
    await trio.testing.wait_all_tasks_blocked()
    assert taken == [] and outbox.writer_holds_nothing()  # not woken: a table may write them itself
    outbox.unhush()
    await trio.testing.wait_all_tasks_blocked()
    assert taken == [["accepted", "update"]]
    again = await waiting_writer(nursery, outbox)
    outbox.put("next")  # no longer hushed: woken as before
    await trio.testing.wait_all_tasks_blocked()
    assert again == [["next"]]


async def test_a_seats_answer_and_its_update_are_written_by_the_table_not_by_a_woken_writer(nursery, tmp_path,
                                                                                          monkeypatch):
    """Every ``accepted`` leaves in the same write as its update, and no writer task ever takes one from an outbox:
    the table wrote them. Before, each batch woke the seat's writer task to write them."""
    wire, taken = Wire(), []
    monkeypatch.setattr(sendpath, "os", wire)
    take = Outbox.take

    async def counted_take(self, most):
        messages = await take(self, most)
        taken.extend(type(message).__name__ for message in messages)
        return messages

    monkeypatch.setattr(Outbox, "take", counted_take)
    running = await start(nursery, tmp_path)
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2,
                                                   bots=[BotSeat(1)]))
    async with open_client(running.url) as player:
        await player.take_seat(table.id, seat=0)
        answered = await play_seat_zero(player, table, 6)
    together = {}
    for _, data in wire.writes:
        kinds = {(m["type"], m.get("seq")) for m in messages_of(data)}
        for seq in answered:
            if ("accepted", seq) in kinds:
                together[seq] = ("update", seq) in kinds
    assert len(answered) >= 3 and together == {seq: True for seq in answered}
    assert "Accepted" not in taken
