"""The server as a bench runs it, plus two waits inside it that its clients cannot see from outside.

On a 2-core machine a player's answer time also holds the client processes' contention for the cores (the
spectators' clients share the players' core: ``bench/README.md``, "two tries at the one-table p99"), so
``spectator_bench`` also asks the server itself:

- **wake**: how late a task woken in the server gets its turn. A probe task sleeps ``PROBE_S`` and notes how late
  it woke. A player's action that reaches the server's socket waits as long before its reader runs: trio looks
  at the sockets and at its timers at the same point, between two batches of tasks (a round of the spectators'
  writer, ``server/wire/spread.py``, is in such a batch).
- **queue**: how long a player's action waits at its table: from its arrival at the table (``received``, stamped
  when the connection hands it over) to its answer (``apply.answer``).
- **spread**: how long a table's update waits for the last of its spectators to be handed it: from its job's
  making (``table/crowdjobs.py``) to its end (the spectators' lag inside the server, less the socket writes
  that may follow a hand-over).

Each sample is written with its ``time.perf_counter()`` (the machine's monotonic clock, the same in every
process) to the file named by ``PF_SERVER_WAITS``, so a bench keeps those of its measured seconds.
``python -m bench.server_waits serve ...`` takes ``photofinish``'s arguments. Bench-only: the server's code is
patched in this process, never changed.
"""

from __future__ import annotations

import os
import sys
import time

import trio

from clients.cli import main
from server.table import apply, arbiter, crowdjobs

PROBE_S = 0.005  # the probe's sleep: 200 wakes a second, about 1% of a core


def between(lines: list[str], start: float, end: float) -> dict[str, list[float]]:
    """The samples (us) of each kind written between ``start`` and ``end`` (perf_counter seconds)."""
    kept: dict[str, list[float]] = {"wake": [], "queue": [], "spread": []}
    for line in lines:
        kind, at, us = line.split()
        if start <= float(at) <= end:
            kept[kind].append(float(us))
    return kept


def patch(out) -> None:
    """Note the waits in ``out`` (a text file) from now on in this process."""
    answer, run = apply.answer, arbiter.Table.run
    probing = []

    def noted_answer(table, seat, intent, *args, **kwargs):
        reply = answer(table, seat, intent, *args, **kwargs)
        if intent.received:
            out.write(f"queue {time.perf_counter():.6f} {(trio.current_time() - intent.received) * 1e6:.1f}\n")
        return reply

    async def probe() -> None:
        while True:
            due = trio.current_time() + PROBE_S
            await trio.sleep_until(due)
            out.write(f"wake {time.perf_counter():.6f} {(trio.current_time() - due) * 1e6:.1f}\n")

    async def run_and_probe(self, *args, **kwargs):
        if not probing:  # the first table starts the probe, for the life of the server
            probing.append(trio.lowlevel.spawn_system_task(probe))
        return await run(self, *args, **kwargs)

    made, done = crowdjobs.Job.__init__, crowdjobs.Job.done
    begun: dict[int, float] = {}

    def noted_made(self, *args, **kwargs):
        made(self, *args, **kwargs)
        begun[id(self)] = trio.current_time()

    def noted_done(self):
        done(self)
        start = begun.pop(id(self), None)
        if start is not None:
            out.write(f"spread {time.perf_counter():.6f} {(trio.current_time() - start) * 1e6:.1f}\n")

    apply.answer = noted_answer  # (``apply.act`` calls it by the module's name too)
    crowdjobs.Job.__init__, crowdjobs.Job.done = noted_made, noted_done
    arbiter.Table.run = run_and_probe


if __name__ == "__main__":
    with open(os.environ["PF_SERVER_WAITS"], "w", buffering=1) as waits:  # a line at a time: a kill loses none
        patch(waits)
        sys.exit(main())
