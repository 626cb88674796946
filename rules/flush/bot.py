"""The Flush heuristic: shed many cards without picking up, finish flushes, keep Mimics and Flush cards for
when they flush or save a big pick-up, aim Skips and Super Flushes, pass the heaviest Base.

A pure policy over the seat's view: it scores every legal action and takes the best (ties by the seeded rng).
"""

from __future__ import annotations

from typing import Any

from rules import Rng
from rules.flush.deck import RANK, SKIPS, VALUE, card_points
from rules.flush.game import FLUSH_RUN, SUPER_RUN, Blind, PassBase, Release, Stop, is_pickup

DEFAULT_POINTS = {"flush_points": 15, "gold_points": 25}


def choose(view: Any, legal: list, rng: Rng) -> Any:
    best = max(_score(view, action) for action in legal)
    return rng.choice([action for action in legal if _score(view, action) == best])


def _score(view: Any, action: Any) -> float:
    seat = view.seat
    kind = type(action)
    if kind is PassBase:
        top = view.tops[seat][action.base]
        return (card_points(top, DEFAULT_POINTS) if top else 0) + 8 * view.blinds[seat][action.base]
    if kind is Stop:
        return 0.0
    pile = sum(len(play.cards) for play in view.pile)
    if kind is Blind:
        return 0.5 - 0.2 * pile  # a gamble: cheap on a small pile
    assert kind is Release
    cards = list(action.hand) + [view.tops[seat][b] for b in action.bases]
    held = len(view.hand or []) + sum(c is not None for c in view.tops[seat]) + sum(view.blinds[seat])
    if len(cards) == held:
        return 1000.0  # out: the round is won
    value = action.value
    top = view.top_value
    mimics = sum(VALUE[c] == view.mimic for c in cards) if view.mimic and value != view.mimic else 0
    pickup = not view.flipped and is_pickup(top, value)
    run = len(cards) + (view.run if value == top and not pickup else 0)
    if view.flipped:
        run = view.run + len(cards)
    flushes = value == "F" or run >= FLUSH_RUN
    score = float(len(cards))
    if flushes:
        score += 4 + 0.3 * pile
        if run >= SUPER_RUN and view.previous not in (-1, seat):
            score += 4
        score -= 1.0 * mimics
        if value == "F":
            score -= 6 - min(pile, 6)  # a Flush card is best spent saving a pick-up
    else:
        score -= 2.5 * mimics
        score += 0.7 * sum(c in SKIPS for c in cards)
        if not pickup and value != "F":
            score += RANK[value] / 10  # high cards are hard to place later: shed them while the pile allows
    if pickup:
        score -= 1.2 * pile + 2
    return score
