"""A table's spectators: one update built (and encoded) for all of them, a spectator that falls behind
caught up by a snapshot instead of closed, and a broadcast delay that no request of a spectator gets around."""

from __future__ import annotations

import msgspec
import pytest
import trio

from clients.client import ServerError, open_client
from server.wire import encodeonce
from server.app import run_server
from server.protocol import (CODECS, Act, Batch, BotSeat, BroadcastView, CreateTable, Error, OpenPlayback, Rematch,
                             Replay, Snapshot, TableEnded, TakeSeat, Update, Watch, Watching, decode_server)
from server.table import intents
from server.table.seats import token_hash

from .helpers import Sink, new_table, settle

DELAY_MS = 5_000


async def test_spectators_are_sent_one_update_object_encoded_once(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=50)
    await nursery.start(table.run)
    watchers = [Sink() for _ in range(3)]
    for sink in watchers:
        await table.submit(intents.Watch(sink, Watch(table="t1")))
    await table.over.wait()
    firsts = [sink.of(Update)[-1] for sink in watchers]
    assert firsts[0] is firsts[1] is firsts[2]  # built once, not once per spectator
    codec = CODECS["json"]
    raw = encodeonce.encoded(firsts[0], codec)
    assert raw is not None and encodeonce.encoded(firsts[0], codec) is raw  # encoded once, then reused
    assert encodeonce.frame(codec, [firsts[0]]) == codec.encoder.encode(firsts[0])  # the same bytes
    batch = decode_server(encodeonce.frame(codec, watchers[0].of(Update)[-3:]), codec)
    assert type(batch) is Batch and len(batch.messages) == 3


async def test_a_crowd_coming_in_at_once_is_caught_up_with_one_build_of_each_update_and_snapshot(nursery,
                                                                                                 autojump_clock):
    """The room scans the projector's code as the final starts: every spectator coming in at the same point is
    sent the same catch-up and snapshot objects, built once and from the second one on encoded once; each still
    gets the whole game so far, as one alone would, and one coming in later gets the table as it is then."""
    from server.table import joins

    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=50)
    await nursery.start(table.run)
    while table.log.seq < 20:
        await trio.sleep(0.05)
    crowd = [Sink() for _ in range(30)]
    for sink in crowd:  # (in one step: the table takes them in one go, at one point of its log)
        table.submit_nowait(intents.Watch(sink, Watch(table="t1")))
    await settle()
    caught = [[m for m in sink.messages if type(m) in (Update, Snapshot)] for sink in crowd]
    first = caught[0]
    assert [m.seq for m in first] == [e.seq for e in table.log.accepted_after(0)] + [first[-1].seq]
    assert type(first[-1]) is Snapshot and first[-1] == joins.snapshot(table, 0)
    for other in caught[1:]:
        assert len(other) == len(first) and all(a is b for a, b in zip(other, first))  # the same objects
    assert all(encodeonce.shared(m) for m in caught[-1])  # encoded once for all who came after the first
    while table.log.seq < first[-1].seq + 3:
        await trio.sleep(0.05)
    late = Sink()
    await table.submit(intents.Watch(late, Watch(table="t1")))
    await settle()
    assert late.of(Snapshot)[-1].seq == table.log.seq > first[-1].seq  # not the crowd's snapshot


async def test_a_shared_message_in_a_batch_decodes_as_itself_in_both_encodings():
    update = encodeonce.share(Update(table="t9", seq=3, actor=1, to_act=[0], events=[], view={"a": [1, 2]}))
    plain = Update(table="t9", seq=4, actor=None, to_act=[], events=[])
    for codec in CODECS.values():
        frame = encodeonce.frame(codec, [update, plain])
        assert decode_server(frame, codec).messages == [msgspec.to_builtins(update, builtin_types=(bytes,)),
                                                        msgspec.to_builtins(plain, builtin_types=(bytes,))]


async def test_a_spectator_that_falls_behind_is_caught_up_by_a_snapshot_and_never_closed(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=300)
    await nursery.start(table.run)
    slow, fine = Sink(), Sink()
    await table.submit(intents.Watch(slow, Watch(table="t1")))
    await table.submit(intents.Watch(fine, Watch(table="t1")))
    await settle()
    slow.full = True
    while len(fine.of(Update)) < 10:  # the table goes on while the slow spectator cannot take anything
        await fine.arrived.wait()
    assert slow.closed is None and slow in table.spectators
    slow.full = False
    await table.over.wait()
    await trio.sleep(2)  # past the next offer of a snapshot
    caught_up = slow.of(Snapshot)[-1]
    assert caught_up.skipped > 0  # says what it missed
    assert slow.closed is None
    assert slow.last_view() == fine.last_view()  # and ends where everyone else does


async def test_with_a_broadcast_delay_spectators_see_the_table_that_long_ago(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=200,
                      spectator_delay_ms=DELAY_MS)
    await nursery.start(table.run)
    early = Sink()
    await table.submit(intents.Watch(early, Watch(table="t1")))
    await settle()
    await trio.sleep(3)
    assert table.log.seq > 3  # the table is under way ...
    assert early.of(Update) == []  # ... and nothing of it has been shown yet
    assert early.of(Snapshot)[0].seq == 0
    late = Sink()  # a spectator who comes now is shown no more than the first
    await table.submit(intents.Watch(late, Watch(table="t1", last_seq=table.log.seq)))
    await settle()
    assert late.of(Watching)[0].seq == 0 and late.of(Snapshot)[0].seq == 0
    assert table.info().seq == 0  # nor do the lists say how far it is
    while not table.over.is_set() or table.stream.pending:
        now, happened = trio.current_time(), {e.seq: table.t0 + e.time for e in table.log.entries}
        for update in early.of(Update):
            assert now - happened[update.seq] >= DELAY_MS / 1000  # each shown a delay after it happened
        await trio.sleep(0.25)
    assert early.of(Update)[-1].result is not None  # the whole game, to its end, in order
    seqs = [u.seq for u in early.of(Update)]
    assert seqs == sorted(seqs) and seqs[-1] == table.log.seq
    assert table.info().status == "over" and table.end_shown()


async def test_a_delayed_table_is_listed_as_playing_until_its_end_has_been_shown(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=50,
                      spectator_delay_ms=60_000)
    await nursery.start(table.run)
    await table.over.wait()
    assert table.info().status == "playing" and not table.end_shown()
    await trio.sleep(61)
    assert table.info().status == "over" and table.end_shown()


async def test_a_halted_delayed_table_tells_its_spectators_after_the_delay(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 3}, bot_delay_ms=500,
                      spectator_delay_ms=DELAY_MS)
    await nursery.start(table.run)
    watcher = Sink()
    await table.submit(intents.Watch(watcher, Watch(table="t1")))
    await trio.sleep(2)
    await table.halt("time_limit")
    await settle()
    assert table.over.is_set() and watcher.of(TableEnded) == []
    await trio.sleep(DELAY_MS / 1000 + 0.1)
    assert watcher.of(TableEnded)[0].reason == "time_limit"


async def test_over_the_wire_a_delayed_table_is_neither_listed_over_nor_replayed_before_its_end_is_shown(
        nursery, tmp_path):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 task_status=task_status))
    async with open_client(f"ws://127.0.0.1:{running.port}") as client:
        with pytest.raises(ServerError) as refused:
            await client.create_table(game="flag_finish", mode="challenge", seats=2, spectator_delay_ms=-1)
        assert refused.value.code == "bad_option"
        info = await client.create_table(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                         bots=[BotSeat(0), BotSeat(1, "random")], spectator_delay_ms=600_000)
        assert info.spectator_delay_ms == 600_000
        table = running.lobby.find(info.table)
        with trio.fail_after(30):
            await table.over.wait()
            await table.marked.wait()  # its end is on disk: without the delay, a replay would be answered now
        watching = await client.watch(info.table)
        assert watching.seq == 0  # nothing of the game is shown for ten minutes
        (listed,) = [t for t in await client.list_tables() if t.table == info.table]
        assert listed.status == "playing" and listed.seq == 0
        for request in (Replay(log=info.table, count=10), OpenPlayback(log=info.table), Rematch(table=info.table)):
            with pytest.raises(ServerError) as refused:
                await client.request(request)
            assert refused.value.code == "not_finished" and "shown to spectators 600 s behind" in refused.value.message
        assert len(await client.list_tables()) == 1  # no rematch listed under its name: that would tell its end
    await running.shutdown()


async def test_a_delayed_table_reopened_mid_game_shows_where_it_stands_only_after_the_delay(nursery,
                                                                                          autojump_clock):
    first = new_table(seats=2, bots=[BotSeat(0), BotSeat(1)], options={"races": 2}, bot_delay_ms=100)
    async with trio.open_nursery() as running:
        await running.start(first.run)
        while first.log.seq < 20:
            await trio.sleep(0.1)
        running.cancel_scope.cancel()  # the server stops mid-game
    reopened = new_table(seats=2, options={"races": 2}, session=first.session, log=first.log,
                         spectator_delay_ms=DELAY_MS)
    await nursery.start(reopened.run)
    watcher = Sink()
    await reopened.submit(intents.Watch(watcher, Watch(table="t1", last_seq=5)))
    await settle()
    assert watcher.of(Snapshot)[-1].seq == 0
    await trio.sleep(DELAY_MS / 1000 + 0.1)
    later = Sink()
    await reopened.submit(intents.Watch(later, Watch(table="t1")))
    await settle()
    assert later.of(Snapshot)[-1].seq == first.log.seq


async def test_the_broadcast_view_shows_every_hand_past_the_delay_only_with_its_key_and_never_to_a_seat(
        nursery, autojump_clock):
    table = new_table(seats=2, bots=[BotSeat(1)], options={"races": 1}, bot_delay_ms=200,
                      spectator_delay_ms=DELAY_MS, broadcast_key_hash=token_hash("the key"))
    await nursery.start(table.run)
    player = Sink()
    await table.submit(intents.TakeSeat(player, TakeSeat(table="t1", seat=0)))
    await settle()
    await table.submit(intents.Watch(player, Watch(table="t1", broadcast_key="the key")))
    guesser, commentator, viewer = Sink(), Sink(), Sink()
    await table.submit(intents.Watch(guesser, Watch(table="t1", broadcast_key="a guess")))
    await table.submit(intents.Watch(commentator, Watch(table="t1", broadcast_key="the key")))
    await table.submit(intents.Watch(viewer, Watch(table="t1")))
    await settle()
    assert player.of(Error)[-1].code == "bad_token" and player not in table.stream.broadcasters
    assert guesser.of(Error)[-1].code == "bad_token" and guesser not in table.spectators
    await trio.sleep(DELAY_MS / 1000 + 3)
    shown = [u for u in commentator.of(Update) if u.view is not None]
    assert shown, "the broadcast goes on past the delay"
    for update in shown:
        whole = update.view
        assert type(whole) is BroadcastView and len(whole.seats) == 2
        assert whole.seats[0].hand and whole.seats[1].hand  # every hand ...
        assert trio.current_time() - (table.t0 + table.log.entries[update.seq - 1].time) >= DELAY_MS / 1000
    assert all(type(u.view) is not BroadcastView for u in viewer.of(Update) + player.of(Update))  # ... to it alone
    assert all(type(s.view) is not BroadcastView for s in viewer.of(Snapshot) + player.of(Snapshot))


async def test_a_broadcast_view_needs_a_delay(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(f"ws://127.0.0.1:{running.port}") as client:
        with pytest.raises(ServerError) as refused:
            await client.create_table(game="flag_finish", mode="challenge", seats=2, broadcast=True)
        assert refused.value.code == "bad_option"
        created = await client.request(CreateTable(game="flag_finish", mode="challenge", seats=2, broadcast=True,
                                                   spectator_delay_ms=10_000))
        assert created.broadcast_key and created.table.broadcast
        assert running.lobby.find(created.table.table).stream.key_hash == token_hash(created.broadcast_key)
    await running.shutdown()


@pytest.mark.parametrize("field, value, kept", [("spectator_delay_ms", 90_000, ("delay", 90.0)),
                                               ("spectator_delay_entries", 5, ("delay_entries", 5))])
async def test_a_tournament_with_a_spectator_delay_opens_every_table_with_it(nursery, tmp_path, field, value, kept):
    from clients.tournament_bots import fill_tournament

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 durability="never", task_status=task_status))
    async with open_client(running.url) as organiser:
        with pytest.raises(ServerError) as refused:
            await organiser.create_tournament(game="flag_finish", **{field: -5})
        assert refused.value.code == "bad_settings"
        created = await organiser.create_tournament(name="final", game="flag_finish", mode="challenge", seats=2,
                                                    options={"races": 1}, rounds=1, **{field: value})
        tid = created.tournament.tournament
        await nursery.start(fill_tournament, running.url, tid, 2, "heuristic", 5)
        await organiser.start_tournament(tid, created.secret)
        with trio.fail_after(30):
            while not [t for t in running.lobby.tables.values() if t.settings.reserved]:
                await trio.testing.wait_all_tasks_blocked()
        (table,) = [t for t in running.lobby.tables.values() if t.settings.reserved]
        assert getattr(table.info(), field) == value and getattr(table.stream, kept[0]) == kept[1]
    assert f'"{field}":{value}' in (tmp_path / "tournaments" / f"{tid}.log").read_text()  # reopened with it


async def test_a_spectator_who_starts_watching_in_the_middle_of_a_batch_gets_watching_before_any_update(
        nursery, autojump_clock):
    table = new_table(seats=2, bots=[BotSeat(1)], options={"races": 1})
    await nursery.start(table.run)
    player = Sink()
    await table.submit(intents.TakeSeat(player, TakeSeat(table="t1", seat=0)))
    await settle()
    for _ in range(20):  # an action and a watch read together: one batch of the arbiter
        watcher = Sink()
        legal = player.of(Update)[-1].legal if player.of(Update) else player.of(Snapshot)[-1].legal
        table.submit_nowait(intents.Act(player, Act(table="t1", action=legal[0])))
        table.submit_nowait(intents.Watch(watcher, Watch(table="t1")))
        await settle()
        kinds = [type(m) for m in watcher.messages]
        assert kinds and kinds[0] is Watching, kinds[:3]
        if table.over.is_set():
            break


async def test_a_spectator_that_fell_behind_gets_its_snapshot_even_when_the_table_has_nothing_more_to_send(
        nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=50)
    await nursery.start(table.run)
    slow = Sink(full=True)  # full from its first message: the catch-up itself does not fit
    await table.submit(intents.Watch(slow, Watch(table="t1")))
    await table.over.wait()
    slow.full = False  # room at last, once the game is over and no update will come again
    await trio.sleep(2)
    assert slow.of(Snapshot) and slow.of(Snapshot)[-1].result is not None  # where the table ended
    assert slow.closed is None and slow not in table.stream.lagging
