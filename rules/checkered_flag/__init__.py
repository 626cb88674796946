"""Checkered Flag: the game module, its track format and built-in tracks, and its rules decisions (RULES.md)."""

from .game import GAME

__all__ = ["GAME"]
