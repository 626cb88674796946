"""Rows: update, snapshot and accepted as msgpack arrays instead of maps (hello ``rows``), and back.

A row is ``[tag, field, field, ...]``: a small integer tag (``ROW_TAGS``), then every field of the message's
Struct in its declared order, none left out (a default travels as its value: ``nil``, ``false``, ``[]``; msgspec
does not leave out trailing defaults of an ``array_like`` Struct, jcrist/msgspec#720). The row types are made
here from the map Structs' own fields (``_row_of``), so a field added to ``Update`` is in its row at once, at its
place: fields are only ever appended, never inserted or reordered (``tests/server/test_rows.py`` pins today's
positions). A decoder takes a row shorter than today's (an older server's) with the missing fields at their
defaults. ``to_row`` and ``from_row`` are the one mapping each way; ``codecs.Codec`` uses them.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from .table import Accepted, Snapshot, Update

ROW_TAGS = {Update: 1, Snapshot: 2, Accepted: 3}  # the messages sent as rows, and each one's tag (first in its row)


def _row_of(kind: type, tag: int) -> type:
    """The array-like Struct with ``kind``'s fields, types and defaults, in its order, tagged ``tag``."""
    fields = []
    for info in msgspec.structs.fields(kind):
        if info.default is not msgspec.NODEFAULT:
            fields.append((info.name, info.type, info.default))
        elif info.default_factory is not msgspec.NODEFAULT:
            fields.append((info.name, info.type, msgspec.field(default_factory=info.default_factory)))
        else:
            fields.append((info.name, info.type))
    return msgspec.defstruct(f"{kind.__name__}Row", fields, array_like=True, tag=tag, frozen=True, gc=False,
                             module=__name__)


ROW_TYPES: dict[type, type] = {kind: _row_of(kind, tag) for kind, tag in ROW_TAGS.items()}  # map Struct -> row
MAP_TYPES: dict[type, type] = {row: kind for kind, row in ROW_TYPES.items()}  # row Struct -> map Struct
_FIELDS = {row: row.__struct_fields__ for row in MAP_TYPES}

RowType = Union[tuple(ROW_TYPES.values())]  # every row, tagged by its first element


def to_row(message: Any) -> Any:
    """``message`` in its row form where it has one; any other message as it is."""
    row = ROW_TYPES.get(type(message))
    return message if row is None else row(*msgspec.structs.astuple(message))


def from_row(row: Any) -> Any:
    """A decoded row as the message it stands for (the same Struct a map frame decodes to)."""
    kind = type(row)
    return MAP_TYPES[kind](**dict(zip(_FIELDS[kind], msgspec.structs.astuple(row))))


def converted(value: list) -> Any:
    """A row read as plain values (inside a ``batch``, whose messages are ``Any``) as its message; raises
    ``msgspec.ValidationError`` for a list that is no row."""
    return from_row(msgspec.convert(value, RowType))
