"""What each seat of a fair table was offered and when (fair ordering's bookkeeping, ``fair.py`` decides):
each contested action legal for a seat, with the update that first offered it and when that update left for
the seat (``track_offers``, ``stamp``), and the contested actions gone lately (``left``: a late take of one is a
loss, not a guess).

An action is offered anew when it comes back, with two exceptions. A deal (a chance entry, ``table.dealt``)
offers everything anew and forgets what was gone. And an action that left a seat's list only because of the
seat's own state (it drew, and must discard), while the card stayed on the pile (another seat had it listed
all along: ``reoffered``), keeps its first offer when it comes back (red12: re-offered, a seat that drew and
discarded had its reaction to a card seconds old measured from its own discard, and won it from a seat whose
take had arrived 20 ms before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from . import seating
from .receiver import Receiver
from .seats import SeatSlot

if TYPE_CHECKING:
    from .arbiter import Table

LEFT_KEPT = 64  # per seat: contested actions remembered as recently legal (a late take is a loss, not a guess)


def track_offers(table: Table, seat: int, legal: list, seq: int) -> None:
    """The actions ``legal`` for ``seat`` in the update of ``seq``: a new one is offered from ``seq`` on (its
    send time stamped when that update leaves), in ``since`` if contested, else in ``offers``; a gone
    contested one is remembered for a while (a late take of it is a loss, not a guess). After a deal (a chance
    entry, ``table.dealt``) every action is offered anew and none is remembered: a card of the old pile dealt
    again was not offered before its deal's update (red12: kept, its old send time made a seat that had it
    listed at the race's end lose it to any seat that had not, a finisher or a seat that drew just before).

    What changed since the seat's last update (``listed``) is found by set operations (in C): ``since`` and
    ``offers`` hold exactly that update's actions, and an action is contested or not for the whole game
    (``rules.contract``), so the game is asked about new ones only. The actions new in one update share one
    ``[seq, sent]`` (they left together): one entry to stamp."""
    slot = table.slots[seat]
    dealt = slot.tracked < table.dealt <= seq  # a deal since its last update: a card of the old pile dealt
    slot.tracked = seq  # again is a new offer, and a late take of an old one no late take (red12)
    listed = set(legal)
    before, slot.listed = slot.listed, listed
    since = slot.since
    if before is None or dealt or listed.isdisjoint(before):  # none kept (most often: the seat drew, or
        if dealt:  # discarded); after a deal none is: each is offered from its update, none left lately
            slot.left.clear(), slot.paused.clear()
        elif since:
            remember_gone(table, slot, since, seq)
        state, contested = table.session.state, table.game.contested
        now_legal = {action for action in legal if contested(state, action)}  # (its order is ``left``'s later)
        offered = [seq, None]
        slot.since = since = dict.fromkeys(now_legal, offered)
        if slot.paused and now_legal:
            reoffered(table, slot, now_legal)
        slot.offers = dict.fromkeys(listed - now_legal if now_legal else listed, offered)
        if listed:
            slot.unstamped.append(offered)
    else:
        offers, new = slot.offers, listed - before
        if new:
            offered = [seq, None]
            slot.unstamped.append(offered)
            state, contested = table.session.state, table.game.contested
            hot = {a for a in (legal if len(new) > 1 else new) if a in new and contested(state, a)}
            if len(hot) > 1 and since:  # in the order of the set of every contested legal action, as always
                hot = [a for a in {a for a in legal if a in since or a in hot} if a in hot]
            since.update(dict.fromkeys(hot, offered))
            if slot.paused and hot:
                reoffered(table, slot, hot)
            offers.update(dict.fromkeys(new.difference(hot) if hot else new, offered))
        gone = before - listed
        if gone:
            left = gone.difference(offers)  # the contested ones
            for action in gone.difference(left) if left else gone:
                del offers[action]
            if left:  # remembered in the order they were offered: the oldest is forgotten first
                left = {action: since.pop(action) for action in
                        ([action for action in since if action in left] if len(left) > 1 else left)}
                remember_gone(table, slot, left, seq)
    if len(slot.unstamped) > 2 * (len(since) + len(slot.offers)):  # many gone before they were sent: only those
        slot.unstamped = list({id(o): o for o in (*since.values(), *slot.offers.values(),
                                                  *(was[0] for was in slot.paused.values())) if o[1] is None}.values())


def remember_gone(table: Table, slot: SeatSlot, gone: dict, seq: int) -> None:
    """Contested actions no longer legal for the seat from update ``seq`` (``gone``: each -> its offer):
    remembered from now, after those already remembered (one already there keeps its place), the oldest
    forgotten past ``LEFT_KEPT``; with their offers (``paused``), for ``reoffered``."""
    left, paused = slot.left, slot.paused
    left.update(dict.fromkeys(gone, table.now()))
    for _ in range(len(left) - LEFT_KEPT):
        del left[next(iter(left))]
    paused.update((action, (offered, seq)) for action, offered in gone.items())
    for _ in range(len(paused) - LEFT_KEPT):
        del paused[next(iter(paused))]


def reoffered(table: Table, slot: SeatSlot, actions: Iterable) -> None:
    """Contested actions legal for the seat again: each keeps the offer it had before it left, when another
    seat has had it listed from before then until its last update (the card never left the pile: the seat
    could not take it for a while, as after its own draw); else it is offered anew."""
    paused = slot.paused
    for action in actions:
        was = paused.pop(action, None)
        if was is None:
            continue
        offered, gone = was
        for other in table.slots:
            if other is not slot and other.receiver is not None:
                kept = other.since.get(action)
                if kept is not None and kept[0] < gone:
                    slot.since[action] = offered
                    break


def stamp(table: Table, receiver: Receiver, seq: int) -> None:
    """Update ``seq`` leaves for a seat now: each contested action it offered the seat for the first time is
    stamped with this moment, once (a resume, a snapshot or a catch-up sends it again later and changes
    nothing). Only the entries not stamped yet are looked at (``SeatSlot.unstamped``)."""
    slot = seating.slot_of(table, receiver)
    if slot is not None and slot.unstamped:
        stamp_slot(slot, seq, table.now())


def stamp_slot(slot: SeatSlot, seq: int, now: float) -> None:
    """``stamp``'s work on the seat's slot: what the update of ``seq`` offered first is stamped ``now``."""
    waiting = []
    for offered in slot.unstamped:
        if offered[1] is None:
            if offered[0] <= seq:
                offered[1] = now
            else:
                waiting.append(offered)
    slot.unstamped = waiting
