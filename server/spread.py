"""The spectators' writer: one task of the gateway writes the tables' shared frames (``encodeonce``) straight to
the sockets of connections that have nothing else to send, players first.

A table's update goes to every spectator alike. Through each connection's outbox, that woke one writer task per
spectator per update: at a table watched by a thousand, a thousand task steps per update, in a run queue where
the players' own writers (woken by the same flush) had an even chance of coming after all of them (trio runs
each batch of woken tasks in one order or its reverse). Here a connection whose outbox is empty and whose writer
waits (``Connection.deliver``) keeps a shared message in ``direct`` and is handed to ``Spread``; its writer
task is not woken. ``run`` lets every task woken with it go first (one checkpoint: the players' writers, woken
by the same flush, send their ``accepted`` and updates before any spectator's copy), then writes each waiting
connection's frames with one ``os.write`` of the bytes encoded once (``_players_first`` again before each group of
connections whenever anything was handed over meanwhile), letting other tasks run every
``YIELD_EVERY`` connections (a table's next action is not held behind a thousand writes). What a socket does not
take at once goes to that connection's own writer (``Connection.write_direct``), and so does everything after
it until its outbox is empty again: a spectator that reads slowly fills its own outbox and falls behind to a
snapshot (``table/spectating.py``), never slowing the others or the table.
"""

from __future__ import annotations

from typing import Any

import trio

YIELD_EVERY = 64  # connections written before the writer lets other tasks (a table, a player's writer) run


class Spread:
    def __init__(self) -> None:
        self.running = False  # ``run`` is there to write (else connections use their own writers)
        self.fresh = False  # a message was handed over since ``run`` last let the players' writers go first
        self._waiting: list[Any] = []  # connections with ``direct`` messages, in the order they got them
        self._task: trio.lowlevel.Task | None = None  # ``run``, parked while there is nothing to write

    def add(self, conn: Any) -> None:
        """``conn`` has messages in ``direct`` (it had none): write them on the next round."""
        self._waiting.append(conn)
        self.fresh = True
        if self._task is not None:
            task, self._task = self._task, None
            trio.lowlevel.reschedule(task)

    async def _players_first(self) -> None:
        """Let every task woken by whatever handed messages over run first: a table that sends a player's
        ``accepted`` and update then the spectators' copies wakes the player's writer as it hands them over,
        maybe later in the very batch of tasks this one runs in; two checkpoints put this task after the
        next batch, where that writer is. Again while tables keep handing messages over meanwhile."""
        while self.fresh:
            self.fresh = False
            await trio.lowlevel.checkpoint()
            await trio.lowlevel.checkpoint()

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Write what connections are handed, until cancelled; then hand what is left to their own writers."""
        self.running = True
        task_status.started()
        work: list[Any] = []
        try:
            while True:
                if not self._waiting:
                    self._task = trio.lowlevel.current_task()

                    def abort(_: Any) -> trio.lowlevel.Abort:
                        self._task = None
                        return trio.lowlevel.Abort.SUCCEEDED

                    await trio.lowlevel.wait_task_rescheduled(abort)
                work, self._waiting = self._waiting, []
                while work:
                    await self._players_first()
                    work += self._waiting
                    self._waiting = []
                    for conn in work[:YIELD_EVERY]:
                        conn.write_direct()
                    del work[:YIELD_EVERY]
                    if work:
                        await trio.lowlevel.checkpoint()
        finally:
            self.running = False
            for conn in work + self._waiting:
                conn.spill()
            self._waiting = []
