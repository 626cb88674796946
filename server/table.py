"""One table and its arbiter: the one trio task that owns a game's state.

Everything that touches a table (an action, taking a seat, a reconnect, a disconnect, a timer) reaches the
arbiter as an ``Intent`` through one memory channel, so the order of the log is the order of that channel,
never the order in which trio happens to schedule tasks. The arbiter never waits on a client: it hands each
receiver its messages without blocking, and a receiver whose outbox is full is closed as too slow.

Challenge Mode and lockstep are the same loop: the rules say which seats may act; the arbiter applies what
arrives, refuses the rest, and runs two timers: the photo-finish window (a due system action) and the
optional per-action time limit of lockstep tables (a timeout system action).

With ``fair`` ordering (Challenge Mode's default), an action the game calls contested that says which update
its seat had seen is held a few milliseconds (at most ``fair_ms`` less the seat's round-trip credit), and the
actions held together are applied in order of reaction time (``server/fairness.py``); every decision's
inputs go in its log entry. Everything else is applied as it arrives.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
import trio

from rules.bots import get_policy
from rules import SYSTEM, Game, Result, Rng, RulesError, Session, Setup, Step, ToAct, derive

from .actionlog import MemoryLog, compact_refused
from .fairness import ALL, EPSILON, GUESS_REACTION, credited, draw_from, early_floor, fair_order, hold_bound, lot_rng
from .fairness import credit as credit_for
from .fairness import reaction as reaction_of
from .finished import Finished, write_marker
from .logfile import End, Entry, Fair, SeatTaken, StandIn
from .disk import error_text
from .names import PERSON_MOST, check_name
from .logstore import FileLog
from .protocol import (Accepted, Act, BotDriver, BotSeat, Contest, Error, Left, MessageId, Refusal, Rejected, Resume,
                       Seated, SeatInfo, Snapshot, TableEnded, TableInfo, TakeSeat, Update, Watch, Watching)

logger = logging.getLogger(__name__)

INBOX_SIZE = 1024
PATH_KEPT = 16  # per seat: the last takes' arrival - first send, an upper bound of its round trip
GUESS_WINDOW = 2.0  # seconds: a take asked for this long before its card was offered is a guess
LEFT_KEPT = 64  # per seat: contested actions remembered as recently legal (a late take is a loss, not a guess)
MAX_BATCH = 64  # intents the arbiter takes per wake-up before it sends what they caused
CATCH_UP_MOST = 256  # a catch-up missing more accepted entries sends the snapshot alone (outboxes hold 1,024)


class Receiver(Protocol):
    """Where a table sends one client's messages: a websocket connection, or an in-process bot."""

    def deliver(self, message: Any) -> bool:
        """Queue a message without blocking; False when the outbox is full."""

    def close(self, code: str, message: str) -> None:
        """Ask the connection to close with a reason (without blocking)."""


@dataclass
class Intent:
    kind: str  # "act", "take_seat", "resume", "watch", "leave", "disconnect", "stop"
    receiver: Receiver | None
    message: Any = None
    received: float = 0.0


@dataclass
class SeatSlot:
    seat: int
    state: str = "free"  # free, taken, away, bot, stand_in (a server bot playing for an absent player)
    name: str = ""
    token_hash: str | None = None
    receiver: Receiver | None = None
    away_since: float | None = None
    answers: dict[MessageId, Any] = field(default_factory=dict)  # first answer to each message id
    stood_in: bool = False  # a stand-in has played this seat (a tournament places it last)
    # fair tables: each contested action legal for this seat now -> [the seq whose update first offered it, when
    # that update first left for this seat (table time; None until it has)]: stamped once, never by a resume
    since: dict[Any, list] = field(default_factory=dict)
    left: dict[Any, float] = field(default_factory=dict)  # contested actions no longer legal -> when (recently)
    guessed: dict[Any, float] = field(default_factory=dict)  # ... asked for before they were offered -> when
    guesses: int = 0  # contested actions asked for before the seat could have seen them (too_early, guess)
    path: deque = field(default_factory=lambda: deque(maxlen=PATH_KEPT))  # arrival - first send, per take


@dataclass
class Held:
    """A contested action waiting for its item's release (fair ordering), and its seat's resends of the same."""

    intent: Intent
    seat: int
    fair: Fair
    virtual: float  # arrival less the seat's credit: when the action would have arrived from no distance
    key: Any = None  # the contested item (the action itself): one item's release never releases another's
    followers: list[Intent] = field(default_factory=list)


@dataclass(frozen=True)
class Reservation:
    """A seat kept for one player from the start (a tournament's table): it is theirs by their token."""

    seat: int
    name: str
    token_hash: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Table:
    def __init__(self, table_id: str, game: Game, setup: Setup, seed: int, *, name: str = "",
                 bots: list[BotSeat] = (), turn_time_ms: int = 0, grace_ms: int = 60_000,
                 bot_delay_ms: int = 0, store: FileLog | None = None, digest_every: int = 50,
                 session: Session | None = None, log: MemoryLog | None = None, read_only: bool = False,
                 receipts: list[str] | None = None, reserved: list[Reservation] = (),
                 stand_in: str | None = None, ordering: str | None = None, fair_ms: int = 50,
                 expire_after: float | None = None, chosen_seed: int | None = None, practice: bool = False) -> None:
        self.id = table_id
        self.name = name or table_id
        self.game = game
        self.setup = setup
        self.seed = seed
        self.session = session or Session(game, setup, seed)
        self.log = log or MemoryLog()
        self.store = store
        self.receipts = receipts or []  # the hash of each entry's log line, by seq - 1 (empty without a file)
        self.read_only = read_only  # a playback of a finished log: watchers only, entries come from the log
        self.digest_every = digest_every
        self._outgoing: deque = deque()  # (log line it waits for, receiver, message) under always/batch
        self._holding = store is not None and store.policy != "never"
        if self._holding:
            store.on_durable = self._release  # the log's group commit hands over what its lines made safe
        self.failed: str | None = None  # why the table stopped, if it could not go on
        self.failed_code: str | None = None  # ... and its code: log_failed (the disk), internal_error (a bug)
        self._finished: tuple[int, Finished] | None = None  # (end record's line, marker) until it is written
        self.marked = trio.Event()  # set once the finished marker (finished.py) is written, or reported failed
        self._defer = False  # True while the arbiter takes a batch of intents: deliveries wait for the flush
        self._out: list = []
        self.turn_time_ms = turn_time_ms
        self.grace_ms = grace_ms
        self.bot_delay_ms = bot_delay_ms
        self.slots = [SeatSlot(seat) for seat in range(setup.seats)]
        self.bot_seats = {bot.seat: bot.policy for bot in bots}
        self.reserved = list(reserved)
        self.stand_in = stand_in  # a policy: an away seat's player is replaced by this bot after grace_ms
        self.halted: tuple[str, list[int]] | None = None  # (reason, places): ended before the game's own end
        self.end_hash: str | None = None  # the hash of the log's end line, once written
        self.end_line = 0
        self._nursery: trio.Nursery | None = None
        self.spectators: set[Receiver] = set()
        self.started = self.log.seq > 0
        self.stopped = trio.Event()
        self.over = trio.Event()
        self.window_deadline: float | None = None
        self.turn_deadline: float | None = None
        self._send, self._inbox = trio.open_memory_channel[Intent](INBOX_SIZE)
        self._t0 = 0.0
        self.ordering = ordering or ("fair" if setup.mode == "challenge" else "arrival")
        self.fair_ms = fair_ms
        self._fair = self.ordering == "fair"
        self._cap = fair_ms / 1000
        self.held: list[Held] = []  # contested actions waiting, in arrival order
        self.groups = 0  # releases of held actions so far (numbers them in the log)
        self.lots = lot_rng(seed)
        self._draw = draw_from(self.lots)
        self._opening: float | None = None  # the virtual time of the fair action being applied
        self.window_opened: float | None = None  # ... of the one that opened the photo-finish window
        self.expire_after = expire_after  # seconds a table nobody sat at may wait before it is ended (None: ever)
        self._expires: float | None = None  # when it expires (trio time), while nobody has sat and it waits
        self.seated_ever = any(s.token_hash for s in self.slots) or bool(self.reserved)  # a person sat here
        self.chosen_seed = chosen_seed  # the creator chose the seed (a practice table): shown to everyone
        self.practice = practice
        self.log_closed = False  # the log file is closed: the table finished and its end is on disk
        self.played_out = False  # a playback fed its last entry

    # ------------------------------------------------------------------ outside the arbiter

    async def submit(self, intent: Intent) -> None:
        """Queue an intent for the arbiter (stamped with the receive time if not yet)."""
        if not intent.received:
            intent.received = trio.current_time()
        try:
            try:
                self._send.send_nowait(intent)  # the usual case: no wait, and no trip through the scheduler
            except trio.WouldBlock:
                await self._send.send(intent)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            if intent.receiver is not None and intent.kind not in ("disconnect", "stop"):
                intent.receiver.deliver(Error(ref=getattr(intent.message, "id", None), code="table_closed",
                                              message=f"table {self.id} has stopped"))

    def submit_nowait(self, intent: Intent) -> None:
        intent.received = intent.received or trio.current_time()
        try:
            self._send.send_nowait(intent)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    def info(self) -> TableInfo:
        status = "over" if (self.session.to_act().over and self.started) or self.halted else (
            "playing" if self.started else "waiting")
        return TableInfo(
            table=self.id, name=self.name, game=self.game.info.name, mode=self.setup.mode,
            options=dict(self.setup.options),
            seats=[SeatInfo(seat=s.seat, state=s.state, name=s.name, ping_ms=ping, guesses=s.guesses)
                   for s, ping in zip(self.slots, self.pings())],
            seq=self.log.seq, status=status, spectators=len(self.spectators),
            turn_time_ms=self.turn_time_ms, grace_ms=self.grace_ms, ordering=self.ordering, fair_ms=self.fair_ms,
            practice=self.practice, seed=self.chosen_seed,
        )

    def pings(self) -> list[float | None]:
        """Each seat's round trip in ms, as its connection measured it (None: no connection, or not yet)."""
        return [self._meter(slot).ping_ms if self._meter(slot) is not None else None for slot in self.slots]

    @staticmethod
    def _meter(slot: SeatSlot):
        return getattr(slot.receiver, "latency", None)

    def _rtt(self, slot: SeatSlot) -> float | None:
        meter = self._meter(slot)
        return meter.rtt if meter is not None else None

    # ------------------------------------------------------------------ the arbiter task

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        last_time = self.log.entries[-1].time if self.log.entries else 0.0
        self._t0 = trio.current_time() - last_time  # a reopened table's clock goes on from its log
        for slot in self.slots:
            if slot.state == "away":  # reopened: seats wait for their owners' tokens for a new grace period
                slot.away_since = last_time
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            if self.store is not None:
                nursery.start_soon(self._run_flusher)
                nursery.start_soon(self._mark_finished)
            for seat, policy in self.bot_seats.items():
                bot = LocalBot(self, seat, policy, Rng(derive(self.seed, f"bot {seat}")))
                self.slots[seat].state = "bot"
                self.slots[seat].name = f"{policy} bot"
                self.slots[seat].receiver = bot
                nursery.start_soon(bot.run)
            if not self.started:
                for reservation in self.reserved:  # theirs by token from the start; a no-show's grace runs now
                    slot = self.slots[reservation.seat]
                    slot.state, slot.name, slot.token_hash = "away", reservation.name, reservation.token_hash
                    slot.away_since = 0.0
                    self._persist(SeatTaken(seat=slot.seat, name=slot.name, token_hash=slot.token_hash, time=0.0))
            for slot in self.slots:
                if slot.state == "stand_in":  # reopened with a stand-in playing: it plays on
                    self._start_stand_in(slot, persist=False)
            if self.expire_after and not self.started and not self.seated_ever:
                self._expires = trio.current_time() + self.expire_after
            task_status.started()
            try:
                if self.started:  # reopened from its log: wake the bots with where the game stands
                    self._arm_timers(self.session.to_act())
                    self._check_over(self.session.result())
                    for seat in self.bot_seats:
                        self._deliver(self.slots[seat].receiver, self._snapshot(seat))
                else:
                    self._maybe_start()
                while True:
                    intent = await self._next_intent()
                    if intent is None:
                        self._fire_timers()
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
                # server; what was logged stays whole, and nothing of the failing intent was acknowledged
                self._fail(f"table {self.id} stopped on an internal error ({type(error).__name__}: {error}); the "
                           "other tables go on, and restarting the server reopens it from its log", "internal_error")
            finally:
                self._send.close()
                if self.store is not None:
                    try:
                        self.store.close()
                    except OSError:
                        pass  # already reported; nothing not on disk was acknowledged
                    else:
                        if self._finished is not None:  # the end record is on disk now
                            self._write_marker()
                            self.marked.set()
                    self._release()
                    self.store.on_durable = None  # (the journal may keep the log until its checkpoint)
                self.stopped.set()
                nursery.cancel_scope.cancel()

    async def _next_intent(self) -> Intent | None:
        """The next intent, or None when a timer falls due first (no cancel scope when none runs)."""
        deadline = self._next_deadline()
        if deadline == math.inf:
            return await self._inbox.receive()
        with trio.move_on_at(deadline):
            return await self._inbox.receive()
        return None

    async def _run_flusher(self) -> None:
        """The log's own group commit (``always``), and a failing fsync reaching the arbiter, which stops the
        table."""
        try:
            await self.store.run_flusher()
        except OSError as error:
            await self.submit(Intent("log_failed", None, error))

    async def _mark_finished(self) -> None:
        """Once the end record is on disk, record apart from the log that this table finished."""
        await self.over.wait()
        if self._finished is not None:
            try:
                await self.store.wait_durable(self._finished[0])
            except OSError:  # the log failed first: the arbiter stops the table and says why
                return
            await trio.to_thread.run_sync(self._write_marker)
            self._close_log()
            self.marked.set()

    def _close_log(self) -> None:
        """The game is over, its end durable and marked: close the log file now, not when the table leaves
        memory (file descriptors follow live tables, never history). Anything after this is answered but no
        longer logged (only refusals and freed seats can follow an end, and they change nothing)."""
        try:
            self.store.close()
        except OSError:
            pass  # the end record and the marker are on disk; a refusal after them may be lost, nothing else
        self.store.on_durable = None  # the journal may hold the closed log until its checkpoint: not this table
        self.log_closed = True
        self._release()
        self._holding = False
        while self._outgoing:  # lines after the end that a failed last sync left: they changed nothing
            _, receiver, message = self._outgoing.popleft()
            self._hand_over(receiver, message)

    def _write_marker(self) -> None:
        if self._finished is None:
            return
        finished, self._finished = self._finished[1], None
        try:
            write_marker(self.store.path, finished)
        except OSError as error:  # the game and its log are whole; only the guard against a cut log is lost
            logger.warning(f"table {self.id} finished but its .done marker could not be written: "
                           f"{error.strerror or error}")

    def _fail(self, message: str, code: str = "log_failed") -> None:
        """Stop for good: tell every seat and spectator why, and the operator on stderr."""
        logger.warning(message)
        self.failed, self.failed_code = message, code
        receivers = [s.receiver for s in self.slots if s.receiver is not None] + list(self.spectators)
        for receiver in receivers:
            receiver.close(code, message)

    def _take_batch(self, intent: Intent) -> bool:
        """Handle ``intent`` and whatever else is already queued (up to a bound), then send what they
        caused: each receiver gets its view and legal actions once, on the last update. True on "stop"."""
        self._defer = True
        stopping = False
        if self._holding:
            self.store.begin_group()  # the batch's lines go to the journal's next round together
        try:
            for _ in range(MAX_BATCH):
                if intent.kind == "stop":
                    stopping = True
                    self._release_held()  # held actions arrived before the stop: apply and answer them
                    break
                self._handle(intent)
                try:
                    intent = self._inbox.receive_nowait()
                except trio.WouldBlock:
                    break
            if self.held and not stopping:  # after every queued frame is in: one that was read first but
                self._release_due()  # handled later (a loaded server) still takes part in its item's decision
        finally:
            try:
                self._flush()
            finally:
                if self._holding:
                    self.store.end_group()  # an idle server syncs them here, then releases what they hold
        return stopping

    def _flush(self) -> None:
        self._defer = False
        out, self._out = self._out, []
        last_group = next((i for i in range(len(out) - 1, -1, -1) if out[i][0] == "updates"), -1)  # has the views
        for index, item in enumerate(out):
            if item[0] == "message":
                self._deliver(item[1], item[2])
            else:
                self._send_updates(item[1], final_group=index == last_group)

    async def stop(self) -> None:
        await self.submit(Intent("stop", None))
        await self.stopped.wait()

    def _now(self) -> float:
        return trio.current_time() - self._t0

    def _handle(self, intent: Intent) -> None:
        kind = intent.kind
        if self.read_only and kind in ("act", "take_seat", "resume"):
            return self._error(intent.receiver, intent.message.id, "read_only",
                               f"{self.id} plays back a finished log: watch it, do not sit at it")
        if kind == "log_failed":
            raise intent.message
        if kind == "replay":
            self._replay_entry(intent.message)
        elif kind == "halt":
            self._halt(intent.message)
        elif kind == "act":
            self._act(intent)
        elif kind == "take_seat":
            self._take_seat(intent.receiver, intent.message)
        elif kind == "resume":
            self._resume(intent.receiver, intent.message)
        elif kind == "watch":
            self._watch(intent.receiver, intent.message)
        elif kind == "leave":
            self._leave(intent.receiver, intent.message)
        elif kind == "disconnect":
            self._disconnect(intent.receiver)
        else:  # a bug in the gateway, not a client's mistake
            raise ValueError(f"unknown intent {kind!r}")

    # ------------------------------------------------------------------ seats and spectators

    def _slot_of(self, receiver: Receiver | None) -> SeatSlot | None:
        for slot in self.slots:
            if slot.receiver is receiver and receiver is not None:
                return slot
        return None

    def _take_seat(self, receiver: Receiver, message: TakeSeat) -> None:
        if self._slot_of(receiver) is not None:
            return self._error(receiver, message.id, "already_seated", f"you already hold a seat at {self.id}")
        if message.seat is None:
            free = [s for s in self.slots if s.state == "free"]
            if not free:
                return self._error(receiver, message.id, "table_full", f"table {self.id} has no free seat")
            slot = free[0]
        else:
            if not 0 <= message.seat < len(self.slots):
                return self._error(receiver, message.id, "no_such_seat",
                                   f"table {self.id} has seats 0-{len(self.slots) - 1}")
            slot = self.slots[message.seat]
            if slot.state != "free":
                return self._error(receiver, message.id, "seat_taken", f"seat {slot.seat} is {slot.state}")
        try:
            name = check_name(message.name, "a seat's name", PERSON_MOST)
        except Refusal as error:
            return self._error(receiver, message.id, error.code, error.message)
        token = secrets.token_urlsafe(24)
        slot.state, slot.name, slot.token_hash = "taken", name, token_hash(token)
        slot.receiver, slot.away_since, slot.answers = receiver, None, {}
        self.seated_ever, self._expires = True, None
        self._persist(SeatTaken(seat=slot.seat, name=slot.name, token_hash=slot.token_hash, time=self._now()))
        self._deliver(receiver, Seated(ref=message.id, table=self.id, game=self.game.info.name, seat=slot.seat,
                                       token=token, seq=self.log.seq))
        if not self._maybe_start():
            self._deliver(receiver, self._snapshot(slot.seat))

    def _resume(self, receiver: Receiver, message: Resume) -> None:
        digest = token_hash(message.token)
        slot = next((s for s in self.slots if s.token_hash == digest and s.state in ("taken", "away", "stand_in")),
                    None)
        if slot is None:
            return self._error(receiver, message.id, "bad_token", f"no seat at {self.id} holds that token")
        if slot.receiver is not None and slot.receiver is not receiver:
            slot.receiver.close("replaced", "this seat was resumed from another connection")
        if slot.state == "stand_in":  # the player is back: they take their seat over from the stand-in
            self._persist(StandIn(seat=slot.seat, active=False, time=self._now()))
        slot.state, slot.receiver, slot.away_since = "taken", receiver, None
        self._deliver(receiver, Seated(ref=message.id, table=self.id, game=self.game.info.name, seat=slot.seat,
                                       token=message.token, seq=self.log.seq))
        self._catch_up(receiver, slot.seat, message.last_seq)

    def _watch(self, receiver: Receiver, message: Watch) -> None:
        self.spectators.add(receiver)
        self._deliver(receiver, Watching(ref=message.id, table=self.id, game=self.game.info.name,
                                         seq=self.log.seq))
        self._catch_up(receiver, None, message.last_seq)

    def _catch_up(self, receiver: Receiver, seat: int | None, last_seq: int) -> None:
        """Every accepted entry after ``last_seq``, redacted for ``seat``, then the whole view now (also
        before the game starts). More than ``CATCH_UP_MOST`` missed entries are not resent: they would
        overflow the receiver's outbox; the snapshot alone brings it to now and says how many it skipped."""
        missed = self.log.accepted_after(last_seq)
        skipped = len(missed) if len(missed) > CATCH_UP_MOST else 0
        for entry in missed if not skipped else ():
            events = [self.game.redact(e, seat) for e in entry.events]
            self._deliver(receiver, Update(table=self.id, seq=entry.seq, actor=entry.actor, events=events,
                                           to_act=[], receipt=self._receipt(entry.seq)))
        self._deliver(receiver, self._snapshot(seat, skipped))

    def _leave(self, receiver: Receiver, message) -> None:
        slot = self._slot_of(receiver)
        if slot is not None:
            self._free(slot)
        elif receiver in self.spectators:
            self.spectators.discard(receiver)
        else:
            return self._error(receiver, message.id, "not_here", f"you neither sit at nor watch {self.id}")
        self._deliver(receiver, Left(ref=message.id, table=self.id))

    def _disconnect(self, receiver: Receiver) -> None:
        self.spectators.discard(receiver)
        slot = self._slot_of(receiver)
        if slot is not None and slot.state == "taken":
            slot.state, slot.receiver, slot.away_since = "away", None, self._now()

    def _free(self, slot: SeatSlot) -> None:
        slot.state, slot.name, slot.token_hash, slot.receiver, slot.away_since = "free", "", None, None, None
        slot.answers = {}
        self._persist(SeatTaken(seat=slot.seat, name="", token_hash=None, time=self._now()))

    def _maybe_start(self) -> bool:
        """Start the game once every seat is filled; True if it started now."""
        if self.started or any(s.state == "free" for s in self.slots):
            return False
        self.started, self._expires = True, None
        self._record(self.session.run_chance())
        return True

    # ------------------------------------------------------------------ actions

    def _act(self, intent: Intent) -> None:
        receiver, message = intent.receiver, intent.message
        slot = self._slot_of(receiver)
        if slot is None:
            return self._error(receiver, message.id, "not_seated", f"you hold no seat at {self.id}")
        if message.id is not None and message.id in slot.answers:
            first = slot.answers[message.id]
            if type(first) is Accepted:
                first = msgspec.structs.replace(first, duplicate=True)
            return self._deliver(receiver, first)
        if message.id is not None and any(h.seat == slot.seat and message.id in
                                          (h.intent.message.id, *(f.message.id for f in h.followers))
                                          for h in self.held):
            return  # a resend of a held action: answered at its release
        if self._fair and self.started and self._contest(slot, intent):
            return
        self._answer(slot.seat, intent, intent.received - self._t0)

    def _answer(self, seat: int, intent: Intent, time: float, fair: Fair | None = None,
                lost: tuple[int, str] | None = None, refusal: tuple[str, str] | None = None) -> Accepted | Rejected:
        """Apply a seat's action now, answer its sender (``lost``: the seat and rule of another seat whose
        same action went first; ``refusal``: refuse it with this code and text instead) and send everyone the
        update."""
        message = intent.message
        answer, entries, turn = self._apply(seat, message, time, fair, lost, refusal)
        slot = self.slots[seat]
        if message.id is not None:
            slot.answers[message.id] = answer
        receiver = intent.receiver
        if slot.receiver is not receiver:  # resumed elsewhere while it was held: the seat's connection now
            receiver = slot.receiver if slot.state == "taken" else None  # (away or a stand-in: a resend gets it)
        if receiver is not None:
            self._deliver(receiver, answer)
        if entries:
            self._broadcast(entries, turn)
        return answer

    # ------------------------------------------------------------------ fair ordering

    def _contest(self, slot: SeatSlot, intent: Intent) -> bool:
        """Take a contested action into fair ordering (True), or say it is not contested (False: apply it
        now like any other, in arrival order, releasing nothing).

        Its reaction is measured from what the server knows: when this seat was first sent the update that
        offered the action (``since``), never from the client's ``seen``, which may only show it was chosen
        on an older view (then it is a guess). An action that arrives sooner after that send than the seat's
        round trip allows, or that the seat asked for before it was offered, gains nothing: it is refused
        (``too_early``) or ordered last (``guess``), and counted. Otherwise it is held until no quicker
        reaction to the same item can still arrive (``_hold_until``), and released with the other actions on
        that item only (``_release_due``)."""
        message = intent.message
        try:
            action = self.game.to_action(message.action)
        except msgspec.ValidationError:
            return False  # refused as a bad action, at once
        if not self.game.contested(self.session.state, action):
            return False
        arrival = intent.received - self._t0
        offered = slot.since.get(action)
        if offered is None:  # not legal for this seat now: refused at once; a take of a card never offered to
            left = slot.left.get(action)  # it lately is a guess, counted, and orders its later take last
            if left is None or arrival - left > GUESS_WINDOW:
                slot.guesses += 1
                slot.guessed[action] = arrival
                if len(slot.guessed) > LEFT_KEPT:
                    del slot.guessed[next(iter(slot.guessed))]
            return False
        seq, sent = offered
        rtt, pings, path, kernel = self._round_trip(slot)
        mine = next((h for h in self.held if h.seat == slot.seat and h.key == action), None)
        if mine is not None:  # the seat asked for the same item again: answered right after its first ask
            mine.followers.append(intent)
            return True
        early = sent is None or arrival - sent < early_floor(rtt)
        guessed = slot.guessed.get(action)
        left = slot.left.get(action)  # the same card (another copy) was offered to it lately: a late take, no guess
        before_offer = message.seen is not None and message.seen < seq and (left is None or arrival - left > GUESS_WINDOW)
        if early or before_offer:
            slot.guesses += 1
            rule = "too_early"
        elif guessed is not None and sent - guessed <= GUESS_WINDOW:
            rule = "guess"
        else:
            rule = "reaction"
        if rule == "too_early":
            why = ("it arrived sooner after the card was sent to you than your round trip allows"
                   if early else f"it was chosen on update {message.seen}, before the card was offered at {seq}")
            self._answer(slot.seat, intent, self._now(),
                         Fair(rule="too_early", arrival=arrival, seen=message.seen, sent=sent, rtt=rtt,
                              pings=pings, path=path, kernel=kernel), refusal=("too_early", f"too early: {why}"))
            return True
        slot.path.append(arrival - sent)
        credit = credit_for(rtt, self._cap)
        reaction = reaction_of(arrival, sent, rtt, self._cap) if rule == "reaction" else GUESS_REACTION
        until = self._hold_until(slot, action, arrival, reaction, credit)
        fair = Fair(rule=rule, arrival=arrival, seen=message.seen, sent=sent, rtt=rtt, reaction=reaction,
                    until=until, pings=pings, path=path, kernel=kernel)
        self.held.append(Held(intent, slot.seat, fair, arrival - credit, key=action))
        return True

    def _hold_until(self, slot: SeatSlot, action: Any, arrival: float, reaction: float, credit: float) -> float:
        """When a quicker reaction to the same item can no longer arrive: each other seat that may take it
        would have sent it by when its update offering the item left + this reaction + its credit. No such
        seat: now (arrival order; on a LAN of equal round trips this is about the arrival too). A seat not yet
        sent the offer: the bound, ``fair_ms`` less this seat's credit after the arrival."""
        bound = hold_bound(arrival, credit, self._cap)
        latest = arrival
        for other in self.slots:
            if other is slot or other.receiver is None:
                continue
            offered = other.since.get(action)
            if offered is None:
                continue  # it may not take this item
            if offered[1] is None:
                return bound
            latest = max(latest, offered[1] + reaction + credit_for(self._round_trip(other)[0], self._cap))
        return min(latest, bound)

    def _round_trip(self, slot: SeatSlot) -> tuple[float | None, list[float] | None, float | None, float | None]:
        """The round trip a seat's reactions are credited with (``fairness.credited``), and what it comes
        from: its ping samples, the quickest of its last takes' arrival - first send, and the kernel's smallest
        round trip of its connection (direct connections)."""
        meter = self._meter(slot)
        pings = sorted(round(x, 6) for x in meter.samples) if meter is not None and meter.samples else None
        path = round(min(slot.path), 6) if slot.path else None
        read = getattr(meter, "kernel", None)
        kernel = read() if read is not None else None
        kernel = round(kernel, 6) if kernel is not None else None
        return credited(pings, path, kernel), pings, path, kernel

    def _release_due(self) -> None:
        """Release every item whose first held action is due (its group decided: see ``_hold_until``)."""
        if not self.held:
            return
        now = self._now()
        due = {}
        for held in self.held:
            if held.fair.until <= now:
                due[held.key] = None
        for key in due:
            self._release_held(key=key)

    def _release_held(self, within: float | None = None, key: Any = ALL) -> None:
        """Apply held actions as one group, in order of reaction (ties by seeded lot): those on ``key`` (every
        item: ``ALL``); ``within``: only those whose virtual time is at most that (the photo-finish window
        closing), the rest stay held. A loser is refused at once, saying it lost and by which rule."""
        if not self.held:
            return
        group = [h for h in self.held if (key is ALL or h.key == key) and (within is None or h.virtual <= within)]
        if not group:
            return
        self.held = [h for h in self.held if h not in group]
        self.groups += 1
        order, lots = fair_order([h.fair.reaction for h in group], EPSILON, self._draw)
        went_first: dict[Any, tuple[int, str]] = {}  # action -> (seat, rule) of the accepted one
        now = self._now()
        for index in order:
            held = group[index]
            lot = lots.get(index)
            rule = held.fair.rule if held.fair.rule == "guess" else ("reaction" if lot is None else "lot")
            fair = msgspec.structs.replace(held.fair, group=self.groups, rank=index, lot=lot, rule=rule)
            first = went_first.get(held.key)
            lost = first if first is not None and first[0] != held.seat else None
            self._opening = held.virtual
            answer = self._answer(held.seat, held.intent, now, fair, lost)
            self._opening = None
            if type(answer) is Accepted:
                went_first.setdefault(held.key, (held.seat, rule))
            for follower in held.followers:
                self._answer(held.seat, follower, now, Fair(rule="after", arrival=follower.received - self._t0,
                                                             seen=follower.message.seen))

    def _track_offers(self, seat: int, legal: list, seq: int) -> None:
        """Fair tables: the contested actions ``legal`` for ``seat`` in the update of ``seq``: a new one is
        offered from ``seq`` on (its send time stamped when that update leaves), a gone one is remembered for
        a while (a late take of it is a loss, not a guess)."""
        slot = self.slots[seat]
        state, contested = self.session.state, self.game.contested
        now_legal = {action for action in legal if contested(state, action)}
        since = slot.since
        for action in now_legal:
            if action not in since:
                since[action] = [seq, None]
        if len(since) > len(now_legal):
            now = self._now()
            for action in [a for a in since if a not in now_legal]:
                del since[action]
                slot.left[action] = now
            while len(slot.left) > LEFT_KEPT:
                del slot.left[next(iter(slot.left))]

    def skip_lots(self, count: int) -> None:
        """A reopened table: advance the lot generator past the lots its log already drew."""
        for _ in range(count):
            self._draw([0])

    def _apply(self, seat: int, message: Act, time: float, fair: Fair | None = None,
               lost: tuple[int, str] | None = None,
               refusal: tuple[str, str] | None = None) -> tuple[Accepted | Rejected, list, ToAct | None]:
        """Apply one seat's action: all of it, logged and answered, or refused, logged, and nothing changed.
        Returns the answer, the new entries and who may act after them (None when refused)."""
        def refuse(action: Any, code: str, text: str) -> tuple[Rejected, list, None]:
            action = compact_refused(action)  # a 60 KiB junk action is kept as its digest, not whole
            logged = fair if lost is None else msgspec.structs.replace(fair, lost_to=lost[0])
            entry = self.log.append(time=time, actor=seat, action=action, accepted=False, code=code, ref=message.id,
                                    fair=logged)
            self._persist(Entry(seq=entry.seq, time=time, actor=seat, action=action, accepted=False, code=code,
                                ref=message.id, fair=logged))
            contest = None
            if lost is not None:
                winner, rule = lost
                contest = Contest(winner=winner, rule=rule, lot=rule == "lot")
                name = self.slots[winner].name
                how = {"reaction": "it reacted first", "lot": "your reactions tied; a seeded lot decided",
                       "guess": "it asked first"}.get(rule, rule)
                text = f"{text}: seat {winner}{f' ({name})' if name else ''} took it first ({how})"
            return (Rejected(ref=message.id, table=self.id, code=code, message=text, seq=self.log.seq,
                             contest=contest), [], None)

        if refusal is not None:
            return refuse(message.action, *refusal)
        if not self.started:
            return refuse(message.action, "not_started", "the game starts when every seat is filled")
        if self.halted is not None:
            return refuse(message.action, "table_over", f"the table was ended ({self.halted[0].replace('_', ' ')})")
        if message.expect_seq is not None and not self.log.accepted_seq <= message.expect_seq <= self.log.seq:
            # Only an accepted entry moves the table: refused intents (another seat's too, which this seat
            # is never sent) take seqs but change nothing, so they never make an action stale.
            return refuse(message.action, "stale", self._stale(message.expect_seq))
        try:
            action = self.game.to_action(message.action)
        except msgspec.ValidationError as error:
            return refuse(message.action, "bad_action", f"not a {self.game.info.title} action: {error}")
        try:
            steps = self.session.act(seat, action)
        except RulesError as error:
            return refuse(action, error.code, error.message)
        entries, turn = self._record(steps, time, broadcast=False, ref=message.id, fair=fair)
        return (Accepted(ref=message.id, table=self.id, seq=entries[0].seq, receipt=self._receipt(entries[0].seq)),
                entries, turn)

    def _stale(self, expect_seq: int) -> str:
        """Why an ``expect_seq`` is refused, with the seq to expect now."""
        if expect_seq > self.log.seq:
            return f"{expect_seq} has not happened yet: the table's state last changed at {self.log.accepted_seq}"
        return (f"the table has moved on since {expect_seq}: its state last changed at {self.log.accepted_seq}; "
                f"choose again from the update with that seq")

    def _record(self, steps: list[Step], time: float | None = None, broadcast: bool = True,
                ref: Any = None, fair: Fair | None = None) -> tuple[list, ToAct]:
        """Append accepted steps to the log and re-arm the timers; returns the new entries and who may act
        after them (worked out once here: the log, the timers and the updates all need it)."""
        time = self._now() if time is None else time
        entries = [self.log.append(time=time, actor=s.actor, action=s.action, accepted=True, events=s.events,
                                   ref=ref if i == 0 else None, fair=fair if i == 0 else None)
                   for i, s in enumerate(steps)]
        turn = self.session.to_act()
        if self.store is not None:
            checkpoint = turn.over or any(e.seq % self.digest_every == 0 for e in entries)
            for entry in entries:
                final = entry is entries[-1] and checkpoint
                self._persist(Entry(seq=entry.seq, time=time, actor=entry.actor, action=entry.action,
                                    accepted=True, digest=self.session.digest() if final else None, ref=entry.ref,
                                    fair=entry.fair))
        self._arm_timers(turn)
        if broadcast and entries:
            self._broadcast(entries, turn)
        return entries, turn

    def _broadcast(self, entries: list, turn: ToAct) -> None:
        """Send each receiver an update per entry, redacted for it (now, or when the batch is flushed)."""
        receivers: list[tuple[Receiver, int | None]] = [(s.receiver, s.seat) for s in self.slots if s.receiver]
        receivers += [(r, None) for r in self.spectators]
        group = (entries, list(turn.seats), receivers)
        if self._defer:
            self._out.append(("updates", group))
        else:
            self._send_updates(group, final_group=True)

    def _send_updates(self, group, final_group: bool) -> None:
        """The last update of the last group carries each receiver's view, legal actions and the result."""
        entries, to_act, receivers = group
        game, state = self.game, self.session.state
        table, redact, deliver = self.id, game.redact, self._deliver
        earlier = entries[:-1] if final_group else entries  # updates without a view
        receipts = {entry.seq: self._receipt(entry.seq) for entry in entries}
        if final_group:
            last, result = entries[-1], self.session.result()
            pings = self.pings()
            seats = [seat for _, seat in receivers]
            views = iter(game.views(state, seats))
            lists = game.legal_for(state, [seat for seat in seats if seat is not None])
            if self._fair:
                for seat, legal_list in zip([seat for seat in seats if seat is not None], lists):
                    self._track_offers(seat, legal_list, last.seq)
            legal = iter(lists)
        for receiver, seat in receivers:
            for entry in earlier:
                deliver(receiver, Update(table=table, seq=entry.seq, actor=entry.actor, to_act=to_act,
                                         events=[redact(e, seat) for e in entry.events],
                                         receipt=receipts[entry.seq]))
            if final_group:
                deliver(receiver, Update(table=table, seq=last.seq, actor=last.actor, to_act=to_act,
                                         events=[redact(e, seat) for e in last.events], view=next(views),
                                         legal=next(legal) if seat is not None else None, result=result,
                                         receipt=receipts[last.seq], pings=pings))
        if final_group:
            self._check_over(result)

    def answer_for(self, entry) -> Accepted | Rejected:
        """The answer a logged entry gave its sender (to answer a resend after a restart the same way)."""
        if entry.accepted:
            return Accepted(ref=entry.ref, table=self.id, seq=entry.seq, receipt=self._receipt(entry.seq))
        return Rejected(ref=entry.ref, table=self.id, code=entry.code or "refused",
                        message="refused before the server restarted", seq=entry.seq)

    def _check_over(self, result: Result | None) -> None:
        """Once the game is over (``result``, the session's now): the log's end record reveals the seed, and
        ``over`` is set."""
        if result is None or self.over.is_set():
            return
        placings = self.game.placings(self.session.state)
        self._persist(End(seq=self.log.seq, seed=self.seed, digest=self.session.digest(), reason="over",
                          scores=list(result.scores), winners=list(result.winners),
                          places=list(placings) if placings is not None else None))
        self._ended()

    def _ended(self) -> None:
        """The end record is written: keep its line's hash (a tournament records it with the result), mark the
        table finished apart from its log once that line is on disk (``finished.py``), and set ``over``."""
        self.end_hash = self.store.head if self.store is not None else None
        self.end_line = self.store.written if self.store is not None else 0
        if self.store is not None:
            self._finished = (self.store.written, Finished(table=self.id, seq=self.log.seq, end_hash=self.store.head))
        self.over.set()

    async def wait_end_durable(self) -> None:
        """Return once the end record is on disk (at once without a file log)."""
        if self.store is not None and self.store.policy != "never":
            await self.store.wait_durable(self.end_line)

    def _persist(self, record) -> None:
        if self.store is not None and not self.log_closed:
            self.store.append(record)
            if type(record) is Entry:  # entries are persisted once each, in seq order
                self.receipts.append(self.store.head)

    def _receipt(self, seq: int) -> str | None:
        """The hash of entry ``seq``'s log line: what a player keeps to check a log later (None without one)."""
        return self.receipts[seq - 1] if 0 < seq <= len(self.receipts) else None

    def _snapshot(self, seat: int | None, skipped: int = 0) -> Snapshot:
        state = self.session.state
        waiting = None if self.started else [s.seat for s in self.slots if s.state == "free"]
        legal = self.game.legal_actions(state, seat) if seat is not None else None
        if self._fair and legal is not None:
            self._track_offers(seat, legal, self.log.seq)
        return Snapshot(table=self.id, seq=self.log.seq, view=self.game.view(state, seat),
                        to_act=list(self.session.to_act().seats),
                        legal=legal,
                        result=self.session.result(), skipped=skipped, waiting_for=waiting,
                        receipt=self._receipt(self.log.seq), pings=self.pings())

    # ------------------------------------------------------------------ timers

    async def play_back(self, entries: list, speed: float) -> None:
        """Feed a finished log's accepted entries to the arbiter at ``speed`` times their recorded pace."""
        self.started = True
        previous = entries[0].time if entries else 0.0
        for entry in entries:
            await trio.sleep(max(0.0, entry.time - previous) / speed)
            previous = entry.time
            await self.submit(Intent("replay", None, entry))
        self.played_out = True

    def _replay_entry(self, entry) -> None:
        while self.log.seq + 1 < entry.seq:  # the live table's refused attempts: not shown, their numbers kept
            self.log.append(time=entry.time, actor=entry.actor, action=None, accepted=False, code="refused")
        action = self.game.to_action(entry.action)
        events = self.game.apply(self.session.state, entry.actor, action)
        self.session.history.append((entry.actor, action))
        self._record([Step(entry.actor, action, events)], time=entry.time)

    def _arm_timers(self, turn: ToAct) -> None:
        if self.read_only:
            return  # what happened when is the log's to say
        now = trio.current_time()
        if turn.system and self.window_deadline is None:
            self.window_deadline = now + turn.system_delay_ms / 1000
            if self._opening is not None:  # opened by a fair action: the window runs in reaction time, and
                # closes once every action within it could have arrived (its virtual time + the window + the cap)
                self.window_opened = self._opening
                self.window_deadline = max(self.window_deadline, self._t0 + self._opening
                                           + turn.system_delay_ms / 1000 + self._cap)
        elif not turn.system:
            self.window_deadline = None
            self.window_opened = None
        if self.turn_time_ms and self.setup.mode == "lockstep" and turn.seats and not turn.over:
            self.turn_deadline = now + self.turn_time_ms / 1000
        else:
            self.turn_deadline = None

    def _next_deadline(self) -> float:
        deadline = math.inf
        for due in (self.window_deadline, self.turn_deadline):
            if due is not None and due < deadline:
                deadline = due
        if self.held:
            deadline = min(deadline, self._t0 + min(h.fair.until for h in self.held))
        if self._expires is not None:
            deadline = min(deadline, self._expires)
        for slot in self.slots:
            if slot.away_since is not None:
                deadline = min(deadline, self._t0 + slot.away_since + self.grace_ms / 1000)
        return deadline

    def _fire_timers(self) -> None:
        now = trio.current_time()
        if self._expires is not None and now >= self._expires:
            return self._expire()
        self._release_due()
        if self.window_deadline is not None and now >= self.window_deadline:
            self.window_deadline = None
            if self.held and self.window_opened is not None:  # finishes within the window in reaction time
                self._release_held(within=self.window_opened + self.session.to_act().system_delay_ms / 1000)
            system = self.game.legal_actions(self.session.state, SYSTEM)
            if system:
                self._record(self.session.act(SYSTEM, system[0]))
        if self.turn_deadline is not None and now >= self.turn_deadline:
            self.turn_deadline = None
            turn = self.session.to_act()
            if turn.seats and not turn.over:
                self._record(self.session.act(SYSTEM, self.game.timeout_action(self.session.state, turn.seats[0])))
        for slot in self.slots:
            if slot.away_since is not None and now >= self._t0 + slot.away_since + self.grace_ms / 1000:
                if self.stand_in and self.started and not self.over.is_set():
                    self._start_stand_in(slot)
                else:
                    self._free(slot)

    def _start_stand_in(self, slot: SeatSlot, persist: bool = True) -> None:
        """An absent player's seat is played by a server bot, marked as a stand-in, until they resume."""
        bot = LocalBot(self, slot.seat, self.stand_in or "heuristic", Rng(derive(self.seed, f"stand-in {slot.seat}")))
        slot.state, slot.receiver, slot.away_since, slot.stood_in = "stand_in", bot, None, True
        if persist:
            self._persist(StandIn(seat=slot.seat, active=True, time=self._now()))
        self._nursery.start_soon(bot.run)
        if self.started:
            self._deliver(bot, self._snapshot(slot.seat))

    def _halt(self, reason: str) -> None:
        """End the table now, before the game's own end (a tournament round's time ran out): every seat is
        placed as the game stands (``game.standing``), logged in the end record, and no action is taken after."""
        if self.over.is_set() or not self.started:
            return
        self._release_held()  # held actions arrived before the halt: they count
        if self.over.is_set():
            return
        places = list(self.game.standing(self.session.state))
        self.halted = (reason, places)
        self.window_deadline = self.turn_deadline = None
        self._persist(End(seq=self.log.seq, seed=self.seed, digest=self.session.digest(), reason=reason,
                          places=places))
        ended = TableEnded(table=self.id, seq=self.log.seq, reason=reason, places=places)
        for receiver in [s.receiver for s in self.slots if s.receiver is not None] + list(self.spectators):
            self._deliver(receiver, ended)
        self._ended()

    def _expire(self) -> None:
        """Nobody sat at this table for ``expire_after`` seconds: end it (reason ``expired``, no places) and stop
        the arbiter; the lobby forgets it. Watchers are told."""
        self._expires = None
        if self.started or self.seated_ever or self.over.is_set():
            return
        self.halted = ("expired", [])
        self._persist(End(seq=self.log.seq, seed=self.seed, digest=self.session.digest(), reason="expired"))
        ended = TableEnded(table=self.id, seq=self.log.seq, reason="expired", places=[])
        for receiver in list(self.spectators):
            self._deliver(receiver, ended)
        self._ended()

    def places(self) -> list[int] | None:
        """Each seat's final place (1 = first, ties share) once the table is over: the game's own placing, or
        the standing it was halted at; None while it goes on."""
        if self.halted is not None:
            return list(self.halted[1])
        placings = self.game.placings(self.session.state)
        return list(placings) if placings is not None else None

    # ------------------------------------------------------------------ delivery

    def _deliver(self, receiver: Receiver, message: Any) -> None:
        """Hand a message over; under always/batch, only once the log line it follows is on disk (the log
        calls ``_release`` when its lines become durable; messages keep their order)."""
        if self._defer:  # inside a batch: keep the order, send at the flush
            self._out.append(("message", receiver, message))
        elif self._holding and (self._outgoing or self.store.written > self.store.durable):
            self._outgoing.append((self.store.written, receiver, message))
        else:
            self._hand_over(receiver, message)

    def _release(self) -> None:
        """Hand over the held messages whose log lines are durable (called by the log's group commit)."""
        while self._outgoing and self._outgoing[0][0] <= self.store.durable:
            _, receiver, message = self._outgoing.popleft()
            self._hand_over(receiver, message)

    def _hand_over(self, receiver: Receiver, message: Any) -> None:
        if self._fair and (type(message) is Update or type(message) is Snapshot):
            self._stamp(receiver, message.seq)
        if not receiver.deliver(message):
            receiver.close("too_slow", "you fell too far behind; reconnect to catch up")
            self._disconnect(receiver)

    def _stamp(self, receiver: Receiver, seq: int) -> None:
        """Fair tables: update ``seq`` leaves for a seat now: each contested action it offered the seat for
        the first time is stamped with this moment, once (a resume, a snapshot or a catch-up sends it again
        later and changes nothing)."""
        slot = self._slot_of(receiver)
        if slot is not None and slot.since:
            now = None
            for offered in slot.since.values():
                if offered[1] is None and offered[0] <= seq:
                    offered[1] = now = self._now() if now is None else now

    def _error(self, receiver: Receiver, ref: MessageId, code: str, text: str) -> None:
        self._deliver(receiver, Error(ref=ref, code=code, message=text))


class LocalBot:
    """A server-side bot seat: the same policy and driver as a bot over the wire, fed in process."""

    def __init__(self, table: Table, seat: int, policy: str, rng: Rng) -> None:
        self.table = table
        self.seat = seat
        self.driver = BotDriver(get_policy(table.game.info.name, policy), rng, prefix=f"bot-{secrets.token_hex(4)}")
        self._send, self._receive = trio.open_memory_channel[Any](math.inf)

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
                self.driver.take(self._receive.receive_nowait())
            except trio.WouldBlock:
                return True
            except trio.EndOfChannel:
                return False

    async def run(self) -> None:
        async for message in self._receive:
            self.driver.take(message)
            if not self._drain():  # act on the newest view only
                return
            if self.driver.in_flight is not None or not self.driver.legal:
                continue
            if self.table.bot_delay_ms:
                await trio.sleep(self.table.bot_delay_ms / 1000 * (0.5 + self.driver.rng.below(1000) / 1000))
                if not self._drain():
                    return
            move = self.driver.next_action()
            if move is not None:
                ref, action = move
                await self.table.submit(Intent("act", self, Act(table=self.table.id, action=action, id=ref,
                                                                seen=self.driver.seen)))
