"""The server's tournaments: creating one (checked before anything is written), finding and listing them, the
store they share, and reopening every tournament from its log after a restart.

Files in the data directory (``DataDir``): ``tournaments/<id>.log`` (the hash-chained log, ``tlog``), ``tournaments/<id>.seed``
(the seed, kept apart until the end reveals it, as tables do), and ``tournaments.sqlite3`` (the store: player
token hashes, the organiser secret's hash, rounds, results, ratings). Without a data directory (tests) nothing
is written and tournaments live in memory.
"""

from __future__ import annotations

import logging
import secrets
from pathlib import Path
from typing import Any

import trio

from rules import RulesError, get_game, make_setup

from ..datadir import DataDir, seed_beside
from ..logs.logfile import LogError, seed_commitment
from ..names import TITLE_MOST, check_name
from ..logs import crashpoint, disk
from ..cluster.directory import Directory, LocalDirectory
from ..logs.disk import private_dir
from ..logs.logstore import FileLog, numbered_logs, utc_now, write_secret_seed
from ..protocol import Code, CreateTournament, RatingRow, Refusal, TournamentInfo
from . import arena, clocks, opening, organiser, reported, reporting, results
from .actions import Reentered
from .director import Director, secret_hash
from .host import TableHost
from .model import Settings, Sizes
from ..heldends import until_shown
from .outcome import outcome_from_log
from .ratings import leaderboard
from .state import fold, Tournament
from .store import AsyncStore, Store
from .tlog import FORMAT_VERSION, Created, Registered, TableFinished, read_tournament_log
from ..secrets_typed import new_secret
from ..table.settings import check_turn_time

logger = logging.getLogger(__name__)

MAX_TOURNAMENTS = 200  # tournaments not over held at once (a finished one stays, watchable, and counts no more)
DEFAULT_ROUNDS = 3  # a Swiss tournament's rounds when the request gives none
TABLE_FIELDS = ("mode", "turn_time_ms", "no_show_ms", "round_time_ms", "bot_delay_ms", "arena_ms",
                "spectator_delay_ms", "spectator_delay_entries")
SINCE_ADDED = ("spectator_delay_ms", "spectator_delay_entries")  # in a log only where set: older logs as they were


class TournamentHub:
    def __init__(self, nursery: trio.Nursery, lobby: Any, data_dir: Path | None, durability: str = "batch",
                 directory: Directory | None = None) -> None:
        self.nursery = nursery
        self.directory = directory or LocalDirectory()  # where tables live (on a cluster, some on other nodes)
        self.joined = trio.Event()  # set by ``join``: reopened tables that are not here are placed from then on
        self.lobby = lobby
        self.data_dir = DataDir(data_dir) if data_dir is not None else None  # every path under it
        self.durability = durability
        self.store: AsyncStore | None = None
        self.directors: dict[str, Director] = {}
        self._opening = 0  # tournaments being created now (counted against ``MAX_TOURNAMENTS`` as they open)
        self.closing = False  # the server is shutting down: no result is logged from now on (see stop_all)
        self._next = 0

    def _folder(self) -> Path:
        private_dir(self.data_dir.root)
        return private_dir(self.data_dir.tournaments)

    async def open(self) -> None:
        if self.data_dir is not None and self.store is None:
            limiter = trio.CapacityLimiter(1)
            store = await trio.to_thread.run_sync(Store, self.data_dir.store, limiter=limiter)
            self.store = AsyncStore(store, limiter)

    async def close(self) -> None:
        if self.store is not None:
            await trio.to_thread.run_sync(self.store.store.close, limiter=self.store.limiter)
            self.store = None

    def spawn(self, tid: str, fn, *args) -> None:
        """Run a tournament's task in the server's nursery, so that a bug in it cannot stop the server: an
        unexpected error is one line on stderr (that tournament may stall; a restart resumes it from its log)."""
        self.nursery.start_soon(self._guarded, tid, fn, *args)

    @staticmethod
    async def _guarded(tid: str, fn, *args) -> None:
        try:
            await fn(*args)
        except Exception as error:  # noqa: BLE001 - contained on purpose: the other tables and tournaments go on
            logger.warning(f"tournament {tid}: an internal error in {getattr(fn, '__name__', fn)} "
                           f"({type(error).__name__}: {error}); the server goes on, and if the tournament stalls, "
                           "starting the server again resumes it from its log")

    def join(self) -> None:
        """The directory is up (a cluster node had its first heartbeat): on a cluster, open and follow the tables
        other nodes' directors ask of this node; place the tables reopened tournaments could not find here."""
        if self.directory.spans_nodes:
            self.nursery.start_soon(TableHost(self.lobby, self.directory, self.nursery).run)
        self.joined.set()

    def find(self, tid: str) -> Director:
        director = self.directors.get(tid)
        if director is None:
            raise Refusal(Code.NO_TOURNAMENT, f"no tournament {tid!r}")
        return director

    def list(self) -> list[TournamentInfo]:
        return [director.info() for director in self.directors.values()]

    async def leaderboard(self, game: str, limit: int = 50) -> list[RatingRow]:
        """``game``'s ratings, best first (empty without a store)."""
        get_game(game)
        if not 1 <= limit <= 1000:
            raise Refusal(Code.BAD_LIMIT, f"a leaderboard shows 1..1000 players, not {limit}")
        if self.store is None:
            return []
        rows = leaderboard(await self.store.call(Store.ratings, game), game, limit)
        return [RatingRow(rank=r.rank, player=r.name or r.player, ordinal=round(r.ordinal, 3), mu=round(r.mu, 3),
                          sigma=round(r.sigma, 3), tables=r.tables) for r in rows]

    @staticmethod
    def settings_for(request: CreateTournament) -> tuple[Any, Settings, dict]:
        """The game, checked settings and table options of a request, or an error saying what is wrong."""
        game = get_game(request.game)
        setup = make_setup(game.info, request.seats, request.mode, request.options)
        rounds = request.rounds if request.rounds is not None else (DEFAULT_ROUNDS if request.format == "swiss" else 0)
        check_turn_time(request.turn_time_ms, Code.BAD_SETTINGS)
        for name, value, low, high in (("rounds", rounds, 0, 100), ("no_show_ms", request.no_show_ms, 0, 3_600_000),
                                       ("round_time_ms", request.round_time_ms, 0, 86_400_000),
                                       ("bot_delay_ms", request.bot_delay_ms, 0, 60_000),
                                       ("spectator_delay_ms", request.spectator_delay_ms, 0, 3_600_000),
                                       ("spectator_delay_entries", request.spectator_delay_entries, 0, 10_000),
                                       ("arena_ms", request.arena_ms, 0, 86_400_000),
                                       ("late_entry_rounds", request.late_entry_rounds, 0, 100)):
            if not low <= value <= high:
                raise Refusal(Code.BAD_SETTINGS, f"{name} is {low}..{high}, not {value}")
        if request.seed is not None and not 0 <= request.seed < 2**64:
            raise Refusal(Code.BAD_SEED, "a seed is an integer from 0 to 2**64-1")
        if request.arena_ms and request.format != "arena":
            raise Refusal(Code.BAD_SETTINGS, f"arena_ms is an arena's length; a {request.format.replace('_', ' ')} "
                                             "plays its rounds: leave it at 0")
        if request.points is not None and len(request.points) != request.seats:
            raise Refusal(Code.BAD_SETTINGS, f"points: one value per place at a table of {request.seats}, "
                                             f"best first (not {len(request.points)})")
        points = points_table(request)
        settings = Settings(format=request.format, sizes=Sizes(min=game.info.min_seats, max=game.info.max_seats,
                                                              wanted=request.seats),
                            rounds=rounds, points=points, bye_points=request.bye_points,
                            check_in=request.check_in, late_until=request.late_entry_rounds, top_n=request.top,
                            max_players=request.max_players, seeding=request.seeding,
                            tiebreaks=tuple(request.tiebreaks), reported_tables=request.reported_tables,
                            pairings_first=request.pairings_first, reentry=request.reentry)
        settings.check_new()
        return game, settings, dict(setup.options)

    async def create(self, request: CreateTournament) -> tuple[Director, str]:
        """A new tournament, refused while ``MAX_TOURNAMENTS`` not over are held or being opened: finished and
        cancelled ones counted too, the cap was reached for good (a red team's 210 in 6 s locked every later
        organiser out, across restarts), and creates awaited together all passed one check."""
        live = sum(1 for director in self.directors.values() if not director.over.is_set()) + self._opening
        if live >= MAX_TOURNAMENTS:
            raise Refusal(Code.TOO_MANY_TOURNAMENTS, f"this server holds {MAX_TOURNAMENTS} tournaments not over, the "
                                                     "most it may: try again once one has ended")
        if self.lobby.disk is not None:
            self.lobby.disk.check()  # (``diskroom.py``: no new tournament below the floor of free disk)
        check_name(request.name, "a tournament's name", TITLE_MOST)
        game, settings, options = self.settings_for(request)
        self._next += 1
        self._next = self.directory.number(self._next)  # on a cluster this node's own ids: never another's
        tid = f"T{self._next}"
        # claimed before it opens, as a table is: once its create is answered, a call for it reaching another node
        # (another worker of `serve --workers`) finds its node by the claim and is sent there, never "no such"
        self._opening += 1
        try:
            await self.directory.claim("tournament", tid)
            try:
                return await self._open(request, tid, game, settings, options)
            except BaseException:
                with trio.CancelScope(shield=True):
                    await self.directory.release("tournament", tid)
                raise
        finally:
            self._opening -= 1

    async def _open(self, request: CreateTournament, tid: str, game, settings: Settings,
                    options: dict) -> tuple[Director, str]:
        """Write a new tournament's log and store rows, and open its director (``create``, its id claimed)."""
        seed = request.seed if request.seed is not None else secrets.randbits(64)
        secret = new_secret(18)
        tables = {name: getattr(request, name) for name in TABLE_FIELDS
                  if name not in SINCE_ADDED or getattr(request, name)}  # a log as before without them
        created = Created(format=FORMAT_VERSION, tournament=tid, name=request.name.strip() or tid, game=game.info.name,
                          options=options, settings=settings, commitment=seed_commitment(seed), started=utc_now(),
                          tables=tables, secret=secret_hash(secret))
        log = None
        if self.data_dir is not None:
            self._folder()
            try:
                write_secret_seed(self.data_dir.tournament_seed(tid), seed)
                log = FileLog(self.data_dir.tournament_log(tid), self.durability, syncer=self.lobby.shared_syncer())
                line = log.append(created)
                if log.policy != "never":
                    await log.wait_durable(line)
                crashpoint.reached("tournament:created")
                await self.store.call(Store.add_tournament, tid, created.name, created.game, options, settings,
                                      created.commitment, created.started)
                await self.store.call(Store.set_secret, tid, secret_hash(secret))
            except OSError as error:
                raise Refusal(Code.STORAGE_FAILED, f"cannot write the tournament in {self.data_dir}: "
                                                   f"{error.strerror or error}") from None
        director = Director(self, tid, msgspec_replace(request, options=options), Tournament(created, seed), log,
                            secret_hash(secret), {}, self.store)
        self.directors[tid] = director
        return director, secret

    async def recover(self) -> list[str]:
        """Reopen every tournament in the data directory: its state from its log, its players' tokens and the
        organiser's secret from the store, its tables (reopened by the lobby, or opened again if they never
        were), and the results of tables that ended while the server was down."""
        if self.data_dir is None:
            return []
        reopened = []
        logs, strays = numbered_logs(self._folder(), "T")
        for path in strays:
            logger.info(f"leaving {path} alone: a tournament's log is named T<number>.log")
        for path in logs:
            tid = path.stem
            self._next = max(self._next, int(tid[1:]))
            try:
                director = await self._reopen(path)
            except (LogError, Refusal, RulesError, OSError, ValueError) as error:
                logger.info(f"cannot reopen tournament {path}: {error}")
                continue
            self.directors[tid] = director
            reopened.append(tid)
        return reopened

    def _skip_named_tables(self, state) -> None:
        """Never number a table again with an id this tournament's log names: on a cluster some of its tables ran
        on other nodes, so no log of theirs is here for the lobby to skip."""
        numbers = [int(table[1:]) for table in state.tables if table[1:].isdigit()]
        self.lobby.skip_ids(numbers)

    async def _reopen(self, path: Path) -> Director:
        read = read_tournament_log(path)
        created = read.created
        tid = created.tournament
        ended = read.ended
        seed = ended.seed if ended else int(seed_beside(path).read_text())
        if seed_commitment(seed) != created.commitment:
            raise ValueError("its seed file does not match the log's commitment")
        records = read.records
        if ended is not None and records[-1] is not ended:  # an old server logged changes after the end: the
            later = len(records) - records.index(ended) - 1  # event is as it ended (verify names the first)
            logger.info(f"tournament {tid}: {later} record(s) after its end in {path} are ignored; "
                        "nothing is taken after the end now")
            records = records[:records.index(ended) + 1]
        state = fold(created, seed, records)
        self._skip_named_tables(state)
        if read.torn:
            with open(path, "r+b") as handle:
                disk.current().ftruncate(handle.fileno(), read.good_bytes)
        log = FileLog(path, self.durability, head=read.head, syncer=self.lobby.shared_syncer())
        request = CreateTournament(name=created.name, game=created.game, seats=created.settings.sizes.wanted,
                                   options=dict(created.options), format=created.settings.format,
                                   rounds=created.settings.rounds, top=created.settings.top_n,
                                   **{k: v for k, v in created.tables.items() if k in TABLE_FIELDS})
        # the log is the truth: the store is made to say what it says (tokens and the secret too, from the log
        # where it holds them; an old log's from the store as it was)
        old_tokens = await self.store.call(Store.tokens, tid)
        by_player = {player: digest for digest, player in old_tokens.items()}
        by_player.update({r.player: r.token for r in records if type(r) in (Registered, Reentered) and r.token})
        await self.store.call(Store.mirror, created, records, by_player)
        await self.store.call(organiser.mirror_actions, tid, state)  # what the organiser's actions changed
        tokens = {digest: player for player, digest in by_player.items()}
        digest = created.secret or await self.store.call(Store.secret, tid) or ""
        missing = [p for p in state.players if p not in by_player]
        if missing:
            logger.info(f"tournament {tid}: no token for {', '.join(missing)} (an old store lost it): their "
                        "seats are kept and played by a stand-in")
        director = Director(self, tid, request, state, log, digest, tokens, self.store)
        director.reports_made = reported.made(records)  # the budget as the log spent it, not afresh
        last = max((getattr(r, "time", 0.0) for r in read.records), default=0.0)
        director._t0 = trio.current_time() - last
        rated = await self.store.call(Store.rated, tid)
        for record in records:  # results logged but not yet in the ratings (a crash between the two)
            if type(record) is TableFinished and record.table not in rated:
                await results.rate(director, record.result())
        for table_id in reporting.reported_ids(state):  # reported results stand by their records: rated alike
            if table_id in state.results and table_id not in rated:
                await results.rate(director, state.results[table_id])
        if ended:
            director.over.set()
            clocks.rearm(director, records)  # tables a cancel had not halted yet are halted now
            return director
        for table_id in state.unfinished():
            round_no, players = state.tables[table_id]
            if round_no == state.org.held:  # pairings first: opened (or told, if played off the server) once begun
                continue
            if reporting.is_reported(state, table_id):  # played off the server: its players report it
                director.opened.add(table_id)
                continue
            table = self.lobby.tables.get(table_id)
            if table is not None:
                opening.follow(director, table, round_no, players)
                continue
            table_log = self.lobby.data_dir.table_log(table_id) if self.lobby.data_dir else None
            if table_log is not None and table_log.exists():  # it ended while we were down: read its result
                if table_id in self.lobby.unshown:  # ... once its delay has passed since its end (``heldends``)
                    self.spawn(director.id, self._result_from_log, director, table_log, round_no, players)
                else:
                    await self._result_from_log(director, table_log, round_no, players)
            elif self.directory.spans_nodes:  # another node's, or never opened: found (or opened) once joined
                director.unplaced.append((table_id, round_no, players))
            else:  # seated in the log, never opened: open it now (or paused and tried again, as at any time)
                await opening.reopen_table(director, table_id, round_no, players)
        clocks.rearm(director, records)  # the round's time goes on where it stood, an ended round's tables halt
        async with director.lock:
            if state.settings.format == "arena" and state.round:  # who waits, in their order; its time up or not
                arena.reopen(director, records)
                self.spawn(director.id, clocks.arena_clock, director, records)  # what is left of it
            await director.advance()
        if director.unplaced:
            self.spawn(director.id, opening.place_unplaced, director)
        return director

    async def _result_from_log(self, director: Director, path: Path, round_no: int, players: tuple) -> None:
        await until_shown(self.lobby, path.stem)
        outcome = await trio.to_thread.run_sync(outcome_from_log, path)
        record = TableFinished(round=round_no, table=path.stem, players=players, places=outcome.places,
                               scores=outcome.scores, log_hash=outcome.log_hash,
                               lower_is_better=outcome.lower_is_better, stand_ins=outcome.stand_ins,
                               time=director.now())
        async with director.lock:
            await director.record(record)
            await director.mirror(Store.add_result, director.id, round_no, record.result(), record.log_hash)

    async def stop_all(self) -> None:
        """Shutting down: stop hearing other nodes' results (they stay in the store, heard again at the next
        start), let a result being logged finish, log none after it, then close the store. A local table that
        ends meanwhile is found ended in its log at the next start."""
        self.closing = True
        self.stop_hearing()
        for director in self.directors.values():
            async with director.lock:
                pass
        await self.close()

    def stop_hearing(self) -> None:
        """This node is leaving its cluster: its directors hear no other node's result from now on (each stays in
        the store, heard at the next start), and log none (``closing``): a result heard just before, still
        waiting for its director's lock, was logged and taken out of the store mid-shutdown. First thing in a
        shutdown, so that a node that has left takes nothing more out of the store, whenever in its shutdown
        another node's result came; a local table that ends meanwhile is found ended in its log."""
        self.closing = True
        for director in self.directors.values():
            if director.remote is not None:
                director.remote.stop_listening()


def points_table(request: CreateTournament) -> dict[int, tuple]:
    """The placement points by table size: ``points`` for the wanted size, ``points_by_size`` for any (the wanted
    size's from ``points`` if both give it and differ: refused). Whole floats become ints (3.0 is 3; 2.5 stays)."""
    def row(values) -> tuple:
        return tuple(int(p) if isinstance(p, float) and p.is_integer() else p for p in values)

    table = {size: row(values) for size, values in request.points_by_size.items()}
    if request.points:
        if request.seats in table and table[request.seats] != row(request.points):
            raise Refusal(Code.BAD_SETTINGS, f"points and points_by_size give tables of {request.seats} "
                                             "different points: give them once")
        table[request.seats] = row(request.points)
    return table


def msgspec_replace(struct: Any, **changes: Any) -> Any:
    import msgspec

    return msgspec.structs.replace(struct, **changes)
