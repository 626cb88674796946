"""A connection's outbox: the bounded queue between the tables that send to a client and its one writer task.

The tables put messages without waiting (``put`` says False when the outbox is full: the client is too slow);
the writer takes everything queued at once, to send it in one frame. It replaces a trio memory channel,
which hands over one message per call: draining it meant one ``receive_nowait`` per message and a
``WouldBlock`` exception to find the end, and a ``receive`` that found a message waiting still went through
the scheduler. Here a writer that finds messages queued takes them without yielding (the send that follows
does), and a waiting writer is woken by the first ``put``, unless a table hushed the outbox (``hush``) to write what
it hands over in one batch itself (``Connection.push``). Single consumer: one task may wait in ``take``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import trio


class Outbox:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.closed = False
        self._queue: deque[Any] = deque()
        self._writer: trio.lowlevel.Task | None = None
        self._woken = False  # the writer was woken by a ``put`` and has not run yet (it holds nothing)
        self.hushed = False  # ``put`` queues without waking the writer: a table writes them itself (``hush``)

    def put(self, message: Any) -> bool:
        """Queue ``message``; False if ``limit`` messages are already waiting. After ``close`` nothing more
        is sent, and this says True: the client is on its way out, not too slow."""
        if self.closed:
            return True
        if len(self._queue) >= self.limit:
            return False
        self._queue.append(message)
        if not self.hushed:
            self._wake()
        return True

    def hush(self) -> None:
        """Until ``unhush``, ``put`` does not wake the writer: a table handing this connection several messages
        writes them itself at the end (``Connection.push``), so its writer task need not run for them."""
        self.hushed = True

    def unhush(self) -> None:
        """``put`` wakes the writer again, and the writer is woken now for what was queued meanwhile."""
        self.hushed = False
        if self._queue:
            self._wake()

    def writer_holds_nothing(self) -> bool:
        """The writer waits for messages, or was woken for them and has not taken them yet: whatever is queued
        may be taken by someone else (``drain``) and written at once, in order."""
        return self._writer is not None or self._woken

    def drain(self) -> list[Any]:
        """Everything queued, taken now (see ``writer_holds_nothing``); the writer, once it runs, waits on."""
        taken = list(self._queue)
        self._queue.clear()
        return taken

    def idle(self) -> bool:
        """Nothing queued and the writer waiting for more: whatever is sent next may be written by someone else
        (``server/wire/spread.py``) without passing anything queued before it."""
        return self._writer is not None and not self._queue

    def close(self, drop: bool = False) -> None:
        """No more messages: the writer sends what is queued (nothing, with ``drop``: the client is being
        closed), then ``take`` gives ``[]``."""
        self.closed = True
        if drop:
            self._queue.clear()
        self._wake()

    async def take(self, most: int) -> list[Any]:
        """The oldest ``most`` messages queued (waiting for one if none is), or ``[]`` once closed and drained."""
        await trio.lowlevel.checkpoint_if_cancelled()
        while not self._queue and not self.closed:  # (again when what woke it was drained meanwhile)
            if self._writer is not None:
                raise RuntimeError("another task is already taking from this outbox")
            self._writer = trio.lowlevel.current_task()

            def abort(_: Any) -> trio.lowlevel.Abort:
                self._writer = None
                return trio.lowlevel.Abort.SUCCEEDED

            await trio.lowlevel.wait_task_rescheduled(abort)
            self._woken = False
        queue = self._queue
        if len(queue) <= most:
            taken = list(queue)
            queue.clear()
            return taken
        return [queue.popleft() for _ in range(most)]

    def _wake(self) -> None:
        if self._writer is not None:
            writer, self._writer = self._writer, None
            self._woken = True
            trio.lowlevel.reschedule(writer)
