"""Catching up: a watcher or a returning seat gets to now whatever the table's length, with nothing twice and
nothing missing; and a table still waiting for its players shows itself to a watcher."""

from __future__ import annotations

import trio

from clients.client import open_client
from rules import Rng, Session, get_game, make_setup
from server.logs.actionlog import MemoryLog
from server.app import run_server
from server.protocol import Closing, Presence, Resume, Seated, Snapshot, TakeSeat, Update, Watch, Watching
from server.table import Table, intents
from server.table.seating import CATCH_UP_MOST

from .helpers import Sink, new_table, settle

FLAG_FINISH = get_game("flag_finish")


def long_table(table_id: str, accepted: int) -> Table:
    """A two-seat lockstep Flag Finish table whose log already holds ``accepted`` entries of random play
    (built through the rules in memory, as a restarted server rebuilds one from its log)."""
    setup = make_setup(FLAG_FINISH.info, 2, "lockstep", {"races": 50, "action_limit": 100_000})
    session, rng, log = Session(FLAG_FINISH, setup, 5), Rng(9), MemoryLog()

    def record(steps) -> None:
        for step in steps:
            log.append(time=0.0, actor=step.actor, action=step.action, accepted=True, events=step.events)

    record(session.run_chance())
    while log.seq < accepted:
        seat = session.to_act().seats[0]
        legal = FLAG_FINISH.legal_actions(session.state, seat)
        record(session.act(seat, legal[rng.below(len(legal))]))
    assert not session.to_act().over
    return Table(table_id, FLAG_FINISH, setup, 5, session=session, log=log)


async def test_a_watcher_of_a_ten_thousand_entry_table_over_a_websocket_catches_up_once_and_follows(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    table = long_table("long", 10_000)
    await nursery.start(table.run)
    running.lobby.tables[table.id] = table
    end = table.log.seq
    async with open_client(running.url) as watcher, open_client(running.url) as player:
        with trio.fail_after(30):
            await watcher.watch(table.id)
            snapshot = None
            async for message in watcher.messages:
                assert type(message) is not Closing, f"the watcher was closed: {message}"
                if type(message) is Snapshot:
                    snapshot = message
                    break
            assert snapshot.seq == end and snapshot.skipped == end
            assert snapshot.view == FLAG_FINISH.view(table.session.state, None)
            seat = table.session.to_act().seats[0]
            await player.take_seat(table.id, seat=seat)
            await player.act(table.id, FLAG_FINISH.legal_actions(table.session.state, seat)[0])
            after = [e.seq for e in table.log.entries if e.seq > end and e.accepted]
            seen = []
            async for message in watcher.messages:
                assert type(message) is Update, f"expected the next updates, got {message}"
                seen.append(message.seq)
                if message.view is not None:
                    break
    assert seen == after, "an update after the catch-up came twice, out of order, or not at all"
    assert watcher.reconnects == 0 and watcher.last_seq[table.id] == table.log.seq


async def test_a_seat_resuming_after_a_long_gap_gets_one_snapshot_and_a_short_gap_every_update(nursery):
    table = long_table("long", CATCH_UP_MOST * 3)
    await nursery.start(table.run)
    me = Sink()
    await table.submit(intents.TakeSeat(me, TakeSeat(table=table.id, seat=0)))
    await settle()
    token = me.of(Seated)[0].token
    for last_seq, replayed in ((5, 0), (table.log.seq - 10, 10)):
        back = Sink()
        await table.submit(intents.Resume(back, Resume(table=table.id, token=token, last_seq=last_seq)))
        await settle()
        updates, snapshots = back.of(Update), back.of(Snapshot)
        missed = [e.seq for e in table.log.entries if e.seq > last_seq and e.accepted]
        assert [u.seq for u in updates] == (missed if replayed else [])
        assert len(snapshots) == 1 and snapshots[0].seq == table.log.seq
        assert snapshots[0].skipped == (0 if replayed else len(missed))
        assert snapshots[0].view == FLAG_FINISH.view(table.session.state, 0)


async def test_watching_a_table_that_waits_for_its_players_shows_it_and_who_is_missing(nursery):
    table = new_table(seats=3)
    await nursery.start(table.run)
    await table.submit(intents.TakeSeat(Sink(), TakeSeat(table=table.id, seat=1)))
    watcher = Sink()
    await table.submit(intents.Watch(watcher, Watch(table=table.id)))
    await settle()
    kinds = [type(m) for m in watcher.messages]
    assert kinds[:3] == [Watching, Snapshot, Presence] and set(kinds[3:]) <= {Presence}  # and who is there
    snapshot = watcher.messages[1]
    assert snapshot.waiting_for == [0, 2] and snapshot.to_act == [] and snapshot.seq == table.log.seq
    assert snapshot.view == FLAG_FINISH.view(table.session.state, None) and snapshot.view.hand is None
