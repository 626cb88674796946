"""The random legal bot, for every game: any legal action, uniformly."""

from __future__ import annotations

from typing import Any

from rules import Rng


def choose(view: Any, legal: list, rng: Rng) -> Any:
    return rng.choice(legal)
