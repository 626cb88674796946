"""Flag Finish's words for people, as data (the template language: ``rules/words.py``): its event sentences,
card names, action words and phases. Pure."""

from __future__ import annotations

from typing import Any

from .game import DECK, card_name

EVENTS: dict[str, Any] = {
    "race_dealt": ["race {race} dealt: flipped ", {"flips": "{flips|cards}", "": "nothing"},
                   " onto the discard pile; {starter|who} {starter|verb:start|starts}"],
    "misdealt": "race {race}: no green card came up, so it is dealt again",
    "drew": {"card": "{seat|who} drew {card|card} from the draw pile", "": "{seat|who} drew from the draw pile"},
    "took": "{seat|who} took {card|card} from the discard pile",
    "discarded": "{seat|who} discarded {card|card}",
    "played": "{seat|who} played {card|card}",
    "finished": ["{seat|who} finished the row with the flag (",
                 {"cards_left=0": "no cards left", "": "{cards_left|plural:card} left"}, ", {greens} green)",
                 {"window_open": "; the photo-finish window is open", "": ""}],
    "race_ended": ["race {race}: ",
                   {"winners": "{winners|seats} finished first", "finishers": "{finishers|seats} finished",
                    "": "nobody finished (action limit)"},
                   ". Scores {scores|by_seat}"],
    "match_ended": ["game over: ", {"winners": "{winners|seats} won", "": "nobody won"},
                    ". Totals {totals|by_seat}"],
}

CARDS: dict[str, str] = {card: card_name(card) for card in sorted(set(DECK))}

NAMES: dict[str, dict[str, str]] = {
    "phase": {"deal": "dealing", "play": "racing", "window": "photo-finish window open", "over": "game over"},
}

ACTIONS: dict[str, Any] = {
    "draw": "draw", "take": "take {card}", "discard": "discard {card}", "play": "play {card}",
}

WORDS: dict[str, Any] = {"events": EVENTS, "cards": CARDS, "names": NAMES, "actions": ACTIONS}
