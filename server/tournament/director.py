"""One tournament's director (lila's SwissApi): the one writer of its log, and what advances it. Thin: it records
changes and decides what comes next; its parts do the rest, each taking the director:
``opening.py`` starts a round (a seating becomes open tables, here or on other nodes), ``results.py`` takes a
table's result and rates it, ``clocks.py`` keeps a round's time and an arena's, ``views.py`` says what a client
sees. The pure core (``state.py``, ``seating.py``, ``standings.py``) decides every seating and standing.

Every change (a registration, a check-in, a drop, a round's seating, a table's result, a correction, the end)
is first folded into the tournament's state (``state.Tournament.apply``, which refuses a record that does not
follow and changes nothing), then appended to the tournament's hash-chained log and acknowledged only once the
line is on disk (``record``); the SQLite store is updated after it (``mirror``), as the server's queryable copy.
A ``trio.Lock`` keeps one change at a time, so the log's order is the order of changes.

After every result or drop (``advance``): when every table of a round is over the next round is seated (Swiss
and round robin), or, in an arena, each finished table's players are seated again with whoever is waiting,
until the arena's time is up. ``start`` with ``next_round`` ends the tables still playing as they stand (as
``round_time_ms`` does) and seats the next round from their results. After the last round (or when the next
round would seat no table: too few active players left) the seed is revealed in the ``ended`` record, with the
reason (``state.Tournament.end_reason``); nothing is taken after it (``tournament_over``). An error while
advancing ends the event (reason ``stopped``) rather than stall it; a round's table that cannot open is tried
again until it opens.

The organiser's other actions (re-pair, swap, begin or end a round now, cancel, penalties, disqualification,
undo a drop, re-entry) are ``organiser.py``'s; ``start`` begins a round waiting under ``pairings_first``.

Registrations: past the settings' ``max_players`` a player waits on the waitlist (``state.py`` says who holds a
place); one connection, and one address, may register only so many players in one tournament
(``server/quotas.py``: ``too_many_registrations``).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import sqlite3
from typing import Any

import trio

from rules import get_game

from ..logs import crashpoint
from ..logs.disk import error_text
from ..logs.logstore import FileLog
from ..names import PERSON_MOST, check_name, skeleton
from ..protocol import Code, CreateTournament, Refusal, TournamentInfo, TournamentState, YourTable
from ..quotas import Owner
from ..table import Table, token_hash
from . import arena, clocks, opening, organiser, rated_start, reporting, views
from .remote import RemoteTables
from .state import Tournament
from .store import AsyncStore, Store
from .tlog import CheckedIn, Corrected, Dropped, Ended, Registered
from ..secrets_typed import new_secret

logger = logging.getLogger(__name__)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Director:
    def __init__(self, hub: Any, tid: str, request: CreateTournament, state: Tournament, log: FileLog | None,
                 secret_digest: str, tokens: dict[str, str], store: AsyncStore | None) -> None:
        self.hub = hub
        self.id = tid
        self.request = request
        self.state = state
        self.log = log
        self.secret_digest = secret_digest
        self.tokens = tokens  # token hash -> player
        self.store = store
        self.game = get_game(request.game)
        self.lock = trio.Lock()
        self.watchers: dict[Any, str | None] = {}  # receiver -> the player it follows (None: a spectator)
        self.tables: dict[str, Table] = {}  # the tables open on this node
        self.opened: set[str] = set()  # tables open (here or on another node) whose players were told
        self.remote: RemoteTables | None = None  # on a cluster: the tables other nodes run for it
        self.unplaced: list[tuple[str, int, tuple[str, ...]]] = []  # reopened on a cluster: seated, not open here
        self.waiting: list[str] = []  # arena: players free to be seated, in the order they became free
        self.reports_made: dict[tuple[str, str], int] = {}  # (table, player) -> reports logged (``reported``)
        self.arena_over = False
        self.failed: str | None = None  # why its log cannot be written (its changes are refused from then on)
        self.receipts: dict[str, str | None] = {}  # player -> the hash of its registration's line
        self.entrants: dict[str, Owner] = {}  # player -> the connection that registered them (since the start)
        self.paused: str | None = None  # a round logged whose tables did not all open yet (opening.retry_tables)
        self.ending: int | None = None  # the round an organiser ended whose tables are being stopped (end_round)
        self.over = trio.Event()
        self._changed = trio.Event()  # set (and replaced) at every change pushed to the watchers
        self._t0 = trio.current_time()

    # ------------------------------------------------------------------ what a client sees

    def info(self) -> TournamentInfo:
        return views.info(self.id, self.request, self.state)

    def snapshot(self, ref: Any = None) -> TournamentState:
        return views.snapshot(self.id, self.request, self.state, ref)

    def push(self) -> None:
        """Tell every watcher the tournament as it is now (a watcher too far behind is closed)."""
        self._changed.set()
        self._changed = trio.Event()
        snapshot = self.snapshot()
        for receiver in list(self.watchers):
            if not receiver.deliver(snapshot):
                receiver.close("too_slow", "you fell too far behind; reconnect to catch up")
                self.watchers.pop(receiver, None)

    def watch(self, receiver: Any, token: str, ref: Any) -> None:
        """Follow the tournament: its state now, then every change; a player also gets ``your_table`` now
        if they are at a table still playing, and at every round after."""
        player = self._player(token) if token else None
        self.watchers[receiver] = player
        receiver.deliver(self.snapshot(ref))
        if player is not None:
            for table, (round_no, players) in self.state.tables.items():
                if table in self.opened and table not in self.state.results and player in players:
                    # (a table seated in the log but still opening is told when it opens, not before)
                    receiver.deliver(YourTable(tournament=self.id, round=round_no, table=table,
                                               seat=players.index(player),
                                               reported=reporting.is_reported(self.state, table)))

    def unwatch(self, receiver: Any) -> None:
        self.watchers.pop(receiver, None)

    # ------------------------------------------------------------------ who is asking

    def _player(self, token: str) -> str:
        player = self.tokens.get(token_hash(token))
        if player is None:
            raise Refusal(Code.BAD_TOKEN, f"no player of {self.id} holds that token")
        return player

    def _organiser(self, secret: str) -> None:
        if not secret or not secrets.compare_digest(secret_hash(secret), self.secret_digest):
            raise Refusal(Code.BAD_SECRET, f"that is not the organiser's secret of {self.id}")

    # ------------------------------------------------------------------ changes, one at a time

    def now(self) -> float:
        return round(trio.current_time() - self._t0, 3)

    async def log_text(self) -> tuple[str, int, str]:
        """The log as it stands (every whole line), how many lines, and its last line's hash: what a player
        keeps to verify the event on their own machine (the seed is in it once the event has ended)."""
        if self.log is None:
            raise Refusal(Code.NO_LOG, f"tournament {self.id} keeps no log on this server")
        size, head = self.log.size, self.log.head

        def read() -> bytes:
            with open(self.log.path, "rb") as handle:
                return handle.read(size)

        data = await trio.to_thread.run_sync(read)
        return data.decode(), data.count(b"\n"), head

    async def record(self, record: Any) -> str | None:
        """Fold ``record`` in (refused: ``Refusal``, nothing changed), log it, wait for the disk. A log
        that cannot be written stops the tournament's changes for good (its state is ahead of its log): each
        later one is refused with ``storage_failed``, and a restart reopens it from what its log holds."""
        if self.failed is not None:
            raise Refusal(Code.STORAGE_FAILED, self.failed)
        self.state.apply(record)
        if self.state.settings.format == "arena":  # who waits, in their order: one rule, run again at a restart
            self.waiting = arena.after(self.state, self.waiting, record)
        head = None
        if self.log is not None:
            try:
                line, head = self.log.append(record), self.log.head  # the line's hash: a receipt for it
                if self.log.policy != "never":
                    await self.log.wait_durable(line)
                crashpoint.reached(f"tournament:{type(record).__struct_config__.tag}")
            except OSError as error:
                self.failed = (f"tournament {self.id} stopped: its log could not be written ({error_text(error)}); "
                               "nothing that was not on disk was acknowledged; restart the server once the disk "
                               "can be written to reopen it from its log")
                logger.warning(self.failed)
                raise Refusal(Code.STORAGE_FAILED, self.failed) from None
        return head

    def _not_over(self) -> None:
        """Refuse a change once the tournament has ended (its log's last record is ``ended``)."""
        if self.state.ended is not None:
            raise Refusal(Code.TOURNAMENT_OVER, f"{self.id} is over: nothing is accepted after its end")

    async def mirror(self, method, *args) -> None:
        """Mirror a change in the store. The log is the truth and the store is rebuilt from it at every start
        (``Store.mirror``), so a store write that fails is one line on stderr and never stops the event."""
        if self.store is not None:
            try:
                await self.store.call(method, *args)
            except (Refusal, sqlite3.Error, OSError) as error:
                logger.warning(f"tournament {self.id}: the store missed a change ({method.__name__}: {error}); "
                               "it is rebuilt from the log at the next start")

    def _check_entries(self, owner: Owner | None) -> None:
        """Refuse a registration past what one connection, or one address, may make in this tournament
        (``too_many_registrations``; ``server/quotas.py``); None (a test, the server itself): never counted."""
        if owner is None:
            return
        quotas = self.hub.lobby.quotas
        mine = sum(1 for who in self.entrants.values() if who == owner)
        if quotas.registrations_per_connection and mine >= quotas.registrations_per_connection:
            raise Refusal(Code.TOO_MANY_REGISTRATIONS, f"this connection has registered {mine} players in "
                                                       f"{self.id}, the most serve --registrations-per-connection allows: "
                                                       "each player registers from their own connection")
        address = sum(1 for who in self.entrants.values() if who.address == owner.address)
        if quotas.registrations_per_address and address >= quotas.registrations_per_address:
            raise Refusal(Code.TOO_MANY_REGISTRATIONS, f"this address has registered {address} players in "
                                                       f"{self.id}, the most serve --registrations-per-address allows")

    async def register(self, name: str, owner: Owner | None = None) -> tuple[str, str]:
        """Enter ``name``: their player id and secret token. Past the cap (``max_players``) they are on the
        waitlist (``state.waitlist``); ``owner`` (who asks) is counted against the registration limits."""
        name = check_name(name, "a player's name", PERSON_MOST, required=True)
        async with self.lock:
            self._not_over()
            self._check_entries(owner)
            looks = skeleton(name)
            taken = next((p for p, known in self.state.names.items() if skeleton(known) == looks), None)
            if taken is not None:  # standings, seatings and ratings (by skeleton) could not tell the two apart
                raise Refusal(Code.NAME_TAKEN, f"{self.state.names[taken]!r} is registered in {self.id} "
                                               f"already (player {taken}), and {name!r} reads as it (in any "
                                               "case, or with look-alike letters); choose another name")
            player = f"{self.id}p{len(self.state.players) + 1}"
            token = new_secret(18)  # its hash is in the log: no crash can part the two
            self.receipts[player] = await self.record(Registered(player=player, name=name, time=self.now(),
                                                                 token=token_hash(token),
                                                                 waitlisted=self.state.full()))
            self.tokens[token_hash(token)] = player
            if owner is not None:
                self.entrants[player] = owner
            await self.mirror(Store.add_player, player, name, token_hash(token))
            await self.mirror(Store.register, self.id, player)
            self.push()
            await self._arena_seat()  # (an arena's late entry waits: ``arena.after``)
        return player, token

    async def check_in(self, token: str) -> None:
        async with self.lock:
            self._not_over()
            player = self._player(token)
            settings = self.state.settings
            if self.state.round >= max(1, settings.late_until) or settings.format == "round_robin" and self.state.round:
                raise Refusal(Code.REGISTRATION_CLOSED, f"check-in closed with registration: round "
                                                        f"{self.state.round} is seated; ask the organiser")
            if player in self.state.dropped:  # (a log that has it anyway still folds: the record changes nothing)
                raise Refusal(Code.ALREADY_DROPPED, f"{self.state.names[player]!r} has dropped from {self.id}; "
                                                    "only the organiser can undo a drop (undrop)")
            if player in self.state.checked_in:
                return
            await self.record(CheckedIn(player=player, time=self.now()))
            await self.mirror(Store.check_in, self.id, player)
            self.push()
            await self._arena_seat()

    async def drop(self, token: str, secret: str, player: str | None) -> None:
        async with self.lock:
            self._not_over()
            if token:
                mine = self._player(token)
                if player and player != mine:  # a mistake to say, never a silent drop of the sender instead
                    raise Refusal(Code.UNKNOWN_PLAYER, "a token drops its own player only; the organiser drops "
                                                       "another with the secret and that player")
                player = mine
            else:
                self._organiser(secret)
                if not player:
                    raise Refusal(Code.UNKNOWN_PLAYER, f"say which player of {self.id} to drop")
                if player not in self.state.names:
                    raise Refusal(Code.UNKNOWN_PLAYER, f"{player!r} is not registered in {self.id}")
            await self.record(Dropped(player=player, time=self.now()))
            await self.mirror(Store.drop, self.id, player)
            self.push()
            await self.advance()

    async def start(self, secret: str, next_round: bool) -> None:
        """Start round 1; or, with ``next_round``, the next round now: tables of this round still playing are
        ended as they stand (as ``round_time_ms`` ends them) and the next round is seated once their results
        are logged, from those results."""
        self._organiser(secret)
        async with self.lock:
            self._not_over()
            if self.state.org.held:  # pairings first: the round seated and waiting begins now
                return await organiser.begin(self)
            playing = self.state.unfinished() if next_round and self.state.round else []
            waiting_reports = reporting.pending(self.state) if playing else []
            if waiting_reports:  # no clock ends a table played off the server: its players or the organiser do
                raise Refusal(Code.REPORTS_PENDING, f"table(s) {', '.join(waiting_reports)} play off the server and "
                                                    "have no result yet: their players report it, or settle it")
            round_no = self.state.round
        if playing and self.state.settings.format != "arena":
            await clocks.halt(self, playing)
            with trio.move_on_after(clocks.results_wait(self)):  # logged by their tasks; the round advances
                while self.state.round == round_no and self.state.ended is None and self.failed is None:
                    changed = self._changed
                    await changed.wait()
            return
        async with self.lock:
            self._not_over()
            if self.state.round and next_round and self.state.settings.format == "arena":
                raise Refusal(Code.ALREADY_STARTED, f"{self.id} is an arena: it seats players as they finish "
                                                    "and has no next round to start")
            if self.state.round and not next_round:
                raise Refusal(Code.ALREADY_STARTED, f"{self.id} has started; ask for the next round instead")
            if not self.state.round:
                if len(self.state.active()) < self.state.settings.sizes.min:
                    raise Refusal(Code.TOO_FEW_PLAYERS, f"{self.id} needs {self.state.settings.sizes.min} "
                                                        "active players or more to start")
                await self.mirror(Store.set_state, self.id, "running")
                if self.state.settings.format == "arena":
                    self.waiting = list(self.state.active())
                    self.hub.spawn(self.id, clocks.arena_clock, self)
                    await self._arena_seat()
                    return
            await rated_start.log_ratings(self)  # a ratings-seeded round 1: its ratings logged first
            await opening.open_round(self, self.state.next_seating())

    async def correct(self, secret: str, table: str, places: list[int], reason: str) -> None:
        self._organiser(secret)
        if not reason.strip():
            raise Refusal(Code.NO_REASON, "a correction needs a reason")
        async with self.lock:
            self._not_over()
            result = self.state.results.get(table)
            if result is None:
                raise Refusal(Code.UNKNOWN_TABLE, f"table {table} of {self.id} has no result to correct")
            await self.record(Corrected(table=table, places=tuple(places), scores=result.scores, reason=reason,
                                        time=self.now()))
            await self.mirror(Store.correct_result, self.id, table, tuple(places), result.scores, reason)
            self.push()

    # ------------------------------------------------------------------ advancing: the next round, or the end

    async def advance(self) -> None:
        """After a result or a drop (under the lock): the next round, the next arena tables, or the end. An
        error while advancing never stalls the event: before the round is in the log it ends the event with
        its standings (``ended``, reason ``stopped``, the error in its note); once the round is logged (a table
        that could not open) its missing tables are tried again (``opening.retry_tables``), said on stderr."""
        if self.state.ended or not self.state.round:
            return
        seated = self.state.round
        try:
            await self._next()
        except Exception as error:  # noqa: BLE001 - any error here must end or pause the event, never stall it
            code = getattr(error, "code", type(error).__name__)
            words = getattr(error, "message", str(error))
            if code == "storage_failed" or self.state.ended:
                raise  # the log cannot be written: nothing more can be logged (a restart reopens it)
            if self.state.round != seated:  # the round is in the log: its missing tables are tried again
                logger.warning(f"tournament {self.id}: {words}")
                return
            logger.warning(f"tournament {self.id}: stopped while seating round {seated + 1} ({code}: "
                           f"{words}); it ends with its standings")
            await self.end("stopped", f"seating round {seated + 1} failed: {code}: {words}")

    async def _next(self) -> None:
        """Seat what the state calls for now (the next round; an arena's next tables), or end the event."""
        if self.state.settings.format == "arena":
            if not self.arena_over:
                await self._arena_seat()
            elif not self.state.unfinished():
                await self.end("time_up", "the arena's time is up")
            return
        if self.state.unfinished():
            return
        why = self.state.end_reason()
        if why is not None:
            return await self.end(*why)
        await opening.open_round(self, self.state.next_seating())

    async def _arena_seat(self) -> None:
        """An arena: seat whole tables of the players waiting, the earliest first (the rest wait on)."""
        if self.state.settings.format != "arena" or self.arena_over or len(self.waiting) < self.state.settings.sizes.min:
            return
        waiting = tuple(self.waiting)
        seating = self.state.next_seating(waiting)
        if not seating.tables:
            return
        self.waiting = list(seating.waiting)
        await opening.open_round(self, seating, waiting)

    async def end(self, reason: str, note: str = "") -> None:
        """Log ``ended`` (the seed revealed, the final standings, why), then nothing more is taken."""
        order = tuple(row.player for row in self.state.standings())
        await self.record(Ended(seed=self.state.seed, standings=order, reason=reason, note=note, time=self.now()))
        await self.mirror(Store.set_state, self.id, "ended", self.state.seed)
        self.push()
        self.over.set()
        if self.remote is not None:
            await self.remote.stop()
