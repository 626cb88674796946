"""Who is at a table, as its people are told (``presence``): a seat taken, left, gone away or back, a stand-in,
and how many watch. The seated players are told at once. The spectators at once for a seat, and the number
watching at most every ``COUNT_EVERY_S`` (``tell_present``: a thousand coming in cost each of them a message a
second, not one per newcomer, and the projector's count keeps up).

With a broadcast delay, once the game has begun, the spectators are told who is at the table as late as they are
shown its play (``spectating.tell``): a seat freed by a player who leaves as the game ends would otherwise tell
them of the end before the delay allows (``Stream.shown_present``: what they were last told, ``shown``). The lobby
lists such a seat as still taken by its player until the end is shown (``Table.seat_infos``, ``masked``), every
other seat as it is: the players at the table read their own names from the lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from ..protocol import Presence
from ..wire import encodeonce
from . import spectating
from .seats import TAKEN
from .spectating import COUNT_EVERY_S

if TYPE_CHECKING:
    from .arbiter import Table


def presence(table: Table) -> None:
    """Tell the table's people who is at it, if that changed since they were last told (never a ping: updates
    carry those). A delayed table's seat changes are passed to its spectators' stream even when none watch: one who
    comes later is told who is at the table as far as it may know (``shown``)."""
    seats = tuple((slot.state, slot.name) for slot in table.slots)
    now = (seats, len(table.spectators) + table.stream.followers)  # (other nodes' too: ``server/cluster/relay.py``)
    if now == table.presence_sent:
        return
    seats_changed = table.presence_sent is None or table.presence_sent[0] != seats
    table.presence_sent = now
    message = presence_now(table)
    for slot in table.slots:
        if slot.state == TAKEN and slot.receiver is not None:  # a person's connection (bots read no presence)
            from .fanout import deliver
            deliver(table, slot.receiver, message)
    if table.spectators or table.stream.relay is not None or (seats_changed and held(table)):
        tell_present(table, seats_changed)


def presence_now(table: Table) -> Presence:
    """Who is at the table now."""
    return Presence(table=table.id, seats=table.seat_infos(table.is_over()),
                    spectators=len(table.spectators) + table.stream.followers)


def held(table: Table) -> bool:
    """The spectators are told who is at the table behind a delay (it has one, and its game has begun)."""
    return table.started and not spectating.end_shown(table)  # (end_shown: no delay, or its end was shown)


def shown(table: Table) -> Presence:
    """Who is at the table as its spectators may know it: now, or as last released past the delay."""
    if held(table) and table.stream.shown_present is not None:
        return table.stream.shown_present
    return presence_now(table)


def tell_present(table: Table, seats_changed: bool) -> None:
    """The spectators, here and through other nodes, are told at once when a seat changed or when they have not
    been told for ``COUNT_EVERY_S``; otherwise (only the number watching changed, lately told) once that time is
    up, with the number then (``present_due``)."""
    stream = table.stream
    now = trio.current_time()
    if seats_changed or now - stream.told >= COUNT_EVERY_S:
        return _tell_present(table, now)
    if stream.count_due is None:
        stream.count_due = stream.told + COUNT_EVERY_S


def present_due(table: Table) -> None:
    """The table's clock: the number watching, held back by ``tell_present``, is told now if its time has come."""
    now = trio.current_time()
    if table.stream.count_due is not None and now >= table.stream.count_due:
        _tell_present(table, now)


def _tell_present(table: Table, now: float) -> None:
    stream = table.stream
    stream.told, stream.count_due = now, None
    message = presence_now(table)  # (a message of its own: one marked shared would take a player's connection
    # the spectators' way, ``encodeonce``)
    if len(table.spectators) > 1:
        encodeonce.share(message)
    if held(table):
        if stream.shown_present is None:  # who sat down as the game began (public: the lists say it plays)
            stream.shown_present = message
        return spectating.tell(table, message, present=message)
    stream.shown_present = message
    spectating.to_all(table, [message], [message])
