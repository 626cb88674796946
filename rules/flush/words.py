"""Flush's words for people, as data (the template language: ``rules/words.py``): its event sentences, card
names and action words. Pure."""

from __future__ import annotations

from typing import Any

from .deck import CARDS as DECK, card_name

EVENTS: dict[str, Any] = {
    "round_dealt": ["round {round} dealt: ", {"mimic": "the Mimic is {mimic|name:value}",
                                              "": "a Flush card was turned, no Mimic"},
                    "; {leader|who} {leader|verb:lead|leads}"],
    "released": ["{seat|who} released {cards|count} × {value|name:value}: {cards|card}",
                 {"bases": " (with the top of Base {bases|next})", "": ""},
                 {"pickup": ", higher than the pile", "": ""}],
    "blind_flipped": ["{seat|who} flipped the Blind card of Base {base|next}: {card|card}",
                      {"pickup": ", higher than the pile", "": ""}],
    "picked_up": "{seat|who} picked up the pile ({cards|count:card})",
    "flushed": ["{seat|who} ", {"gold": "made a Gold Flush", "super": "made a Super Flush", "": "flushed"},
                ": {cards|plural:card} ", {"cards=1": "leaves", "": "leave"}, " the game"],
    "gold_drawn": {"card": "the Gold Flush makes {seat|who} draw a card: {card|card}",
                   "seat=me": "the Gold Flush finds no card for you to draw",
                   "": "the Gold Flush makes {seat|who} draw a card"},
    "base_passed": ["{seat|who} passed Base {base|next} (", {"top": "{top|card}", "": "no top card"},
                    {"blind": ", a Blind card", "": ""}, ") to {to|who}"],
    "skipped": "{seats|seats} {seats|verb:are|is} skipped (a Skip card)",
    "round_ended": ["round {round} over: ",
                    {"winner": "{winner|who} went out first", "": "nobody went out (turn limit)"},
                    {"bonus=0": "", "": ", {bonus|plural:Bonus card}"},
                    ". Points: {scores|by_seat}; totals: {totals|by_seat}",
                    {"eliminated": "; out of the game: {eliminated|seats}", "": ""}],
    "timed_out": "{seat|who} ran out of time: the least harmful play was made",
    "match_ended": ["game over: ", {"winners": "{winners|seats} won", "": "nobody won"},
                    ". Totals {totals|by_seat}"],
}

CARDS: dict[str, str] = {card: card_name(card) for card in sorted(DECK)}

NAMES: dict[str, dict[str, str]] = {
    "value": {"F": "Flush", "": "{}"},
}

ACTIONS: dict[str, Any] = {}

WORDS: dict[str, Any] = {"events": EVENTS, "cards": CARDS, "names": NAMES, "actions": ACTIONS}
