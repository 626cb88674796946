"""PROTOCOL.md's promise to a bot: after its `act`, `accepted` comes first and carries no view; the update of
that entry follows, and the last update of the group carries the seat's new view and legal actions. A bot that
acts on `accepted` acts on the view before its own action."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rules import Rng
from rules.flag_finish.game import DrawPile
from server.protocol import Accepted, Update

from .helpers import act, new_table, seat_all


async def test_accepted_comes_before_the_update_that_carries_the_new_view(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    me = sinks[table.session.state.turn]
    before = len(me.messages)
    await act(table, me, DrawPile(), id="d")
    after = me.messages[before:]
    assert type(after[0]) is Accepted and after[0].ref == "d" and not hasattr(after[0], "view")
    updates = [m for m in after[1:] if type(m) is Update]
    assert updates and updates[0].seq == after[0].seq
    assert updates[-1].view is not None and updates[-1].view.drawn is not None  # the new view: discard now
    assert {type(a).__name__ for a in updates[-1].legal} == {"Discard"}


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32))
def test_in_any_game_every_accepted_precedes_its_update_and_a_view_follows(seed):
    import trio
    import trio.testing

    async def main():
        async with trio.open_nursery() as nursery:
            table = new_table(seats=2, mode="challenge", seed=seed)
            await nursery.start(table.run)
            sinks = await seat_all(table, 2)
            rng = Rng(seed)
            for step in range(40):
                seat = rng.below(2)
                legal = table.game.legal_actions(table.session.state, seat)
                if not legal:
                    continue
                await act(table, sinks[seat], rng.choice(legal), id=step)
            for sink in sinks:
                for index, message in enumerate(sink.messages):
                    if type(message) is Accepted:
                        rest = sink.messages[index + 1:]
                        own = [m for m in rest if type(m) is Update and m.seq == message.seq]
                        assert own, "no update for an accepted action"
                        assert all(not (type(m) is Update and m.seq == message.seq) for m in sink.messages[:index])
                        assert any(type(m) is Update and m.seq >= message.seq and m.view is not None for m in rest)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_the_bot_driver_waits_after_accepted_for_the_update_with_the_new_view():
    from server.protocol import BotDriver

    driver = BotDriver(lambda view, legal, rng: legal[0], Rng(1))
    driver.take(Update(table="t1", seq=4, actor=1, events=[], to_act=[0], view="before", legal=["draw"]))
    ref, action = driver.next_action()
    driver.take(Accepted(ref=ref, table="t1", seq=5))
    assert driver.next_action() is None  # the view it holds is from before its own action
    driver.take(Update(table="t1", seq=5, actor=0, events=[], to_act=[0], view="after", legal=["discard"]))
    assert driver.next_action()[1] == "discard"
    # a resent action's answer comes after its update: the view held is already the new one
    ref = driver.in_flight
    driver.take(Update(table="t1", seq=6, actor=0, events=[], to_act=[0], view="later", legal=["play"]))
    driver.take(Accepted(ref=ref, table="t1", seq=6, duplicate=True))
    assert driver.next_action()[1] == "play"
