"""Fair ordering across a race boundary (red12): a new race's deal offers every card of its pile anew."""

from __future__ import annotations

import trio

from rules import CHANCE

from server.protocol import Act
from server.table import intents
from tests.positions import plain

from .helpers import SEQ_B, force_state
from .test_fairness import Seat, fair_table, offer


async def finish_race_one(table, seats) -> list[str]:
    """Seat 1 finishes race 1 while seat 0 still races with a large discard pile listed (every card not in a
    hand or row): the window closes and race 2 is dealt in one group. Returns race 1's discard pile."""
    hand0 = plain(12, avoid=SEQ_B + ["F"])
    from rules.flag_finish.game import DECK
    from collections import Counter
    rest = Counter(DECK) - Counter(hand0) - Counter(SEQ_B) - Counter(["F"])
    pile = sorted(rest.elements())
    force_state(table, [hand0, ["F"]], [[], SEQ_B], discard=pile)
    offer(table)
    await trio.sleep(1)  # seat 0 has had the pile listed for a second
    await table.submit(intents.Act(seats[1], Act(table=table.id, action={"type": "play", "card": "F"}, id="flag",
                                                 seen=table.log.seq)))
    await trio.sleep(0.5)
    assert table.session.state.race == 2, "race 2 dealt"
    return pile


async def test_a_card_of_the_old_pile_dealt_again_is_offered_anew_to_every_seat(nursery, autojump_clock):
    """Race 2's pile holds cards race 1's pile held too. Seat 0 had them listed at race 1's end; seat 1 (which
    had finished) had not. Both take one such card after race 2's deal, seat 0 in 5 ms and seat 1 in 20 ms,
    from the same distance: seat 0 reacted first and takes it (red12: its offer kept race 1's send time, so
    its reaction looked a second long and it lost every such card to any seat with nothing listed at the
    close: a finisher, or a seat that drew just before it)."""
    seats = [Seat(0.001), Seat(0.001)]
    table = await fair_table(nursery, seats, options={"window_ms": 10, "races": 2})
    old = await finish_race_one(table, seats)
    state = table.session.state
    again = [card for card in state.discard if card in old and card != "F"]
    assert again, "the seed deals race 2 a card race 1's pile held"
    card = again[-1]
    seq = table.log.seq
    start = trio.current_time()

    async def take(index: int, reaction: float) -> None:
        await trio.sleep_until(start + 0.001 + reaction + 0.001)
        await table.submit(intents.Act(seats[index], Act(table=table.id, action={"type": "take", "card": card},
                                                         id=f"t{index}", seen=seq)))

    async with trio.open_nursery() as racers:
        racers.start_soon(take, 0, 0.005)
        racers.start_soon(take, 1, 0.020)
    await trio.sleep(0.5)
    taken = {e.actor: e for e in table.log.entries if e.ref in ("t0", "t1")}
    assert taken[0].accepted and not taken[1].accepted, (taken[0].fair, taken[1].fair)
    assert taken[0].fair.sent > 1.0, "measured from race 2's deal, not from race 1's pile"
    await table.stop()


async def test_takes_of_the_old_piles_cards_after_a_deal_are_no_late_takes(nursery, autojump_clock):
    """Right after race 2's deal seat 0 asks for race 1's pile card by card, without ``seen`` (red12: a card
    of the old pile had left a moment ago, so one take of each was a free late take; one that race 2 dealt
    again was won in no reaction at all): a card race 2 did not deal is a guess, counted; one chosen on race
    1 (``seen`` before the deal) is too early."""
    seats = [Seat(0.001), Seat(0.001)]
    table = await fair_table(nursery, seats, options={"window_ms": 10, "races": 2})
    old = await finish_race_one(table, seats)
    deal = max(e.seq for e in table.log.entries if e.actor == CHANCE)
    gone = [card for card in old if card not in table.session.state.discard][:5]
    again = [card for card in table.session.state.discard if card in old and card != "F"]
    for index, card in enumerate(gone):
        await table.submit(intents.Act(seats[0], Act(table=table.id, action={"type": "take", "card": card},
                                                     id=f"g{index}")))
    await table.submit(intents.Act(seats[0], Act(table=table.id, action={"type": "take", "card": again[0]},
                                                 id="old", seen=deal - 1)))
    await trio.sleep(0.5)
    assert table.slots[0].guesses == len(gone) + 1
    old_take = next(e for e in table.log.entries if e.ref == "old")
    assert not old_take.accepted and old_take.fair.rule == "too_early"
    await table.stop()
