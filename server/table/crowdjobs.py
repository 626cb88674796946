"""The spectators' share of a table's messages, handed out by the gateway's ``Spread`` in chunks rather than in
the table's own task (issue 35: players first).

A ``Crowd``'s message (one update for all who watch), once past the batch and the durability gate, becomes one
``Job``: ``Spread`` hands it to ``JOB_CHUNK`` (``server/wire/spread.py``) spectators at a time (each one's patch, its connection's queue,
the fall of one that reads slowly to a snapshot catch-up), letting every other task run between chunks. A
table's step then no longer grows with its spectators: at one table watched by a thousand, or ten tables
watched by a hundred each whose steps ran in one batch of trio's scheduler, a player's action waited for all
of it (answers' p99 2.8x and up to 12x of no spectators, ``bench/spectator_bench.py``).

**Order.** While a table has jobs out that a spectator is in, whatever else the table hands that spectator (a
catch-up snapshot, a presence) is a job too, queued behind them: jobs are handed out in the order they were
made, so each spectator gets its messages in the table's order. A seat's messages never wait behind the
spectators', nor do a spectator's who just came (no job before has it: ``table.spectators`` keeps when each came), so a thousand joining
do not queue their catch-ups behind each other. Without a running ``Spread`` (bots, tests' receivers, a gateway
stopping: ``Spread.run`` hands out what is left at once) everything is handed over at once, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .arbiter import Table
    from .receiver import Receiver

class Job:
    """``give(start, stop)`` hands the job to its receivers ``start:stop`` (of ``size``); ``done()`` once all
    have it. The ``Spread`` that hands it out knows nothing of tables."""

    __slots__ = ("table", "receivers", "hand", "size", "given", "number")

    def __init__(self, table: Table, receivers: tuple, hand: Callable[[Table, tuple, int], None]) -> None:
        self.table, self.receivers, self.hand = table, receivers, hand
        self.size, self.given = len(receivers), 0
        table.stream.jobs_made += 1
        self.number = table.stream.jobs_made

    def give(self, start: int, stop: int) -> None:
        stream = self.table.stream
        stream.giving = True  # what this hands over goes to its receivers now, not behind the jobs
        try:
            self.hand(self.table, self.receivers[start:stop], self.number)
        finally:
            stream.giving = False

    def done(self) -> None:
        self.table.stream.jobs_done += 1


def spread_of(table: Table, receivers: tuple) -> Any:
    """The running ``Spread`` that hands out this table's jobs (its spectators' connections'), or None."""
    spread = table.stream.spread
    if spread is None:
        spread = getattr(receivers[0], "spread", None) if receivers else None
        if spread is None:
            return None
        table.stream.spread = spread
    return spread if spread.running else None


def queue_crowd(table: Table, members: tuple, message: Any, hand_members: Callable) -> bool:
    """True when the crowd's message is a job now (handed out later, in chunks); False: hand it over now."""
    if table.stream.giving:
        return False
    spread = spread_of(table, members)
    if spread is None:
        return False
    spread.add_job(Job(table, members, lambda t, chunk, number: hand_members(t, chunk, message, number)))
    return True


def queue_one(table: Table, receiver: Receiver, message: Any, hand_one: Callable) -> bool:
    """True when ``message`` to ``receiver`` must follow a job still out that ``receiver`` is in (a spectator
    that watched when the job was made): it is a job of its own, behind it. A seat's message never is, nor a
    spectator's just come (its catch-up is sent at once: no job before has it)."""
    stream = table.stream
    if stream.jobs_made == stream.jobs_done or stream.giving:
        return False
    joined = table.spectators.get(receiver)
    if joined is None or stream.jobs_made <= max(joined, stream.jobs_done):
        return False
    spread = stream.spread
    if spread is None or not spread.running:
        return False
    spread.add_job(Job(table, (receiver,), lambda t, chunk, number: hand_one(t, chunk[0], message)))
    return True

