"""Finish Line's words for people, as data (the template language: ``rules/words.py``): its event sentences,
card names, squares and action words. Pure."""

from __future__ import annotations

from typing import Any

from .game import DECK, FINISH, card_name

_MARKER = "{seat|whose} marker {marker|next}"

EVENTS: dict[str, Any] = {
    "board_dealt": ["the board is dealt", {"reinserted": " ({reinserted|count:card} went back into the deck)",
                                           "": ""}],
    "rolled": ["{seat|who} rolled red {red}, black {black} ({purpose|name:purpose})",
               {"stop": ", stop value {stop}", "": ""}],
    "marker_moved": _MARKER + " moved from {start|name:square} to {end|name:square} {how|name:how}",
    "no_move": "{seat|who} cannot use the {die} {value}",
    "activation": [_MARKER, {"activated": " activated ", "": " did not activate "}, "{card|card}"],
    "attack": [_MARKER + " attacked on square {at}",
               {"hit": ": hit, sent back {back}", "": " and missed"}],
    "marker_home": _MARKER + " is home",
    "timed_out": "{seat|who} ran out of time: the first legal move was made",
    "seat_finished": "{seat|who} finished {place|ordinal}",
    "game_ended": ["game over", {"reason=turn_limit": " (turn limit)", "": ""},
                   ": places {places|by_seat:ordinal}"],
}

CARDS: dict[str, str] = {card: card_name(card) for card in sorted(set(DECK))}

NAMES: dict[str, dict[str, str]] = {
    "square": {"0": "the start", str(FINISH): "home", "": "square {}"},
    "purpose": {"move": "to move", "activate": "to activate a card", "attack": "to attack", "": "{}"},
    "how": {"red": "by the red die", "black": "by the black die", "attack": "by an attack", "ace": "by an ace",
            "two": "by a two", "king": "by a king", "queen": "brought by a queen", "jack": "pulled back by a jack",
            "": "by {}"},
}

ACTIONS: dict[str, Any] = {
    "move": "move marker {marker|next} by the {die} die",
    "pick": {"seat=me": "pick your marker {marker|next}", "": "pick {seat|whose} marker {marker|next}"},
}

WORDS: dict[str, Any] = {"events": EVENTS, "cards": CARDS, "names": NAMES, "actions": ACTIONS}
