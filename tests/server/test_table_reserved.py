"""A tournament's table: seats reserved for players' tokens, a stand-in bot for a no-show, the player taking
their seat back, and a table halted as it stands when a round's time runs out (in virtual time)."""

from __future__ import annotations

from rules import get_game
from server.protocol import Rejected, Resume, Seated, Snapshot, TableEnded
from server.table import Reservation, intents, token_hash

from .helpers import Sink, act, new_table, settle

FLAG_FINISH = get_game("flag_finish")


def reserved_table(**kwargs):
    reservations = [Reservation(seat, f"player {seat}", token_hash(f"token-{seat}")) for seat in range(2)]
    return new_table(seats=2, reserved=reservations, stand_in="heuristic", grace_ms=30_000, bot_delay_ms=1000,
                     **kwargs)


async def test_reserved_seats_start_the_game_and_belong_to_their_tokens(nursery, autojump_clock):
    table = reserved_table()
    await nursery.start(table.run)
    assert table.started  # nobody has to take a free seat: every seat is someone's
    assert [s.state for s in table.info().seats] == ["away", "away"]
    assert [s.name for s in table.info().seats] == ["player 0", "player 1"]
    sink = Sink()
    await table.submit(intents.Resume(sink, Resume(table="t1", token="token-1")))
    await settle()
    assert sink.of(Seated)[0].seat == 1 and sink.of(Snapshot)
    wrong = Sink()
    await table.submit(intents.Resume(wrong, Resume(table="t1", token="token-9")))
    await settle()
    assert not wrong.of(Seated) and wrong.messages[0].code == "bad_token"
    await table.stop()


async def test_a_no_show_is_played_by_a_stand_in_who_hands_the_seat_back(nursery, autojump_clock):
    import trio

    table = reserved_table()
    await nursery.start(table.run)
    present = Sink()
    await table.submit(intents.Resume(present, Resume(table="t1", token="token-0")))
    await settle()
    await trio.sleep(29)
    assert table.slots[1].state == "away"
    await trio.sleep(2)  # seat 1's grace has run out: a stand-in plays it
    await settle()
    assert table.slots[1].state == "stand_in" and table.slots[1].stood_in
    assert table.info().seats[1].state == "stand_in"
    seq_before = table.log.seq
    await trio.sleep(5)
    assert any(e.actor == 1 and e.accepted for e in table.log.entries[seq_before:])  # the stand-in plays
    back = Sink()
    await table.submit(intents.Resume(back, Resume(table="t1", token="token-1", last_seq=table.log.seq)))
    await settle()
    assert back.of(Seated)[0].seat == 1 and table.slots[1].state == "taken"
    assert table.slots[1].stood_in  # still marked: a tournament places it last
    seq_back = table.log.seq
    await trio.sleep(5)
    assert not any(e.actor == 1 for e in table.log.entries[seq_back:])  # the bot stopped with the hand-over
    await table.stop()


async def test_a_halted_table_is_placed_as_it_stands_and_takes_no_action(nursery, autojump_clock):
    table = reserved_table()
    await nursery.start(table.run)
    sinks = [Sink(), Sink()]
    for seat, sink in enumerate(sinks):
        await table.submit(intents.Resume(sink, Resume(table="t1", token=f"token-{seat}")))
    await settle()
    await table.halt("time_limit")
    await settle()
    expected = list(FLAG_FINISH.standing(table.session.state))
    assert table.over.is_set() and table.places() == expected
    assert table.info().status == "over"
    for sink in sinks:
        ended = sink.of(TableEnded)
        assert ended and ended[0].places == expected and ended[0].reason == "time_limit"
    seq = table.log.seq
    await act(table, sinks[0], {"type": "draw"})
    assert sinks[0].of(Rejected)[-1].code == "table_over"
    assert not [e for e in table.log.entries[seq:] if e.accepted]
    await table.stop()
