"""Checkered Flag's words for people, as data (the template language: ``rules/words.py``): its event
sentences, gears and action words. Pure."""

from __future__ import annotations

from typing import Any

EVENTS: dict[str, Any] = {
    "start_spun": ["start spins: {seats|pairs:totals}; ",
                   {"order": "the order is {order|seats}", "": "a tie, spin again"}],
    "shifted": "{seat|who} shifted to {gear|name:gear}",
    "spun": "{seat|who} spun {a} and {b}: move {move}",
    "braking": ["{seat|who} ", {"forced": "had to brake", "": "braked"},
                " {spaces|plural:space}, stopping on space {stop}"],
    "crash_check": ["crash check for {seat|who} (",
                    {"reason=danger": "entering a danger zone", "": "braking hard"},
                    "): spinner B shows {b}, ", {"crashed": "CRASH", "": "safe"}],
    "moved": "{seat|who} moved from space {start} to space {end}",
    "crashed": "{seat|who} crashed on space {at} and {seat|verb:lose|loses} {turns_lost|plural:turn}",
    "turn_lost": "{seat|who} {seat|verb:sit|sits} out a turn after the crash ({remaining} more)",
    "timed_out": "{seat|who} ran out of time: the safe default move was made",
    "race_won": {"reason=turn_limit": "turn limit reached: {seat|who} {seat|verb:are|is} furthest ahead and "
                                      "{seat|verb:win|wins}",
                 "": "{seat|who} crossed the finish line and won the race"},
}

NAMES: dict[str, dict[str, str]] = {
    "gear": {"0": "neutral", "1": "1st gear", "2": "2nd gear", "3": "3rd gear", "": "gear {}"},
    "gear_short": {"0": "Neutral", "1": "1st", "2": "2nd", "3": "3rd", "": "{}"},
}

ACTIONS: dict[str, Any] = {
    "shift": {"gear=now": "stay in {gear|name:gear_short}", "": "shift to {gear|name:gear_short}"},
    "go": "go", "brake": "brake to stop on space {stop}",
}

WORDS: dict[str, Any] = {"events": EVENTS, "cards": {}, "names": NAMES, "actions": ACTIONS}
