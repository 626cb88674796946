"""Round trips over real loopback websockets: the server pings a seat's connection, the client library answers,
and the table shows each seat's ping; a client that answers late only looks farther. Acts carry ``seen``."""

from __future__ import annotations

import trio

from clients.client import open_client
from server.app import run_server
from server.protocol import Snapshot, Update


async def first_samples(table) -> None:
    """Until every seat's connection has measured a round trip (woken by its meter, no polling)."""
    for slot in table.slots:
        meter = slot.receiver.latency
        while meter.rtt is None:
            measured = trio.Event()
            meter.on_sample = measured.set
            await measured.wait()
        meter.on_sample = None


async def test_a_seats_round_trip_is_measured_and_shown_and_its_actions_say_what_they_saw(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as prompt, open_client(running.url, pong_delay=0.15) as late:
        info = await prompt.create_table(game="flag_finish", mode="challenge", seats=2)
        await prompt.take_seat(info.table)
        await late.take_seat(info.table)
        table = running.lobby.find(info.table)
        with trio.fail_after(5):  # the first ping goes at once when a seat is taken
            await first_samples(table)
        fast, slow = table.pings()
        assert 0 < fast < 100 and slow >= 150, "a late pong makes a seat look farther, never nearer"
        listed = next(t for t in await prompt.list_tables() if t.table == info.table)
        assert [seat.ping_ms for seat in listed.seats] == [fast, slow] and listed.ordering == "fair"
        with trio.fail_after(5):
            async for message in prompt.messages:
                if type(message) in (Update, Snapshot) and message.legal:
                    break
        take = next(a for a in message.legal if type(a).__name__ == "TakeDiscard")
        await prompt.act(info.table, take)
        decided = next(e for e in reversed(table.log.entries) if e.actor == 0)
        assert decided.accepted and decided.fair.rule == "reaction"
        assert decided.fair.seen == message.seq and decided.fair.rtt * 1000 <= fast + 0.1
        with trio.fail_after(5):
            async for update in prompt.messages:
                if type(update) is Update and update.view is not None:
                    break
        assert update.pings is not None and update.pings[1] >= 150, "updates carry every seat's ping"
