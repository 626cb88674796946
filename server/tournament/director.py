"""One tournament's director: the only part that opens its tables and the one writer of its log.

Every change (a registration, a check-in, a drop, a round's seating, a table's result, a correction, the end)
is first folded into the tournament's state (``state.Tournament.apply``, which refuses a record that does not
follow and changes nothing), then appended to the tournament's hash-chained log and acknowledged only once the
line is on disk; the SQLite store is updated after it, as the server's queryable copy. A ``trio.Lock`` keeps
one change at a time, so the log's order is the order of changes.

A round: ``next_seating`` gives its tables; the director logs them under table ids it takes from the lobby,
then opens each table with every seat reserved for its player's token (``Reservation``) and a stand-in bot for
a no-show after ``no_show_ms``; each player watching the tournament gets ``your_table``. A task per table
waits for its end and logs its result from the table itself (places, scores, stand-ins, the hash of its log's
end line), never from what a player says. When every table of a round is over the next round is seated (Swiss
and round robin), or, in an arena, each finished table's players are seated again with whoever is waiting,
until the arena's time is up. With ``round_time_ms``, tables still playing when it runs out are halted and
placed as they stand; ``start`` with ``next_round`` ends them the same way and seats the next round from their
results. After the last round (or when the next round would seat no table: too few active players left) the
seed is revealed in the ``ended`` record, with the reason (``state.Tournament.end_reason``); nothing is taken
after it (``tournament_over``). An error while advancing ends the event (reason ``stopped``) rather than stall
it; a round's table that cannot open is tried again until it opens.

On a cluster (``server/cluster.py``) a round's tables are spread over the live nodes by load: each is asked of
its node through Redis (``remote.py``), which opens it and, at its end, writes its result (from the table's own
end) where the director reads it; the result is logged here exactly as a local table's is. A table opens here
only once this node holds its claim, so a table is never open on two nodes.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import sqlite3
from typing import Any

import msgspec
import trio

from rules import RulesError, get_game

from .. import crashpoint
from ..disk import error_text
from ..logstore import FileLog
from ..names import PERSON_MOST, check_name, skeleton
from ..protocol import (CreateTable, CreateTournament, PlayerInfo, SeatingInfo, StandingRow, TournamentInfo,
                        TournamentState, YourTable)
from ..table import Reservation, Table, token_hash
from .model import TournamentError
from .ratings import rate_table
from .remote import OpenRequest, RemoteTables, TableOutcome, outcome_of, spread
from .state import Tournament
from .store import AsyncStore, Store
from .tlog import CheckedIn, Corrected, Dropped, Ended, Registered, RoundSeated, SeatedTable, TableFinished

logger = logging.getLogger(__name__)

STAND_IN = "heuristic"
RETRY_SECONDS = 5.0  # a round's table that could not open is tried again this often


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


_NO_TOKEN = "0" * 64  # an old log's player whose token the store lost: the seat is kept, a stand-in plays it


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
        self.arena_over = False
        self.failed: str | None = None  # why its log cannot be written (its changes are refused from then on)
        self.receipts: dict[str, str | None] = {}  # player -> the hash of its registration's line
        self.paused: str | None = None  # a round logged whose tables did not all open yet (_retry_tables)
        self.over = trio.Event()
        self._changed = trio.Event()  # set (and replaced) at every change pushed to the watchers
        self._t0 = trio.current_time()

    # ------------------------------------------------------------------ what a client sees

    def info(self) -> TournamentInfo:
        s = self.state.settings
        planned = s.rounds + (1 if s.top_n else 0) if s.format == "swiss" else (
            len(self.state.schedule) if self.state.schedule is not None else 0)
        status = "over" if self.state.ended else ("running" if self.state.round else "registration")
        return TournamentInfo(tournament=self.id, name=self.request.name or self.id, game=self.request.game,
                              mode=self.request.mode, seats=s.sizes.wanted, options=dict(self.state.created.options),
                              format=s.format, rounds=planned, round=self.state.round, status=status,
                              players=len(self.state.players), commitment=self.state.created.commitment)

    def snapshot(self, ref: Any = None) -> TournamentState:
        state = self.state
        names = state.names
        rows = [StandingRow(rank=row.rank, player=row.player, name=names.get(row.player, row.player),
                            points=row.points, opponents_pct=row.opponents, game_share=row.share, tables=row.tables,
                            byes=row.byes, dropped=row.dropped) for row in state.standings()]
        dropped = set(state.dropped)
        players = [PlayerInfo(player=p, name=names[p], checked_in=p in state.checked_in, dropped=p in dropped)
                   for p in state.players]
        seatings, byes = [], []
        if state.round:
            current = [t for t, (r, _) in state.tables.items() if r == state.round or t not in state.results]
            for table in current:
                _, seated = state.tables[table]
                result = state.results.get(table)
                seatings.append(SeatingInfo(table=table, players=list(seated),
                                            places=list(result.places) if result else None,
                                            stand_ins=[i for i, s in enumerate(result.stand_ins) if s]
                                            if result else []))
            byes = list(state.seatings[-1].byes)
        return TournamentState(ref=ref, tournament=self.info(), players=players, standings=rows,
                               seatings=seatings, byes=byes)

    def _push(self) -> None:
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
                                               seat=players.index(player)))

    def unwatch(self, receiver: Any) -> None:
        self.watchers.pop(receiver, None)

    # ------------------------------------------------------------------ who is asking

    def _player(self, token: str) -> str:
        player = self.tokens.get(token_hash(token))
        if player is None:
            raise TournamentError("bad_token", f"no player of {self.id} holds that token")
        return player

    def _organiser(self, secret: str) -> None:
        if not secret or not secrets.compare_digest(secret_hash(secret), self.secret_digest):
            raise TournamentError("bad_secret", f"that is not the organiser's secret of {self.id}")

    # ------------------------------------------------------------------ changes, one at a time

    def _now(self) -> float:
        return round(trio.current_time() - self._t0, 3)

    async def log_text(self) -> tuple[str, int, str]:
        """The log as it stands (every whole line), how many lines, and its last line's hash: what a player
        keeps to verify the event on their own machine (the seed is in it once the event has ended)."""
        if self.log is None:
            raise TournamentError("no_log", f"tournament {self.id} keeps no log on this server")
        size, head = self.log.size, self.log.head

        def read() -> bytes:
            with open(self.log.path, "rb") as handle:
                return handle.read(size)

        data = await trio.to_thread.run_sync(read)
        return data.decode(), data.count(b"\n"), head

    async def _record(self, record: Any) -> str | None:
        """Fold ``record`` in (refused: ``TournamentError``, nothing changed), log it, wait for the disk. A log
        that cannot be written stops the tournament's changes for good (its state is ahead of its log): each
        later one is refused with ``storage_failed``, and a restart reopens it from what its log holds."""
        if self.failed is not None:
            raise TournamentError("storage_failed", self.failed)
        self.state.apply(record)
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
                raise TournamentError("storage_failed", self.failed) from None
        return head

    def _not_over(self) -> None:
        """Refuse a change once the tournament has ended (its log's last record is ``ended``)."""
        if self.state.ended is not None:
            raise TournamentError("tournament_over", f"{self.id} is over: nothing is accepted after its end")

    async def _store(self, method, *args) -> None:
        """Mirror a change in the store. The log is the truth and the store is rebuilt from it at every start
        (``Store.mirror``), so a store write that fails is one line on stderr and never stops the event."""
        if self.store is not None:
            try:
                await self.store.call(method, *args)
            except (TournamentError, sqlite3.Error, OSError) as error:
                logger.warning(f"tournament {self.id}: the store missed a change ({method.__name__}: {error}); "
                               "it is rebuilt from the log at the next start")

    async def register(self, name: str) -> tuple[str, str]:
        try:
            name = check_name(name, "a player's name", PERSON_MOST, required=True)
        except RulesError as error:
            raise TournamentError(error.code, error.message) from None
        async with self.lock:
            self._not_over()
            looks = skeleton(name)
            taken = next((p for p, known in self.state.names.items() if skeleton(known) == looks), None)
            if taken is not None:  # standings, seatings and ratings (by skeleton) could not tell the two apart
                raise TournamentError("name_taken", f"{self.state.names[taken]!r} is registered in {self.id} "
                                                    f"already (player {taken}), and {name!r} reads as it (in any "
                                                    "case, or with look-alike letters); choose another name")
            player = f"{self.id}p{len(self.state.players) + 1}"
            token = secrets.token_urlsafe(18)  # its hash is in the log: no crash can part the two
            self.receipts[player] = await self._record(Registered(player=player, name=name, time=self._now(),
                                                                  token=token_hash(token)))
            self.tokens[token_hash(token)] = player
            await self._store(Store.add_player, player, name, token_hash(token))
            await self._store(Store.register, self.id, player)
            if self.state.round and self.state.settings.format == "arena":
                self.waiting.append(player)
            self._push()
            if self.state.round and self.state.settings.format == "arena":
                await self._arena_seat()
        return player, token

    async def check_in(self, token: str) -> None:
        async with self.lock:
            self._not_over()
            player = self._player(token)
            if player in self.state.checked_in:
                return
            await self._record(CheckedIn(player=player, time=self._now()))
            await self._store(Store.check_in, self.id, player)
            self._push()

    async def drop(self, token: str, secret: str, player: str | None) -> None:
        async with self.lock:
            self._not_over()
            if token:
                player = self._player(token)
            else:
                self._organiser(secret)
                if not player:
                    raise TournamentError("unknown_player", f"say which player of {self.id} to drop")
                if player not in self.state.names:
                    raise TournamentError("unknown_player", f"{player!r} is not registered in {self.id}")
            await self._record(Dropped(player=player, time=self._now()))
            await self._store(Store.drop, self.id, player)
            if player in self.waiting:
                self.waiting.remove(player)
            self._push()
            await self._maybe_advance()

    async def start(self, secret: str, next_round: bool) -> None:
        """Start round 1; or, with ``next_round``, the next round now: tables of this round still playing are
        ended as they stand (as ``round_time_ms`` ends them) and the next round is seated once their results
        are logged, from those results."""
        self._organiser(secret)
        async with self.lock:
            self._not_over()
            playing = self.state.unfinished() if next_round and self.state.round else []
            round_no = self.state.round
        if playing and self.state.settings.format != "arena":
            await self._halt(playing)
            with trio.move_on_after(30):  # their results are logged by their own tasks, then the round advances
                while self.state.round == round_no and self.state.ended is None and self.failed is None:
                    changed = self._changed
                    await changed.wait()
            return
        async with self.lock:
            self._not_over()
            if self.state.round and next_round and self.state.settings.format == "arena":
                raise TournamentError("already_started", f"{self.id} is an arena: it seats players as they finish "
                                                         "and has no next round to start")
            if self.state.round and not next_round:
                raise TournamentError("already_started", f"{self.id} has started; ask for the next round instead")
            if not self.state.round:
                if len(self.state.active()) < self.state.settings.sizes.min:
                    raise TournamentError("too_few_players", f"{self.id} needs {self.state.settings.sizes.min} "
                                                             "active players or more to start")
                await self._store(Store.set_state, self.id, "running")
                if self.state.settings.format == "arena":
                    self.waiting = list(self.state.active())
                    self.hub.spawn(self.id, self._arena_clock)
                    await self._arena_seat()
                    return
            await self._seat_round()

    async def correct(self, secret: str, table: str, places: list[int], reason: str) -> None:
        self._organiser(secret)
        if not reason.strip():
            raise TournamentError("no_reason", "a correction needs a reason")
        async with self.lock:
            self._not_over()
            result = self.state.results.get(table)
            if result is None:
                raise TournamentError("unknown_table", f"table {table} of {self.id} has no result to correct")
            await self._record(Corrected(table=table, places=tuple(places), scores=result.scores, reason=reason,
                                         time=self._now()))
            await self._store(Store.correct_result, self.id, table, tuple(places), result.scores, reason)
            self._push()

    # ------------------------------------------------------------------ rounds and tables

    async def _seat_round(self) -> None:
        """Seat the next round (under the lock): log it, store it, open its tables, tell the players."""
        seating = self.state.next_seating()
        await self._open_round(seating)

    async def _open_round(self, seating, waiting: tuple[str, ...] = ()) -> None:
        round_no = self.state.round + 1
        lobby = self.hub.lobby
        tables = tuple(SeatedTable(table=lobby.new_table_id(), players=players) for players in seating.tables)
        await self._record(RoundSeated(round=round_no, tables=tables, byes=seating.byes, waiting=waiting,
                                       note=seating.note, time=self._now()))
        await self._store(Store.add_round, self.id, round_no, {t.table: t.players for t in tables}, seating.byes)
        nodes = self._placement(len(tables))
        try:
            async with trio.open_nursery() as opening:  # at once: each waits on its own files (or node)
                for seated, node in zip(tables, nodes):
                    opening.start_soon(self._open_table, seated.table, round_no, seated.players, node)
        except BaseExceptionGroup as group:
            failed = group.subgroup((RulesError, TournamentError))
            if failed is None:
                raise
            first = failed
            while isinstance(first, BaseExceptionGroup):
                first = first.exceptions[0]
            self._push()  # the tables that did open play on; the others are opened again by _retry_tables
            self.paused = f"round {round_no} is seated but not all its tables opened ({first.message})"
            self.hub.spawn(self.id, self._retry_tables)
            if self.request.round_time_ms and self.state.settings.format != "arena":
                self.hub.spawn(self.id, self._round_clock, round_no, [t.table for t in tables])
            raise TournamentError("tables_failed", f"round {round_no} is seated in the log but a table could not "
                                                   f"open ({first.message}); it is tried again every "
                                                   f"{RETRY_SECONDS:g} s, and restarting the server opens it") from None
        self._push()
        if self.request.round_time_ms and self.state.settings.format != "arena":
            self.hub.spawn(self.id, self._round_clock, round_no, [t.table for t in tables])

    async def _retry_tables(self) -> None:
        """A round is in the log but some of its tables did not open (the lobby refused them: a disk that
        failed a write, say): try them again every ``RETRY_SECONDS`` until they are open, so the event goes on
        by itself once the server can open tables again (a restart opens them too)."""
        while True:
            await trio.sleep(RETRY_SECONDS)
            async with self.lock:
                if self.state.ended is not None or self.failed is not None:
                    return
                missing = [t for t in self.state.unfinished() if t not in self.opened]
                for table_id in missing:
                    round_no, players = self.state.tables[table_id]
                    try:
                        await self._open_table(table_id, round_no, players)
                    except (RulesError, TournamentError) as error:
                        self.paused = f"table {table_id} of round {round_no} cannot open yet ({error.message})"
                        break
                    if self.request.round_time_ms and self.state.settings.format != "arena":
                        self.hub.spawn(self.id, self._round_clock, round_no, [table_id])  # its time from now
                else:
                    self.paused = None
                    self._push()
                    return

    def _cluster(self):
        return getattr(self.hub.lobby, "cluster", None)

    def _placement(self, count: int) -> list[str | None]:
        """The node each of a round's ``count`` tables opens on (None: here): on a cluster, the least loaded
        live nodes (``remote.spread``); an arena, which seats a table at a time, keeps its tables here."""
        cluster = self._cluster()
        if cluster is None or not cluster.online or not cluster.peers or self.state.settings.format == "arena":
            return [None] * count
        return [None if node == cluster.node else node for node in spread(cluster.loads(), count)]

    def _remote(self) -> RemoteTables:
        if self.remote is None:
            self.remote = RemoteTables(self._cluster(), self.hub.nursery, self.id, self._remote_result)
            self.remote.start()
        return self.remote

    async def _open_table(self, table_id: str, round_no: int, players: tuple[str, ...],
                          node: str | None = None) -> None:
        """Open a seated table here, or on ``node`` of the cluster. On a cluster a table opens here only once
        this node holds its claim: if the node asked (or, after a restart, any node) has it, it is followed
        there."""
        request = self.request
        lockstep = request.mode == "lockstep"
        create = CreateTable(game=request.game, mode=request.mode, seats=len(players), options=dict(request.options),
                             name=f"{request.name or self.id} round {round_no}",
                             turn_time_ms=request.turn_time_ms if lockstep else 0, grace_ms=request.no_show_ms,
                             bot_delay_ms=request.bot_delay_ms)
        digests = {player: digest for digest, player in self.tokens.items()}
        reserved = [Reservation(seat, self.state.names[p], digests.get(p) or _NO_TOKEN) for seat, p in enumerate(players)]
        cluster = self._cluster()
        if cluster is not None:
            remote = self._remote()
            if node is not None:
                asked = OpenRequest(tournament=self.id, director=cluster.node, round=round_no, table=table_id,
                                    create=create, reserved=[(r.seat, r.name, r.token_hash) for r in reserved],
                                    stand_in=STAND_IN,
                                    halt_after_ms=request.round_time_ms if request.format != "arena" else 0)
                if await remote.open(node, asked):
                    return self._follow_remote(table_id, round_no, players)
            holder = await remote.holder(table_id)
            if holder is not None and holder != cluster.node:
                return self._follow_remote(table_id, round_no, players)
        table = await self.hub.lobby.create(create, reserved=reserved, stand_in=STAND_IN,
                                            tags={"tournament": self.id, "round": round_no}, table_id=table_id)
        if self.hub.lobby.cluster is not None:  # listed everywhere at once, even if this node dies before its beat
            await self.hub.lobby.cluster.announce(table.info())
        self._follow(table, round_no, players)

    def _follow_remote(self, table_id: str, round_no: int, players: tuple[str, ...]) -> None:
        """A table another node runs: its players are told (their seat redirects them there); its result
        comes through ``self.remote``."""
        self._tell_players(table_id, round_no, players)

    def _tell_players(self, table_id: str, round_no: int, players: tuple[str, ...]) -> None:
        self.opened.add(table_id)
        for receiver, player in list(self.watchers.items()):
            if player in players:
                receiver.deliver(YourTable(tournament=self.id, round=round_no, table=table_id,
                                           seat=players.index(player)))

    async def place_unplaced(self) -> None:
        """After a restart on a cluster: the tables seated in the log that are neither open here nor logged
        here are another node's (followed there: asked again, in case that node lost the request) or were
        never opened (opened now, here or on the node that claims them meanwhile). A table whose result is
        waiting in the store ended on its node, which may have forgotten it since (and given up its claim): it
        is not opened again, its result is logged as it is heard."""
        await self.hub.in_cluster.wait()
        remote = self._remote()
        pending, self.unplaced = self.unplaced, []
        owners = [await remote.owner(table_id) for table_id, _, _ in pending]
        ended = await remote.results_waiting()
        async with self.lock:
            async with trio.open_nursery() as opening:
                for (table_id, round_no, players), owner in zip(pending, owners):
                    if table_id not in self.state.results and table_id not in ended:
                        node = owner if owner is not None and owner != remote.cluster.node else None
                        opening.start_soon(self._open_table, table_id, round_no, players, node)
            self._push()
            await self._maybe_advance()

    def _follow(self, table: Table, round_no: int, players: tuple[str, ...]) -> None:
        self.tables[table.id] = table
        self._tell_players(table.id, round_no, players)
        self.hub.spawn(self.id, self._await_result, table, round_no, players)

    async def _await_result(self, table: Table, round_no: int, players: tuple[str, ...]) -> None:
        await table.over.wait()
        await table.wait_end_durable()
        await self._finished(round_no, table.id, players, outcome_of(self.game, table))

    async def _remote_result(self, table_id: str, outcome: TableOutcome) -> bool:
        """A result another node wrote for one of our tables: logged as a local table's is, once. False when it
        was not dealt with (the server is shutting down): it stays where it was written."""
        seated = self.state.tables.get(table_id)
        if seated is None or table_id in self.state.results:
            return True
        try:
            return await self._finished(seated[0], table_id, seated[1], outcome)
        except TournamentError as error:  # a result that does not fit its seating: refused, nothing changed
            logger.info(f"tournament {self.id}: the result of table {table_id} is refused: {error.message}")
            return True

    async def _finished(self, round_no: int, table_id: str, players: tuple[str, ...], outcome: TableOutcome) -> bool:
        """Log a table's result (once); False when the server is shutting down and it was not logged."""
        async with self.lock:
            if self.hub.closing:  # the store is closing: the table's log has the result for the next start
                return False
            if self.state.ended is not None:  # an event stopped while this table played: nothing follows the end
                return True
            if table_id in self.state.results:  # heard twice (a cluster's result, written again): logged once
                return True
            record = TableFinished(round=round_no, table=table_id, players=players, places=outcome.places,
                                   scores=outcome.scores, log_hash=outcome.log_hash,
                                   lower_is_better=outcome.lower_is_better, stand_ins=outcome.stand_ins,
                                   time=self._now())
            await self._record(record)
            finished = record.result()
            await self._store(Store.add_result, self.id, round_no, finished, record.log_hash)
            await self._rate(finished)
            self._push()
            if self.state.settings.format == "arena":
                self.waiting.extend(p for p in players if p in set(self.state.active()))
            await self._maybe_advance()
            return True

    async def _rate(self, result) -> None:
        """Rate a table's result once (the store remembers which tables it rated, in the same transaction as
        the ratings, so a restart rates exactly the results the log has and the store has not)."""
        try:
            await self._rate_once(result)
        except (sqlite3.Error, OSError, TournamentError) as error:
            logger.warning(f"tournament {self.id}: table {result.table} not rated yet ({error}); it is rated "
                           "at the next start")

    async def _rate_once(self, result) -> None:
        """Ratings are by player identity across tournaments: the skeleton of the name (a LAN player keeps their
        name; ``Ana`` and ``ANA`` or ``Аna`` with a Cyrillic А are one player), shown by the name case-folded;
        stand-ins are not rated."""
        if self.store is None:
            return
        keys = tuple(skeleton(self.state.names[p]) for p in result.players)
        if len(set(keys)) != len(keys):
            return  # two players of one name at one table (an old log's): no rating can tell them apart
        shown = {key: self.state.names[p].casefold() for key, p in zip(keys, result.players)}
        by_key = type(result)(table=result.table, players=keys, places=result.places, scores=result.scores,
                              lower_is_better=result.lower_is_better, stand_ins=result.stand_ins)
        known = {r.player: r for r in await self.store.call(Store.ratings, self.game.info.name)}
        updated = rate_table(known, self.game.info.name, by_key)
        await self.store.call(Store.save_ratings, [msgspec.structs.replace(r, name=shown[key])
                                                   for key, r in updated.items()], (self.id, result.table))

    async def _maybe_advance(self) -> None:
        """After a result or a drop (under the lock): the next round, the next arena tables, or the end. An
        error while advancing never stalls the event: before the round is in the log it ends the event with
        its standings (``ended``, reason ``stopped``, the error in its note); once the round is logged (a table
        that could not open) its missing tables are tried again (``_retry_tables``), said on stderr."""
        if self.state.ended or not self.state.round:
            return
        seated = self.state.round
        try:
            await self._advance()
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
            await self._end("stopped", f"seating round {seated + 1} failed: {code}: {words}")

    async def _advance(self) -> None:
        if self.state.settings.format == "arena":
            if not self.arena_over:
                await self._arena_seat()
            elif not self.state.unfinished():
                await self._end("time_up", "the arena's time is up")
            return
        if self.state.unfinished():
            return
        why = self.state.end_reason()
        if why is not None:
            return await self._end(*why)
        await self._open_round(self.state.next_seating())

    async def _arena_seat(self) -> None:
        if self.arena_over or len(self.waiting) < self.state.settings.sizes.min:
            return
        waiting = tuple(self.waiting)
        seating = self.state.next_seating(waiting)
        if not seating.tables:
            return
        self.waiting = list(seating.waiting)
        await self._open_round(seating, waiting)

    async def _arena_clock(self) -> None:
        await trio.sleep((self.request.arena_ms or 600_000) / 1000)
        async with self.lock:
            self.arena_over = True
            self.waiting = []
            if not self.state.unfinished() and not self.state.ended:
                await self._end("time_up", "the arena's time is up")
        if self.request.round_time_ms:  # tables still playing get their time too, then end as they stand
            await trio.sleep(self.request.round_time_ms / 1000)
            await self._halt([t for t in self.state.unfinished()])

    async def _round_clock(self, round_no: int, tables: list[str]) -> None:
        await trio.sleep(self.request.round_time_ms / 1000)
        await self._halt(tables)

    async def _halt(self, tables: list[str]) -> None:
        from ..table import Intent

        for table_id in tables:
            table = self.tables.get(table_id)
            if table is not None and not table.over.is_set():
                await table.submit(Intent("halt", None, "time_limit"))

    async def _end(self, reason: str, note: str = "") -> None:
        order = tuple(row.player for row in self.state.standings())
        await self._record(Ended(seed=self.state.seed, standings=order, reason=reason, note=note, time=self._now()))
        await self._store(Store.set_state, self.id, "ended", self.state.seed)
        self._push()
        self.over.set()
        if self.remote is not None:
            await self.remote.stop()
