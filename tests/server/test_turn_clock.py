"""A timed lockstep table tells the seat to act how long it has left (``time_left_ms`` in the update that
gives it the turn, and in a snapshot after a resume), so a bot or a person can see its clock run."""

from __future__ import annotations

import trio

from rules.flag_finish.game import DrawPile
from server.protocol import CODECS, Resume, Seated, Snapshot, Update, Watch
from server.table import intents

from .helpers import Sink, act, new_table, seat_all, settle


def last_with_view(sink: Sink):
    return next(m for m in reversed(sink.messages) if type(m) in (Update, Snapshot) and m.view is not None)


async def test_updates_and_a_resumes_snapshot_carry_the_time_left_to_act(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep", turn_time_ms=5000)
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    first = table.session.state.turn
    dealt = last_with_view(sinks[first])
    assert dealt.to_act == [first] and dealt.time_left_ms == 5000
    assert last_with_view(sinks[1 - first]).time_left_ms == 5000  # every seat sees the clock of the seat to act
    spectator = Sink()
    await table.submit(intents.Watch(spectator, Watch(table=table.id)))
    await settle()
    assert spectator.of(Snapshot)[-1].time_left_ms is None  # a spectator's view may be shown late: no clock
    await trio.sleep(2)
    await act(table, sinks[first], DrawPile())  # a draw: the same seat discards next, on a fresh clock
    assert last_with_view(sinks[first]).time_left_ms == 5000
    await trio.sleep(1.5)
    back = Sink()  # the seat comes back on a new connection: its clock has kept running
    token = sinks[first].of(Seated)[0].token
    await table.submit(intents.Resume(back, Resume(table=table.id, token=token, last_seq=table.log.seq)))
    await settle()
    assert back.of(Snapshot)[-1].time_left_ms == 3500


async def test_an_untimed_table_sends_no_clock(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    assert last_with_view(sinks[0]).time_left_ms is None
    assert b"time_left_ms" not in CODECS["json"].encode(sinks[0].of(Update)[-1]).encode()
