"""The server's own players at a table: ``LocalBot`` (a bot seat, or a stand-in for an absent player), fed in
process through the same ``Receiver`` interface as a connection, and driven by the same ``BotDriver`` as a
bot over the wire.
"""

from __future__ import annotations

import math
import secrets
from typing import TYPE_CHECKING, Any

import trio

from rules import Rng, derive
from rules.bots import get_policy

from ..latency import LatencyMeter
from ..logs.logfile import StandIn
from ..protocol import Act, BotDriver, Code, Rejected
from . import apply, fanout, intents, refusals, seats
from .receiver import Receiver

if TYPE_CHECKING:
    from .arbiter import Table
    from .seats import SeatSlot


STAND_IN_LEAST_MS = 1000  # while the disk is below ``--min-free-mb``, a stand-in's pause before each action at
# least (about: 0.5-1.5 times), whatever ``bot_delay_ms``: it plays a person's seat at a person's pace. A
# tournament's tables are never ended below the floor (``diskroom.py``), and at bot speed an arena of absent players
# (no_show_ms 0) wrote 1.6 MB a second for as long as its clock ran, up to a day (red11)


class LocalBot(Receiver):
    """A server-side bot seat: the same policy and driver as a bot over the wire, fed in process. ``least_ms``:
    its pause before each action at least while the disk is low (a stand-in's, ``STAND_IN_LEAST_MS``)."""

    latency: LatencyMeter | None = None  # no network between: nothing to credit, no ping to show

    def __init__(self, table: Table, seat: int, policy: str, rng: Rng, least_ms: int = 0) -> None:
        self.table, self.least_ms = table, least_ms
        self.seat = seat
        self.driver = BotDriver(get_policy(table.game.info.name, policy), rng, prefix=f"bot-{secrets.token_hex(4)}")
        self._send, self._receive = trio.open_memory_channel[Any](math.inf)
        self.throttled = False  # its last action was refused ``too_many_refused``

    def deliver(self, message: Any) -> bool:
        try:
            self._send.send_nowait(message)
        except trio.ClosedResourceError:
            return False
        return True

    def close(self, code: str, message: str) -> None:
        self._send.close()

    def _drain(self) -> bool:
        """Take in everything queued; False once the bot was closed (its seat handed back, the table gone)."""
        while True:
            try:
                self._take(self._receive.receive_nowait())
            except trio.WouldBlock:
                return True
            except trio.EndOfChannel:
                return False

    def _take(self, message: Any) -> None:
        self.driver.take(message)
        if type(message) is Rejected and message.code == Code.TOO_MANY_REFUSED:
            self.throttled = True  # (a stand-in for a seat whose player spent its budget of refusals)

    async def run(self) -> None:
        async for message in self._receive:
            self._take(message)
            if not self._drain():  # act on the newest view only
                return
            if self.driver.in_flight is not None or not self.driver.legal:
                continue
            if self.throttled:  # no update follows such a refusal: act again once the budget has room
                self.throttled = False
                await trio.sleep(1 / refusals.PER_SECOND)
                if not self._drain():
                    return
            pause = max(self.table.bot_delay_ms, self.least_ms if self.least_ms and self.table.disk_low() else 0)
            if pause:
                await trio.sleep(pause / 1000 * (0.5 + self.driver.rng.below(1000) / 1000))
                if not self._drain():
                    return
            move = self.driver.next_action()
            if move is not None:
                ref, action = move
                await self.table.submit(intents.Act(self, Act(table=self.table.id, action=action, id=ref,
                                                              seen=self.driver.seen)))


def start_stand_in(table: Table, slot: SeatSlot, persist: bool = True) -> None:
    """An absent player's seat is played by a server bot, marked as a stand-in, until they resume."""
    bot = LocalBot(table, slot.seat, table.settings.stand_in or "heuristic",
                   Rng(derive(table.seed, f"stand-in {slot.seat}")), least_ms=STAND_IN_LEAST_MS)
    seats.move(slot, seats.STAND_IN)
    slot.receiver, slot.away_since, slot.stood_in = bot, None, True
    if persist:
        apply.persist(table, StandIn(seat=slot.seat, active=True, time=table.now()))
    table.nursery.start_soon(bot.run)
    if table.started:
        fanout.deliver(table, bot, fanout.snapshot(table, slot.seat))
