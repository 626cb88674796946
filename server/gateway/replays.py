"""The replay worker: replays are rebuilt in a process of their own, never on the server's event loop."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import trio


from ..logs import frames
from ..protocol import Code, Refusal, Replay


class ReplayWorker:
    """Replays run in a worker process of their own (spawned at the first, recycled every ``RECYCLE`` replays):
    a replay reads, checks and replays a finished log whole, and for a log of 24,000 entries that allocates and
    collects hundreds of thousands of objects. In a thread of the server it held the event loop up to 30 ms at
    a time (the GIL, the garbage collector) and left the memory behind; in a process it does neither. Two wait
    at most, the rest queue behind them."""

    RECYCLE = 200

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.limiter = trio.CapacityLimiter(2)

    async def answer(self, data_dir, message: Replay):
        return await self.run(frames.answer, data_dir, message)

    async def run(self, function, *args):
        """``function(*args)`` in the worker process (a function of ``server/logs/frames.py``): a replay's
        answer, or what a playback plays (``frames.playback_source``)."""
        async with self.limiter:
            if self.pool is None:
                self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                max_tasks_per_child=self.RECYCLE)
            future = self.pool.submit(function, *args)
            try:
                return await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
            except BrokenProcessPool:  # the worker died (killed, out of memory): the next replay starts another
                self.pool = None
                raise Refusal(Code.REPLAY_FAILED, "the replay's worker process stopped; ask again") from None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
