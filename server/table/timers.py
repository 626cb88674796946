"""A table's clocks: the photo-finish window (a due system action), lockstep's per-action time limit (a timeout
action), each away seat's grace period, the fair hold of contested actions, the expiry of a table nobody
sat at, and the time a started table has gone on with no player connected (``attend``); and the ways a table
ends before its game does: halted as it stands (a tournament's time ran out, ``time_limit``; or no player was
connected for ``abandon_after`` seconds, ``abandoned``) or expired. The arbiter waits for its next intent until
``next_deadline`` and then calls ``fire``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import trio

from rules import SYSTEM, ToAct

from ..logs.logfile import End
from ..protocol import TableEnded
from . import apply, durable, fair, fanout, present, seating, spectating
from .bots import start_stand_in
from .seats import HELD, TAKEN

if TYPE_CHECKING:
    from .arbiter import Table


def arm(table: Table, turn: ToAct) -> None:
    """Set the window and turn deadlines for who may act now (``turn``)."""
    if table.read_only:
        return  # what happened when is the log's to say
    now = trio.current_time()
    if turn.system and table.window_deadline is None:
        table.window_deadline = now + turn.system_delay_ms / 1000
        if table.opening is not None:  # opened by a fair action: the window runs in reaction time, and
            # closes once every action within it could have arrived (its virtual time + the window + the cap)
            table.window_opened = table.opening
            table.window_deadline = max(table.window_deadline, table.t0 + table.opening
                                        + turn.system_delay_ms / 1000 + table.cap)
    elif not turn.system:
        table.window_deadline = None
        table.window_opened = None
    if table.turn_time_ms and table.setup.mode == "lockstep" and turn.seats and not turn.over:
        table.turn_deadline = now + table.turn_time_ms / 1000
    else:
        table.turn_deadline = None


def next_deadline(table: Table) -> float:
    deadline = math.inf
    for due in (table.window_deadline, table.turn_deadline):
        if due is not None and due < deadline:
            deadline = due
    if table.held:
        deadline = min(deadline, table.t0 + min(h.fair.until for h in table.held))
    if table.expires is not None:
        deadline = min(deadline, table.expires)
    if table.abandons is not None:
        deadline = min(deadline, table.abandons)
    released = spectating.next_due(table)  # (None: nothing held, or held for entries still to come)
    if released is not None:
        deadline = min(deadline, released)
    if table.stream.lagging:  # a spectator that fell behind is offered the snapshot even if nothing else happens
        deadline = min(deadline, spectating.next_offer(table))
    if table.stream.count_due is not None:  # the spectators are told how many watch
        deadline = min(deadline, table.stream.count_due)
    for slot in table.slots:
        if slot.away_since is not None:
            deadline = min(deadline, table.t0 + slot.away_since + table.grace_ms / 1000)
    return deadline


def fire(table: Table) -> None:
    """Act on every deadline that has passed."""
    now = trio.current_time()
    if table.expires is not None and now >= table.expires:
        return expire(table)
    if table.abandons is not None and now >= table.abandons:
        table.abandons = None
        halt(table, "abandoned")
    spectating.release_due(table)
    spectating.offer_due(table)
    present.present_due(table)
    fair.release_due(table)
    if table.window_deadline is not None and now >= table.window_deadline:
        table.window_deadline = None
        if table.held and table.window_opened is not None:  # finishes within the window in reaction time
            fair.release_held(table)  # count, the rest are refused too_late (``fair.release_held``)
        system = table.game.legal_actions(table.session.state, SYSTEM)
        if system:
            apply.record(table, table.session.act(SYSTEM, system[0]))
    if table.turn_deadline is not None and now >= table.turn_deadline:
        table.turn_deadline = None
        turn = table.session.to_act()
        if turn.seats and not turn.over:
            apply.record(table, table.session.act(SYSTEM, table.game.timeout_action(table.session.state,
                                                                                   turn.seats[0])))
    for slot in table.slots:
        if slot.away_since is not None and now >= table.t0 + slot.away_since + table.grace_ms / 1000:
            if table.settings.stand_in and table.started and not table.over.is_set():
                start_stand_in(table, slot)
            else:
                seating.free(table, slot)


def halt(table: Table, reason: str) -> None:
    """End the table now, before the game's own end (a tournament round's time ran out; abandoned): every seat
    is placed as the game stands (``game.standing``), logged in the end record, and no action is taken after."""
    if table.over.is_set() or not table.started:
        return
    fair.release_held(table)  # held actions arrived before the halt: they count
    if table.over.is_set():
        return
    places = list(table.game.standing(table.session.state))
    table.halted = (reason, places)
    table.window_deadline = table.turn_deadline = None
    apply.persist(table, End(seq=table.log.seq, seed=table.seed, digest=table.session.digest(), reason=reason,
                             places=places))
    ended = TableEnded(table=table.id, seq=table.log.seq, reason=reason, places=places)
    for receiver in [s.receiver for s in table.slots if s.receiver is not None]:
        fanout.deliver(table, receiver, ended)
    spectating.ended(table, ended)
    durable.ended(table)


def expire(table: Table) -> None:
    """Nobody sat at this waiting table (or nobody has since its players left) for ``expire_after`` seconds: end it
    (reason ``expired``, no places) and stop the arbiter; the lobby forgets it. Watchers are told."""
    table.expires = None
    if table.started or table.over.is_set():
        return
    table.halted = ("expired", [])
    apply.persist(table, End(seq=table.log.seq, seed=table.seed, digest=table.session.digest(), reason="expired"))
    spectating.ended(table, TableEnded(table=table.id, seq=table.log.seq, reason="expired", places=[]))
    durable.ended(table)


def attend(table: Table) -> None:
    """The abandoned clock (``abandon_after``): it runs from the moment a started table that has a player's seat
    is left with no player connected (every seat a server bot, a stand-in, away or freed), and stops as soon as
    one is (back by token, or a newcomer in a freed seat): whoever goes next starts it afresh. Its end is
    ``fire``'s. A table of server bots alone has no player to wait for: its bots play it to its end."""
    if not table.started and table.settings.expire_after and table.seated_ever:  # sat at, then left: a waiting
        # table whose players all left expires as one nobody sat at (it held its creator's place, and the
        # server's, for good: sixteen "sit, then leave" locked an address out of creating tables)
        if any(slot.state in HELD for slot in table.slots):
            table.expires = None
        elif table.expires is None:
            table.expires = trio.current_time() + table.settings.expire_after
    after = table.settings.abandon_after
    if not after or not table.started or table.over.is_set() or len(table.bot_seats) == len(table.slots) \
            or any(slot.state == TAKEN for slot in table.slots):
        table.abandons = None
    elif table.abandons is None:
        table.abandons = trio.current_time() + after
