"""A broadcast delay counted in log entries (``spectator_delay_entries``): spectators, the lists and the broadcast
view are that many entries behind the table however long its players think, and its end is shown once the game is
over. A delay in time alone shows a slow lockstep table's turn being played, every hand included."""

from __future__ import annotations

import pytest
import trio

from clients.client import ServerError, open_client
from server.app import run_server
from server.protocol import BotSeat, BroadcastView, CreateTable, Replay, Snapshot, TakeSeat, Update, Watch
from server.table import intents, timers
from server.table.seats import token_hash

from .helpers import Sink, act, my_turns, new_table, settle

ENTRIES = 4


def shown(sink: Sink) -> int:
    """The last log entry a spectator has been shown."""
    return max([m.seq for m in sink.messages if type(m) in (Update, Snapshot)], default=0)


async def test_spectators_see_the_table_that_many_entries_behind_and_its_end_once_it_is_over(nursery,
                                                                                            autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=200,
                      spectator_delay_entries=ENTRIES)
    await nursery.start(table.run)
    early = Sink()
    await table.submit(intents.Watch(early, Watch(table="t1")))
    await settle()
    checked = 0
    while not table.over.is_set():
        assert shown(early) <= table.log.seq - ENTRIES or shown(early) == 0  # never nearer than the delay
        assert table.info().seq == shown(early) and table.info().status != "over"
        if table.log.seq > 2 * ENTRIES and checked < 3:  # a spectator who comes now is shown no more
            late = Sink()
            await table.submit(intents.Watch(late, Watch(table="t1", last_seq=table.log.seq)))
            await settle()
            assert late.of(Snapshot)[-1].seq <= table.log.seq - ENTRIES
            checked += 1
        await trio.sleep(0.1)
    assert checked == 3  # (the game was long enough to look)
    await settle()
    assert early.of(Update)[-1].result is not None and shown(early) == table.log.seq  # the end, at once
    seqs = [u.seq for u in early.of(Update)]
    assert seqs == sorted(seqs) and seqs == list(range(seqs[0], table.log.seq + 1))  # every entry, in order
    assert table.info().status == "over" and table.end_shown()


async def slow_lockstep_table(nursery, **delay) -> tuple:
    """A lockstep table of a person (seat 0) and a bot: the person plays a few turns, then thinks for ten minutes.
    Returns the table and a commentator on its broadcast view."""
    table = new_table(seats=2, mode="lockstep", bots=[BotSeat(1)], options={"races": 1}, bot_delay_ms=100,
                      broadcast_key_hash=token_hash("the key"), **delay)
    await nursery.start(table.run)
    person, commentator = Sink(), Sink()
    await table.submit(intents.Watch(commentator, Watch(table="t1", broadcast_key="the key")))
    await table.submit(intents.TakeSeat(person, TakeSeat(table="t1", seat=0)))
    await settle()
    async for update in my_turns(person, 6, pause=1):
        await act(table, person, update.legal[0])
    await trio.sleep(1)
    update = person.last_viewed()
    assert update.legal and not table.over.is_set()  # the person's turn: the table waits for it
    await trio.sleep(600)
    return table, commentator


async def test_a_slow_lockstep_tables_broadcast_view_never_shows_the_turn_being_played(nursery, autojump_clock):
    timed, commentator = await slow_lockstep_table(nursery, spectator_delay_ms=5_000)
    whole = [m for m in commentator.messages if type(m) is Update and type(m.view) is BroadcastView]
    assert whole[-1].seq == timed.log.seq  # a delay in time alone: every hand of the turn being thought over

    counted, commentator = await slow_lockstep_table(nursery, spectator_delay_entries=2)
    whole = [m for m in commentator.messages if type(m) is Update and type(m.view) is BroadcastView]
    assert whole and whole[-1].seq == counted.log.seq - 2  # two entries behind, for as long as it takes
    assert timers.next_deadline(counted) > trio.current_time()  # waiting for entries, not for a clock


async def test_over_the_wire_an_entries_delay_is_checked_listed_kept_in_the_log_and_holds_the_replay(
        nursery, tmp_path):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 task_status=task_status))
    async with open_client(running.url) as client:
        for wrong in (-1, 10_001):
            with pytest.raises(ServerError) as refused:
                await client.create_table(game="flag_finish", mode="challenge", seats=2,
                                          spectator_delay_entries=wrong)
            assert refused.value.code == "bad_option" and "spectator_delay_entries" in refused.value.message
        created = await client.request(CreateTable(game="flag_finish", mode="lockstep", seats=2, broadcast=True,
                                                   spectator_delay_entries=3))  # a broadcast view: entries will do
        assert created.broadcast_key and created.table.spectator_delay_entries == 3
        (listed,) = [t for t in await client.list_tables() if t.table == created.table.table]
        assert listed.spectator_delay_entries == 3
        header = (tmp_path / "tables" / f"{created.table.table}.log").read_text().splitlines()[0]
        assert '"spectator_delay_entries":3' in header  # a restart reopens the table with it
        with pytest.raises(ServerError) as refused:
            await client.request(Replay(log=created.table.table, count=10))
        assert refused.value.code == "not_finished" and "3 moves behind" in refused.value.message
    await running.shutdown()

