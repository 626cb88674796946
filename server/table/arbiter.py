"""One table and its arbiter: the one trio task that owns a game's state.

Everything that touches a table (an action, taking a seat, a reconnect, a disconnect, a timer) reaches the
arbiter as an intent (``intents.py``) through one memory channel, so the order of the log is the order of that
channel, never the order in which trio happens to schedule tasks. The arbiter never waits on a client: it hands
each receiver its messages without blocking, and a receiver whose outbox is full is closed as too slow.

Challenge Mode and lockstep are the same loop: the rules say which seats may act; the arbiter applies what
arrives (``apply.py``), refuses the rest, and runs the timers (``timers.py``). Fair ordering (``fair.py``)
holds contested actions a few milliseconds; what they cause goes out through ``fanout.py``, past the
durability gate (``durable.py``).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import trio

from rules import Game, Rng, Session, Setup, derive
from rules.contract import never_contested

from ..logs.actionlog import MemoryLog
from ..logs.disk import error_text
from ..fairness import draw_from, lot_rng
from ..logs.logfile import SeatTaken
from ..logs.logstore import FileLog
from ..protocol import Error, SeatInfo, TableInfo
from . import apply, durable, fair, fanout, intents, patching, playback, present, seating, seats, spectating, timers
from .bots import LocalBot, start_stand_in
from .durable import DurableGate
from .intents import Intent
from .seats import AWAY, BOT, FREE, STAND_IN, SeatSlot
from .settings import TableSettings

logger = logging.getLogger(__name__)

INBOX_SIZE = 1024
MAX_BATCH = 64  # intents the arbiter takes per wake-up before it sends what they caused


@dataclass(frozen=True)
class Outcome:
    """How a finished table ended: each seat's place (1 = first, ties share), the scores (None: halted or
    no result), whether lower scores are better, the hash of its log's end line, and which seats a stand-in
    played."""

    places: tuple[int, ...]
    scores: tuple[int, ...] | None
    lower_is_better: bool
    end_hash: str | None
    stand_ins: tuple[bool, ...]


class Table:
    def __init__(self, table_id: str, game: Game, setup: Setup, seed: int, settings: TableSettings = TableSettings(),
                 *, store: FileLog | None = None, session: Session | None = None, log: MemoryLog | None = None,
                 receipts: list[str] | None = None) -> None:
        """A new table, or (``session``, ``log``, ``receipts``) one reopened from its log (``restore.py``)."""
        self.id = table_id
        self.settings = settings
        self.name = settings.name or table_id
        self.game = game
        self.setup = setup
        self.seed = seed
        self.session = session or Session(game, setup, seed)
        self.log = log or MemoryLog()
        self.store = store
        self.receipts = receipts or []  # the hash of each entry's log line, by seq - 1 (empty without a file)
        self.read_only = settings.read_only
        self.gate = DurableGate(store)
        self.failed: str | None = None  # why the table stopped, if it could not go on
        self.failed_code: str | None = None  # ... and its code: log_failed (the disk), internal_error (a bug)
        self.finished_at: durable.Marker | None = None  # the end record's line and marker until it is written
        self.marked = trio.Event()  # set once the finished marker (finished.py) is written, or reported failed
        self.batch: list | None = None  # while the arbiter takes a batch of intents: what to send at its flush
        self.quiet: dict | None = None  # while a flush hands messages over: the seats' connections to push after
        self.batches = 0  # batches taken so far (fair ordering reads a seat's kernel round trip once in each)
        self.turn_time_ms = settings.turn_time_ms
        self.grace_ms = settings.grace_ms
        self.bot_delay_ms = settings.bot_delay_ms
        self.digest_every = settings.digest_every
        self.slots = [SeatSlot(seat) for seat in range(setup.seats)]
        self.bot_seats = {bot.seat: bot.policy for bot in settings.bots}
        self.halted: tuple[str, list[int]] | None = None  # (reason, places): ended before the game's own end
        self.end_hash: str | None = None  # the hash of the log's end line, once written
        self.end_line = 0
        self.nursery: trio.Nursery | None = None
        self.spectators: dict = {}  # spectator -> the table's spectator jobs made when it came (``crowdjobs.py``)
        self.stream = spectating.new_stream(settings.spectator_delay_ms, settings.broadcast_key_hash,
                                            settings.spectator_delay_entries)  # what spectators are sent, and when
        self.patching = patching.Patching()  # what each receiver that asked for patches was last sent
        self.broadcast_key: str | None = None  # a new table's broadcast key, for its creator's answer only
        self.presence_sent: tuple | None = None  # who was at the table when its seats were last told (fanout)
        self.started = self.log.seq > 0
        self.stopped = trio.Event()
        self.over = trio.Event()
        self.window_deadline: float | None = None
        self.turn_deadline: float | None = None
        self._send, self._inbox = trio.open_memory_channel[Intent](INBOX_SIZE)
        self.t0 = 0.0  # trio time of the table's time 0 (a reopened table's clock goes on from its log)
        self.ordering = settings.ordering or ("fair" if setup.mode == "challenge" else "arrival")
        self.fair_ms = settings.fair_ms
        # (a game that contests nothing orders by arrival under either: fair ordering's bookkeeping never runs)
        self.fair = self.ordering == "fair" and game.contested is not never_contested
        self.cap = settings.fair_ms / 1000
        self.unverified = (None if settings.unverified_credit_ms is None
                           else settings.unverified_credit_ms / 1000)  # a seat's credit without the kernel's measure
        self.held: list[fair.Held] = []  # contested actions waiting, in arrival order
        self.groups = 0  # releases of held actions so far (numbers them in the log)
        self.draw = draw_from(lot_rng(seed))
        self.opening: float | None = None  # the virtual time of the fair action being applied
        self.window_opened: float | None = None  # ... of the one that opened the photo-finish window
        self.dealt = 0  # the seq of the last chance entry (a deal): every action is offered anew after it
        self.expires: float | None = None  # when it expires (trio time), while nobody has sat and it waits
        self.abandons: float | None = None  # when it ends abandoned (trio time), while no player is connected
        self.seated_ever = bool(settings.reserved)  # a person sat here
        self.chosen_seed = settings.chosen_seed
        self.practice = settings.practice
        self.log_closed = False  # the log file is closed: the table finished and its end is on disk
        self.played_out = False  # a playback fed its last entry
        self.alias: str | None = None  # the name it is found by too (the demo's "demo"), set by the lobby
        self.disk_low = lambda: False  # the lobby's: its disk is below ``--min-free-mb`` (stand-ins pace: bots.py)
        self.rematch: str | None = None  # once it is over: the table opened as its rematch (``server/rematch.py``)
        self.rematching = trio.Lock()  # held while that table is being opened: one rematch for all who ask

    # ------------------------------------------------------------------ outside the arbiter

    async def submit(self, intent: Intent) -> None:
        """Queue an intent for the arbiter (stamped with the receive time if not yet)."""
        if not intent.received:
            intent = intents.stamped(intent, trio.current_time())
        try:
            try:
                self._send.send_nowait(intent)  # the usual case: no wait, and no trip through the scheduler
            except trio.WouldBlock:
                await self._send.send(intent)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            self._refuse_stopped(intent)

    def _refuse_stopped(self, intent: Intent) -> None:
        """A client's request that reached a stopped table: answered ``table_closed`` (it may ask again: a kept
        table such as ``demo`` has a new one under its name a moment later)."""
        if isinstance(intent, intents.FROM_CLIENT):
            intent.receiver.deliver(Error(ref=getattr(intent.message, "id", None), code="table_closed",
                                          message=f"table {self.id} has stopped"))

    def submit_nowait(self, intent: Intent) -> None:
        try:
            self._send.send_nowait(intents.stamped(intent, trio.current_time()))
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    async def stop(self) -> None:
        await self.submit(intents.Stop())
        await self.stopped.wait()

    async def halt(self, reason: str) -> None:
        """End the table now, before the game's own end (a tournament round's time ran out): every seat is
        placed as the game stands, logged in the end record (see ``timers.halt``)."""
        await self.submit(intents.Halt(reason))

    def is_over(self) -> bool:
        """The game has ended (by its rules, or halted: a round's time, an expiry, abandoned)."""
        return (self.session.to_act().over and self.started) or self.halted is not None

    def info(self, unmasked: bool = False) -> TableInfo:
        """The table as lists show it; with a broadcast delay, as its spectators are shown it (no end, seq nor
        seed sooner than the delay allows), unless ``unmasked`` (the summary listed once they have seen it)."""
        over = self.is_over()
        status = "over" if over else ("playing" if self.started else "waiting")
        seq = self.log.seq
        if self.stream.delayed and not unmasked:
            seq = self.stream.shown.seq if self.stream.shown is not None else 0
            if over and not spectating.end_shown(self):
                over, status = False, "playing"
        return TableInfo(
            table=self.id, name=self.name, game=self.game.info.name, mode=self.setup.mode,
            options=dict(self.setup.options), seats=self.seat_infos(over, masked=present.held(self) and not unmasked),
            seq=seq, status=status, spectators=len(self.spectators) + self.stream.followers,
            turn_time_ms=self.turn_time_ms, grace_ms=self.grace_ms, ordering=self.ordering, fair_ms=self.fair_ms,
            practice=self.practice, seed=self.chosen_seed, spectator_delay_ms=self.settings.spectator_delay_ms,
            spectator_delay_entries=self.settings.spectator_delay_entries,
            broadcast=self.settings.broadcast_key_hash is not None, revealed_seed=str(self.seed) if over else None,
            rematch=self.rematch if over else None, alias=self.alias,
        )

    def end_shown(self) -> bool:
        """Whether its spectators may know everything up to its end (no broadcast delay, or its end was shown)."""
        return spectating.end_shown(self)

    def seat_infos(self, over: bool = False, masked: bool = False) -> list[SeatInfo]:
        """Each seat as the lobby and the table's people see it; once ``over``, a seat its player left after
        playing says who played it (``left``), not ``free``; ``masked`` (a delayed table the lists show as its
        spectators may know it), ``taken`` by them still: their leaving may be the game's end."""
        return [SeatInfo(seat=s.seat, state="left" if over else "taken", name=s.played_by, guesses=s.guesses)
                if (over or masked) and s.state == FREE and s.played_by is not None else
                SeatInfo(seat=s.seat, state=s.state.value, name=s.name, ping_ms=ping, guesses=s.guesses)
                for s, ping in zip(self.slots, self.pings())]

    def pings(self) -> list[float | None]:
        """Each seat's round trip in ms, as its connection measured it (None: no connection, or not yet)."""
        return [slot.receiver.latency.ping_ms if slot.receiver is not None and slot.receiver.latency is not None
                else None for slot in self.slots]

    def places(self) -> list[int] | None:
        """Each seat's final place (1 = first, ties share) once the table is over: the game's own placing, or
        the standing it was halted at; None while it goes on."""
        if self.halted is not None:
            return list(self.halted[1])
        placings = self.game.placings(self.session.state)
        return list(placings) if placings is not None else None

    def outcome(self) -> Outcome:
        """How the table ended (call once ``over`` is set)."""
        result = self.game.result(self.session.state)
        return Outcome(places=tuple(self.places() or ()),
                       scores=tuple(result.scores) if result is not None else None,
                       lower_is_better=result.lower_is_better if result is not None else True,
                       end_hash=self.end_hash, stand_ins=tuple(slot.stood_in for slot in self.slots))

    def answer_for(self, entry) -> Any:
        """The answer a logged entry gave its sender (to answer a resend after a restart the same way)."""
        return apply.answer_for(self, entry)

    def now(self) -> float:
        """Table time: seconds since the table started (its log's times)."""
        return trio.current_time() - self.t0

    async def wait_end_durable(self) -> None:
        """Return once the end record is on disk (at once without a file log)."""
        await durable.wait_end_durable(self)

    async def play_back(self, entries: list, speed: float) -> None:
        """Feed a finished log's accepted entries to the arbiter at ``speed`` times their recorded pace."""
        await playback.play_back(self, entries, speed)

    # ------------------------------------------------------------------ the arbiter task

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        last_time = self.log.entries[-1].time if self.log.entries else 0.0
        self.t0 = trio.current_time() - last_time  # a reopened table's clock goes on from its log
        for slot in self.slots:
            if slot.state == AWAY:  # reopened: seats wait for their owners' tokens for a new grace period
                slot.away_since = last_time
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            if self.store is not None:
                nursery.start_soon(durable.watch_log, self)
                nursery.start_soon(durable.mark_finished, self)
                if self.gate.holding:
                    nursery.start_soon(durable.release_when_durable, self)
            for seat, policy in self.bot_seats.items():
                slot = self.slots[seat]
                bot = LocalBot(self, seat, policy, Rng(derive(self.seed, f"bot {seat}")))
                seats.move(slot, BOT)
                slot.name, slot.receiver = f"{policy} bot", bot
                nursery.start_soon(bot.run)
            if not self.started:
                for reservation in self.settings.reserved:  # theirs by token from the start; a no-show's
                    slot = self.slots[reservation.seat]  # grace runs now
                    seats.take(slot, reservation.name, reservation.token_hash, None, AWAY)
                    slot.away_since = 0.0
                    apply.persist(self, SeatTaken(seat=slot.seat, name=slot.name, token_hash=slot.token_hash,
                                                  time=0.0))
            for slot in self.slots:
                if slot.state == STAND_IN:  # reopened with a stand-in playing: it plays on
                    start_stand_in(self, slot, persist=False)
            if self.settings.expire_after and not self.started and not self.seated_ever:
                self.expires = trio.current_time() + self.settings.expire_after
            task_status.started()
            try:
                if self.started:  # reopened from its log: wake the bots with where the game stands
                    spectating.hold_present(self)
                    timers.arm(self, self.session.to_act())
                    apply.check_over(self, self.session.result())
                    for seat in self.bot_seats:
                        fanout.deliver(self, self.slots[seat].receiver, fanout.snapshot(self, seat))
                else:
                    seating.maybe_start(self)
                while True:
                    intent = await self._next_intent()
                    if intent is None:
                        timers.fire(self)
                        present.presence(self)  # a grace period ran out, a stand-in started
                        if self.halted is not None and self.halted[0] == "expired":
                            break
                        continue
                    await trio.lowlevel.cancel_shielded_checkpoint()  # let readers already woken queue theirs
                    if self._take_batch(intent):
                        break
            except OSError as error:  # the log is the truth: a table that cannot write it must not go on
                self._fail(f"table {self.id} stopped: its log could not be written ({error_text(error)}); nothing "
                           "that was not on disk was acknowledged, and the server reopens the table from its log "
                           "by itself once the disk can be written again: resume your seat then")
            except Exception as error:  # a bug (in a game's rules, in the arbiter): this table stops, never the
                durable.stop_on_bug(self, error)  # server; nothing of the failing intent was acknowledged
            finally:
                self._send.close()
                while True:  # what came in behind the stop is answered too: a request left unanswered (a watch of
                    try:  # ``demo`` as its table was replaced) kept its client waiting for good
                        self._refuse_stopped(self._inbox.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                if self.store is not None:
                    durable.close_on_stop(self)
                self.stopped.set()
                nursery.cancel_scope.cancel()

    async def _next_intent(self) -> Intent | None:
        """The next intent, or None when a timer falls due first (no cancel scope when none runs)."""
        timers.attend(self)  # (after every batch and timer: a player gone, or back)
        deadline = timers.next_deadline(self)
        if deadline == math.inf:
            return await self._inbox.receive()
        with trio.move_on_at(deadline):
            return await self._inbox.receive()
        return None

    def _fail(self, message: str, code: str = "log_failed") -> None:
        """Stop for good: tell every seat and spectator why, and the operator on stderr."""
        logger.warning(message)
        self.failed, self.failed_code = message, code
        receivers = [s.receiver for s in self.slots if s.receiver is not None] + list(self.spectators)
        for receiver in receivers:
            receiver.close(code, message)

    def _take_batch(self, intent: Intent) -> bool:
        """Handle ``intent`` and whatever else is already queued (up to a bound), then send what they
        caused: each receiver gets its view and legal actions once, on the last update. True on a stop."""
        self.batch = []
        self.batches += 1
        stopping = False
        holding = self.gate.holding
        if holding:
            self.store.begin_group()  # the batch's lines go to the journal's next round together
        try:
            for taken in range(1, MAX_BATCH + 1):
                if type(intent) is intents.Stop:
                    stopping = True
                    fair.release_held(self)  # held actions arrived before the stop: apply and answer them
                    break
                self._handle(intent)
                if taken == MAX_BATCH:  # the rest waits in the inbox for the next batch (taken now, it was lost)
                    break
                try:
                    intent = self._inbox.receive_nowait()
                except trio.WouldBlock:
                    break
            if self.held and not stopping:  # after every queued frame is in: one that was read first but
                fair.release_due(self)  # handled later (a loaded server) still takes part in its item's decision
            present.presence(self)  # a seat taken, left or gone, a spectator come or gone: told with the batch
        finally:
            try:
                fanout.flush(self)
            finally:
                if holding:
                    self.store.end_group()  # an idle server syncs them here...
                    fanout.release_durable(self)  # ... and what they made durable goes out now
        return stopping

    def _handle(self, intent: Intent) -> None:
        if self.read_only and type(intent) in (intents.Act, intents.TakeSeat, intents.Resume):
            return fanout.error(self, intent.receiver, intent.message.id, "read_only",
                                f"{self.id} plays back a finished log: watch it, do not sit at it")
        match intent:
            case intents.Act():
                apply.act(self, intent)
            case intents.TakeSeat(receiver=receiver, message=message):
                seating.take_seat(self, receiver, message)
            case intents.Resume(receiver=receiver, message=message):
                seating.resume(self, receiver, message)
            case intents.Watch(receiver=receiver, message=message):
                seating.watch(self, receiver, message)
            case intents.Leave(receiver=receiver, message=message):
                seating.leave(self, receiver, message)
            case intents.Disconnect(receiver=receiver):
                seating.disconnect(self, receiver)
            case intents.Halt(reason=reason):
                timers.halt(self, reason)
            case intents.Replay(entry=entry):
                playback.replay_entry(self, entry)
            case intents.LogFailed(error=error):
                raise error
            case intents.Offer(message=message):
                people = [s.receiver for s in self.slots if s.receiver is not None and s.state not in (BOT, STAND_IN)]
                for receiver in people:
                    fanout.deliver(self, receiver, message)
                spectating.tell(self, message)  # past a broadcast delay, as the end it follows
            case intents.Lagged() | intents.Recounted():
                pass  # (the next wait's deadline has the offer: ``timers.next_deadline``; the batch's end, who is here)
            case _:  # a bug in the gateway, not a client's mistake
                raise ValueError(f"unknown intent {intent!r}")

