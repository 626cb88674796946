"""Bots: pure policies, one heuristic beside each game (``rules/<game>/bot.py``) and a random one for all.

A policy is ``choose(view, legal, rng) -> action``: a function of what one seat may see, the actions it may
take now, and a seeded ``rules.Rng`` for its own choices. It uses only the rules and a view, so the same
policy plays offline against ``rules/``, as a server-side seat, and over the wire through the client library.
"""

from __future__ import annotations

from typing import Any, Callable

from .checkered_flag import bot as checkered_flag
from .contract import RulesError
from .finish_line import bot as finish_line
from .flag_finish import bot as flag_finish
from .flush import bot as flush
from .race_to_the_finish import bot as race_to_the_finish
from . import random_policy
from .rng import Rng

Policy = Callable[[Any, list, Rng], Any]

HEURISTICS: dict[str, Policy] = {
    "checkered_flag": checkered_flag.choose,
    "finish_line": finish_line.choose,
    "flag_finish": flag_finish.choose,
    "flush": flush.choose,
    "race_to_the_finish": race_to_the_finish.choose,
}

POLICY_NAMES = ("random", "heuristic")


def get_policy(game: str, name: str) -> Policy:
    """The policy ``name`` ("random" or "heuristic") for ``game``."""
    if name == "random":
        return random_policy.choose
    if name == "heuristic" and game in HEURISTICS:
        return HEURISTICS[game]
    raise RulesError("unknown_policy", f"no policy {name!r} for {game} (policies: {', '.join(POLICY_NAMES)})")
