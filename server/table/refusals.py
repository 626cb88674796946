"""A seat's budget of logged refusals: how much a seat's refused actions may add to its table's log.

Every refused intent is logged (``apply.py``), so a client sending junk or illegal actions at its allowed rate
(200 a second) grew its table's log by about 110 KB a second, one seat alone, with no end but the disk. Each
seat therefore has a token bucket of logged refusals, on the table's own clock: ``BURST`` at most, filled again
at ``PER_SECOND``. A refusal that is logged as ever takes one token; with less than one token left, the seat's
next refused action is answered ``too_many_refused``, is not logged, and changes nothing at all: no entry, no
seq, no counter, no fair-ordering memory, no remembered answer to its message id (a resend is tried afresh).
So a seat adds at most ``BURST + PER_SECOND * t`` refused entries to its log in ``t`` seconds (a 10-minute game:
3,100 at most, about 2 MB of junk kept whole, against 100,000 and 67 MB before).

What takes a token (``counts``): a refusal answered at once, decided by the arbiter alone, which the seat can
repeat as fast as it sends (``not_started``, ``table_over``, ``stale``, ``bad_action``, the rules' own codes,
and fair ordering's ``too_early``), and the same take asked again under a new message id while the seat's first
is held, answered ``after`` it at the release (a seat may send hundreds while a take is held: red11 logged 1,198
in five holds; a resend under the same id is no new ask, answered once with the first). Not the refusals of a
held contested action itself at its release (lost to another seat, ``too_late``): those are logged as ever,
never counted, never refused for want of a token; they are bounded by the table's own play (one hold per seat
per card offered, each at most ``fair_ms`` long), and they are how an honest seat loses a race.

What the budget cannot hand a cheater. A take of a contested card refused at once may change fair ordering's
memory of the seat (``fair.contest``): a take of a card never offered to it is counted and remembered as a
guess, which orders its later take of that card last; a take too early may set its pongs aside. A refusal
that is not logged may change none of that, so it cannot be remembered: a spammer of takes over its budget
would escape the guess rule. Hence, with less than one token, a seat's take of any contested item is not
taken at all, legal or not: answered ``too_many_refused``, unlogged, nothing changed (the card stays for the
others). Its uncontested actions (a draw, a discard) are applied as ever if legal, the reply they carry for its
round trip recorded as ever, and refused unlogged if not. A seat over its budget thus takes no card until its
budget has room again: a guess it could not be charged with buys it nothing, and junk only costs itself.

Deterministic and in the log: the bucket changes only at a logged refusal, at that entry's own ``time`` and
``actor``, so the log alone gives every seat's budget at every moment (``restore`` folds it after a restart;
``replay``/``verify`` need nothing of it: what is not logged changed nothing). An honest fast bot (``photofinish
load``, closed loop, 3 seats racing for every card, ~60 actions a second a seat) is refused at once 0.5-0.9
times a second, at most 13 in any 10 s: a twentieth of the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from ..protocol import Code, Rejected

if TYPE_CHECKING:
    from .arbiter import Table
    from .seats import SeatSlot

BURST = 100  # logged refusals a seat may make at once
PER_SECOND = 5.0  # ... and again this many a second, on the table's clock


@dataclass
class Budget:
    """A seat's tokens for logged refusals: ``level`` at table time ``at``."""

    level: float
    at: float = 0.0

    def now(self, time: float) -> float:
        return min(BURST, self.level + max(0.0, time - self.at) * PER_SECOND)


def budget(slot: SeatSlot) -> Budget:
    if slot.refusals is None:
        slot.refusals = Budget(BURST)
    return slot.refusals


def room(slot: SeatSlot, time: float) -> bool:
    """The seat may make one more logged refusal at table time ``time``."""
    return slot.refusals is None or slot.refusals.now(time) >= 1 - 1e-9  # (a refill's float sum a hair short)


def counts(fair: Any) -> bool:
    """A refused entry with this fair ordering record (None: none) takes a token: one refused at once, or an ask
    again of a held take under a new message id (``after``: as many as the seat sends while it is held)."""
    return fair is None or fair.rule in ("too_early", "after")


def spend(slot: SeatSlot, time: float) -> None:
    """A counted refusal of the seat's was logged at ``time``: one token less."""
    held = budget(slot)
    held.level, held.at = max(0.0, held.now(time) - 1), max(held.at, time)


def restore(table: Table, entries: Iterable[Any]) -> None:
    """A reopened table: each seat's budget as its logged refusals left it."""
    for entry in entries:
        if not entry.accepted and 0 <= entry.actor < len(table.slots) and counts(entry.fair):
            spend(table.slots[entry.actor], entry.time)


def denied(table: Table, slot: SeatSlot, ref: Any, time: float) -> Rejected:
    """The answer to a refusal the seat has no token for: nothing logged, nothing changed."""
    wait = max(0.0, 1 - budget(slot).now(time)) / PER_SECOND
    return Rejected(ref=ref, table=table.id, code=Code.TOO_MANY_REFUSED, seq=table.log.seq, message=(
        f"too many refused actions: a seat's refusals are logged {BURST} at once and {PER_SECOND:g} a second at "
        f"most; this one was not logged and changed nothing, and no contested card is taken for you until "
        f"there is room again (in {max(1, round(wait * 1000))} ms)"))
