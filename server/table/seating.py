"""Who is at a table: taking a seat, resuming it by token, watching, leaving, a connection gone, a seat
freed, and the game's start once every seat is filled. Seat states move only through ``seats.move``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..logs.logfile import SeatTaken, StandIn
from ..names import PERSON_MOST, check_name
from ..protocol import Code, Left, Refusal, Resume, Seated, TableEnded, TakeSeat, Update, Watch, Watching
from . import apply, fanout, joins, patching, present, seats, spectating
from .receiver import Receiver
from .seats import FREE, HELD, STAND_IN, TAKEN, SeatSlot, token_hash
from ..secrets_typed import new_secret

if TYPE_CHECKING:
    from .arbiter import Table

CATCH_UP_MOST = 256  # a catch-up missing more accepted entries sends the snapshot alone (outboxes hold 1,024)


def slot_of(table: Table, receiver: Receiver | None) -> SeatSlot | None:
    for slot in table.slots:
        if slot.receiver is receiver and receiver is not None:
            return slot
    return None


def take_seat(table: Table, receiver: Receiver, message: TakeSeat) -> None:
    if slot_of(table, receiver) is not None:
        return fanout.error(table, receiver, message.id, "already_seated", f"you already hold a seat at {table.id}")
    if message.seat is None:
        free = [s for s in table.slots if s.state == FREE]
        if not free:
            return fanout.error(table, receiver, message.id, "table_full", f"table {table.id} has no free seat")
        slot = free[0]
    else:
        if not 0 <= message.seat < len(table.slots):
            return fanout.error(table, receiver, message.id, "no_such_seat",
                                f"table {table.id} has seats 0-{len(table.slots) - 1}")
        slot = table.slots[message.seat]
        if slot.state != FREE:
            return fanout.error(table, receiver, message.id, "seat_taken", f"seat {slot.seat} is {slot.state}")
    if table.started and table.stream.delayed:  # a seat sees the table live: a way round the delay
        return fanout.error(table, receiver, message.id, Code.SEAT_CLOSED,
                            f"table {table.id} keeps its spectators behind it: once its game has begun, a seat "
                            "its player left is not taken by another (watch it instead)")
    try:
        name = check_name(message.name, "a seat's name", PERSON_MOST)
    except Refusal as error:
        return fanout.error(table, receiver, message.id, error.code, error.message)
    stop_watching(table, receiver)
    token = new_secret(24)
    seats.take(slot, name, token_hash(token), receiver)
    slot.answers = {}
    table.seated_ever, table.expires = True, None
    apply.persist(table, SeatTaken(seat=slot.seat, name=slot.name, token_hash=slot.token_hash, time=table.now()))
    fanout.deliver(table, receiver, Seated(ref=message.id, table=table.id, game=table.game.info.name,
                                           seat=slot.seat, token=token, seq=table.log.seq))
    if not maybe_start(table):
        fanout.deliver(table, receiver, fanout.snapshot(table, slot.seat))


def resume(table: Table, receiver: Receiver, message: Resume) -> None:
    digest = token_hash(message.token)
    slot = next((s for s in table.slots if s.token_hash == digest and s.state in HELD), None)
    if slot is None:
        return fanout.error(table, receiver, message.id, "bad_token", f"no seat at {table.id} holds that token")
    held = slot_of(table, receiver)
    if held is not None and held is not slot:  # one connection, one seat: as ``take_seat`` refuses a second
        return fanout.error(table, receiver, message.id, "already_seated",
                            f"you already hold seat {held.seat} at {table.id}; a second seat needs a connection "
                            "of its own")
    stop_watching(table, receiver)
    if slot.receiver is not None and slot.receiver is not receiver:
        slot.receiver.close("replaced", "this seat was resumed from another connection")
    if slot.state == STAND_IN:  # the player is back: they take their seat over from the stand-in
        apply.persist(table, StandIn(seat=slot.seat, active=False, time=table.now()))
    seats.move(slot, TAKEN)
    slot.receiver, slot.away_since = receiver, None
    fanout.deliver(table, receiver, Seated(ref=message.id, table=table.id, game=table.game.info.name,
                                           seat=slot.seat, token=message.token, seq=table.log.seq))
    catch_up(table, receiver, slot.seat, message.last_seq)


def stop_watching(table: Table, receiver: Receiver) -> None:
    """A connection that watched the table and sits down at it watches no more: a seat is sent its own view
    alone, each update once, and never the broadcast view (every hand) it may have watched with the key."""
    if receiver in table.spectators or receiver in table.stream.broadcasters:
        spectating.forget(table, receiver)
        patching.forget(table, receiver)


def watch(table: Table, receiver: Receiver, message: Watch) -> None:
    if message.broadcast_key:  # every hand, past the delay, for a commentator
        return spectating.watch_broadcast(table, receiver, message)
    held = slot_of(table, receiver)
    if held is not None:  # its seat's updates show it the table; as a spectator too it would be sent both
        return fanout.error(table, receiver, message.id, Code.ALREADY_SEATED,
                            f"you hold seat {held.seat} at {table.id}: your seat's updates show you the table; "
                            "watch it from another connection")
    if table.stream.delayed:  # kept behind the table: the snapshot last released, never the table now
        spectating.watch(table, receiver, message.id, message.last_seq)
        return fanout.deliver(table, receiver, present.shown(table))  # who is here, as far as it may know
    spectating.join(table, receiver)
    fanout.deliver(table, receiver, Watching(ref=message.id, table=table.id, game=table.game.info.name,
                                             seq=table.log.seq))
    catch_up(table, receiver, None, message.last_seq)
    fanout.deliver(table, receiver, present.presence_now(table))  # who is here (later: only when a seat changes)


def catch_up(table: Table, receiver: Receiver, seat: int | None, last_seq: int) -> None:
    """Every accepted entry after ``last_seq``, redacted for ``seat``, then the whole view now (also
    before the game starts), and ``table_ended`` if the table was ended before its game's end. More than ``CATCH_UP_MOST`` missed entries are not resent: they would
    overflow the receiver's outbox; the snapshot alone brings it to now and says how many it skipped."""
    missed = table.log.accepted_after(last_seq) if not patching.quiet(receiver) else []  # (no events: the snapshot)
    skipped = len(missed) if len(missed) > CATCH_UP_MOST else 0
    for entry in missed if not skipped else ():
        if seat is None:  # a spectator's: built once for all (``joins.py``)
            fanout.deliver(table, receiver, joins.entry_update(table, entry))
            continue
        events = [table.game.redact(e, seat) for e in entry.events]
        fanout.deliver(table, receiver, Update(table=table.id, seq=entry.seq, actor=entry.actor, events=events,
                                               to_act=[], receipt=apply.receipt(table, entry.seq)))
    fanout.deliver(table, receiver, fanout.snapshot(table, seat, skipped) if seat is not None
                   else joins.snapshot(table, skipped))
    if table.halted is not None:  # ended before its game's end (halted, abandoned): the view still offers moves,
        reason, places = table.halted  # so whoever comes (back) after is told, as those there then were
        fanout.deliver(table, receiver, TableEnded(table=table.id, seq=table.log.seq, reason=reason, places=places))


def leave(table: Table, receiver: Receiver, message) -> None:
    slot = slot_of(table, receiver)
    if slot is not None and not table.is_over() and any(r.seat == slot.seat for r in table.settings.reserved):
        disconnect(table, receiver)  # a tournament's seat stays its player's: away (their token takes it back;
        # a stand-in plays it after the grace), never free for whoever asks
    elif slot is not None:
        free(table, slot)
    elif receiver in table.spectators:
        spectating.forget(table, receiver)
    else:
        return fanout.error(table, receiver, message.id, "not_here", f"you neither sit at nor watch {table.id}")
    patching.forget(table, receiver)
    fanout.deliver(table, receiver, Left(ref=message.id, table=table.id))


def disconnect(table: Table, receiver: Receiver) -> None:
    spectating.forget(table, receiver)
    patching.forget(table, receiver)
    slot = slot_of(table, receiver)
    if slot is not None and slot.state == TAKEN:
        seats.move(slot, seats.AWAY)
        slot.receiver, slot.away_since = None, table.now()


def free(table: Table, slot: SeatSlot) -> None:
    seats.free(slot)
    apply.persist(table, SeatTaken(seat=slot.seat, name="", token_hash=None, time=table.now()))


def maybe_start(table: Table) -> bool:
    """Start the game once every seat is filled; True if it started now."""
    if table.started or any(s.state == FREE for s in table.slots):
        return False
    table.started, table.expires = True, None
    apply.record(table, table.session.run_chance())
    return True
