"""Flush: the game module, its deck data and its rules decisions (RULES.md)."""

from .game import GAME

__all__ = ["GAME"]
