"""Rows: update, snapshot and accepted as msgpack arrays instead of maps (hello ``rows``), and back.

A row is ``[tag, field, field, ...]``: a small integer tag (``ROW_TAGS``), then the fields of the message's
Struct in its declared order, up to the last that is not at its default: the fields after it are left out, the
ones before it travel as their values (``nil``, ``false``, ``[]``). msgspec leaves nothing out of an ``array_like``
Struct (jcrist/msgspec#720), so each row type comes with its shorter forms, one per length (``_CUTS``), and
``to_row`` picks the shortest that holds every field not at its default; a decoder of the whole row type takes
any of them, the missing fields at their defaults (an older server's shorter rows too). The row types are made
here from the map Structs' own fields (``_row_of``), so a field added to ``Update`` is in its row at once, at its
place: fields are only ever appended, never inserted or reordered (``tests/test_protocol_rows.py`` pins today's
places). ``to_row`` and ``from_row`` are the one mapping each way; ``codecs.Codec`` uses them.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from .table import Accepted, Snapshot, Update

ROW_TAGS = {Update: 1, Snapshot: 2, Accepted: 3}  # the messages sent as rows, and each one's tag (first in its row)


def _row_of(kind: type, tag: int, count: int | None = None) -> type:
    """The array-like Struct with ``kind``'s fields (its first ``count``), types and defaults, in its order,
    tagged ``tag``."""
    fields = []
    for info in msgspec.structs.fields(kind)[:count]:
        if info.default is not msgspec.NODEFAULT:
            fields.append((info.name, info.type, info.default))
        elif info.default_factory is not msgspec.NODEFAULT:
            fields.append((info.name, info.type, msgspec.field(default_factory=info.default_factory)))
        else:
            fields.append((info.name, info.type))
    name = f"{kind.__name__}Row" if count is None else f"{kind.__name__}Row{count}"
    return msgspec.defstruct(name, fields, array_like=True, tag=tag, frozen=True, gc=False, module=__name__)


def _default(info: msgspec.structs.FieldInfo) -> Any:
    if info.default_factory is not msgspec.NODEFAULT:
        return info.default_factory()
    return info.default


def _at_default(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)  # 1 is not True, nor 0 False


ROW_TYPES: dict[type, type] = {kind: _row_of(kind, tag) for kind, tag in ROW_TAGS.items()}  # map Struct -> row
MAP_TYPES: dict[type, type] = {row: kind for kind, row in ROW_TYPES.items()}  # row Struct -> map Struct
_FIELDS = {row: row.__struct_fields__ for row in MAP_TYPES}
_DEFAULTS = {kind: tuple(_default(info) for info in msgspec.structs.fields(kind)) for kind in ROW_TAGS}
_REQUIRED = {kind: sum(1 for info in msgspec.structs.fields(kind) if info.required) for kind in ROW_TAGS}
_CUTS = {kind: {count: _row_of(kind, tag, count) for count in range(_REQUIRED[kind], len(_DEFAULTS[kind]))}
         | {len(_DEFAULTS[kind]): ROW_TYPES[kind]} for kind, tag in ROW_TAGS.items()}  # a row type per length

RowType = Union[tuple(ROW_TYPES.values())]  # every row, tagged by its first element


def to_row(message: Any) -> Any:
    """``message`` in its row form where it has one (the fields after the last not at its default left out); any
    other message as it is."""
    kind = type(message)
    cuts = _CUTS.get(kind)
    if cuts is None:
        return message
    values, defaults = msgspec.structs.astuple(message), _DEFAULTS[kind]
    end, least = len(values), _REQUIRED[kind]
    while end > least and _at_default(values[end - 1], defaults[end - 1]):
        end -= 1
    return cuts[end](*values[:end])


def from_row(row: Any) -> Any:
    """A decoded row as the message it stands for (the same Struct a map frame decodes to)."""
    kind = type(row)
    return MAP_TYPES[kind](**dict(zip(_FIELDS[kind], msgspec.structs.astuple(row))))


def converted(value: list) -> Any:
    """A row read as plain values (inside a ``batch``, whose messages are ``Any``) as its message; raises
    ``msgspec.ValidationError`` for a list that is no row."""
    return from_row(msgspec.convert(value, RowType))
