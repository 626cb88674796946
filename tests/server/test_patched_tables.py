"""A table's side of patches: to receivers that asked for them, updates carry ``view_patch`` and leave out an
unchanged legal list; spectators' patches are built and encoded once; a receiver that falls behind or comes back
starts again from a whole snapshot; what the table keeps for a receiver goes when it does; and a receiver that did
not ask gets whole views as before."""

from __future__ import annotations

import msgspec
import trio

from server.wire import encodeonce
from server.protocol import CODECS, Act, BotSeat, Leave, Snapshot, TakeSeat, Update, Watch
from server.protocol.viewpatch import Views
from rules import GAMES, make_setup
from server.table import intents
from server.table.arbiter import Table
from server.table.settings import TableSettings

from .helpers import Sink, new_table, settle


class PatchSink(Sink):
    """A receiver that said ``patches`` in its hello, and mends what it gets into whole views."""

    patches = True

    def __init__(self, full: bool = False) -> None:
        super().__init__(full)
        self.views = Views()
        self.mended: list = []

    def deliver(self, message) -> bool:
        taken = super().deliver(message)
        if taken:
            self.mended.append(self.views.whole(message))
        return taken

    def last_mended(self):
        return next(m.view for m in reversed(self.mended) if type(m) in (Update, Snapshot) and m.view is not None)


def exact(view):
    return msgspec.json.Encoder(order="sorted").encode(view)


async def test_spectators_that_asked_share_one_patched_update_encoded_once(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=50)
    await nursery.start(table.run)
    patching, whole = [PatchSink() for _ in range(3)], Sink()
    for sink in [*patching, whole]:
        await table.submit(intents.Watch(sink, Watch(table="t1")))
    await table.over.wait()
    lasts = [[m for m in sink.of(Update) if m.view_patch is not None][-1] for sink in patching]
    assert lasts[0] is lasts[1] is lasts[2] and lasts[0].view is None  # built once, for all three
    assert encodeonce.encoded(lasts[0], CODECS["json"]) is encodeonce.encoded(lasts[0], CODECS["json"])
    assert all(m.view_patch is None for m in whole.of(Update))  # the one that did not ask: whole views
    for sink in patching:
        assert exact(sink.last_mended()) == exact(whole.last_view())
    sizes = [len(CODECS["json"].encoder.encode(m)) for m in (lasts[0], whole.of(Update)[-1])]
    assert sizes[0] < sizes[1]


async def test_a_seat_that_asked_is_sent_legal_only_when_it_changed(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep", options={"races": 1})
    await nursery.start(table.run)
    me, other = PatchSink(), Sink()
    await table.submit(intents.TakeSeat(me, TakeSeat(table="t1", seat=0)))
    await table.submit(intents.TakeSeat(other, TakeSeat(table="t1", seat=1)))
    await settle()
    for _ in range(12):  # both seats play their first legal action in turn
        for sink, seat in ((me, 0), (other, 1)):
            turn = table.session.to_act()
            if seat in turn.seats:
                action = table.game.legal_actions(table.session.state, seat)[0]
                await table.submit(intents.Act(sink, Act(table="t1", action=action)))
                await settle()
    updates = [m for m in me.of(Update) if m.view_patch is not None]
    assert any(m.legal is None and m.legal_patch is None for m in updates)  # unchanged: left out
    assert any(m.legal is not None or m.legal_patch is not None for m in updates)  # changed: sent
    held = me.of(Snapshot)[-1].legal
    for sent, mended in zip(me.messages, me.mended):
        if type(sent) is Update and (sent.legal is not None or sent.legal_patch is not None):
            assert exact(mended.legal) != exact(held)  # sent only when it differs from the last sent
            held = mended.legal
    mended = [m for m in me.mended if type(m) is Update and m.view is not None][-1]
    assert mended.legal == table.game.legal_actions(table.session.state, 0)
    assert exact(me.last_mended()) == exact(table.game.view(table.session.state, 0))


async def test_a_spectator_that_fell_behind_starts_again_from_a_snapshot(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=300)
    await nursery.start(table.run)
    slow, fine = PatchSink(), PatchSink()
    await table.submit(intents.Watch(slow, Watch(table="t1")))
    await table.submit(intents.Watch(fine, Watch(table="t1")))
    await settle()
    slow.full = True
    while len(fine.of(Update)) < 10:
        await fine.arrived.wait()
    slow.full = False
    await table.over.wait()
    await trio.sleep(2)  # past the next offer of a snapshot
    assert slow.of(Snapshot)[-1].skipped > 0
    assert exact(slow.last_mended()) == exact(fine.last_mended()) == exact(table.game.view(table.session.state, None))


async def test_what_the_table_keeps_for_a_receiver_goes_when_it_leaves_or_disconnects(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=100)
    await nursery.start(table.run)
    leaving, dropping = PatchSink(), PatchSink()
    await table.submit(intents.Watch(leaving, Watch(table="t1")))
    await table.submit(intents.Watch(dropping, Watch(table="t1")))
    await settle()
    assert set(table.patching.sent) == {leaving, dropping}
    await table.submit(intents.Leave(leaving, Leave(table="t1")))
    await table.submit(intents.Disconnect(dropping))
    await settle()
    assert table.patching.sent == {}


async def play_recorded(monkeypatch) -> dict:
    """Two seats and two spectators that asked for patches (one comes in mid-game) at a Finish Line table with
    receipts; each receiver's messages as the table built them and as they were sent (``patching.outgoing``)."""
    from server.table import patching

    recorded: dict = {}
    real = patching.outgoing

    def outgoing(table, receiver, message):
        sent = real(table, receiver, message)
        recorded.setdefault(receiver, []).append((message, sent))
        return sent

    monkeypatch.setattr(patching, "outgoing", outgoing)
    game = GAMES["finish_line"]  # its dice are system entries: updates without a view come before the last
    table = Table("t1", game, make_setup(game.info, 2, "lockstep", {}), 1, TableSettings(),
                  receipts=[f"{i:064x}" for i in range(1, 3000)])
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        seats, early, late = [PatchSink(), PatchSink()], PatchSink(), PatchSink()
        await table.submit(intents.Watch(early, Watch(table="t1")))
        for seat, sink in enumerate(seats):
            await table.submit(intents.TakeSeat(sink, TakeSeat(table="t1", seat=seat)))
        await settle()
        for turn in range(400):
            if table.over.is_set():
                break
            if turn == 10:
                await table.submit(intents.Watch(late, Watch(table="t1")))
            for seat, sink in enumerate(seats):
                if seat in table.session.to_act().seats:
                    action = table.game.legal_actions(table.session.state, seat)[0]
                    await table.submit(intents.Act(sink, Act(table="t1", action=action)))
                    await settle()
        nursery.cancel_scope.cancel()
    return {sink: recorded[sink] for sink in [*seats, early, late]}


FIELDS = ("table", "seq", "actor", "events", "to_act", "result", "pings", "time_left_ms")


async def test_a_client_that_asked_for_patches_rebuilds_every_update_whole(monkeypatch, autojump_clock):
    played = await play_recorded(monkeypatch)
    left_out = {"to_act": 0, "pings": 0, "receipt": 0}
    for sink, pairs in played.items():
        assert len(pairs) == len(sink.mended)
        for (built, sent), mended in zip(pairs, sink.mended):
            assert type(mended) is type(built)
            if type(built) is not Update:
                continue
            assert [getattr(mended, f) for f in FIELDS] == [getattr(built, f) for f in FIELDS]
            assert exact(mended.legal) == exact(built.legal)  # (a patched legal list comes as builtins)
            assert (mended.view is None) is (built.view is None)
            if built.view is not None:
                assert exact(mended.view) == exact(built.view)
            # once a view is held, a receipt only on the game's last update (a seat has its accepted's, a snapshot
            # carries one)
            assert mended.receipt == (built.receipt if built.result is not None or sent is built else None)
            left_out["to_act"] += sent.to_act is None
            left_out["pings"] += sent.view_patch is not None and sent.pings is None
            left_out["receipt"] += sent.receipt is None
    assert all(count > 0 for count in left_out.values()), left_out  # each trim happened in this play


def test_views_fill_in_what_an_update_left_out_as_unchanged():
    views = Views()
    views.whole(Snapshot(table="t1", seq=3, view={"turn": 0}, to_act=[0], legal=[], pings=[5.0, None]))
    quiet = views.whole(Update(table="t1", seq=4, actor=0, events=[], view_patch=[[["turn"], 1]]))
    assert (quiet.view, quiet.to_act, quiet.pings) == ({"turn": 1}, [0], [5.0, None])
    moved = views.whole(Update(table="t1", seq=5, actor=0, events=[], to_act=[1]))  # no view: to_act changed
    assert moved.to_act == [1]
    pinged = views.whole(Update(table="t1", seq=6, actor=1, events=[], view_patch=[], pings=[7.0, 9.0]))
    assert (pinged.to_act, pinged.pings) == ([1], [7.0, 9.0])


class RowSink(PatchSink):
    """A receiver that said ``rows`` too: its views come as rows (``viewrows.py``), and are mended into maps."""

    rows = True

    def deliver(self, message) -> bool:
        self.sent = getattr(self, "sent", [])
        self.sent.append(message)
        return super().deliver(message)


async def test_broadcast_watchers_that_asked_for_rows_get_the_broadcast_view_as_rows_and_mend_it(nursery,
                                                                                                 autojump_clock):
    from server.table.seats import token_hash

    table = new_table(seats=2, bots=[BotSeat(0), BotSeat(1)], options={"races": 1}, bot_delay_ms=200,
                      spectator_delay_ms=1000, broadcast_key_hash=token_hash("the key"))
    await nursery.start(table.run)
    rowed, mapped = [RowSink(), RowSink()], PatchSink()
    for sink in [*rowed, mapped]:
        await table.submit(intents.Watch(sink, Watch(table="t1", broadcast_key="the key")))
    await table.over.wait()
    await trio.sleep(2)
    for sink in rowed:
        views = [m.view for m in sink.sent if type(m) in (Update, Snapshot) and m.view is not None]
        assert views and all(view[0] == "broadcast" and view[1][0] == "flag_finish" for view in views)
        patches = [m.view_patch for m in sink.sent if type(m) is Update and m.view_patch]
        assert len(patches) > 5 and all(type(step) is int for patch in patches for op in patch for step in op[0])
        assert exact(sink.last_mended()) == exact(mapped.last_mended())  # every hand, as a map watcher sees it
        assert set(sink.last_mended()) == {"public", "seats"} and sink.last_mended()["seats"][1]["hand"] is not None
    lasts = [[m for m in sink.sent if type(m) is Update and m.view_patch][-1] for sink in rowed]
    assert lasts[0] is lasts[1]  # one patched update for both rows watchers
