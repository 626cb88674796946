"""Updates that carry what changed, to the connections that asked for them (``patches`` in their hello).

Just before a message is handed to such a receiver (``fanout.hand_over``: in its final order, after the batch
and the durability gate), an update with a view becomes one with ``view_patch``, the patch
(``protocol/viewpatch.py``) from the last view that receiver was sent for this table, and ``legal_same`` in
place of a legal list equal to the last it was sent; and every update, once that receiver holds a view, leaves out
what it would only repeat: ``to_act`` equal to the last sent, ``pings`` equal to the last sent, and the
``receipt`` of every update but the one with the game's result (a receipt's hash covers every line before it:
the seat keeps the one of its own ``accepted`` and the last, and a snapshot carries one). A snapshot stays whole and is where each receiver starts
(or starts again: seating, resume, catch-up, a spectator taken back into the stream after falling behind).
To a receiver that also asked for ``rows``, every view is a row (``protocol/viewrows.py``: the game's name, then
its fields in order), in snapshots, whole updates and as the base of its patches (``diff_row``: by places), and
so is each action of a seat's legal list (``protocol/legalrows.py``: its tag, then its fields in order), whole or
as the base of its ``legal_patch``.

What each receiver was last sent lives in ``Patching.sent``, freed when it leaves or disconnects (``forget``).
Spectators share their updates: the trimmed update is built once (``recent``, keyed by the message, the view it
starts from and what it leaves out) and shared for encoding once (``encodeonce``); a spectator holding another
view (one that just joined mid-batch) gets its own. A spectator's view is converted once per form (builtins,
row) for all of them, so the rows spectators share one base and one patched update, as the map ones do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from ..wire import encodeonce
from ..protocol import Accepted, Snapshot, Update
from ..protocol.legalrows import to_rows
from ..protocol.viewpatch import diff, diff_row
from ..protocol.viewrows import to_places
from .receiver import Receiver

if TYPE_CHECKING:
    from .arbiter import Table

RECENT_MOST = 8  # patched messages and converted views remembered for the next spectators of the same message
# (they are sent it one after another: a few suffice, and an idle table holds little)


@dataclass
class Sent:
    view: Any  # the last view sent, as msgspec builtins
    legal: list | None  # the last legal list sent (seats)
    to_act: list | None  # the last ``to_act`` sent
    pings: list | None  # the last ``pings`` sent
    legal_base: Any = None  # the last non-empty legal list sent, as builtins (what a ``legal_patch`` applies to)
    legal_from: list | None = None  # ... and as the actions it was made from


@dataclass
class Patching:
    sent: dict = field(default_factory=dict)  # receiver -> Sent
    recent: dict = field(default_factory=dict)  # (id(message), id(base view), left out) -> (message, base, trimmed)
    views: dict = field(default_factory=dict)  # (id(view), rows) -> (view, its builtins or row): spectators' views,
    # converted once per form


class Forms(NamedTuple):
    """A group's updates to spectators in both shapes: one per entry (``each``), and the group as one update
    (``together``: to the connections that asked for patches; the same list for a group of one entry)."""

    each: list
    together: list


def wants(receiver: Receiver | None) -> bool:
    return getattr(receiver, "patches", False)


def rows(receiver: Receiver | None) -> bool:
    """The receiver asked for rows (``rows`` in its hello): its views are rows too (``protocol/viewrows.py``)."""
    return getattr(receiver, "rows", False)


def quiet(receiver: Receiver | None) -> bool:
    """The receiver asked for patches and no events (``events`` false in its hello: a bot, a compact spectator)."""
    return wants(receiver) and not getattr(receiver, "events", True)


def form(receiver: Receiver | None, messages: Forms | list) -> list:
    """The shape of ``messages`` that ``receiver`` is sent (None: one update per entry)."""
    if type(messages) is Forms:
        return messages.together if wants(receiver) else messages.each
    return messages


def outgoing(table: Table, receiver: Receiver, message: Any) -> Any:
    """``message`` as ``receiver`` is to get it, and noted as what it was sent; None: nothing is sent (an update
    with neither a view nor a result, to a receiver that shows no events)."""
    kind = type(message)
    if kind is Snapshot:
        sent = table.patching.sent[receiver] = _sent(table, receiver, message)
        return _with_row(table, receiver, message, sent.view, sent.legal_base)
    silent = quiet(receiver)
    if kind is Accepted and silent and message.receipt is not None:
        return msgspec.structs.replace(message, receipt=None)
    if kind is not Update:
        return message
    sent = table.patching.sent.get(receiver)
    if sent is None:  # no view sent yet (never so after a snapshot): the whole update
        if message.view is not None:
            sent = table.patching.sent[receiver] = _sent(table, receiver, message)
            return _with_row(table, receiver, message, sent.view, sent.legal_base)
        return message
    if silent and message.view is None and message.result is None:
        return None
    same_to_act = message.to_act == sent.to_act
    sent.to_act = message.to_act
    if message.view is None:
        if not same_to_act and message.receipt is None and not silent:
            return message
        return _trimmed(table, receiver, message, None, (same_to_act, False, silent), None)
    same_pings = message.pings == sent.pings
    sent.pings = message.pings
    view = _builtins(table, receiver, message.view)
    patched = _trimmed(table, receiver, message, sent.view, (same_to_act, same_pings, silent), view)
    sent.view = view
    if message.legal is not None:
        if message.legal == sent.legal:  # unchanged: left out
            patched = msgspec.structs.replace(patched, legal=None)
        elif message.legal and sent.legal_base:  # changed: a patch of the last non-empty list, unless it is whole
            legal = _legal(table, receiver, message.legal)
            patch = None if disjoint(sent.legal_from, message.legal) else diff(sent.legal_base, legal)
            if patch is not None and not (len(patch) == 1 and not patch[0][0]):
                patched = msgspec.structs.replace(patched, legal=None, legal_patch=patch)
            elif rows(receiver):
                patched = msgspec.structs.replace(patched, legal=legal)
            sent.legal_base, sent.legal_from = legal, message.legal
        elif message.legal:
            sent.legal_base, sent.legal_from = _legal(table, receiver, message.legal), message.legal
            if rows(receiver):
                patched = msgspec.structs.replace(patched, legal=sent.legal_base)
        sent.legal = message.legal
    return patched


def disjoint(before: list | None, now: list) -> bool:
    """No action of ``now`` is in ``before``, both of two actions or more: then every item differs and the patch
    from one to the other is the whole list (``viewpatch.diff``), so it is not worked out (a seat that drew or
    discarded: most updates). False where it is not known (actions that cannot be hashed)."""
    if before is None or len(before) < 2 or len(now) < 2:
        return False
    try:
        return set(now).isdisjoint(before)
    except TypeError:
        return False


def forget(table: Table, receiver: Receiver) -> None:
    table.patching.sent.pop(receiver, None)


def _sent(table: Table, receiver: Receiver, message: Any) -> Sent:
    base = _legal(table, receiver, message.legal) if message.legal else None
    return Sent(_builtins(table, receiver, message.view), message.legal, message.to_act, message.pings, base,
                message.legal if message.legal else None)


def _trimmed(table: Table, receiver: Receiver, message: Update, base: Any, same: tuple[bool, bool, bool],
             view: Any) -> Update:
    """The update with its patch from ``base`` (with a view) and without what ``same`` says is unchanged
    (``to_act``, ``pings``) or unwanted (events), and its receipt (but at the game's end), built once per message,
    base and ``same``."""
    recent = table.patching.recent
    key = (id(message), id(base), same)
    hit = recent.get(key)
    if hit is not None and hit[0] is message and hit[1] is base:
        return hit[2]
    changes: dict[str, Any] = {"to_act": None} if same[0] else {}
    if view is not None:
        changes.update(view=None, view_patch=(diff_row if rows(receiver) else diff)(base, view))
        if same[1]:
            changes["pings"] = None
    if same[2]:
        changes.update(events=[], entries=None)
    if message.result is None:
        changes["receipt"] = None
    trimmed = msgspec.structs.replace(message, **changes)
    if receiver in table.spectators:  # shared by the spectators that hold ``base``
        _remember(recent, key, (message, base, trimmed))
        if len(table.spectators) > 1:
            encodeonce.share(trimmed)
    return trimmed


def _with_row(table: Table, receiver: Receiver, message: Any, row: Any, legal: list | None) -> Any:
    """A whole snapshot or update as ``receiver`` is sent it: to a rows receiver with its view as a row (``row``,
    what ``_builtins`` made of it) and a seat's non-empty legal list as rows (``legal``, what ``_legal`` made of
    it), built once for the spectators that share ``message`` (and shared as it is)."""
    if not rows(receiver) or row is None:
        return message
    if legal is not None:  # a seat's: its own, never shared
        return msgspec.structs.replace(message, view=row, legal=legal)
    recent = table.patching.recent
    key = (id(message), id(row), "row")
    hit = recent.get(key)
    if hit is not None and hit[0] is message and hit[1] is row:
        return hit[2]
    whole = msgspec.structs.replace(message, view=row)
    if receiver in table.spectators:
        _remember(recent, key, (message, row, whole))
        if encodeonce.shared(message):
            encodeonce.share(whole)
    return whole


def _builtins(table: Table, receiver: Receiver, view: Any) -> Any:
    """The view as builtins, or as a row to a rows receiver (``viewrows.to_places``); a spectator's converted once
    per form and the same object for all (so their bases match)."""
    form = rows(receiver)
    if receiver not in table.spectators:
        return _converted(table, view, form)
    hit = table.patching.views.get((id(view), form))
    if hit is not None and hit[0] is view:
        return hit[1]
    converted = _converted(table, view, form)
    _remember(table.patching.views, (id(view), form), (view, converted))
    return converted


def _converted(table: Table, view: Any, row: bool) -> Any:
    if view is None:
        return None
    if row:
        return to_places(_game(table), view)
    return msgspec.to_builtins(view, str_keys=True)


def _legal(table: Table, receiver: Receiver, legal: list) -> list:
    """A legal list as builtins, or as action rows to a rows receiver (``legalrows.to_rows``)."""
    if rows(receiver):
        return to_rows(_game(table), legal)
    return msgspec.to_builtins(legal, str_keys=True)


def _game(table: Table) -> str:
    """The table's game's name (a table's game, or the name a follower of another node's table was told)."""
    return table.game if type(table.game) is str else table.game.info.name


def _remember(cache: dict, key: Any, value: Any) -> None:
    cache[key] = value
    if len(cache) > RECENT_MOST:
        del cache[next(iter(cache))]
