"""Three bots over the wire at one Flag Finish table, for the kill -9 tests: they count the updates they get
(``enough`` is set after ``after`` of them, the moment to kill the server) and keep the seq of every action
the server acknowledged (none of which may be missing from the log after a restart)."""

from __future__ import annotations

import trio

from clients.remote_bots import play_seat
from server.protocol import Update

POLICIES = ("heuristic", "heuristic", "random")


class BotWatch:
    def __init__(self, after: int = 90) -> None:
        self.after = after
        self.updates = 0
        self.acknowledged: set[int] = set()
        self.enough = trio.Event()

    def start(self, nursery: trio.Nursery, url: str, table: str) -> None:
        """Seat the three bots at ``table`` through ``url`` (they follow a redirect and resume after a restart)."""
        for seat, policy in enumerate(POLICIES):
            nursery.start_soon(lambda s=seat, p=policy: play_seat(url, table, p, 100 + s, seat=s,
                                                               on_message=self._count, on_accepted=self._acked))

    def _count(self, seat, message) -> None:
        if type(message) is Update:
            self.updates += 1
            if self.updates >= self.after:
                self.enough.set()

    def _acked(self, seat, accepted) -> None:
        self.acknowledged.add(accepted.seq)
