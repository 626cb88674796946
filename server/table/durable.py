"""The durability gate: under ``always`` and ``batch`` no message leaves before the log line it follows is on
disk, so an action a seat saw acknowledged survives a power cut. And the end of a table's log: its end
record, the ``.done`` marker once that is durable, and closing the file.

The gate reads top to bottom: the table asks its log how far it is durable (``FileLog.durable``) right after
each batch (an idle server's journal syncs the batch's lines there and then), and a task of the table awaits
the log's progress for the rest (``release_when_durable``). The log never calls back into the table.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from typing import TYPE_CHECKING, Any, NamedTuple

import trio

from ..logs.finished import Finished, write_marker
from ..logs.logstore import FileLog
from . import fanout, intents

if TYPE_CHECKING:
    from .arbiter import Table

logger = logging.getLogger(__name__)


class DurableGate:
    """Messages waiting for their log line: (line number in this session, receiver, message), in order."""

    def __init__(self, store: FileLog | None) -> None:
        self.store = store
        self.holding = store is not None and store.policy != "never"
        self.waiting: deque[tuple[int, Any, Any]] = deque()

    def hold(self, receiver: Any, message: Any) -> bool:
        """Keep ``message`` back if its log line (the last written) is not durable yet, or earlier messages
        wait (order is kept); False: send it now."""
        if not self.holding:
            return False
        store = self.store
        if not self.waiting and store.written <= store.durable:
            return False
        self.waiting.append((store.written, receiver, message))
        return True

    def due(self) -> list[tuple[Any, Any]]:
        """Take the waiting messages whose lines are durable now, oldest first."""
        waiting, out = self.waiting, []
        durable = self.store.durable if self.store is not None else math.inf
        if waiting and waiting[-1][0] <= durable:  # the usual case: a round covered every line waited for
            out = [(receiver, message) for _, receiver, message in waiting]
            waiting.clear()
            return out
        while waiting and waiting[0][0] <= durable:
            _, receiver, message = waiting.popleft()
            out.append((receiver, message))
        return out

    def open(self) -> list[tuple[Any, Any]]:
        """The log is closed (the table's end is on disk): nothing waits any more; take everything left."""
        self.holding = False
        out = [(receiver, message) for _, receiver, message in self.waiting]
        self.waiting.clear()
        return out

    async def wait_due(self) -> None:
        """Until the oldest waiting message's line is durable; raises the log's error if it failed first.

        The task sleeps on the log's progress alone (each round that makes more of its lines durable), never
        on a message starting to wait: that was a second wake per round of the journal for every busy table
        (woken as its first message waited, only to go back to sleep until the round's end)."""
        store, waiting = self.store, self.waiting
        while not waiting or waiting[0][0] > store.durable:
            await store.wait_durable(waiting[0][0] if waiting else store.durable + 1)  # (raises if it fails)


async def release_when_durable(table: Table) -> None:
    """The table's task that hands over what the journal's rounds (or the log's own syncer) made durable."""
    try:
        while True:
            await table.gate.wait_due()
            fanout.release_durable(table)
    except OSError:
        return  # the log failed: ``watch_log`` stops the table and says why
    except Exception as error:  # a bug in handing messages over: this table stops, never the server
        stop_on_bug(table, error)
        table.nursery.cancel_scope.cancel()  # (the arbiter's task ends, closing the log as on any stop)


def stop_on_bug(table: Table, error: Exception) -> None:
    """A bug stopped the table (in a game's rules, the arbiter, its hand-over of messages): its people are told,
    the operator too; what was logged stays whole."""
    table._fail(f"table {table.id} stopped on an internal error ({type(error).__name__}: {error}); the other "
                "tables go on, and restarting the server reopens it from its log", "internal_error")


async def watch_log(table: Table) -> None:
    """Run the log's own group commit (``always``); a failing fsync reaches the arbiter, which stops the
    table."""
    try:
        await table.store.run_flusher()
    except OSError as error:
        await table.submit(intents.LogFailed(error))


class Marker(NamedTuple):
    line: int  # the end record's line: the marker is written once it is durable
    finished: Finished


def ended(table: Table) -> None:
    """The end record is written: keep its line's hash (a tournament records it with the result), mark the
    table finished apart from its log once that line is on disk (``finished.py``), and set ``over``."""
    store = table.store
    table.end_hash = store.head if store is not None else None
    table.end_line = store.written if store is not None else 0
    if store is not None:
        table.finished_at = Marker(store.written, Finished(table=table.id, seq=table.log.seq, end_hash=store.head,
                                                            ended=time.time()))
    table.over.set()


async def wait_end_durable(table: Table) -> None:
    """Return once the end record is on disk (at once without a file log)."""
    if table.store is not None and table.store.policy != "never":
        await table.store.wait_durable(table.end_line)


async def mark_finished(table: Table) -> None:
    """Once the end record is on disk, record apart from the log that this table finished."""
    await table.over.wait()
    if table.finished_at is not None:
        try:
            await table.store.wait_durable(table.finished_at.line)
        except OSError:  # the log failed first: the arbiter stops the table and says why
            return
        await trio.to_thread.run_sync(write_finished_marker, table)
        close_log(table)
        table.marked.set()


def close_log(table: Table) -> None:
    """The game is over, its end durable and marked: close the log file now, not when the table leaves
    memory (file descriptors follow live tables, never history). Anything after this is answered but no
    longer logged (only refusals and freed seats can follow an end, and they change nothing)."""
    try:
        table.store.close()
    except OSError:
        pass  # the end record and the marker are on disk; a refusal after them may be lost, nothing else
    table.log_closed = True
    fanout.release_durable(table)
    for receiver, message in table.gate.open():  # lines after the end that a failed last sync left: they
        fanout.hand_over(table, receiver, message)  # changed nothing


def close_on_stop(table: Table) -> None:
    """The arbiter stops: close the log (its last sync), write the marker if the end is on disk now, and
    send what became durable."""
    try:
        table.store.close()
    except OSError:
        pass  # already reported; nothing not on disk was acknowledged
    else:
        if table.finished_at is not None:  # the end record is on disk now
            write_finished_marker(table)
            table.marked.set()
    fanout.release_durable(table)


def write_finished_marker(table: Table) -> None:
    if table.finished_at is None:
        return
    finished, table.finished_at = table.finished_at.finished, None
    try:
        write_marker(table.store.path, finished)
    except OSError as error:  # the game and its log are whole; only the guard against a cut log is lost
        logger.warning(f"table {table.id} finished but its .done marker could not be written: "
                       f"{error.strerror or error}")
