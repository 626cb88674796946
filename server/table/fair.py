"""Fair ordering at a table (Challenge Mode's default): a contested action that says which update its seat had
seen is held a few milliseconds (at most ``fair_ms`` less the seat's round-trip credit), and the actions held
together on one item are applied in order of reaction time (``server/fairness.py``); every decision's inputs
go in its log entry. Here: taking an action in (``contest``), how long it is held (``hold_until``), what a
seat's round trip is credited with (``round_trip``), the releases (``release_due``, ``release_held``; a
photo-finish window's close in reaction time, ``window_end``). What each seat was offered and when it left
(``track_offers``, ``stamp``) is kept by ``offers.py``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from ..fairness import ALL, EPSILON, GUESS_REACTION, credited, early_floor, fair_order, held_back, hold_bound
from ..fairness import QUICKEST_REACTION
from ..fairness import credit as credit_for
from ..fairness import reaction as reaction_of
from ..logs.logfile import Fair
from ..protocol import Accepted
from . import apply, intents, seating
from .offers import LEFT_KEPT, remember_gone, stamp, stamp_slot, track_offers  # noqa: F401 (kept in offers.py)
from .seats import PATH_KEPT, STALE, SeatSlot

if TYPE_CHECKING:
    from .arbiter import Table

GUESS_WINDOW = 2.0  # seconds: a take asked for this long before its card was offered is a guess
REPLIES_LEAST = 8  # replies before their median bounds a credit (as many samples as the pings' median)


@dataclass
class Held:
    """A contested action waiting for its item's release (fair ordering), and its seat's resends of the same."""

    intent: intents.Act
    seat: int
    fair: Fair
    virtual: float  # arrival less the seat's credit: when the action would have arrived from no distance
    key: Any = None  # the contested item (the decoded action itself): one item's release never releases another's
    followers: list[intents.Act] = field(default_factory=list)


def is_held(table: Table, seat: int, ref: Any) -> bool:
    """A message id of this seat's is held already (a resend: answered at its release)."""
    for h in table.held:
        if h.seat == seat and (h.intent.message.id == ref or any(f.message.id == ref for f in h.followers)):
            return True
    return False


def contest(table: Table, slot: SeatSlot, intent: intents.Act, action: Any) -> bool:
    """Take a contested action (``action``, decoded) into fair ordering (True), or say it is not contested
    (False: apply it now like any other, in arrival order, releasing nothing).

    Its reaction is measured from what the server knows: when this seat was first sent the update that
    offered the action (``since``), never from the client's ``seen``, which may only show it was chosen
    on an older view (then it is a guess). An action that arrives sooner after that send than the seat's
    round trip allows, or that the seat asked for before it was offered, gains nothing: it is refused
    (``too_early``) or ordered last (``guess``), and counted. Otherwise it is held until no quicker
    reaction to the same item can still arrive (``hold_until``), and released with the other actions on
    that item only (``release_due``)."""
    message = intent.message
    arrival = intent.received - table.t0
    if not table.game.contested(table.session.state, action):
        reply = reply_of(slot, action, arrival)
        if reply is not None:
            add_reply(slot, reply)  # a reply to the update that offered it: its path bounds the seat's round
        return False  # trip (``round_trip``)
    offered = slot.since.get(action)
    if offered is None and table.log.seq > slot.tracked \
            and action in table.game.legal_actions(table.session.state, slot.seat):
        slot.guesses += 1  # legal since an entry after the seat's last update (one earlier in this batch,
        refuse_early(table, slot, intent, action, arrival, None,  # whose update is not built yet, let alone
                     "its card was not yet offered to you")  # sent): chosen before the card was offered,
        return True  # never applied by arrival (red9)
    if offered is None:  # not legal for this seat now: refused at once; a take of a card never offered to
        left = slot.left.pop(action, None)  # it lately is a guess, counted, and orders its later take last;
        if left is None or arrival - left > GUESS_WINDOW:  # so is a second late take of it (asked for again
            # and again while it is gone, to land just after it comes back: red9)
            slot.guesses += 1
            slot.guessed[action] = arrival
            if len(slot.guessed) > LEFT_KEPT:
                slot.guessed.popitem(last=False)
        return False
    seq, sent = offered
    meter = slot.receiver.latency if slot.receiver is not None else None
    if sent is not None and meter is not None and held_back(arrival - sent, meter.samples):
        slot.distrust = PATH_KEPT  # it holds its pongs back (a cheat): they are not believed for its next takes
    rtt, pings, path, kernel = round_trip(table, slot)
    for mine in table.held:
        if mine.seat == slot.seat and mine.key == action:  # the seat asked for the same item again: answered
            mine.followers.append(intent)  # right after its first ask
            return True
    early = sent is None or arrival - sent < early_floor(credited(pings, path, kernel, estimate=min))
    guessed = slot.guessed.get(action)
    left = slot.left.get(action)  # the same card (another copy) was offered to it lately: a late take, no guess
    before_offer = message.seen is not None and message.seen < seq and (left is None or arrival - left > GUESS_WINDOW)
    if early or before_offer:
        slot.guesses += 1
        rule = "too_early"
    elif guessed is not None and sent - guessed <= GUESS_WINDOW:
        rule = "guess"
    else:
        rule = "reaction"
    if rule == "too_early":
        refuse_early(table, slot, intent, action, arrival, sent,
                     "it arrived sooner after the card was sent to you than your round trip allows" if early
                     else f"it was chosen on update {message.seen}, before the card was offered at {seq}")
        return True
    slot.path.append(arrival - sent)
    slot.bound = STALE
    slot.distrust = max(0, slot.distrust - 1)
    credit = credit_for(rtt, table.cap)
    reaction = reaction_of(arrival, sent, rtt, table.cap) if rule == "reaction" else GUESS_REACTION
    until = hold_until(table, slot, action, arrival, reaction, credit)
    fair = Fair(rule=rule, arrival=arrival, seen=message.seen, sent=sent, rtt=rtt, reaction=reaction,
                until=until, pings=pings, path=path, kernel=kernel)
    table.held.append(Held(intent, slot.seat, fair, arrival - credit, key=action))
    return True


def reply_of(slot: SeatSlot, action: Any, arrival: float) -> float | None:
    """An uncontested action's arrival - send of the update that offered it to the seat (None: not offered, or
    not sent yet): a reply, kept by ``add_reply``."""
    offered = slot.offers.get(action)
    if offered is not None and offered[1] is not None and arrival >= offered[1]:
        return arrival - offered[1]
    return None


def refuse_early(table: Table, slot: SeatSlot, intent: intents.Act, action: Any, arrival: float,
                 sent: float | None, why: str) -> None:
    """Refuse a contested action as ``too_early``, its inputs logged (``sent`` None: not yet sent the seat)."""
    rtt, pings, path, kernel = round_trip(table, slot)
    apply.answer(table, slot.seat, intent, apply.Decoded(action), table.now(),
                 Fair(rule="too_early", arrival=arrival, seen=intent.message.seen, sent=sent, rtt=rtt,
                      pings=pings, path=path, kernel=kernel), refusal=("too_early", f"too early: {why}"))


def hold_until(table: Table, slot: SeatSlot, action: Any, arrival: float, reaction: float, credit: float) -> float:
    """When a quicker reaction to the same item can no longer arrive: each other seat that may take it
    would have sent it by when its update offering the item left + this reaction + its credit. No such
    seat: now (arrival order; on a LAN of equal round trips this is about the arrival too). A seat not yet
    sent the offer: the bound, ``fair_ms`` less this seat's credit after the arrival."""
    bound = hold_bound(arrival, credit, table.cap)
    latest = arrival
    for other in table.slots:
        if other is slot or other.receiver is None:
            continue
        offered = other.since.get(action)
        if offered is None:
            continue  # it may not take this item
        if offered[1] is None:
            return bound
        latest = max(latest, offered[1] + reaction + credit_for(round_trip(table, other)[0], table.cap))
    return min(latest, bound)


def round_trip(table: Table, slot: SeatSlot) -> tuple[float | None, list[float] | None, float | None, float | None]:
    """The round trip a seat's reactions are credited with (``fairness.credited``), and what it comes
    from: its ping samples, the quickest of its last takes' arrival - first send (``path``; or, if less, the
    median of its last replies' arrival - send (from ``REPLIES_LEAST`` on) plus ``QUICKEST_REACTION``: an uncontested action, such as a
    discard, sent on the update that made it legal, which a client cannot delay to look farther without
    delaying its whole game), and the kernel's smallest round trip of its connection (direct connections). A seat caught answering pings late (a take sooner
    after its card was sent than its pongs allow: ``contest``) has its pings set aside for its next
    ``PATH_KEPT`` takes: no credit (arrival order for it), and none logged, so ``verify`` agrees."""
    meter = slot.receiver.latency if slot.receiver is not None else None
    pings = meter.sorted_samples() if meter is not None and meter.samples else None  # (the same list until a pong)
    if slot.distrust:
        pings = None
    path = slot.bound if slot.bound is not STALE else path_bound(slot)
    kernel = kernel_of(table, slot, meter)
    cached = slot.credit  # credited again only when what it comes from changed
    if cached is not None and cached[0] is pings and cached[1] == path and cached[2] == kernel \
            and cached[3] == table.unverified:
        return cached[4], pings, path, kernel
    rtt = credited(pings, path, kernel, unverified=table.unverified)
    slot.credit = (pings, path, kernel, table.unverified, rtt)
    return rtt, pings, path, kernel


def path_bound(slot: SeatSlot) -> float | None:
    """The seat's path as its takes and replies bound it (``round_trip``), kept until its next take or reply."""
    path = min(slot.path) if slot.path else None
    if len(slot.replies) >= REPLIES_LEAST:  # its typical reply crossed the path with no reaction to speak of
        replied = median_of_sorted(slot.replied) + QUICKEST_REACTION
        path = replied if path is None else min(path, replied)
    slot.bound = path = round(path, 6) if path is not None else None
    return path


def add_reply(slot: SeatSlot, reply: float) -> None:
    """A reply's arrival - send, kept among the seat's last ``PATH_KEPT`` (``replies``) and in order of size
    (``replied``: the one that leaves the deque leaves it too), so ``path_bound`` reads their median at once;
    the seat's path bound is worked out again at its next use."""
    replies, replied = slot.replies, slot.replied
    slot.bound = STALE
    if len(replies) == replies.maxlen:
        del replied[bisect.bisect_left(replied, replies[0])]
    replies.append(reply)
    bisect.insort(replied, reply)


def median_of_sorted(values: list[float]) -> float:
    """``statistics.median`` of values already sorted: the same arithmetic, without the sort."""
    n = len(values)
    if n % 2:
        return values[n // 2]
    return (values[n // 2 - 1] + values[n // 2]) / 2


def kernel_of(table: Table, slot: SeatSlot, meter: Any) -> float | None:
    """The kernel's smallest round trip of the seat's connection, read (a system call) once per batch of
    intents: every decision of a batch is made at one moment, so every one of them logs the same value."""
    read = meter.kernel if meter is not None else None
    if read is None:
        return None
    cached = slot.kernel_read
    if cached is not None and cached[0] == table.batches and cached[1] is read and table.batch is not None:
        return cached[2]
    kernel = read()
    kernel = round(kernel, 6) if kernel is not None else None
    slot.kernel_read = (table.batches, read, kernel)
    return kernel


def release_due(table: Table) -> None:
    """Release every item whose first held action is due (its group decided: see ``hold_until``). Due is
    judged on the trio clock as the table's timer is set (``t0 + until``, ``timers.next_deadline``): in table
    time (``now() = clock - t0``) rounding can leave it a hair short at its own deadline, and the timer would
    fire again at once, for ever under a clock that only moves when every task waits."""
    if not table.held:
        return
    now = trio.current_time()
    due = {}
    for held in table.held:
        if table.t0 + held.fair.until <= now:
            due[held.key] = None
    for key in due:
        release_held(table, key=key)


def window_end(table: Table) -> float | None:
    """When the photo-finish window open now closes in reaction time: the virtual time (arrival less credit)
    of the finish that opened it, plus the window; None when no window opened by a fair action is open."""
    if table.window_opened is None:
        return None
    return table.window_opened + table.session.to_act().system_delay_ms / 1000


def release_held(table: Table, key: Any = ALL) -> None:
    """Apply held actions as one group, in order of reaction (ties by seeded lot): those on ``key`` (every
    item: ``ALL``). A loser is refused at once, saying it lost and by which rule. While a photo-finish window
    is open, an action whose virtual time is past its close (``window_end``) came after the race ended in
    reaction time, however soon it arrived: refused ``too_late`` (the window's close releases them all)."""
    if not table.held:
        return
    if key is ALL:
        group, table.held = table.held, []
    else:
        group, rest = [], []
        for held in table.held:
            (group if held.key == key else rest).append(held)
        if not group:
            return
        table.held = rest
    table.groups += 1
    order, lots = fair_order([h.fair.reaction for h in group], EPSILON, table.draw)
    went_first: dict[Any, tuple[int, str]] = {}  # action -> (seat, rule) of the accepted one
    now = table.now()
    for index in order:
        held = group[index]
        lot = lots.get(index)
        rule = held.fair.rule if held.fair.rule == "guess" else ("reaction" if lot is None else "lot")
        fair = msgspec.structs.replace(held.fair, group=table.groups, rank=index, lot=lot, rule=rule)
        first = went_first.get(held.key)
        lost = first if first is not None and first[0] != held.seat else None
        decoded = apply.Decoded(held.key)
        end = window_end(table)
        if end is not None and held.virtual > end:
            answer = apply.answer(table, held.seat, held.intent, decoded, now, fair, refusal=(
                "too_late", "too late: in reaction time it came after the photo-finish window closed"))
        else:
            table.opening = held.virtual
            answer = apply.answer(table, held.seat, held.intent, decoded, now, fair, lost)
            table.opening = None
        if type(answer) is Accepted:
            went_first.setdefault(held.key, (held.seat, rule))
        for follower in held.followers:
            apply.answer(table, held.seat, follower, decoded, now,
                         Fair(rule="after", arrival=follower.received - table.t0, seen=follower.message.seen))


def skip_lots(table: Table, count: int) -> None:
    """A reopened table: advance the lot generator past the lots its log already drew."""
    for _ in range(count):
        table.draw([0])
