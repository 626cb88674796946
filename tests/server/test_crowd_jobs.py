"""The spectators' share of an update handed out by the gateway's ``Spread`` (``server/table/crowdjobs.py``):
the table's step does no spectator's work, the seats are never behind the spectators, and each spectator gets
every message in the table's order, also one that comes, goes and comes back while jobs are out."""

from __future__ import annotations

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from server.protocol import Act, BotSeat, Leave, Left, Presence, Snapshot, TakeSeat, Update, Watch, Watching
from server.wire import spread as spread_module
from server.wire.spread import Spread
from server.table import intents

from .helpers import Sink, new_table, settle


class Watcher(Sink):
    """A spectator's connection served by ``spread`` (as the gateway's are)."""

    def __init__(self, spread: Spread) -> None:
        super().__init__()
        self.spread = spread

    def seqs(self) -> list[int]:
        """The seqs of the updates it was sent after its last snapshot (the live stream)."""
        return [m.seq for m in self.live() if type(m) is Update]

    def live(self) -> list:
        """What it was sent from its last snapshot on (by place: a snapshot sent again equals the first)."""
        last = max(i for i, m in enumerate(self.messages) if type(m) is Snapshot)
        return self.messages[last:]


def held(spread: Spread) -> Spread:
    """A ``Spread`` that takes jobs but hands nothing out until the test runs it (as one whose turn has not
    come: every other task runs first)."""
    spread.running = True
    return spread


async def run(nursery, spread: Spread) -> None:
    spread.running = False
    await nursery.start(spread.run)
    await settle()


async def watch(table, *watchers) -> None:
    for watcher in watchers:
        await table.submit(intents.Watch(watcher, Watch(table=table.id)))
    await settle()


async def seated_table(nursery):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    seats = [Sink(), Sink()]
    for seat, sink in enumerate(seats):
        await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat)))
    await settle()
    return table, seats


async def move(table, seats) -> None:
    """The seat to act plays its first legal action."""
    mover = seats[table.session.state.turn]
    legal = next(m.legal for m in reversed(mover.messages) if type(m) in (Update, Snapshot) and m.legal)
    await table.submit(intents.Act(mover, Act(table=table.id, action=legal[0])))
    await settle()


def since(seat: Sink, seq: int) -> list[int]:
    """The seqs of the updates ``seat`` was sent after ``seq``: what a spectator shown ``seq`` is sent."""
    return [m.seq for m in seat.of(Update) if m.seq > seq]


async def test_the_table_hands_its_spectators_one_job_and_its_seats_their_updates_at_once(nursery, autojump_clock):
    table, seats = await seated_table(nursery)
    spread = held(Spread())
    crowd = [Watcher(spread) for _ in range(50)]
    await watch(table, *crowd)
    before, jobs = [len(w.messages) for w in crowd], len(spread._jobs)  # (how many watch is one job too)
    await move(table, seats)
    assert all(len(w.messages) == n for w, n in zip(crowd, before))  # nothing handed to any spectator yet
    assert seats[0].of(Update) and seats[1].of(Update)  # the seats have theirs
    assert len(spread._jobs) == jobs + 1 and spread._jobs[-1].size == 50  # one job for all fifty
    await run(nursery, spread)
    assert not spread._jobs
    for watcher in crowd:
        assert watcher.seqs() == since(seats[0], watcher.of(Snapshot)[-1].seq)
        assert watcher.last_view() == crowd[0].last_view()


async def test_a_spectator_gets_every_message_in_the_tables_order_while_jobs_are_out(nursery, autojump_clock):
    table, seats = await seated_table(nursery)
    spread = held(Spread())
    ana, bo = Watcher(spread), Watcher(spread)
    await watch(table, ana, bo)
    had = len(ana.messages)
    await move(table, seats)  # a job out for both
    moved = table.log.seq
    await table.submit(intents.Leave(seats[1], Leave(table=table.id)))  # a seat changes: presence to spectators
    await settle()
    assert len(ana.messages) == had  # the presence waits behind the update made before it
    await run(nursery, spread)
    new = ana.messages[had:]
    kinds = [type(m) for m in new]
    assert Presence in kinds and Update in kinds
    told = next(i for i, m in enumerate(new) if type(m) is Presence and m.seats[1].state == "free")
    assert all(i < told for i, m in enumerate(new) if type(m) is Update and m.seq <= moved)
    assert new[told].seats[1].state == "free"
    assert [type(m) for m in bo.messages] == [type(m) for m in ana.messages]


async def test_a_spectator_who_comes_while_jobs_are_out_is_shown_the_table_at_once(nursery, autojump_clock):
    table, seats = await seated_table(nursery)
    spread = held(Spread())
    await watch(table, Watcher(spread), Watcher(spread))
    await move(table, seats)
    late = Watcher(spread)
    await watch(table, late)
    assert type(late.messages[0]) is Watching  # not behind the others' job: its catch-up is all there
    assert late.of(Snapshot)[-1].seq == table.log.seq
    await run(nursery, spread)
    shown = late.of(Snapshot)[-1]
    assert all(type(m) is not Update for m in late.messages[late.messages.index(shown):])  # nor sent, later,
    # an update its snapshot already holds


async def test_one_who_leaves_and_comes_back_while_jobs_are_out_never_goes_back_in_time(nursery, autojump_clock):
    table, seats = await seated_table(nursery)
    spread = held(Spread())
    ana, bo = Watcher(spread), Watcher(spread)
    await watch(table, ana, bo)
    await move(table, seats)  # a job out with ana in it
    await table.submit(intents.Leave(ana, Leave(table=table.id)))
    await watch(table, ana)
    back = ana.of(Snapshot)[-1]
    await run(nursery, spread)
    after = ana.messages[ana.messages.index(back) + 1:]
    assert all(m.seq > back.seq for m in after if type(m) is Update)  # the old job passed it by
    assert bo.seqs() == since(seats[0], bo.of(Snapshot)[-1].seq)  # the one who stayed got them


async def test_a_spread_that_stops_hands_out_the_jobs_left_at_once(nursery, autojump_clock):
    table, seats = await seated_table(nursery)
    spread = held(Spread())
    crowd = [Watcher(spread) for _ in range(3)]
    await watch(table, *crowd)
    await move(table, seats)
    assert spread._jobs
    spread.running = False
    with trio.CancelScope() as scope:
        scope.cancel()
        await spread.run()  # cancelled at its first checkpoint: what is left goes out now
    assert not spread._jobs
    assert all(w.seqs() == since(seats[0], w.of(Snapshot)[-1].seq) for w in crowd)
    await move(table, seats)  # and with no running spread, the table hands over at once again
    assert all(w.seqs() == since(seats[0], w.of(Snapshot)[-1].seq) for w in crowd)
    assert not spread._jobs


async def test_bots_and_spectators_without_a_spread_are_served_at_once(nursery, autojump_clock):
    table = new_table(seats=2, bots=[BotSeat(0), BotSeat(1)], options={"races": 1}, bot_delay_ms=50)
    await nursery.start(table.run)
    watchers = [Sink() for _ in range(3)]
    await watch(table, *watchers)
    await table.over.wait()
    assert all(w.last_view() == watchers[0].last_view() for w in watchers)
    assert watchers[0].of(Update)[-1].result is not None


@pytest.mark.parametrize("patches", [False, True])
async def test_spectators_served_in_chunks_get_what_they_would_get_at_once(nursery, autojump_clock, monkeypatch,
                                                                           patches):
    """Two tables alike (bots, one seed): forty spectators through a running ``Spread`` handing out three at a
    time, and forty served at once; each is sent the same messages in the same order (with patches: the same
    patches, each from the view it was sent last), and ends on the same view."""
    monkeypatch.setattr(spread_module, "JOB_CHUNK", 3)
    monkeypatch.setattr(spread_module, "JOB_SLICE_S", 0.0)  # one chunk a round: every other task between
    spread = Spread()
    await nursery.start(spread.run)
    tables, served = [], []
    for watchers in ([Watcher(spread) for _ in range(40)], [Watcher(None) for _ in range(40)]):
        for watcher in watchers:
            watcher.patches = patches
        table = new_table(seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2)], options={"races": 1}, bot_delay_ms=20)
        await nursery.start(table.run)
        await watch(table, *watchers)
        tables.append(table)
        served.append(watchers)
    for table in tables:
        await table.over.wait()
    await settle()
    sent = [[[msgspec.to_builtins(m) for m in w.messages] for w in watchers] for watchers in served]
    assert sent[0] == sent[1]
    ended = msgspec.to_builtins(tables[1].game.view(tables[1].session.state, None))
    assert all(w.last_view() is not None for w in served[0])
    if not patches:
        assert all(msgspec.to_builtins(w.last_view()) == ended for w in served[0])
    assert not spread._jobs and tables[0].stream.jobs_made == tables[0].stream.jobs_done > 0


async def test_a_spectator_who_falls_behind_in_a_job_is_caught_up_even_at_a_table_gone_quiet(nursery, autojump_clock):
    """The job is handed out outside the table's task; the table, waiting for its next move with no clock set,
    is told, so it still offers the slow spectator the snapshot a second later."""
    table, seats = await seated_table(nursery)
    spread = Spread()
    await nursery.start(spread.run)
    slow, fine = Watcher(spread), Watcher(spread)
    await watch(table, slow, fine)
    slow.full = True
    await move(table, seats)  # nobody moves after this one
    assert slow in table.stream.lagging
    slow.full = False
    await trio.sleep(2)  # (virtual time) past the next offer
    caught_up = slow.of(Snapshot)[-1]
    assert caught_up.seq == table.log.seq and caught_up.skipped >= 1
    assert slow not in table.stream.lagging


STEPS = st.lists(st.one_of(st.just(("move",)), st.just(("spread",)),
                           st.tuples(st.sampled_from(["watch", "leave"]), st.integers(0, 3))), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_spectators_coming_and_going_get_exactly_the_updates_made_while_they_watch_in_their_shape(steps):
    """Four spectators (two asked for patches) come and go between moves while jobs are out or handed out: each
    one watching at the end was sent, since its last snapshot, the updates the seats were sent (whole views to the
    plain ones, patches to the others), and one that left was sent no update after its ``Left``. The table keeps
    who watches and how to send to them from one change of its spectators to the next (``spectating.watching``)."""
    async def scenario():
        async with trio.open_nursery() as nursery:
            table, seats = await seated_table(nursery)
            spread = held(Spread())
            crowd = [Watcher(spread) for _ in range(4)]
            for number, watcher in enumerate(crowd):
                watcher.patches = number >= 2
            watching = set()
            for step in steps:
                if step[0] == "move" and table.session.result() is None:
                    await move(table, seats)
                elif step[0] == "spread":
                    await run(nursery, spread)
                    spread = held(spread)
                elif step[0] == "watch":
                    await watch(table, crowd[step[1]])
                    watching.add(step[1])
                elif step[0] == "leave" and step[1] in watching:
                    await table.submit(intents.Leave(crowd[step[1]], Leave(table=table.id)))
                    await settle()
                    watching.discard(step[1])
            await run(nursery, spread)
            for number, watcher in enumerate(crowd):
                if number in watching:
                    shown = watcher.of(Snapshot)[-1]
                    assert watcher.seqs() == since(seats[0], shown.seq)
                    live = [m for m in watcher.live() if type(m) is Update]
                    assert all((m.view is None) == watcher.patches for m in live if m.view or m.view_patch)
                elif watcher.messages:
                    gone = max(i for i, m in enumerate(watcher.messages) if type(m) is Left)
                    assert not any(type(m) is Update for m in watcher.messages[gone:])
            nursery.cancel_scope.cancel()

    trio.run(scenario, clock=trio.testing.MockClock(autojump_threshold=0))
