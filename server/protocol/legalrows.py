"""Legal actions as rows (hello ``rows``): each action of a seat's ``legal`` list as an array, and back.

An action row is ``[tag, field, field, ...]``: the action's tag (its ``type``: ``"take"``), then the fields of
that action's Struct (``rules/<game>/game.py``) in their declared order, a field holding a struct as the array of
that struct's fields (as in a view row, ``viewrows.py``). So ``{"type": "take", "card": "G5"}`` is
``["take", "G5"]``, and a ``legal_patch`` of a rows seat's list steps in by integer places only. The places are
read from the games' action types once per game (``action_places``); fields are only ever appended, never
inserted or reordered (``tests/test_protocol_rows.py`` pins today's). The tag alone does not say the game (Flag
Finish's ``play`` is not Race to the Finish's): the seat's view row, which starts with its game's name, does.

``to_rows`` makes a list of rows from the list of actions (structs, or their builtins); ``from_rows`` makes the
maps again, as a map connection gets them (``viewpatch.Views`` does it for the client library). A client still
sends its action as a map.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

import msgspec

from .viewrows import Places, ViewRowError, _map, _row, _shape


class LegalRowError(ViewRowError):
    """An action row that is none of its game's: not an array, or a tag the game has no action for."""


@functools.cache
def action_places(game: str) -> dict[str, Places]:
    """Each action of ``game`` by its tag: the places of its fields (``ViewRowError`` for an unknown game)."""
    from rules import GAMES

    if game not in GAMES:
        raise ViewRowError(f"no game {game!r}")
    kinds = typing.get_args(GAMES[game].action_type) or (GAMES[game].action_type,)
    return {kind.__struct_config__.tag: _shape(kind) for kind in kinds}


@functools.cache
def _flat(game: str) -> bool:
    """No action of ``game`` holds a struct: a row is the tag and the action's values as they are."""
    return not any(shape.inner for shape in action_places(game).values())


def to_rows(game: str, legal: list) -> list:
    """The rows of ``game``'s actions ``legal`` (structs, or their builtins)."""
    if legal and _flat(game) and isinstance(legal[0], msgspec.Struct):  # structs (as the rules make them) that
        # hold no struct (every game's actions today): each one's values in order, made builtins at once
        astuple = msgspec.structs.astuple
        flat = [[action.__struct_config__.tag, *astuple(action)] for action in legal]
        return msgspec.to_builtins(flat, str_keys=True)
    places = action_places(game)
    return [[action["type"], *_row(places[action["type"]], action)]
            for action in msgspec.to_builtins(legal, str_keys=True)]


def from_rows(game: str, rows: list) -> list:
    """``game``'s action rows as the actions' maps; ``LegalRowError`` for a row that is no action of it."""
    places = action_places(game)
    if type(rows) is not list:
        raise LegalRowError(f"a legal list is an array, not {rows!r:.60}")
    actions = []
    for row in rows:
        if type(row) is not list or not row or type(row[0]) is not str or row[0] not in places:
            raise LegalRowError(f"no action of {game} is the row {row!r:.60}")
        actions.append({"type": row[0], **_map(places[row[0]], row[1:])})
    return actions
