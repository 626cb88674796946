"""The Race to the Finish's words for people, as data (the template language: ``rules/words.py``): its event
sentences, card names, places on the track and action words. Pure."""

from __future__ import annotations

from typing import Any

from .game import FINISH, SUIT_NAMES, card_name, deck_for

_PIECE = {"seats=2": "{seat|whose} piece {piece|next}", "": "{seat|whose} piece"}  # two pieces each: numbered

EVENTS: dict[str, Any] = {
    "cut": ["cut: {seats|pairs:cards:card}; ",
            {"outcome=dealer & dealer": "{dealer|who} {dealer|verb:deal|deals}, trump is {trump|name:suit}",
             "": "cut again"}],
    "dealt": "deal {deal}: {dealer|who} dealt; {leader|who} {leader|verb:lead|leads}",
    "played": "{seat|who} played {card|card}",
    "trick_won": ["{seat|who} won the trick ({cards|card})",
                  {"sidetracked": ", with a Sidetracked card in it", "": ""}],
    "piece_moved": [_PIECE, {"how=sidetracked": " is sidetracked at {start|name:place}",
                             "how=stays": " stays sidetracked at {start|name:place}",
                             "how=return": " is back on the track at {end|name:place}",
                             "": " moved from {start|name:place} to {end|name:place}"}],
    "timed_out": "{seat|who} ran out of time: the least valuable card was played",
    "trump": "trump is now {trump|name:suit}",
    "game_ended": "game over: {winner|who} {winner|verb:reach|reaches} the Finish first and {winner|verb:win|wins}",
}

CARDS: dict[str, str] = {card: card_name(card) for card in sorted(set(deck_for(4)) | set(deck_for(2)))}

NAMES: dict[str, dict[str, str]] = {
    "suit": dict(SUIT_NAMES),
    "place": {"0": "the start", str(FINISH): "the Finish", "": "track card {}"},
}

ACTIONS: dict[str, Any] = {
    "play": "play {card}", "move": "move piece {piece|next}", "sidetrack": "sidetrack piece {piece|next}",
}

WORDS: dict[str, Any] = {"events": EVENTS, "cards": CARDS, "names": NAMES, "actions": ACTIONS}
