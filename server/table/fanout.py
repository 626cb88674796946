"""Everything a table sends: each message goes through ``deliver``, which keeps it for the end of the
arbiter's batch (``flush``), holds it at the durability gate until the log line it follows is on disk
(``durable.py``), or hands it over now. Updates are built once per receiver per batch: only the last update
carries the receiver's view, legal actions and the result. A receiver whose outbox is full is closed as too
slow.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import msgspec

from rules import ToAct

from ..protocol import BroadcastView, Error, MessageId, Snapshot, Update
from . import apply, crowdjobs, fair, patching, seating, spectating
from .receiver import Receiver
from .spectating import Crowd
from .seats import FREE

if TYPE_CHECKING:
    from .arbiter import Table


def deliver(table: Table, receiver: Receiver, message: Any) -> None:
    """Hand a message over: at the batch's flush if a batch runs, and under always/batch only once the log
    line it follows is on disk (messages keep their order). At a timed table, a seat's view says the time left
    (a spectator's may be shown late: it is not told)."""
    if table.turn_deadline is not None and (type(message) is Update or type(message) is Snapshot) \
            and message.view is not None and receiver not in table.spectators and type(receiver) is not Crowd:
        message = msgspec.structs.replace(message, time_left_ms=time_left_ms(table))
    if table.batch is not None:  # inside a batch: keep the order, send at the flush
        table.batch.append(("message", receiver, message))
    elif not table.gate.hold(receiver, message):
        hand_over(table, receiver, message)


def release_durable(table: Table) -> None:
    """Hand over the held messages whose log lines are durable now."""
    outer = begin_quiet(table)
    try:
        for receiver, message in table.gate.due():
            hand_over(table, receiver, message)
    finally:
        end_quiet(table, outer)


def begin_quiet(table: Table) -> bool:
    """From now on the seats' connections handed messages are written by the table itself at ``end_quiet``
    (``Connection.hush``/``push``): each once, however many messages it was handed, and without its writer task
    running for them. ``end_quiet`` comes in the same step, with no await between, so no other task ever sees an
    outbox hushed. True: this call began it (nested calls leave it to the outer one)."""
    if table.quiet is not None:
        return False
    table.quiet = {}
    return True


def end_quiet(table: Table, began: bool) -> None:
    if not began:
        return
    quiet, table.quiet = table.quiet, None
    for receiver in quiet:
        receiver.push()


def hand_over(table: Table, receiver: Receiver, message: Any) -> None:
    if type(receiver) is Crowd:
        if crowdjobs.queue_crowd(table, receiver.members, message, hand_over_members):
            return  # the gateway's ``Spread`` hands it out, in chunks
        return hand_over_members(table, receiver.members, message)
    if table.stream.jobs_made != table.stream.jobs_done and crowdjobs.queue_one(table, receiver, message, hand_over):
        return  # behind the spectators' jobs still out: each spectator keeps its order
    if spectating.skip(table, receiver):  # a spectator out of the live stream until it has room again
        return
    if table.fair and (type(message) is Update or type(message) is Snapshot):
        fair.stamp(table, receiver, message.seq)
    if patching.wants(receiver):  # the view's patch from the last one sent (a connection that asked for them)
        message = patching.outgoing(table, receiver, message)
        if message is None:  # nothing it wants
            return
    quiet = table.quiet
    if quiet is not None and receiver not in quiet and receiver not in table.spectators:
        hush = getattr(receiver, "hush", None)  # a connection (a bot in the server has none)
        if hush is not None:
            hush()
            quiet[receiver] = None
    if receiver.deliver(message):
        return
    if receiver in table.spectators:  # a spectator never slows the table, nor is closed: it catches up later
        spectating.fell_behind(table, receiver)
    else:
        receiver.close("too_slow", "you fell too far behind; reconnect to catch up")
        seating.disconnect(table, receiver)


def hand_over_members(table: Table, members: tuple, message: Any, number: float = math.inf) -> None:
    """One message to many spectators at once (a ``Crowd``'s, or a chunk of its job ``number``), as ``hand_over``
    to each (no seat among them: nothing to stamp for fair ordering), to those who still watch as they did then
    (one that left and came back since was shown the table then, not what came before)."""
    joined, lagging = table.spectators, table.stream.lagging
    patches = bool(members) and patching.wants(members[0])  # a crowd's members all asked for them, or none did
    for receiver in members:
        since = joined.get(receiver)
        if since is None or since >= number:
            continue
        if lagging and spectating.skip(table, receiver):
            continue
        shaped = patching.outgoing(table, receiver, message) if patches else message
        if shaped is None or receiver.deliver(shaped):  # (None: nothing it wants)
            continue
        spectating.fell_behind(table, receiver)


def error(table: Table, receiver: Receiver, ref: MessageId, code: str, text: str) -> None:
    deliver(table, receiver, Error(ref=ref, code=code, message=text))


def flush(table: Table) -> None:
    """The batch is over: send what it caused, in order; the last group of updates carries the views."""
    out, table.batch = table.batch, None
    last_group = next((i for i in range(len(out) - 1, -1, -1) if out[i][0] == "updates"), -1)  # has the views
    outer = begin_quiet(table)
    try:
        for index, item in enumerate(out):
            if item[0] == "message":
                deliver(table, item[1], item[2])
            else:
                send_updates(table, item[1], final_group=index == last_group)
    finally:
        end_quiet(table, outer)


def broadcast(table: Table, entries: list, turn: ToAct) -> None:
    """Send each seat an update per entry, redacted for it, and the spectators theirs (now, or when the batch
    is flushed)."""
    players: list[tuple[Receiver, int]] = [(s.receiver, s.seat) for s in table.slots if s.receiver]
    # who watches now: a spectator who starts watching later in this batch gets its catch-up instead, after its
    # ``watching`` (sent these, it would see updates before it knows the table)
    group = (entries, list(turn.seats), players, spectating.watching(table))
    if table.batch is not None:
        table.batch.append(("updates", group))
    else:
        send_updates(table, group, final_group=True)


def send_updates(table: Table, group, final_group: bool) -> None:
    """The last update of the last group carries each receiver's view, legal actions and the result. The
    players' updates are handed over first, and where there are spectators written at once (a ``Receiver``'s
    optional ``push``: a player's ``accepted`` and update leave before the table turns to a thousand
    spectators); the spectators' are built once for all (``spectating``). A connection that asked for patches
    gets the group as one update (``grouped``); the others one per entry."""
    entries, to_act, players, watchers = group
    game, state = table.game, table.session.state
    table_id, redact = table.id, game.redact
    receipts = {entry.seq: apply.receipt(table, entry.seq) for entry in entries}
    spectators = spectating.wanted(table, watchers)
    last, result, pings, views, lists = entries[-1], None, None, None, None
    if final_group:
        result = table.session.result()
        pings = table.pings()
        seats = [seat for _, seat in players]
        views = game.views(state, seats + [None] if spectators else seats)
        lists = game.legal_for(state, seats)
        if table.fair:
            for seat, legal_list in zip(seats, lists):
                fair.track_offers(table, seat, legal_list, last.seq)

    def updates(seat: int | None, view: Any, legal: Any, together: bool) -> list[Update]:
        events = [[redact(e, seat) for e in entry.events] for entry in entries]
        shown = {"view": view, "legal": legal, "result": result, "pings": pings} if final_group else {}
        if together and len(entries) > 1:
            return [grouped(table_id, entries, events, to_act, receipts[last.seq], **shown)]
        made = [Update(table=table_id, seq=entry.seq, actor=entry.actor, to_act=to_act, events=said,
                       receipt=receipts[entry.seq]) for entry, said in zip(entries, events)]
        if final_group:
            made[-1] = msgspec.structs.replace(made[-1], **shown)
        return made

    for index, (receiver, seat) in enumerate(players):
        for update in updates(seat, views[index] if final_group else None, lists[index] if final_group else None,
                              patching.wants(receiver)):
            deliver(table, receiver, update)
    if spectators:
        for receiver, _ in players:  # on the wire now, before the spectators' share is even built
            push = getattr(receiver, "push", None)
            if push is not None:
                push()
        view = views[-1] if final_group else None
        watched = updates(None, view, None, False)
        together = watched if len(entries) == 1 else updates(None, view, None, True)
        after = broadcast_after = None
        broadcast, broadcast_together = list(watched), list(together)
        if final_group:
            if table.stream.delayed:
                after = Snapshot(table=table_id, seq=last.seq, view=view, to_act=to_act, result=result,
                                 receipt=receipts[last.seq], pings=pings)
            if table.stream.key_hash is not None:  # the broadcast view: every seat's too
                whole = BroadcastView(public=view, seats=game.views(state, list(range(table.setup.seats))))
                broadcast[-1] = msgspec.structs.replace(watched[-1], view=whole)
                broadcast_together[-1] = msgspec.structs.replace(together[-1], view=whole)
                broadcast_after = msgspec.structs.replace(after, view=whole)
        spectating.send(table, patching.Forms(watched, together), after,
                        patching.Forms(broadcast, broadcast_together), broadcast_after, watchers)
    if final_group:
        apply.check_over(table, result)


def grouped(table_id: str, entries: list, events: list[list], to_act: list[int], receipt: str | None,
            **shown: Any) -> Update:
    """One update for a group of entries (to a ``patches`` connection): the last one's seq, the first one's actor,
    every entry's events in order and, for more than one entry, each entry's [seq, actor, number of events]."""
    first, last = entries[0], entries[-1]
    marks = [[entry.seq, entry.actor, len(said)] for entry, said in zip(entries, events)] if len(entries) > 1 else None
    return Update(table=table_id, seq=last.seq, actor=first.actor, to_act=to_act,
                  events=[event for said in events for event in said], entries=marks, receipt=receipt, **shown)


def broadcast_snapshot(table: Table) -> Snapshot:
    """The broadcast view now: what spectators see and every seat's own view."""
    whole = BroadcastView(public=table.game.view(table.session.state, None),
                          seats=table.game.views(table.session.state, list(range(table.setup.seats))))
    return msgspec.structs.replace(snapshot(table, None), view=whole)


def snapshot(table: Table, seat: int | None, skipped: int = 0) -> Snapshot:
    """The whole view now for ``seat`` (None: a spectator)."""
    state = table.session.state
    waiting = None if table.started else [s.seat for s in table.slots if s.state == FREE]
    legal = table.game.legal_actions(state, seat) if seat is not None else None
    if table.fair and legal is not None:
        fair.track_offers(table, seat, legal, table.log.seq)
    return Snapshot(table=table.id, seq=table.log.seq, view=table.game.view(state, seat),
                    to_act=list(table.session.to_act().seats),
                    legal=legal,
                    result=table.session.result(), skipped=skipped, waiting_for=waiting,
                    receipt=apply.receipt(table, table.log.seq), pings=table.pings())


def time_left_ms(table: Table) -> int:
    """At a timed lockstep table, the milliseconds the seat to act has left from now."""
    return max(0, round((table.turn_deadline - table.t0 - table.now()) * 1000))
