"""Finish Line: the game module and its rules decisions (RULES.md)."""

from .game import GAME

__all__ = ["GAME"]
