"""Flag Finish positions for tests: chosen cards in the hands, rows and discard pile, the rest in the draw pile."""

from __future__ import annotations

from collections import Counter

from rules.flag_finish.game import DECK, GREEN, invariant


def plain(n: int, avoid=()) -> list[str]:
    """n plain cards (never green, never a flag, never the P10 kept for the discard pile) not in ``avoid``."""
    pool = [c for c in DECK if c not in GREEN and c not in ("F", "P10") and c not in avoid]
    return pool[:n]


def place(state, hands, rows=None, discard=("P10",), turn: int = 0) -> None:
    """Put a race in play at a chosen position; every card not placed goes to the draw pile."""
    state.hands = [list(h) for h in hands]
    state.rows = [list(r) for r in (rows or [[] for _ in hands])]
    state.discard = list(discard)
    used = Counter(state.discard)
    for cards in state.hands + state.rows:
        used.update(cards)
    state.draw = sorted((Counter(DECK) - used).elements())
    state.drawn = [None] * len(hands)
    state.phase, state.race, state.turn = "play", max(state.race, 1), turn
    assert invariant(state) == []
