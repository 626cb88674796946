"""A seat's states move only along the table in ``server/table/seats.py``; anything else is a bug and says so."""

from __future__ import annotations

import pytest

from server.protocol import Act, Leave, Resume, TakeSeat, Watch
from server.table import intents
from server.table.seats import AWAY, BOT, FREE, MOVES, STAND_IN, TAKEN, SeatSlot, free, move, take


def test_a_player_takes_leaves_and_comes_back_along_the_listed_moves():
    slot = SeatSlot(0)
    take(slot, "Ana", "hash", receiver=object())
    assert slot.state == TAKEN and slot.state == "taken" and slot.name == "Ana"
    move(slot, AWAY)
    move(slot, STAND_IN)
    move(slot, TAKEN)
    free(slot)
    assert slot.state == FREE and slot.name == "" and slot.token_hash is None and slot.receiver is None


@pytest.mark.parametrize("start, to", [(FREE, STAND_IN), (BOT, FREE), (BOT, TAKEN), (STAND_IN, FREE), (FREE, FREE)])
def test_a_move_the_table_does_not_list_is_refused_and_changes_nothing(start, to):
    assert (start, to) not in MOVES
    slot = SeatSlot(1, state=start)
    with pytest.raises(ValueError, match=f"seat 1 cannot go from {start} to {to}"):
        move(slot, to)
    assert slot.state == start


def test_every_table_message_of_a_client_has_its_intent():
    assert set(intents.FOR_MESSAGE) == {Act, TakeSeat, Resume, Watch, Leave}
    assert all(kind in intents.FROM_CLIENT for kind in intents.FOR_MESSAGE.values())
