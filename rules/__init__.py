"""Pure, deterministic, sans-I/O game engines and the one contract they all follow.

Nothing under ``rules/`` imports trio, time, random, sockets or files (a test checks it).
"""

from .contract import (
    CHANCE,
    SYSTEM,
    Game,
    GameInfo,
    OptionSpec,
    Result,
    RulesError,
    Setup,
    ToAct,
    digest,
    make_setup,
    places,
    resolve_options,
    tag_of,
)
from .registry import GAMES, get_game
from .rng import Rng, derive
from .session import Session, Step, copy_state, replay, restore, verify_chance

__all__ = [
    "CHANCE", "SYSTEM", "GAMES", "Game", "GameInfo", "OptionSpec", "Result", "Rng", "RulesError", "derive", "Session",
    "Setup", "Step", "ToAct", "copy_state", "digest", "get_game", "make_setup", "places", "replay", "resolve_options",
    "restore", "tag_of",
    "verify_chance",
]
