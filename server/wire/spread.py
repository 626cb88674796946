"""The spectators' writer: one task of the gateway hands the tables' spectator jobs out and writes the tables'
shared frames (``encodeonce``) straight to the sockets of connections that have nothing else to send, players
first.

A table's update to its spectators is one job (``table/crowdjobs.py``), handed out here ``JOB_CHUNK`` spectators
at a time, one chunk a round, with every other task's turn between rounds: a table's step does not grow with its
spectators, and a player's action never waits for a thousand of them. Jobs go out in the order they were made.

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

import time
from collections import deque
from typing import Any

import trio

# A round of this task is what a player's action that comes meanwhile waits for, at each of its steps (its read,
# its table): at one table watched by a thousand, 24 writes (0.4-0.5 ms) and 0.3 ms of handing out a round left
# an action 1.5 ms at its table at p99; 8 and 0.1 ms, 0.9 ms, for ~10% more CPU per spectator update
# (bench/README.md, "Players first, a thousand watching: the table's step and the spectators' rounds")
YIELD_EVERY = 8  # connections written before the writer lets other tasks (a table, a player's writer) run
JOB_CHUNK = 32  # receivers the jobs are handed to at a time; chunks follow in one round for up to ``JOB_SLICE_S``
JOB_SLICE_S = 0.0001  # seconds of handing out a round, before the writes and every other task (a player's answer)


class Spread:
    def __init__(self) -> None:
        self.running = False  # ``run`` is there to write (else connections use their own writers)
        self.fresh = False  # a message was handed over since ``run`` last let the players' writers go first
        self._waiting: list[Any] = []  # connections with ``direct`` messages, in the order they got them
        self._jobs: deque = deque()  # tables' jobs (``give(start, stop)``, ``size``, ``given``, ``done()``)
        self._task: trio.lowlevel.Task | None = None  # ``run``, parked while there is nothing to do

    def add(self, conn: Any) -> None:
        """``conn`` has messages in ``direct`` (it had none): write them on the next round."""
        self._waiting.append(conn)
        self._wake()

    def add_job(self, job: Any) -> None:
        """A table's job: handed out after those before it, a chunk a round."""
        self._jobs.append(job)
        self._wake()

    def _wake(self) -> None:
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

    def _give_slice(self) -> None:
        """Hand the jobs out, ``JOB_CHUNK`` receivers at a time, for up to ``JOB_SLICE_S``."""
        until = time.perf_counter() + JOB_SLICE_S
        while self._jobs:
            self._give_chunk(JOB_CHUNK)
            if time.perf_counter() >= until:
                return

    def _give_chunk(self, most: int) -> None:
        """Hand the jobs out to their next ``most`` receivers (a job is done once all of its have it)."""
        while most > 0 and self._jobs:
            job = self._jobs[0]
            start = job.given
            stop = job.given = min(job.size, start + most)
            most -= stop - start
            try:
                job.give(start, stop)
            finally:
                if stop >= job.size:
                    self._jobs.popleft()
                    job.done()

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Hand out the jobs and write what connections are handed, until cancelled; then hand out the jobs left
        at once and hand what is left to write to the connections' own writers."""
        self.running = True
        task_status.started()
        work: list[Any] = []
        try:
            while True:
                if not self._waiting and not self._jobs:
                    self._task = trio.lowlevel.current_task()

                    def abort(_: Any) -> trio.lowlevel.Abort:
                        self._task = None
                        return trio.lowlevel.Abort.SUCCEEDED

                    await trio.lowlevel.wait_task_rescheduled(abort)
                if self._jobs:
                    await self._players_first()
                    self._give_slice()
                    self.fresh = False  # (what it handed over was the spectators', not a player's)
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
                if self._jobs:
                    await trio.lowlevel.checkpoint()
        finally:
            self.running = False  # from here on the tables hand over at once, connections queue in their outboxes
            for conn in work + self._waiting:
                conn.spill()
            self._waiting = []
            while self._jobs:
                self._give_chunk(self._jobs[0].size)
