"""Views as rows (hello ``rows``): a game's view as an array of its fields in their declared order, and back.

A view row is ``[game, field, field, ...]``: the game's name (whose places these are), then every field of the
game's ``View`` (``rules/<game>/game.py``) in its declared order. A field that holds a struct (Flush's ``pile``
of ``Play``, Checkered Flag's ``track``, ``plan`` and ``checks``, Finish Line's ``choice``) holds it as the array
of that struct's fields in their order, without a name (its place says what it is); ``null`` stays ``null``. A
broadcast's view (``BroadcastView``) is ``["broadcast", public, seats]``, each of them a view row. So a patch of a
row view (``viewpatch.py``, the same format) steps in by integer places: ``[[12, 1], 4]`` where a map view's
patch says ``[["hand_counts", 1], 4]``.

The places are read from the games' types (``places``, made once per game), so a field added to a ``View`` is in
its row at once; fields are only ever appended, never inserted or reordered (``tests/test_protocol_rows.py``
pins today's places). ``to_places`` makes a row of a view (a struct, or its builtins: a map); ``from_places``
makes the map again, as a map connection gets it (``viewpatch.Views`` does it for the client library).
"""

from __future__ import annotations

import functools
import typing
from typing import Any

import msgspec

BROADCAST = "broadcast"  # the tag of a broadcast's view (``BroadcastView``): no game has this name


class ViewRowError(ValueError):
    """A view row that is no view of a known game: an unknown tag, a struct's place that holds no array."""


class Places(msgspec.Struct, frozen=True, gc=False):
    """A struct's fields in their order (``names``) and, by place, the shape of those that hold structs
    (``inner``: a ``Places``, or an ``Each`` of a list of them)."""

    names: tuple[str, ...]
    inner: dict[int, Any]


class Each(msgspec.Struct, frozen=True, gc=False):
    """A list whose items each have the shape ``item``."""

    item: Any


def _shape(hint: Any, seen: tuple = ()) -> Any:
    """The shape of a type: ``Places`` for a struct, ``Each`` for a list holding structs, None for plain values
    (a struct beside None, ``Plan | None``, is the struct's: null stays null)."""
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        if hint in seen:
            raise TypeError(f"{hint.__name__} holds itself: no places for it")
        hints = typing.get_type_hints(hint)
        names = hint.__struct_fields__
        inner = {place: shape for place, name in enumerate(names)
                 if (shape := _shape(hints[name], (*seen, hint))) is not None}
        return Places(tuple(names), inner)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list and args:
        item = _shape(args[0], seen)
        return None if item is None else Each(item)
    shapes = [shape for arg in args if (shape := _shape(arg, seen)) is not None]
    if len(shapes) > 1:
        raise TypeError(f"{hint} holds more than one struct: no places for it")
    return shapes[0] if shapes else None


@functools.cache
def places(game: str) -> Places:
    """The places of ``game``'s view (``ViewRowError`` for a game this protocol does not know)."""
    from rules import GAMES

    if game not in GAMES or game == BROADCAST:
        raise ViewRowError(f"no game {game!r}")
    return _shape(GAMES[game].view_type)


def _row(shape: Any, value: Any) -> Any:
    if value is None:
        return None
    if type(shape) is Each:
        return [_row(shape.item, item) for item in value]
    row = [value[name] for name in shape.names]
    for place, inner in shape.inner.items():
        row[place] = _row(inner, row[place])
    return row


def to_places(game: str, view: Any) -> list:
    """The row of ``game``'s view (a ``View`` or ``BroadcastView`` struct, or its builtins)."""
    if isinstance(view, msgspec.Struct):
        view = msgspec.to_builtins(view, str_keys=True)
    shape = places(game)
    if view.keys() == {"public", "seats"}:  # a broadcast's (no game's view has just these fields)
        return [BROADCAST, [game, *_row(shape, view["public"])], [[game, *_row(shape, seat)] for seat in view["seats"]]]
    return [game, *_row(shape, view)]


def _map(shape: Any, row: Any) -> Any:
    if row is None:
        return None
    if type(row) is not list:
        raise ViewRowError(f"an array where a view row holds {row!r}")
    if type(shape) is Each:
        return [_map(shape.item, item) for item in row]
    inner = shape.inner
    return {name: (_map(inner[place], value) if place in inner else value)
            for place, (name, value) in enumerate(zip(shape.names, row))}  # a newer server's later places: not read


def from_places(row: Any) -> dict:
    """A view row as the view's map (its builtins, as a map connection is sent it); ``ViewRowError`` for a row
    that is none."""
    if type(row) is not list or not row or type(row[0]) is not str:
        raise ViewRowError(f"a view row starts with its game's name, not {row!r:.60}")
    if row[0] == BROADCAST:
        if len(row) < 3 or type(row[2]) is not list:
            raise ViewRowError("a broadcast's view row is [\"broadcast\", public, seats]")
        return {"public": from_places(row[1]), "seats": [from_places(seat) for seat in row[2]]}
    return _map(places(row[0]), row[1:])
