"""A card that stayed on the pile keeps its first offer for a seat that could not take it for a while (red12)."""

from __future__ import annotations

import trio

from server.protocol import Act
from server.table import intents
from tests.positions import plain

from .helpers import force_state
from .test_fairness import TAKE_G5, Seat, fair_table, offer


async def test_a_seat_that_drew_and_discarded_is_not_offered_a_card_on_the_pile_anew(nursery, autojump_clock):
    """G5 has sat on the pile for 2 s. Seat 1 draws and discards (while it must discard it can take nothing),
    then asks for G5 20 ms after seat 0's take of it arrived, both from 1 ms away (red12: G5 was offered to seat
    1 anew after its discard, so its reaction was measured from its own discard's update, 21 ms, against seat
    0's 2 s, and seat 0's take, held while seat 1 might still answer, lost to it). Seat 1's offer is G5's first:
    seat 0's take, there first, takes it at once."""
    honest, cheat = Seat(0.001), Seat(0.001)
    table = await fair_table(nursery, [honest, cheat])
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["G5", "P10"])
    offer(table)
    await trio.sleep(2)
    await table.submit(intents.Act(cheat, Act(table=table.id, action={"type": "draw"}, id="draw")))
    await trio.sleep(0.002)
    drawn = table.session.state.drawn[1]
    await table.submit(intents.Act(cheat, Act(table=table.id, action={"type": "discard", "card": drawn}, id="x")))
    await trio.sleep(0.003)
    await table.submit(intents.Act(honest, Act(table=table.id, action=TAKE_G5, id="honest", seen=table.log.seq)))
    await trio.sleep(0.020)
    await table.submit(intents.Act(cheat, Act(table=table.id, action=TAKE_G5, id="cheat")))
    await trio.sleep(0.5)
    entries = {e.ref: e for e in table.log.entries if e.ref in ("honest", "cheat")}
    assert entries["honest"].accepted and not entries["cheat"].accepted
    assert "G5" in table.session.state.hands[0]
    assert entries["honest"].time == entries["honest"].fair.arrival, "nobody's offer is newer: not held"
    await table.stop()
