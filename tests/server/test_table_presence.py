"""Who is at a table, told to the people there as it changes (the ``presence`` message), and what a finished
table says of its seats and its seed.

The table page's seat list never refreshed: "0 watching" while the lobby said 1, a seat whose browser closed
still showed its ping, a tournament player who had resumed showed "(away)" all game. The table now pushes
``presence`` to its seated players whenever a seat or the spectators change, to its spectators when a seat
changes (and once as each comes in) and, at most once a second, when the number watching did, and never for an
action alone.
"""

from __future__ import annotations

import trio

from rules.flag_finish.game import Play
from server.latency import LatencyMeter
from server.protocol import Leave, Presence, Resume, TakeSeat, Watch
from server.table import intents
from server.table.seats import Reservation, token_hash
from server.table.spectating import COUNT_EVERY_S

from .helpers import SEQ_B, SEQ_R, Sink, act, force_state, new_table, seat_all, settle


class Measured(Sink):
    """A connection whose round trip was measured: 12 ms."""

    def __init__(self) -> None:
        super().__init__()
        self.latency = LatencyMeter()
        number = self.latency.ping()
        self.latency.sent(number, 0.0)
        self.latency.pong(number, 0.012)


def told(sink: Sink) -> list[Presence]:
    return sink.of(Presence)


async def test_a_spectator_coming_and_going_is_told_to_the_seats_at_once(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    ana, bo = await seat_all(table, 2)
    before = len(told(ana))
    watcher = Sink()
    await table.submit(intents.Watch(watcher, Watch(table=table.id)))
    await settle()
    assert told(ana)[-1].spectators == 1 and len(told(ana)) == before + 1
    assert told(watcher)[-1].spectators == 1  # the spectator counts itself
    crowd = [Sink() for _ in range(5)]
    for other in crowd:
        await table.submit(intents.Watch(other, Watch(table=table.id)))
    await settle()
    assert told(ana)[-1].spectators == 6
    assert len(told(watcher)) <= 3  # a spectator is not told of each newcomer: a crowd would cost n squared
    for gone in [watcher, *crowd]:
        await table.submit(intents.Leave(gone, Leave(table=table.id)))
    await settle()
    assert told(ana)[-1].spectators == 0 and told(bo)[-1].spectators == 0
    await table.stop()


async def test_spectators_are_told_how_many_watch_at_most_once_a_second_and_a_seat_at_once(nursery, autojump_clock):
    """The projector's and the phones' "N watching" keeps up with a crowd coming in, at a message a second each."""
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    ana, bo = await seat_all(table, 2)
    first = Sink()
    await table.submit(intents.Watch(first, Watch(table=table.id)))
    await settle()
    began = trio.current_time()
    crowd = [Sink() for _ in range(30)]
    for number, other in enumerate(crowd):  # thirty come in over three seconds
        await trio.sleep(0.1 * bool(number))
        await table.submit(intents.Watch(other, Watch(table=table.id)))
    await settle()
    counts = [p.spectators for p in told(first)]
    assert counts == sorted(counts) and counts[-1] < 31  # the last newcomers are told to it a little later ...
    await trio.sleep(COUNT_EVERY_S)
    counts = [p.spectators for p in told(first)]
    assert counts[-1] == 31  # ... within a second
    assert len(counts) <= 2 + (trio.current_time() - began) / COUNT_EVERY_S  # its own two, then one a second
    assert told(crowd[0])[-1].spectators == 31 and told(ana)[-1].spectators == 31
    await table.submit(intents.Disconnect(bo))  # a seat's change is not held back
    await settle()
    assert told(first)[-1].seats[1].state == "away" and told(crowd[-1])[-1].seats[1].state == "away"
    await table.stop()


async def test_a_seat_whose_connection_closed_is_told_away_without_a_ping(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    ana, bo = Measured(), Measured()
    for seat, sink in enumerate((ana, bo)):
        await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat, name=f"p{seat}")))
    await settle()
    assert [s.state for s in told(ana)[-1].seats] == ["taken", "taken"]
    assert told(ana)[-1].seats[1].ping_ms == 12.0
    await table.submit(intents.Disconnect(bo))
    await settle()
    seat = told(ana)[-1].seats[1]
    assert (seat.state, seat.name, seat.ping_ms) == ("away", "p1", None)
    await table.stop()


async def test_nothing_is_told_when_nobody_came_or_went(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep", options={"races": 1})
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    before = [len(told(sink)) for sink in sinks]
    mover = table.session.state.turn
    await act(table, sinks[mover], {"type": "draw"})
    assert [len(told(sink)) for sink in sinks] == before  # an action moves no one: no presence
    await table.stop()


async def test_a_reserved_seat_taken_by_its_token_is_told_taken(nursery, autojump_clock):
    reserved = tuple(Reservation(seat, f"player {seat}", token_hash(f"secret-{seat}")) for seat in range(2))
    table = new_table(seats=2, mode="lockstep", reserved=reserved)
    await nursery.start(table.run)
    ana = Sink()
    await table.submit(intents.Resume(ana, Resume(table=table.id, token="secret-0")))
    await settle()
    assert [s.state for s in told(ana)[-1].seats] == ["taken", "away"]
    bo = Sink()
    await table.submit(intents.Resume(bo, Resume(table=table.id, token="secret-1")))
    await settle()
    assert [s.state for s in told(ana)[-1].seats] == ["taken", "taken"]  # not "away" all game
    await table.stop()


async def test_a_finished_table_names_who_played_each_seat_and_reveals_its_seed(nursery, autojump_clock):
    table = new_table(seats=2, options={"window_ms": 50, "races": 1}, seed=4242)
    await nursery.start(table.run)
    ana, bo = Sink(), Sink()
    for seat, sink in enumerate((ana, bo)):
        await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat, name=("Ana", "Bo")[seat])))
    await settle()
    info = table.info()
    assert info.revealed_seed is None  # secret while it plays
    force_state(table, [["F"], ["F"]], [SEQ_R, SEQ_B])
    table.session.state.rows[1][0] = "B0"
    await act(table, ana, Play("F"))
    await table.over.wait()
    for sink in (ana, bo):
        await table.submit(intents.Leave(sink, Leave(table=table.id)))
    await settle()
    info = table.info()
    assert info.status == "over" and info.revealed_seed == "4242"
    assert [(s.state, s.name) for s in info.seats] == [("left", "Ana"), ("left", "Bo")]  # not "free"
    await table.stop()


async def test_a_seat_whose_grace_ran_out_is_told_free_by_the_timer(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep", grace_ms=5_000)
    await nursery.start(table.run)
    ana, bo = Sink(), Sink()
    for seat, sink in enumerate((ana, bo)):
        await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat, name=("Ana", "Bo")[seat])))
    await settle()
    await table.submit(intents.Disconnect(bo))
    await settle()
    assert told(ana)[-1].seats[1].state == "away"
    await trio.sleep(6)  # virtual time: the grace period runs out, a timer frees the seat
    await settle()
    assert (told(ana)[-1].seats[1].state, told(ana)[-1].seats[1].name) == ("free", "")
    await table.stop()
