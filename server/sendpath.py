"""A websocket connection's send path: a frame leaves at once when nobody else is sending on that connection.

trio-websocket (0.12) serializes the senders of a connection with a ``trio.StrictFIFOLock``, and trio's lock
passes through the scheduler even when it is free (``cancel_shielded_checkpoint`` after taking it). So a task
that sends goes to the back of the run queue before its bytes leave: when the arbiter wakes three writers at
once, the first frame leaves only after the other two writers have encoded theirs, and the client on the
other core waits for nothing. Measured at one table, this detour is about a fifth of the action round trip
(830 -> 690 us with the server's sends alone going straight out); it costs the bare echo as much.

``PromptLock`` is that lock, taken at once when it is free: the same FIFO order among waiters (a free lock
with tasks queued for it is not free), and the send is still a checkpoint, since trio's ``socket.send``
checks for cancellation before it writes and yields after. ``send_promptly(ws)`` gives one connection the
prompt lock; it reaches into trio-websocket's ``_stream_lock``, so it checks that the attribute is what it
expects and otherwise leaves the connection as it was (correct, only slower); tests/test_sendpath.py fails
if a later trio-websocket stops matching.
"""

from __future__ import annotations

import trio
from trio_websocket import WebSocketConnection


class PromptLock:
    """A FIFO lock for ``async with`` that does not yield when it is free; contended, it waits its turn.

    Only ``async with`` (as trio-websocket uses it): a release hands the lock straight to the first waiter,
    so a newcomer cannot jump the queue."""

    __slots__ = ("_held", "_waiting")

    def __init__(self) -> None:
        self._held = False
        self._waiting = trio.lowlevel.ParkingLot()

    def locked(self) -> bool:
        return self._held

    def statistics(self) -> trio.lowlevel.ParkingLotStatistics:
        return self._waiting.statistics()

    async def __aenter__(self) -> None:
        if self._held or self._waiting:  # held, or others queued first: FIFO holds
            await self._waiting.park()  # woken by a release that hands the lock over, still held
        else:
            self._held = True

    async def __aexit__(self, *exc_info) -> None:
        if self._waiting:
            self._waiting.unpark()  # to the first in line; cancelled waiters have left the lot
        else:
            self._held = False


def send_promptly(ws: WebSocketConnection) -> bool:
    """Give ``ws`` the prompt send lock; True if it now has it. Call it before the connection has senders
    of its own (right after the handshake): a lock that is held or waited for is left in place."""
    lock = getattr(ws, "_stream_lock", None)
    if isinstance(lock, PromptLock):
        return True
    if not isinstance(lock, trio.StrictFIFOLock):
        return False
    if lock.locked() or lock.statistics().tasks_waiting:
        return False
    ws._stream_lock = PromptLock()
    return True
