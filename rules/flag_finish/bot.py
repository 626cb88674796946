"""The Flag Finish heuristic bot.

It plays the next card whenever it can (a green one first: greens break a photo finish), otherwise takes
the nearest card it lacks from the open discard pile, otherwise draws blind; and it discards what it needs
last: cards its row has passed, then spare copies of a rank, then the rank furthest from being played.
"""

from __future__ import annotations

from rules import Rng
from rules.flag_finish.game import GREEN, RANK, SEQUENCE, DrawPile, Play, TakeDiscard, View


def _keep_value(card: str, hand: list[str], need: int) -> float:
    """How much a card in hand is worth keeping (higher: keep)."""
    rank = RANK[card]
    if rank < need:
        return -100.0  # the row has passed it
    same = [c for c in hand if RANK[c] == rank]
    keeper = max(same, key=lambda c: (c in GREEN, c))
    if card != keeper:
        return -50.0  # a spare copy of a rank already held
    return -(rank - need) + (0.5 if card in GREEN else 0.0)


def choose(view: View, legal: list, rng: Rng):
    hand = view.hand or []
    need = len(view.rows[view.seat])
    if view.drawn is not None:
        worst = min(hand, key=lambda c: (_keep_value(c, hand, need), c))
        return next(a for a in legal if a.card == worst)
    plays = [a for a in legal if type(a) is Play]
    if plays:
        return max(plays, key=lambda a: (a.card in GREEN, a.card))
    held = {RANK[c] for c in hand}
    takes = {a.card: a for a in legal if type(a) is TakeDiscard}
    for rank in range(need, SEQUENCE):
        if rank in held:
            continue
        wanted = [card for card in takes if RANK[card] == rank]
        if wanted:
            return takes[max(wanted, key=lambda c: (c in GREEN, c))]
        break  # only the nearest missing rank is worth a blind-draw-beating take
    draws = [a for a in legal if type(a) is DrawPile]
    if draws:
        return draws[0]
    missing = [r for r in range(need, SEQUENCE) if r not in held]
    for rank in missing:
        wanted = [card for card in takes if RANK[card] == rank]
        if wanted:
            return takes[wanted[0]]
    return rng.choice(legal)
