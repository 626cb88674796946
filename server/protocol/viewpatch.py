"""View patches: what changed between two views, small enough to send instead of the whole view.

Pure functions on msgspec builtins (dicts with string keys, lists, str, int, float, bool, None), the values a
view is on the wire. A patch is a list of operations, applied in order:

- ``[path, value]``: set the value at ``path``: a dict's key (new or not), a list's index, or the index just
  past a list's end (appends);
- ``[path, value, 1]``: insert the value into a list at ``path``'s index (those from it move down one);
- ``[path]``: remove what is at ``path``: a dict's key, or a list's item (those after it move up one).

A ``path`` is a list of steps from the view's top: a string steps into a dict by key, an integer into a list by
index; the empty path is the whole view. ``diff`` recurses into dicts by key and into lists by index where the
shorter is the start of the longer (a pile that grew, a hand that lost its last card) or at most one item of
equal-length lists changed, then appends or removes the tail; lists whose items moved (a card played from a hand,
moves no longer legal and new ones) keep the items that stayed in order and have the others removed, inserted or
patched in place (``difflib``), unless replacing the list takes fewer operations; anything else that differs
is replaced (a value of another type, a list emptied). The empty patch ``[]`` says nothing changed. ``apply``
never changes the view it is given: it copies the dicts and lists on each path it writes, and shares the rest.
``Views`` is a client's side: it keeps the last view (and legal list, ``to_act``, ``pings``) of each table and
makes every patched update whole again (a rows seat's legal list as the actions' maps: ``legalrows.py``);
``split`` makes an update for a group of entries (``entries``) the updates of each entry again.
"""

from __future__ import annotations

import math
from difflib import SequenceMatcher
from typing import Any

import msgspec

from .legalrows import from_rows
from .table import Snapshot, Update
from .viewrows import ViewRowError, from_places


_PLAIN = frozenset((str, int, bool, type(None)))  # values equal on the wire when equal and of one type
SMALL = 4  # lists this short with two or more items changed are sent whole, not matched item by item (``_diff``)
INSERT = 1  # an operation's third part: insert its value at its path's index (a list's items from there move down)
_encode = msgspec.json.Encoder().encode


class PatchError(ValueError):
    """A patch that does not fit the view it is applied to (a path through a missing key or index)."""


def diff(old: Any, new: Any) -> list[list[Any]]:
    """The patch that turns ``old`` into ``new`` (``apply(old, diff(old, new)) == new``)."""
    ops: list[list[Any]] = []
    _diff(old, new, [], ops)
    return ops


def diff_row(old: Any, new: Any) -> list[list[Any]]:
    """The patch between two view rows (``viewrows.py``): place by place, as ``diff`` goes key by key through a
    map (a row's places never move: its items are never matched as moved), a broadcast's public row and each
    seat's alike; two rows of another game or length (or anything else), the whole new one."""
    ops: list[list[Any]] = []
    _diff_row(old, new, [], ops)
    return ops


def _diff_row(old: Any, new: Any, path: list, ops: list) -> None:
    if type(old) is not list or type(new) is not list or len(old) != len(new) or not new or old[0] != new[0]:
        ops.append([list(path), new])
        return
    broadcast = new[0] == "broadcast" and len(new) == 3 and type(new[2]) is list and type(old[2]) is list \
        and len(new[2]) == len(old[2])
    for place in range(1, len(new)):
        was, value = old[place], new[place]
        if type(was) is type(value) and type(value) in _PLAIN and was == value:
            continue  # (a container as it was is left by ``_diff``)
        path.append(place)
        if broadcast and place == 1:
            _diff_row(was, value, path, ops)
        elif broadcast:
            for seat, (one, other) in enumerate(zip(was, value)):
                path.append(seat)
                _diff_row(one, other, path, ops)
                path.pop()
        else:
            _diff(was, value, path, ops)
        path.pop()


def _diff(old: Any, new: Any, path: list, ops: list) -> None:
    kind = type(new)
    if (kind is dict or kind is list) and _equal(old, new):  # (most of a view is as it was: not walked)
        return
    if kind is dict and type(old) is dict:
        for key, value in new.items():
            if key in old:
                was = old[key]
                if type(was) is type(value) and type(value) in _PLAIN and was == value:
                    continue  # (the usual case, without a call)
                path.append(key)
                _diff(was, value, path, ops)
                path.pop()
            else:
                ops.append([[*path, key], value])
        for key in old:
            if key not in new:
                ops.append([[*path, key]])
    elif kind is list and type(old) is list and (new or len(old) < 2) and _by_index(old, new):
        common = min(len(old), len(new))
        for index in range(common):
            was, value = old[index], new[index]
            if type(was) is type(value) and type(value) in _PLAIN and was == value:
                continue
            path.append(index)
            _diff(was, value, path, ops)
            path.pop()
        for index in range(common, len(new)):  # grew: append
            ops.append([[*path, index], new[index]])
        for index in range(len(old) - 1, common - 1, -1):  # shrank: remove the tail, last first
            ops.append([[*path, index]])
    elif kind is list and type(old) is list and len(old) == len(new) <= SMALL:
        ops.append([list(path), new])  # a few items, two or more changed (an action's row): whole is as short
    elif kind is list and type(old) is list and old and new:
        _diff_moved(old, new, path, ops)
    elif not _same(old, new):
        ops.append([list(path), new])


def _diff_moved(old: list, new: list, path: list, ops: list) -> None:
    """Two lists whose items moved (some lost, some new, in several places): the items kept in order stay, those
    lost are removed, those new inserted, and a lost and a new one in the same place patched from one another
    (``difflib``'s matching, items compared by their JSON, on the part between what is the same at both ends;
    one pass where items are distinct and keep their order: ``_in_order``; index by index where they are not and
    the lists are as long); replaced whole if that takes fewer operations."""
    mine: list = []
    start, old_end, new_end = _differing(old, new)
    if old_end - start == 1 and new_end - start == 1:  # one item changed in place: patched from the old one
        codes = [("replace", start, start + 1, start, start + 1)]
    elif old_end == start or new_end == start:  # items only lost, or only new, in one place
        codes = [("delete" if new_end == start else "insert", start, old_end, start, new_end)]
    else:  # several places: the part that differs matched (where items repeat or change order: index by index
        # if the lists are as long, such as counts a seat each; else difflib's)
        was, now = [_key(item) for item in old[start:old_end]], [_key(item) for item in new[start:new_end]]
        found = _in_order(was, now)
        if found is None and len(was) == len(now):
            found = [("replace", i, i + 1, i, i + 1) for i in range(len(was)) if was[i] != now[i]]
        elif found is None:
            found = SequenceMatcher(None, was, now, autojunk=False).get_opcodes()
        codes = [(tag, i1 + start, i2 + start, j1 + start, j2 + start) for tag, i1, i2, j1, j2 in found]
    for tag, i1, i2, j1, j2 in reversed(codes):  # from the end: the indices before stay valid
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1)
        for step in range(paired):
            path.append(i1 + step)
            _diff(old[i1 + step], new[j1 + step], path, mine)
            path.pop()
        for index in range(i2 - 1, i1 + paired - 1, -1):  # lost: removed, last first
            mine.append([[*path, index]])
        tail = i1 + paired == i2 == len(old)  # new items at the end: appended (set one past the end)
        for step in range(paired, j2 - j1):  # new: inserted
            mine.append([[*path, i1 + step], new[j1 + step]] if tail else [[*path, i1 + step], new[j1 + step], INSERT])
    if len(mine) >= len(new):
        ops.append([list(path), new])
    else:
        ops.extend(mine)


def _differing(old: list, new: list) -> tuple[int, int, int]:
    """Where ``old`` and ``new`` differ: the items before ``start`` and those after ``old_end`` (in ``old``) and
    ``new_end`` (in ``new``) are the same in both."""
    most = min(len(old), len(new))
    start = 0
    while start < most and _equal(old[start], new[start]):
        start += 1
    old_end, new_end = len(old), len(new)
    while old_end > start and new_end > start and _equal(old[old_end - 1], new[new_end - 1]):
        old_end -= 1
        new_end -= 1
    return start, old_end, new_end


def _in_order(was: list, now: list) -> list | None:
    """difflib's opcodes from ``was`` to ``now``, but for its "equal" ones, when each holds distinct items and the
    items in both keep their order (a hand or a legal list that lost some and gained others: the usual case),
    found in one pass; None otherwise. A run of lost items next to a run of new ones is a "replace"."""
    both = set(was)
    if len(both) != len(was) or len(set(now)) != len(now):
        return None
    both &= set(now)
    if [k for k in was if k in both] != [k for k in now if k in both]:
        return None
    codes: list = []
    i = j = 0
    while i < len(was) or j < len(now):
        if i < len(was) and j < len(now) and was[i] == now[j]:
            i, j = i + 1, j + 1
            continue
        i0, j0 = i, j
        while i < len(was) and was[i] not in both:
            i += 1
        while j < len(now) and now[j] not in both:
            j += 1
        codes.append(("replace" if i > i0 and j > j0 else "delete" if i > i0 else "insert", i0, i, j0, j))
    return codes


def _key(item: Any) -> Any:
    """An item as difflib compares it: a string as itself, anything else by its JSON (1, 1.0 and True differ)."""
    return item if type(item) is str else _encode(item)


def _equal(a: Any, b: Any) -> bool:
    """The same on the wire: equal, of one type, and containers with the same JSON (``_same`` for a value)."""
    if type(a) is not type(b) or a != b:
        return False
    kind = type(a)
    if kind is list or kind is dict:
        return _encode(a) == _encode(b)
    return kind is not float or math.copysign(1.0, a) == math.copysign(1.0, b)


def _by_index(old: list, new: list) -> bool:
    """Patched index by index: of equal length with at most one item changed, or the start of one is the other."""
    if len(old) != len(new):
        return _extends(old, new)
    changed = 0
    for a, b in zip(old, new):
        if a != b:
            changed += 1
            if changed > 1:
                return False
    return True


def _extends(old: list, new: list) -> bool:
    """Of equal length, or the shorter one is the start of the longer (then patching by index is small)."""
    if len(old) == len(new):
        return True
    return old[:len(new)] == new if len(old) > len(new) else new[:len(old)] == old


def _same(old: Any, new: Any) -> bool:
    """Equal and of one type (1, 1.0 and True are equal in Python, not on the wire); 0.0 is not -0.0."""
    if type(old) is not type(new) or old != new:
        return False
    return type(new) is not float or math.copysign(1.0, old) == math.copysign(1.0, new)


def apply(old: Any, patch: list[list[Any]]) -> Any:
    """``old`` with ``patch`` applied, as a new value (``old`` is left as it was); raises ``PatchError``."""
    if not patch:
        return old
    root = [old]
    copies: dict[int, Any] = {}  # the containers copied by this call, by id (held, so no id is reused)
    try:
        for op in patch:
            path = op[0]
            if len(op) == 1 and not path:
                raise PatchError("the whole view cannot be removed")
            parent: Any = root
            step: Any = 0
            for next_step in path:
                child = parent[step]
                if id(child) not in copies:
                    if type(child) is dict:
                        child = dict(child)
                    elif type(child) is list:
                        child = list(child)
                    else:
                        raise PatchError(f"the path {path!r} steps into a {type(child).__name__}")
                    copies[id(child)] = child
                    parent[step] = child
                parent, step = child, next_step
            if type(parent) is list and (type(step) is not int or not 0 <= step <= len(parent) - (len(op) == 1)):
                raise PatchError(f"the path {path!r} is past the end of its list")
            if len(op) == 1:
                del parent[step]
            elif len(op) == 2:
                if type(parent) is list and step == len(parent):
                    parent.append(op[1])
                else:
                    parent[step] = op[1]
            elif len(op) == 3 and op[2] == INSERT and type(parent) is list:
                parent.insert(step, op[1])
            else:
                raise PatchError(f"an operation is [path], [path, value] or [path, value, {INSERT}] (into a list), "
                                 f"not {op!r}")
    except (KeyError, IndexError, TypeError) as error:
        raise PatchError(f"the patch does not fit the view: {error!r}") from None
    return root[0]


class Views:
    """A client's side of patches: the last whole view, legal list, ``to_act`` and ``pings`` it holds per table,
    and each update or snapshot made whole again (``whole``), so that what is above the client sees whole views.
    (A ``receipt`` left out is not made up: ``accepted``, snapshots and the game's last update carry one.) A row
    view (hello ``rows``: ``viewrows.py``) is held as its row, which its patches apply to, and handed on as its map:
    what is above sees the views a map connection gets."""

    def __init__(self) -> None:
        self.held: dict[str, list[Any]] = {}  # table -> [view as builtins (or its row), legal list, to_act, pings,
        # the last non-empty legal list as builtins (what a ``legal_patch`` applies to)]

    def whole(self, message: Any) -> Any:
        """``message`` (any; an update or snapshot is kept) with its ``view``, ``legal``, ``to_act`` and ``pings``
        whole; raises ``PatchError`` for a patch, or a left-out field, with no view to take it from."""
        kind = type(message)
        if kind is Update and (message.view_patch is not None or message.to_act is None):
            held = self.held.get(message.table)
            if held is None:
                raise PatchError(f"an update for table {message.table} that leaves out what this client never had")
            to_act = held[2] if message.to_act is None else message.to_act
            held[2] = to_act
            if message.view_patch is None:
                return msgspec.structs.replace(message, to_act=to_act)
            view = apply(held[0], message.view_patch)
            shown = _shown(view)
            base = held[4]
            if message.legal_patch is not None:
                if base is None:
                    raise PatchError(f"a legal list's patch for table {message.table}, which has no list to patch")
                base = apply(base, message.legal_patch)
                legal = _listed(view, base)
            elif message.legal_same or message.legal is None:  # left out: the same
                legal = held[1]
            else:
                legal = _listed(view, message.legal)
                base = msgspec.to_builtins(message.legal, str_keys=True) if message.legal else base
            pings = held[3] if message.pings is None else message.pings
            self.held[message.table] = [view, legal, to_act, pings, base]
            return msgspec.structs.replace(message, view=shown, view_patch=None, legal=legal, legal_same=False,
                                           legal_patch=None, to_act=to_act, pings=pings)
        if (kind is Update or kind is Snapshot) and message.view is not None:
            old = self.held.get(message.table)
            base = msgspec.to_builtins(message.legal, str_keys=True) if message.legal else \
                (old[4] if old is not None else None)
            view = msgspec.to_builtins(message.view, str_keys=True)
            shown, legal = _shown(view), _listed(view, message.legal)
            self.held[message.table] = [view, legal, message.to_act, message.pings, base]
            if shown is not view:
                return msgspec.structs.replace(message, view=shown, legal=legal)
        elif kind is Update and message.table in self.held:
            self.held[message.table][2] = message.to_act
        return message

    def forget(self, table: str) -> None:
        self.held.pop(table, None)


def _shown(view: Any) -> Any:
    """A view as a client sees it: a row view (``rows`` in the hello: ``viewrows.py``) as its map again."""
    if type(view) is not list:
        return view
    try:
        return from_places(view)
    except ViewRowError as error:
        raise PatchError(f"a view that is no view row: {error}") from None


def _listed(view: Any, legal: Any) -> Any:
    """A legal list as a client sees it: a rows seat's (its view a row, ``legalrows.py``) as the actions' maps."""
    if type(view) is not list or not legal:
        return legal
    try:
        return from_rows(view[0], legal)
    except ViewRowError as error:
        raise PatchError(f"a legal list that is no list of action rows: {error}") from None


def split(message: Any) -> list[Any]:
    """An update for a group of entries (``entries``) as one update per entry, in order, as a connection without
    patches gets them: each with its seq, actor, events and the group's ``to_act``, the last with the rest (its
    view, legal list, result, receipt, pings); any other message as itself. Raises ``PatchError`` when the
    entries do not account for the events or end at another seq than the update's."""
    if type(message) is not Update or message.entries is None:
        return [message]
    marks = message.entries
    if not marks or any(len(mark) != 3 or mark[2] < 0 for mark in marks) \
            or sum(mark[2] for mark in marks) != len(message.events) or marks[-1][0] != message.seq:
        raise PatchError(f"the entries {marks!r} do not account for the update's events and seq")
    parts, at = [], 0
    for seq, actor, count in marks[:-1]:
        parts.append(Update(table=message.table, seq=seq, actor=actor, events=message.events[at:at + count],
                            to_act=message.to_act))
        at += count
    parts.append(msgspec.structs.replace(message, actor=marks[-1][1], events=message.events[at:], entries=None))
    return parts
