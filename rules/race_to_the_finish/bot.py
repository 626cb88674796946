"""The Race to the Finish heuristic: lead its strongest card (Suit Yourself, then its best trump), win clean
tricks as cheaply as it can, never win a trick holding a Sidetracked card, and play a Sidetracked card into a
trick that a rival at least as far along is winning. In the two-seat game it brings a sidetracked piece back
first and sidetracks the opponent's best-placed piece.

A pure, deterministic policy over the seat's view."""

from __future__ import annotations

from typing import Any

from rules import Rng
from rules.race_to_the_finish.game import (SIDETRACKED, SUIT_YOURSELF, MovePiece, SidetrackPiece, number,
                                           suit, trick_winner)


def choose(view: Any, legal: list, rng: Rng) -> Any:
    first = legal[0]
    if type(first) is MovePiece:
        return _move(view, legal)
    if type(first) is SidetrackPiece:
        mover = view.pieces[view.mover]
        return max(legal, key=lambda a: mover[a.piece])  # sidetrack the opponent's best-placed piece
    cards = [a.card for a in legal]
    card = _card(view, cards)
    return next(a for a in legal if a.card == card)


def _move(view: Any, legal: list) -> Any:
    mine = view.pieces[view.seat]
    off = view.sidetracked[view.seat]
    return max(legal, key=lambda a: (off[a.piece], -mine[a.piece]))  # bring one back, else the hindmost on


def _value(view: Any, card: str) -> int:
    if card == SUIT_YOURSELF:
        return 100
    if card == SIDETRACKED:
        return 30
    return number(card) + (50 if suit(card) == view.trump else 0)


def _progress(view: Any, seat: int) -> int:
    return max(view.pieces[seat])


def _card(view: Any, cards: list[str]) -> str:
    me = view.seat
    trick, seats = list(view.trick), list(view.trick_seats)
    cheapest = lambda options: min(options, key=lambda c: (_value(view, c), c))  # noqa: E731
    if not trick:
        if SUIT_YOURSELF in cards:
            return SUIT_YOURSELF
        numbered = [c for c in cards if suit(c)]
        return max(numbered or cards, key=lambda c: _value(view, c))
    winning = [c for c in cards if trick_winner(trick + [c], seats + [me], view.trump) == me]
    losing = [c for c in cards if c not in winning]
    if SIDETRACKED in trick:
        return cheapest(losing) if losing else cheapest(cards)
    if winning:
        return cheapest(winning)
    current = trick_winner(trick, seats, view.trump)
    if SIDETRACKED in cards and current != me and _progress(view, current) >= _progress(view, me):
        return SIDETRACKED
    keep = [c for c in losing if c != SIDETRACKED]
    return cheapest(keep or losing or cards)



