"""Flush's deck: the one data file for the card faces the rule text lost (``shared/RULES-NOTES.md``).

A card is a short string:

- ``"1"`` .. ``"10"``: a plain number card (six of each value);
- ``"1S"`` .. ``"10S"``: the Skip card of that value (one of each);
- ``"1B"`` .. ``"10B"``: the Bonus card of that value (one of each);
- ``"F"``: a Flush card (nine); ``"G"``: the Gold Flush (one).

A card's *value* is ``"1"`` .. ``"10"`` or ``"F"`` (both Flush cards). Points are options of the table
(``POINT_OPTIONS``); the composition below is fixed because the rule text fixes it (8 of each value, 10 Flush
cards).
"""

from __future__ import annotations

from collections import Counter

VALUES: tuple[str, ...] = tuple(str(n) for n in range(1, 11))
FLUSH_VALUE = "F"
FLUSH = "F"
GOLD = "G"
COPIES_PER_VALUE = 8  # of which one Skip and one Bonus
FLUSH_CARDS = 10  # of which one Gold Flush

DECK: tuple[str, ...] = tuple(
    card
    for value in VALUES
    for card in ([value] * (COPIES_PER_VALUE - 2) + [value + "S", value + "B"])
) + (FLUSH,) * (FLUSH_CARDS - 1) + (GOLD,)
DECK_COUNT = Counter(DECK)
CARDS: frozenset[str] = frozenset(DECK)

VALUE: dict[str, str] = {card: (FLUSH_VALUE if card in (FLUSH, GOLD) else card.rstrip("SB")) for card in CARDS}
RANK: dict[str, int] = {value: int(value) for value in VALUES}  # Flush is never ranked: it is not "higher"
SKIPS = frozenset(card for card in CARDS if card.endswith("S"))
BONUSES = frozenset(card for card in CARDS if card.endswith("B"))

# Default points (table options of the same names): a number card scores its value.
POINT_OPTIONS = {
    "flush_points": 15,  # a Flush card held at the end of a round
    "gold_points": 25,  # the Gold Flush held at the end of a round
    "bonus_points": 15,  # deducted per Bonus card released on the winning turn
    "mimic_factor": 3,  # a held Mimic scores this many times its points
}


def card_points(card: str, options: dict) -> int:
    """What ``card`` scores in hand at the end of a round, before the Mimic factor."""
    if card == GOLD:
        return options["gold_points"]
    if card == FLUSH:
        return options["flush_points"]
    return RANK[VALUE[card]]


def card_name(card: str) -> str:
    """'7' -> '7'; '7S' -> '7 Skip'; '7B' -> '7 Bonus'; 'F' -> 'Flush'; 'G' -> 'Gold Flush'."""
    if card == GOLD:
        return "Gold Flush"
    if card == FLUSH:
        return "Flush"
    if card in SKIPS:
        return f"{card[:-1]} Skip"
    if card in BONUSES:
        return f"{card[:-1]} Bonus"
    return card


def sort_key(card: str) -> tuple[int, str]:
    value = VALUE[card]
    return (RANK.get(value, 11), card)
