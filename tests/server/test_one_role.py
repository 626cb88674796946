"""One connection, one role at a table: a spectator who sits down watches no more (a seat never goes on getting
the broadcast view, every hand, it watched with the key), and a connection holds one seat (a resume with a
second seat's token is refused as a second ``take_seat`` is)."""

from __future__ import annotations

import trio

from server.protocol import BotSeat, BroadcastView, Error, Resume, Seated, Snapshot, TakeSeat, Update, Watch
from server.table import intents
from server.table.seats import token_hash

from .helpers import Sink, new_table, seat_all, settle

DELAY_MS = 2_000


async def test_a_broadcast_spectator_who_takes_a_seat_is_never_sent_another_hand(nursery, autojump_clock):
    table = new_table(seats=2, bots=[BotSeat(1)], options={"races": 1}, bot_delay_ms=200,
                      spectator_delay_ms=DELAY_MS, broadcast_key_hash=token_hash("the key"))
    await nursery.start(table.run)
    creator = Sink()
    await table.submit(intents.Watch(creator, Watch(table="t1", broadcast_key="the key")))  # before sitting
    await settle()
    assert creator in table.stream.broadcasters
    await table.submit(intents.TakeSeat(creator, TakeSeat(table="t1", seat=0)))
    await settle()
    assert creator.of(Seated), "it sits"
    seated_at = len(creator.messages)
    await trio.sleep(DELAY_MS / 1000 + 5)  # the game goes on past the delay: the broadcast shows every hand
    after = creator.messages[seated_at:]
    assert [m for m in after if type(m) is Update and m.view is not None], "it is sent its seat's updates"
    assert not [m for m in after if type(m) in (Update, Snapshot) and type(m.view) is BroadcastView]
    assert creator not in table.stream.broadcasters and creator not in table.spectators


async def test_a_spectator_who_sits_down_is_sent_each_update_once(nursery, autojump_clock):
    table = new_table(seats=2, bots=[BotSeat(1)], options={"races": 1}, bot_delay_ms=200)
    await nursery.start(table.run)
    person = Sink()
    await table.submit(intents.Watch(person, Watch(table="t1")))
    await settle()
    await table.submit(intents.TakeSeat(person, TakeSeat(table="t1", seat=0)))
    await trio.sleep(3)
    seqs = [m.seq for m in person.of(Update)]
    assert seqs and len(seqs) == len(set(seqs)), "no update comes twice, once as a seat and once as a spectator"


async def test_a_resume_with_a_second_seats_token_is_refused_and_replaces_nobody(nursery, autojump_clock):
    table = new_table(seats=2)
    await nursery.start(table.run)
    first, second = await seat_all(table, 2)
    token = second.of(Seated)[-1].token
    await table.submit(intents.Resume(first, Resume(table="t1", token=token, id="r")))
    await settle()
    refused = first.of(Error)[-1]
    assert (refused.ref, refused.code) == ("r", "already_seated")
    assert second.closed is None, "the seat's own connection keeps it"
    assert [slot.receiver for slot in table.slots] == [first, second]
