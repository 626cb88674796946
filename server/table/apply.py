"""A seat's action, top to bottom: decoded once, taken into fair ordering if contested (``fair.py``), else
applied now: all of it, logged and answered, or refused, logged, and nothing changed (a seat past its budget
of logged refusals, ``refusals.py``: refused ``too_many_refused``, not logged, and nothing changed; its contested
takes not taken meanwhile: ``over_budget``). Accepted steps go to the log (memory and file) and re-arm the
timers; the update goes to everyone (``fanout.py``); the end of the game writes the end record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from rules import CHANCE, Result, RulesError, Step, ToAct

from ..logs.actionlog import compact_refused
from ..logs.logfile import End, Entry, Fair
from ..protocol import Accepted, Act, Code, Contest, Rejected
from . import durable, fair, fanout, intents, refusals, seating, timers

if TYPE_CHECKING:
    from .arbiter import Table
    from .seats import SeatSlot


class Decoded(NamedTuple):
    """A client's action decoded for the game, once: the action, or why it is not one."""

    action: Any
    error: msgspec.ValidationError | None = None


def decode(table: Table, message: Act) -> Decoded:
    try:
        return Decoded(table.game.to_action(message.action))
    except msgspec.ValidationError as error:
        return Decoded(None, error)


def act(table: Table, intent: intents.Act) -> None:
    receiver, message = intent.receiver, intent.message
    slot = seating.slot_of(table, receiver)
    if slot is None:
        return fanout.error(table, receiver, message.id, "not_seated", f"you hold no seat at {table.id}")
    if message.id is not None and message.id in slot.answers:
        first = slot.answers[message.id]
        if type(first) is Accepted:
            first = msgspec.structs.replace(first, duplicate=True)
        return fanout.deliver(table, receiver, first)
    if message.id is not None and fair.is_held(table, slot.seat, message.id):
        return  # a resend of a held action: answered at its release
    decoded = decode(table, message)
    time = intent.received - table.t0
    if not refusals.room(slot, time):
        return over_budget(table, slot, intent, decoded, time)
    if table.fair and table.started and decoded.error is None and fair.contest(table, slot, intent, decoded.action):
        return
    answer(table, slot.seat, intent, decoded, time)


def over_budget(table: Table, slot: SeatSlot, intent: intents.Act, decoded: Decoded, time: float) -> None:
    """A seat with no room for a logged refusal (``refusals.py``): its take of a contested item is not taken at
    all (it could not be remembered as a guess); any other action is applied if legal, its reply recorded as
    ``fair.contest`` records it, and if refused, answered ``too_many_refused``, unlogged, nothing changed."""
    live = table.fair and table.started and decoded.error is None
    if live and table.game.contested(table.session.state, decoded.action):
        return fanout.deliver(table, intent.receiver, refusals.denied(table, slot, intent.message.id, time))
    reply = fair.reply_of(slot, decoded.action, time) if live else None
    if type(answer(table, slot.seat, intent, decoded, time)) is Accepted and reply is not None:
        fair.add_reply(slot, reply)


def answer(table: Table, seat: int, intent: intents.Act, decoded: Decoded, time: float, fair: Fair | None = None,
           lost: tuple[int, str] | None = None, refusal: tuple[str, str] | None = None) -> Accepted | Rejected:
    """Apply a seat's action now, answer its sender (``lost``: the seat and rule of another seat whose
    same action went first; ``refusal``: refuse it with this code and text instead) and send everyone the
    update."""
    message = intent.message
    reply, entries, turn = apply_action(table, seat, message, decoded, time, fair, lost, refusal)
    slot = table.slots[seat]
    if message.id is not None and not (type(reply) is Rejected and reply.code == Code.TOO_MANY_REFUSED):
        # (a refusal not logged is no answer to keep: a resend is tried afresh)
        slot.answers[message.id] = reply
    receiver = intent.receiver
    if slot.receiver is not receiver:  # resumed elsewhere while it was held: the seat's connection now
        receiver = slot.receiver if slot.state == "taken" else None  # (away or a stand-in: a resend gets it)
    if receiver is not None:
        fanout.deliver(table, receiver, reply)
    if entries:
        fanout.broadcast(table, entries, turn)
    return reply


def apply_action(table: Table, seat: int, message: Act, decoded: Decoded, time: float, fair: Fair | None = None,
                 lost: tuple[int, str] | None = None,
                 refusal: tuple[str, str] | None = None) -> tuple[Accepted | Rejected, list, ToAct | None]:
    """Apply one seat's action: all of it, logged and answered, or refused, logged, and nothing changed.
    Returns the answer, the new entries and who may act after them (None when refused)."""
    def refuse(action: Any, code: str, text: str) -> tuple[Rejected, list, None]:
        slot = table.slots[seat]
        if refusals.counts(fair):  # refused at once: it takes a token, and without one it is not logged
            if not refusals.room(slot, time):
                return refusals.denied(table, slot, message.id, time), [], None
            refusals.spend(slot, time)
        action = compact_refused(action)  # a 60 KiB junk action is kept as its digest, not whole
        logged = fair if lost is None else msgspec.structs.replace(fair, lost_to=lost[0])
        entry = table.log.append(time=time, actor=seat, action=action, accepted=False, code=code, ref=message.id,
                                 fair=logged)
        persist(table, Entry(seq=entry.seq, time=time, actor=seat, action=action, accepted=False, code=code,
                             ref=message.id, fair=logged))
        contest = None
        if lost is not None:
            winner, rule = lost
            contest = Contest(winner=winner, rule=rule, lot=rule == "lot")  # data: the client words it
        return (Rejected(ref=message.id, table=table.id, code=code, message=text, seq=table.log.seq,
                         contest=contest), [], None)

    if refusal is not None:
        return refuse(message.action, *refusal)
    if not table.started:
        return refuse(message.action, "not_started", "the game starts when every seat is filled")
    if table.halted is not None:
        return refuse(message.action, "table_over", f"the table was ended ({table.halted[0].replace('_', ' ')})")
    if message.expect_seq is not None and not table.log.accepted_seq <= message.expect_seq <= table.log.seq:
        # Only an accepted entry moves the table: refused intents (another seat's too, which this seat
        # is never sent) take seqs but change nothing, so they never make an action stale.
        return refuse(message.action, "stale", stale(table, message.expect_seq))
    if decoded.error is not None:
        return refuse(message.action, "bad_action", f"not a {table.game.info.title} action: {decoded.error}")
    try:
        steps = table.session.act(seat, decoded.action)
    except RulesError as error:
        return refuse(decoded.action, error.code, error.message)
    entries, turn = record(table, steps, time, broadcast=False, ref=message.id, fair=fair)
    return (Accepted(ref=message.id, table=table.id, seq=entries[0].seq, receipt=receipt(table, entries[0].seq)),
            entries, turn)


def stale(table: Table, expect_seq: int) -> str:
    """Why an ``expect_seq`` is refused, with the seq to expect now."""
    if expect_seq > table.log.seq:
        return f"{expect_seq} has not happened yet: the table's state last changed at {table.log.accepted_seq}"
    return (f"the table has moved on since {expect_seq}: its state last changed at {table.log.accepted_seq}; "
            f"choose again from the update with that seq")


def record(table: Table, steps: list[Step], time: float | None = None, broadcast: bool = True,
           ref: Any = None, fair: Fair | None = None) -> tuple[list, ToAct]:
    """Append accepted steps to the log and re-arm the timers; returns the new entries and who may act
    after them (worked out once here: the log, the timers and the updates all need it)."""
    time = table.now() if time is None else time
    entries = [table.log.append(time=time, actor=s.actor, action=s.action, accepted=True, events=s.events,
                                ref=ref if i == 0 else None, fair=fair if i == 0 else None)
               for i, s in enumerate(steps)]
    for entry in entries:
        if entry.actor == CHANCE:  # a deal: what it offers is offered anew (``offers.track_offers``)
            table.dealt = entry.seq
    turn = table.session.to_act()
    if table.store is not None:
        checkpoint = turn.over or any(e.seq % table.digest_every == 0 for e in entries)
        for entry in entries:
            final = entry is entries[-1] and checkpoint
            persist(table, Entry(seq=entry.seq, time=time, actor=entry.actor, action=entry.action,
                                 accepted=True, digest=table.session.digest() if final else None, ref=entry.ref,
                                 fair=entry.fair))
    timers.arm(table, turn)
    if broadcast and entries:
        fanout.broadcast(table, entries, turn)
    return entries, turn


def persist(table: Table, record: Any) -> None:
    """Write a record to the log file (if any, and not yet closed)."""
    if table.store is not None and not table.log_closed:
        table.store.append(record)
        if type(record) is Entry:  # entries are persisted once each, in seq order
            table.receipts.append(table.store.head)


def receipt(table: Table, seq: int) -> str | None:
    """The hash of entry ``seq``'s log line: what a player keeps to check a log later (None without one)."""
    return table.receipts[seq - 1] if 0 < seq <= len(table.receipts) else None


def answer_for(table: Table, entry) -> Accepted | Rejected:
    """The answer a logged entry gave its sender (to answer a resend after a restart the same way)."""
    if entry.accepted:
        return Accepted(ref=entry.ref, table=table.id, seq=entry.seq, receipt=receipt(table, entry.seq))
    return Rejected(ref=entry.ref, table=table.id, code=entry.code or "refused",
                    message="refused before the server restarted", seq=entry.seq)


def check_over(table: Table, result: Result | None) -> None:
    """Once the game is over (``result``, the session's now): the log's end record reveals the seed, and
    ``over`` is set."""
    if result is None or table.over.is_set():
        return
    placings = table.game.placings(table.session.state)
    persist(table, End(seq=table.log.seq, seed=table.seed, digest=table.session.digest(), reason="over",
                       scores=list(result.scores), winners=list(result.winners),
                       places=list(placings) if placings is not None else None))
    durable.ended(table)
