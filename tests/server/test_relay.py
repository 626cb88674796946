"""Spectators served by a node that does not run the table (issue 35: a node full of spectators never slows
the node that runs the table). Two cluster nodes in one trio run on the in-process presence and on a real
redis-server: a spectator watching through node B gets ``watching``, the snapshot and every update from B,
never a redirect, and the table's node A counts no spectator of it; a spectator who leaves or goes stops
the following."""

from __future__ import annotations

import msgspec
import pytest
import trio

from clients.client import open_client
from server.protocol import BotSeat, Leave, Snapshot, Update, Watch

from .test_cluster import GAME, cluster_of


@pytest.mark.parametrize("kind", ["local", "redis"])
async def test_a_spectator_on_another_node_is_served_there_and_sees_the_whole_game(kind, tmp_path):
    with trio.fail_after(60):
        async with cluster_of(2, kind, tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**{**GAME, "seats": 2}, bots=[BotSeat(0), BotSeat(1)],
                                                  bot_delay_ms=100)
            table = a.lobby.find(info.table)
            await b.directory.next_beat()  # B knows where the table is
            async with open_client(b.url, reconnect=False) as spectator:
                watching = await spectator.watch(info.table)
                assert watching.table == info.table and info.table not in spectator.routes  # not redirected
                seen: list = []
                async for message in spectator.messages:
                    if type(message) in (Update, Snapshot):
                        seen.append(message)
                        if message.result is not None:
                            break
                assert not table.spectators  # A served nobody: B did
                assert seen[-1].view == table.game.view(table.session.state, None)  # where A's game ended
                seqs = [m.seq for m in seen if type(m) is Update]
                assert seqs == sorted(seqs) and seqs[-1] == max(e.seq for e in table.log.entries if e.accepted)
            for _ in range(3):
                await b.directory.next_beat()
            assert info.table not in b.directory.relay.followers  # nobody watches there any more


@pytest.mark.parametrize("rows", [False, True], ids=["maps", "rows"])
async def test_a_spectator_that_asked_for_patches_gets_them_through_the_relay(tmp_path, rows):
    """With ``rows`` too, the follower makes the views it was relayed (maps) rows, and patches them by places."""
    import json

    from trio_websocket import open_websocket_url

    from server.protocol import CODECS, ROWS, decode_server
    from server.protocol.viewpatch import Views

    codec = ROWS if rows else CODECS["json"]
    extra = {"encoding": "msgpack", "rows": True} if rows else {}

    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**{**GAME, "seats": 2}, bots=[BotSeat(0), BotSeat(1)],
                                                  bot_delay_ms=100)
            table = a.lobby.find(info.table)
            await b.directory.next_beat()
            async with open_websocket_url(b.url) as ws:
                await ws.send_message(json.dumps({"type": "hello", "protocol": 1, "id": 0, "patches": True, **extra}))
                await ws.send_message(codec.encode(Watch(table=info.table, id=1)))
                views, patched, last, keyed = Views(), 0, None, 0
                while last is None or last.result is None:
                    message = decode_server(await ws.get_message(), codec)
                    if type(message) is Update:
                        patched += message.view_patch is not None
                        keyed += any(type(step) is str for op in message.view_patch or () for step in op[0])
                    if type(message) in (Update, Snapshot) and message.view is not None:
                        assert (type(message.view) is list) == rows  # a row view from the follower
                    if type(message) in (Update, Snapshot):
                        message = views.whole(message)
                        last = message if message.view is not None else last
            assert not table.spectators and patched > 0  # served by B, with patches
            assert keyed == 0 if rows else keyed > 0  # a row's patch steps by places, a map's by keys
            assert last.view == msgspec.to_builtins(table.game.view(table.session.state, None)) and last.to_act == []


async def test_a_spectator_on_another_node_is_told_who_is_at_the_table_counting_itself(tmp_path):
    """Through node B a spectator is told who sits at the table after its snapshot, counted among those who watch,
    and every seat change after, as the table's own spectators are; a node that starts following is given the last
    presence with the last snapshot (what the store keeps); A counts B's spectators in its list and its seats'
    presence. Before, it was told nothing: a page watching through the other worker of
    ``serve --workers 2`` said "0 watching" and never saw a seat taken."""
    import json

    from trio_websocket import open_websocket_url

    from server.cluster import relay
    from server.protocol import CODECS, decode_server
    from server.protocol import Presence as Present
    from server.table import fanout, present, spectating

    codec = CODECS["json"]

    async def next_presence(ws, kinds: list) -> Present:
        while True:
            message = decode_server(await ws.get_message(), codec)
            kinds.append(type(message))
            if type(message) is Present:
                return message

    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**GAME, bots=[BotSeat(1)])  # seat 0 free: the game waits
                table = a.lobby.find(info.table)
                await b.directory.next_beat()
                async with open_websocket_url(b.url) as ws:
                    await ws.send_message(json.dumps({"type": "hello", "protocol": 1, "id": 0}))
                    await ws.send_message(codec.encode(Watch(table=info.table, id=1)))
                    kinds: list = []
                    here = await next_presence(ws, kinds)
                    assert Snapshot in kinds  # after the table it describes
                    assert [seat.state for seat in here.seats] == ["free", "bot"]
                    assert here.spectators == 1 and not table.spectators  # this one, served by B
                    for _ in range(20):  # A counts B's spectator as B reports it (a beat or two)
                        if table.stream.followers:
                            break
                        await a.directory.next_beat()
                    listed = [t for t in await creator.list_tables() if t.table == info.table]
                    assert table.stream.followers == 1 and listed[0].spectators == 1
                    assert present.presence_now(table).spectators == 1  # what A's seats are told
                    await creator.take_seat(info.table, seat=0)
                    while here.seats[0].state != "taken":
                        here = await next_presence(ws, kinds)
                    assert here.spectators == 1  # counted once: B's as it is now, not also as reported
                while table.stream.followers:  # gone from B: A counts it no more
                    await a.directory.next_beat()
                # a node that starts following now is given what the store keeps: the last snapshot and presence
                publisher = relay.Publisher(None, 1.0)  # (not run: what it would publish stays in its queue)
                publish = publisher._hook(table, [info.table])
                publish([present.presence_now(table)], spectating.current_snapshot(table))
                publish([Update(table=info.table, seq=99, actor=0, to_act=[0])], None)
                publish([present.presence_now(table)], None)  # a seat changed since the last snapshot
                kept = [publisher._receive.receive_nowait()[2] for _ in range(3)]
                assert kept[1] is None  # an update alone: the store keeps what it had
                frame = relay._frame.decode(kept[2])
                assert decode_server(bytes(frame.snapshot), codec).seq == table.log.seq
                assert [type(decode_server(bytes(m), codec)) for m in frame.messages] == [Present]
                # the presence kept goes with the other nodes' counts it counted, not with a later frame's: a node
                # that starts following takes its own part out of that presence
                counted_then = dict(table.stream.counted)
                table.stream.counted = {relay.watchers_key(info.table, "node-c"): 7}  # (C's, heard since)
                publish([Update(table=info.table, seq=100, actor=0, to_act=[0])], spectating.current_snapshot(table))
                frame = relay._frame.decode(publisher._receive.receive_nowait()[2])
                assert [type(decode_server(bytes(m), codec)) for m in frame.messages] == [Present]
                assert frame.counted == counted_then



async def test_spectators_on_another_node_are_told_as_one_there_comes_or_goes(nursery, autojump_clock):
    """Two phones watching through node B (its ``Follower`` of the table, on the in-process store, the table's
    node silent): as the second comes in and then leaves, the first is told the number watching, at most once a
    second. Before, it was told the count only as it came in and at a seat's change: a page said "2 watching" for
    good after the other had gone."""
    from server.cluster import relay
    from server.cluster.presence import LocalPresence
    from server.protocol import Leave
    from server.protocol import Presence as Present
    from server.table import intents
    from server.table.spectating import COUNT_EVERY_S

    from .helpers import Sink, settle

    follower = relay.Follower(LocalPresence(), "t1", 5.0, lambda _: None, "node-b")
    follower.latest = Snapshot(table="t1", seq=3, view=None, to_act=[0])  # as the table's node last published
    follower.here = Present(table="t1", seats=[], spectators=0)  # ... before anyone watched here
    nursery.start_soon(follower.run)
    first, second = Sink(), Sink()
    follower.submit_nowait(intents.Watch(first, Watch(table="t1", id=1)))
    await settle()
    assert [p.spectators for p in first.of(Present)][-1] == 1
    follower.submit_nowait(intents.Watch(second, Watch(table="t1", id=1)))
    await settle()
    assert second.of(Present)[-1].spectators == 2
    await trio.sleep(COUNT_EVERY_S)
    await settle()
    assert first.of(Present)[-1].spectators == 2
    told = len(first.of(Present))
    follower.submit_nowait(intents.Leave(second, Leave(table="t1", id=2)))
    await settle()
    await trio.sleep(COUNT_EVERY_S)
    await settle()
    assert first.of(Present)[-1].spectators == 1 and len(first.of(Present)) == told + 1
    follower.scope.cancel()


async def test_a_node_takes_out_of_the_tables_count_exactly_what_the_tables_node_counted_for_it(nursery,
                                                                                              autojump_clock):
    """Node A's presence counts node B's spectators as B last reported them, a heartbeat or two behind B. B's own
    spectators are told A's count less what A counted for B (the frame says it), plus B's as they are: before,
    B took out what it had last reported, which A might not have heard yet, and two pages on B beside one on A
    were told "2 watching" for a moment (A's 1, less B's 2 A had not counted, plus B's 2)."""
    from server.cluster import relay
    from server.cluster.presence import LocalPresence
    from server.protocol import CODECS, SeatInfo
    from server.protocol import Presence as Present
    from server.table import intents

    from .helpers import Sink, settle

    encode = CODECS["json"].encoder.encode
    follower = relay.Follower(LocalPresence(), "t1", 5.0, lambda _: None, "node-b")
    follower.latest = Snapshot(table="t1", seq=3, view=None, to_act=[0])
    phones = [Sink(), Sink()]
    for phone in phones:
        follower.submit_nowait(intents.Watch(phone, Watch(table="t1", id=1)))
    await settle()
    mine = relay.watchers_key("t1", "node-b")
    seats = [SeatInfo(seat=0, state="free")]

    def told(spectators: int, counted: dict) -> int:
        here = msgspec.Raw(encode(Present(table="t1", seats=seats, spectators=spectators)))
        follower._take(relay.Frame(table="t1", game="flag_finish", messages=[here], counted=counted))
        return phones[0].of(Present)[-1].spectators

    assert told(1, {}) == 3  # A has heard of none of B's yet: its 1, and B's 2
    assert told(3, {mine: 2}) == 3  # A counts B's 2 now
    assert told(4, {mine: 2, relay.watchers_key("t1", "node-c"): 1}) == 4  # and one on node C
    follower.submit_nowait(intents.Leave(phones[1], Leave(table="t1", id=2)))
    await settle()
    assert told(4, {mine: 2, relay.watchers_key("t1", "node-c"): 1}) == 3  # B's as they are: one left


async def test_the_tables_own_spectators_are_told_of_another_nodes_at_a_table_where_nothing_happens(tmp_path):
    """A page on the table's node A, at a table waiting for a player (no action, so no batch to tell it with), is
    told "2 watching" once a page watching through node B is reported: the relay wakes the table. Before, A's page
    said "1 watching" until something happened at the table (at a finished one, for good)."""
    import json

    from trio_websocket import open_websocket_url

    from server.protocol import CODECS, decode_server
    from server.protocol import Presence as Present

    codec = CODECS["json"]

    async def watch(ws) -> None:
        await ws.send_message(json.dumps({"type": "hello", "protocol": 1, "id": 0}))
        await ws.send_message(codec.encode(Watch(table=info.table, id=1)))

    async def told(ws, count: int) -> None:
        while True:
            message = decode_server(await ws.get_message(), codec)
            if type(message) is Present and message.spectators == count:
                return

    with trio.fail_after(30):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**GAME, bots=[BotSeat(1)])  # seat 0 free: the game waits
                await b.directory.next_beat()
                async with open_websocket_url(a.url) as on_a, open_websocket_url(b.url) as on_b:
                    await watch(on_a)
                    await told(on_a, 1)
                    await watch(on_b)
                    await told(on_a, 2)
                    assert a.lobby.find(info.table).log.seq == 0  # nothing happened at the table meanwhile


async def test_a_node_reports_its_spectators_count_as_one_comes_not_a_ticks_later(nursery, autojump_clock):
    """The table's node reads each other node's count at its heartbeat; a node writes its own as one of its
    spectators comes or goes (at most once a second), not only at its mark's next tick."""
    from server.cluster import relay
    from server.cluster.presence import LocalPresence
    from server.protocol import Presence as Present
    from server.table import intents

    from .helpers import Sink, settle

    store = LocalPresence()
    follower = relay.Follower(store, "t1", 5.0, lambda _: None, "node-b")
    follower.latest = Snapshot(table="t1", seq=3, view=None, to_act=[0])
    follower.here = Present(table="t1", seats=[], spectators=0)
    nursery.start_soon(follower.run)
    key = relay.watchers_key("t1", "node-b")
    await trio.sleep(0.5)  # between the mark's ticks (a second apart, the first as it started: nobody watched)
    assert await store.get(key) == "0"
    follower.submit_nowait(intents.Watch(Sink(), Watch(table="t1", id=1)))
    await settle()
    assert await store.get(key) == "1"  # at once, not at the next tick
    follower.scope.cancel()


async def test_a_broadcast_watch_asked_of_another_node_is_redirected_and_read_as_every_hand(tmp_path):
    """The broadcast view is never relayed: the client library is sent on to the table's node, and the
    connection it opens there reads each view as a ``BroadcastView`` (it once failed on the first one)."""
    from server.protocol import BroadcastView, CreateTable

    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                created = await creator.request(CreateTable(**{**GAME, "seats": 2}, bots=[BotSeat(0), BotSeat(1)],
                                                            bot_delay_ms=100, spectator_delay_entries=1,
                                                            broadcast=True))
            table = created.table.table
            await b.directory.next_beat()
            async with open_client(b.url, reconnect=False) as commentator:
                await commentator.watch(table, created.broadcast_key)
                assert commentator.routes.get(table) == a.url  # redirected: served by the table's node
                async for message in commentator.messages:
                    if type(message) in (Update, Snapshot) and message.view is not None and message.seq > 3:
                        break
                assert type(message.view) is BroadcastView and len(message.view.seats) == 2
                assert all(seat.hand is not None for seat in message.view.seats)


@pytest.mark.parametrize("delay", [{"spectator_delay_entries": 4}, {"spectator_delay_ms": 1_500}])
async def test_a_spectator_on_another_node_gets_nothing_fresher_than_the_broadcast_delay_allows(delay, tmp_path):
    """The relay publishes what the table's own spectators are sent, past its delay: a spectator who asks another
    node sees the table no nearer than one who asks the table's node, in moves or in seconds."""
    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**{**GAME, "seats": 2}, bots=[BotSeat(0), BotSeat(1)],
                                                  bot_delay_ms=100, **delay)
            table = a.lobby.find(info.table)
            await b.directory.next_beat()
            async with open_client(b.url, reconnect=False) as spectator:
                watching = await spectator.watch(info.table)
                assert info.table not in spectator.routes  # served by B, through the relay
                assert watching.seq <= max(0, table.log.seq - delay.get("spectator_delay_entries", 1))
                checked = 0
                async for message in spectator.messages:
                    if type(message) not in (Update, Snapshot):
                        continue
                    if message.result is not None:
                        break
                    if "spectator_delay_entries" in delay:  # (0: before the deal; once over, its end is shown)
                        assert message.seq == 0 or message.seq <= table.log.seq - 4 or table.is_over()
                    elif message.seq:
                        made = table.t0 + table.log.entries[message.seq - 1].time
                        assert trio.current_time() - made >= 1.5  # never sooner than 1.5 s after it happened
                    checked += 1
                assert checked > 10 and seen_end(message, table)


def seen_end(message, table) -> bool:
    """The spectator was shown the table's end, as it ended: the last entry that changed the game (a bot's action
    that crossed the end is refused after it, and takes a seq of its own, but changes nothing)."""
    return message.result is not None and message.seq == table.log.accepted_seq


async def test_a_count_a_node_told_its_spectators_is_not_told_again_as_it_comes_back_from_the_tables_node(
        nursery, autojump_clock):
    """A phone coming to node B is counted there at once, and the table's node then says the same count back
    (its frame): B's spectators are told it once, not twice (a message for each of a thousand spectators that
    says nothing), and the newcomer, told as it came in, not again with the others. Before, every change came to
    each spectator twice, or more."""
    from server.cluster import relay
    from server.cluster.presence import LocalPresence
    from server.protocol import CODECS, SeatInfo
    from server.protocol import Presence as Present
    from server.table import intents

    from .helpers import Sink, settle

    encode = CODECS["json"].encoder.encode
    follower = relay.Follower(LocalPresence(), "t1", 5.0, lambda _: None, "node-b")
    follower.latest = Snapshot(table="t1", seq=3, view=None, to_act=[0])
    seats = [SeatInfo(seat=0, state="free")]
    mine = relay.watchers_key("t1", "node-b")

    def said(spectators: int, counted: dict) -> None:
        here = msgspec.Raw(encode(Present(table="t1", seats=seats, spectators=spectators)))
        follower._take(relay.Frame(table="t1", game="flag_finish", messages=[here], counted=counted))

    nursery.start_soon(follower.run)
    first, second = Sink(), Sink()
    follower.submit_nowait(intents.Watch(first, Watch(table="t1", id=1)))
    said(1, {mine: 1})  # A: its own none, B's one
    await settle()
    follower.submit_nowait(intents.Watch(second, Watch(table="t1", id=1)))
    await settle()
    said(2, {mine: 2})  # A has heard B's two now: the same number B told them
    said(2, {mine: 2})  # (and says it again, with a seat's change that is not one)
    await settle()
    counts = [p.spectators for p in first.of(Present)]
    assert counts[-1] == 2 and counts.count(2) == 1, counts
    assert [p.spectators for p in second.of(Present)] == [2]  # as it came in, and not again with the others
    follower.scope.cancel()


@pytest.mark.parametrize("kind", ["local", "sqlite", "redis"])
async def test_a_first_watch_through_another_node_waits_for_no_heartbeat_of_the_tables_node(kind, tmp_path):
    """A spectator who starts watching a table through node B, which nobody followed before, is told ``watching``
    and the snapshot as soon as B's ask reaches A through the store's publish (``relaypublish.py``), not at A's
    next heartbeat: A beats once a minute here. Before, A hooked the table only at its heartbeat's look-up of the
    marks: the red team's watch through the other worker of ``serve --workers 2`` waited up to a second."""
    with trio.fail_after(60):
        async with cluster_of(2, kind, tmp_path) as ([a, b], _):
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**GAME)  # seats free: nothing happens at it
                a.directory.expiry = 600.0  # (alive for the rest of the test on the heartbeat below)
                await a.directory.next_beat()
                a.directory.heartbeat = 60.0
                await a.directory.pulse.wait()  # A's last heartbeat in this test
                async with open_client(b.url, reconnect=False) as spectator:
                    start = trio.current_time()
                    with trio.fail_after(5):  # (a twelfth of A's heartbeat)
                        watching = await spectator.watch(info.table)
                        snapshot = await spectator.messages.__anext__()
                    lag = trio.current_time() - start
                    assert watching.table == info.table and info.table not in spectator.routes  # served by B
                    assert type(snapshot) is Snapshot and snapshot.table == info.table
                    assert lag < 2.0, f"watching {lag:.2f} s after"
