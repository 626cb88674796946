"""A broadcast delay holds against what a red team tried (issue 35: "nothing they see arrives before the delay
allows"): who is at the table is told to spectators and listed behind the delay too, a delay in moves counts only
accepted moves, a delayed table's freed seat is not a way to see it live, and a tournament's seat is never free
for whoever asks. In virtual time."""

from __future__ import annotations

import trio

from server.protocol import (BotSeat, Error, Leave, Left, Presence, Resume, Seated, Snapshot, TakeSeat, Update,
                             Watch)
from server.table import Reservation, intents, token_hash

from .helpers import Sink, act, my_turns, new_table, settle

DELAY_MS = 5_000


async def take(table, sink: Sink, seat: int | None = 0) -> None:
    await table.submit(intents.TakeSeat(sink, TakeSeat(table="t1", seat=seat)))
    await settle()


async def leave(table, sink: Sink) -> None:
    await table.submit(intents.Leave(sink, Leave(table="t1")))
    await settle()


def seat_states(presence: Presence) -> list[str]:
    return [seat.state for seat in presence.seats]


async def test_a_player_who_leaves_as_the_game_ends_is_shown_to_spectators_and_listed_only_past_the_delay(
        nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(1), BotSeat(2)], options={"races": 3}, bot_delay_ms=500,
                      spectator_delay_ms=DELAY_MS)
    await nursery.start(table.run)
    person, spectator = Sink(), Sink()
    await table.submit(intents.Watch(spectator, Watch(table="t1")))
    await take(table, person)
    await trio.sleep(2)
    before = len(spectator.of(Presence))  # (told as the seat was taken)
    await table.halt("time_limit")  # the game ends ...
    await leave(table, person)  # ... and its player leaves at once: "left" exists only at an ended table
    assert table.over.is_set() and person.of(Left)
    ended_at = trio.current_time()
    while not table.end_shown():
        told = spectator.of(Presence)[before:]
        assert all(seat_states(p)[0] == "taken" for p in told), "the end told by a seat's state"
        assert table.info().seats[0].state == "taken" and table.info().status == "playing"
        await trio.sleep(0.25)
    assert trio.current_time() - ended_at >= DELAY_MS / 1000 - 0.25
    await settle()
    assert seat_states(spectator.of(Presence)[-1])[0] == "left"  # told, past the delay
    assert table.info().seats[0].state == "left" and table.info().status == "over"


async def test_refused_actions_do_not_bring_an_entries_delay_nearer_the_table(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep", bots=[BotSeat(1)], options={"races": 1}, bot_delay_ms=1_000,
                      spectator_delay_entries=2)
    await nursery.start(table.run)
    person, spectator = Sink(), Sink()
    await table.submit(intents.Watch(spectator, Watch(table="t1")))
    await take(table, person)
    async for latest in my_turns(person, 4, pause=0.5):
        await act(table, person, latest.legal[0])
        for _ in range(3):  # junk: each refused, each an entry in the log
            await act(table, person, latest.legal[0])
        accepted = [e.seq for e in table.log.entries if e.accepted]
        assert table.log.seq > accepted[-1]  # (refusals came after the last move)
        shown = max([m.seq for m in spectator.messages if type(m) in (Update, Snapshot)], default=0)
        assert shown <= (accepted[-3] if len(accepted) > 2 else 0), "shown one of the last two moves"
    assert not table.over.is_set()


async def test_a_delayed_tables_freed_seat_is_not_taken_once_its_game_has_begun(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(1), BotSeat(2)], options={"races": 3}, bot_delay_ms=500,
                      spectator_delay_ms=DELAY_MS)
    await nursery.start(table.run)
    person, outsider = Sink(), Sink()
    await take(table, person)
    await trio.sleep(2)
    await leave(table, person)
    assert table.slots[0].state == "free" and not table.over.is_set()
    await take(table, outsider, seat=None)
    refused = outsider.of(Error)
    assert refused and refused[0].code == "seat_closed" and "watch it instead" in refused[0].message
    assert not outsider.of(Seated) and not outsider.of(Snapshot) and not outsider.of(Update)  # nothing live
    assert table.slots[0].state == "free"


async def test_a_tournament_players_seat_stays_theirs_when_they_leave(nursery, autojump_clock):
    reservations = [Reservation(seat, f"player {seat}", token_hash(f"token-{seat}")) for seat in range(2)]
    table = new_table(seats=2, reserved=reservations, stand_in="heuristic", grace_ms=30_000, bot_delay_ms=1000)
    await nursery.start(table.run)
    ana, ben, outsider = Sink(), Sink(), Sink()
    for sink, token in ((ana, "token-0"), (ben, "token-1")):
        await table.submit(intents.Resume(sink, Resume(table="t1", token=token)))
    await settle()
    await leave(table, ana)
    assert ana.of(Left) and table.slots[0].state == "away" and table.slots[0].name == "player 0"
    await take(table, outsider)
    assert outsider.of(Error)[0].code == "seat_taken" and not outsider.of(Seated)
    await take(table, outsider, seat=None)
    assert outsider.of(Error)[1].code == "table_full"
    back = Sink()
    await table.submit(intents.Resume(back, Resume(table="t1", token="token-0")))
    await settle()
    assert back.of(Seated)[0].seat == 0  # theirs again, by their token
    await table.stop()


async def test_a_seated_connection_cannot_also_watch_its_table(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(1), BotSeat(2)], options={"races": 3}, bot_delay_ms=500)
    await nursery.start(table.run)
    person = Sink()
    await take(table, person)
    await table.submit(intents.Watch(person, Watch(table="t1")))
    await settle()
    assert person.of(Error)[-1].code == "already_seated" and person not in table.spectators
    await table.stop()
