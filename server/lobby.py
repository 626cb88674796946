"""The lobby: the games on offer and the tables that exist, and where a new table's arbiter is started.

It checks a table request against the rules (game, mode, seats, options, bot seats) and its creator's quotas
(``server/quotas.py``) before any task starts, so a bad request is a typed error and leaves nothing half-made.
It holds the tables (find, list, forget) and reopens unfinished ones from their logs after a restart; beside it
``storage.py`` writes a new table's log and watches a failing disk, ``tending.py`` lets tables go.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from pathlib import Path

import trio

from rules.bots import get_policy
from rules import GAMES, RulesError, Session, Setup, get_game, make_setup

from .logs import disk

from . import heldends, storage, tending
from .logs.finished import Finished, finished_log, finished_marker, write_marker
from .logs.logfile import End, Entry, LogError, SeatTaken, read_log, seed_commitment
from .names import TITLE_MOST, check_name
from .logs.journal import LIMIT as JOURNAL_LIMIT
from .logs.journal import Journal
from .logs.walfile import replay
from .logs.logstore import numbered_logs, reopen, table_dir, write_secret_seed
from .datadir import DataDir, seed_beside
from .diskroom import DiskRoom
from .quotas import Owner, Quotas, check_waiting, held_by
from .logs.rebuild import restored
from .protocol import Code, CreateTable, GameSummary, Refusal, TableInfo, game_summary
from .cluster.directory import Directory, LocalDirectory
from .secrets_typed import new_secret
from .table import Reservation, Table, TableSettings, intents
from .table.seats import token_hash
from .table.restore import reopen as reopen_table
from .table.restore import settings_of
from .table.settings import TURN_TIME_LEAST, check_turn_time

logger = logging.getLogger(__name__)

MAX_TABLES = 2000


class Lobby:
    """``data_dir`` None keeps logs in memory only (tests); otherwise every table has a log file. Under
    ``batch`` the lobby runs the server's one group commit (the write-ahead ``Journal``) for every log, from
    the first log it opens until ``stop_all``."""

    def __init__(self, nursery: trio.Nursery, data_dir: Path | None = None, durability: str = "batch",
                 quotas: Quotas = Quotas(), journal_limit: int = JOURNAL_LIMIT,
                 directory: Directory | None = None, unverified_credit_ms: int | None = None) -> None:
        self.nursery = nursery
        self.unverified_credit_ms = unverified_credit_ms  # fair tables' credit without the kernel's measure
        # (`serve --unverified-credit-ms`, default 0; None, as a library's or a test's lobby: no such bound)
        self.directory = directory or LocalDirectory()  # numbers this server's table ids (a cluster node's own)
        self.quotas = quotas
        self.owners: dict[str, Owner] = {}  # a held table or playback -> who created or opened it
        self.finished: OrderedDict[str, None] = OrderedDict()  # held tables that are over, oldest first
        self.summaries: OrderedDict[str, TableInfo] = OrderedDict()  # finished tables no longer held
        self.unshown: dict[str, heldends.Unshown] = {}  # ... of them, those whose delay has not shown their end
        self.journal_limit = journal_limit  # the journal's checkpoint size (tests make it small)
        self.data_dir = DataDir(data_dir) if data_dir is not None else None  # every path under it
        self.disk = DiskRoom(Path(data_dir), quotas.min_free_mb) if data_dir is not None else None  # its floor
        self.durability = durability
        self._syncer: Journal | None = None
        self.tables: dict[str, Table] = {}
        self.aliases: dict[str, str] = {}
        self.tournaments = None  # the server's TournamentHub, once it has one
        self._next = 0
        self.storage_error: str | None = None  # why the data directory cannot be written now (new tables refused)
        self._recovering = False  # the storage watch runs (``_recover_storage``)
        self._reopen_tries: dict[str, int] = {}
        self._stopping = False
        self._opening_playback = trio.Lock()  # playbacks opened one at a time (``open_playback``)

    def new_table_id(self) -> str:
        """The next table id (a tournament names its round's tables in its log before it opens them); never
        one whose log is already in the data directory."""
        self._next += 1
        while True:
            self._next = self.directory.number(self._next)  # on a cluster this node's own: never another's
            if self.data_dir is None or not self.data_dir.table_log(f"t{self._next}").exists():
                return f"t{self._next}"
            self._next += 1

    def games(self) -> list[GameSummary]:
        return [game_summary(game.info) for game in GAMES.values()]

    def find(self, table_id: str) -> Table:
        table = self.tables.get(self.aliases.get(table_id, table_id))
        if table is None:
            if table_id in self.summaries and table_id not in self.unshown:  # (else listed as still played)
                raise Refusal(Code.TABLE_OVER, f"table {table_id} is over and no longer held: its log can be "
                                 f"played back (open_playback {table_id}) or replayed")
            raise Refusal(Code.NO_TABLE, f"no table {table_id!r}")
        return table

    def list(self) -> list[TableInfo]:
        """Every table held, then the summaries (as they ended) of finished tables no longer held."""
        return [table.info() for table in self.tables.values()] + list(self.summaries.values())

    async def list_in_steps(self, step: int) -> list[TableInfo]:
        """``list()``, letting the other tasks run every ``step`` tables (a thousand tables take ~10 ms)."""
        infos = []
        for index, table in enumerate(list(self.tables.values())):
            infos.append(table.info())
            if index % step == step - 1:
                await trio.lowlevel.checkpoint()
        return infos + list(self.summaries.values())

    def check(self, request: CreateTable, owner: Owner | None = None) -> tuple:
        """The game and checked set-up for a request, or a ``Refusal`` (the rules' ``RulesError`` for its options) saying what is wrong with it (or that
        its ``owner`` holds its share of tables waiting or played by server bots alone, ``quotas.check_waiting``;
        None: a tournament's, never counted)."""
        self._make_room()
        if self.storage_error is not None:
            raise Refusal(Code.STORAGE_FAILED, f"no new tables for now: {self.storage_error}; the server checks "
                             f"every {storage.STORAGE_RETRY:g} s and takes them again once the disk can be written")
        if owner is not None:
            if self.disk is not None:
                self.disk.check()  # room kept for the games in play (a tournament's tables are among them)
            check_waiting(self.quotas, self.owners, self.tables, owner)
        game = get_game(request.game)
        check_name(request.name, "a table's name", TITLE_MOST)
        setup = make_setup(game.info, request.seats, request.mode, request.options)
        game.new_state(setup)  # options that are each valid may still not make a game (a bad track file)
        seats = [bot.seat for bot in request.bots]
        if len(set(seats)) != len(seats) or any(not 0 <= s < request.seats for s in seats):
            raise Refusal(Code.BAD_BOTS, f"bot seats must be distinct seats 0-{request.seats - 1}")
        for bot in request.bots:
            get_policy(game.info.name, bot.policy)
        check_turn_time(request.turn_time_ms, Code.BAD_OPTION, least=1 if owner is None else TURN_TIME_LEAST)
        for name, value, low, high in (("grace_ms", request.grace_ms, 0, 86_400_000),
                                       ("bot_delay_ms", request.bot_delay_ms, 0, 60_000),
                                       ("fair_ms", request.fair_ms, 0, 1000),
                                       ("spectator_delay_ms", request.spectator_delay_ms, 0, 3_600_000),
                                       ("spectator_delay_entries", request.spectator_delay_entries, 0, 10_000)):
            if not low <= value <= high:
                raise Refusal(Code.BAD_OPTION, f"{name} is {low}..{high}, not {value}")
        if request.seed is not None and not 0 <= request.seed < 2**64:
            raise Refusal(Code.BAD_SEED, "a seed is an integer from 0 to 2**64-1")
        if request.broadcast and not (request.spectator_delay_ms or request.spectator_delay_entries):
            raise Refusal(Code.BAD_OPTION, "a broadcast view shows every hand: it needs a spectator_delay_ms or "
                                           "spectator_delay_entries, so that what it shows is over before anyone "
                                           "can see it")
        if request.seed is not None and not request.practice:
            raise Refusal(Code.BAD_SEED, "a chosen seed makes every hidden card known to its chooser: it is for "
                             "practice tables only (send practice: true with it; everyone is shown the seed)")
        return game, setup

    def _make_room(self) -> None:
        if len(self.tables) >= MAX_TABLES:
            self.evict_finished()
        if len(self.tables) >= MAX_TABLES:
            raise Refusal(Code.TOO_MANY_TABLES, f"this server holds at most {MAX_TABLES} tables")

    async def create(self, request: CreateTable, alias: str | None = None, reserved: list[Reservation] = (),
                     stand_in: str | None = None, tags: dict | None = None, table_id: str | None = None,
                     owner: Owner | None = None) -> Table:
        """A new table; ``reserved`` seats are kept for their players' tokens (a tournament's), and with
        ``stand_in`` (a policy) an absent player's seat is played by that bot after ``grace_ms``. ``owner``:
        the client that asked (its waiting and all-bot tables are counted); an aliased table (the demo's) never
        expires nor ends abandoned, and a tournament's never ends abandoned (its round has a clock of its own)."""
        game, setup = self.check(request, owner)
        table_id = table_id or self.new_table_id()
        if table_id in self.tables:
            raise Refusal(Code.TABLE_EXISTS, f"table {table_id} exists already")
        seed = request.seed if request.seed is not None else secrets.randbits(64)
        broadcast_key = new_secret(18) if request.broadcast else None  # given to the creator alone
        key_hash = token_hash(broadcast_key) if broadcast_key else None
        if key_hash:
            tags = {**(tags or {}), "broadcast_key_hash": key_hash}
        store = None
        if self.data_dir is not None:
            seed_file = self.data_dir.table_seed(table_id)
            try:
                table_dir(self.data_dir)
                # off the event loop: a round of a tournament opens a hundred tables at once
                await trio.to_thread.run_sync(write_secret_seed, seed_file, seed, self.durability != "never")
                store = storage.open_log(self, table_id, game, setup, request, seed, alias,
                                       {"stand_in": stand_in, **(tags or {})} if stand_in or tags else {})
            except OSError as error:
                for path in (seed_file, self.data_dir.table_log(table_id)):  # nothing of it was acknowledged
                    try:
                        path.unlink(missing_ok=True)
                    except OSError:
                        pass
                storage.storage_failed(self, error)
                raise Refusal(Code.STORAGE_FAILED, f"cannot write a log for the table in {self.data_dir}: "
                                 f"{disk.error_text(error)}") from None
        settings = TableSettings(name=request.name.strip(), bots=tuple(request.bots),
                                 turn_time_ms=request.turn_time_ms, grace_ms=request.grace_ms,
                                 bot_delay_ms=request.bot_delay_ms, reserved=tuple(reserved), stand_in=stand_in,
                                 ordering=request.ordering, fair_ms=request.fair_ms,
                                 unverified_credit_ms=self.unverified_credit_ms,
                                 expire_after=None if alias else self.quotas.waiting_expiry or None,
                                 abandon_after=self._abandon_after(alias or reserved or (tags or {}).get("tournament")),
                                 chosen_seed=request.seed, practice=request.practice,
                                 spectator_delay_ms=request.spectator_delay_ms,
                                 spectator_delay_entries=request.spectator_delay_entries, broadcast_key_hash=key_hash)
        table = Table(table_id, game, setup, seed, settings, store=store)
        table.broadcast_key = broadcast_key
        table.alias = alias or None
        await self.start_table(table)
        if owner is not None:
            self.owners[table_id] = owner
        if alias:
            before = self.tables.get(self.aliases.get(alias, ""))
            if before is not None:  # lists name the alias's new table only (a page follows it there)
                before.alias = None
            self.aliases[alias] = table_id
        return table

    async def start_table(self, table: Table) -> None:
        """Run a table's arbiter, list it, and watch for it stopping on a disk failure."""
        table.disk_low = lambda: self.disk is not None and self.disk.low  # (stand-ins pace themselves: bots.py)
        await self.nursery.start(table.run)
        self.tables[table.id] = table
        self.nursery.start_soon(tending.tend, self, table)
        if table.store is not None:
            self.nursery.start_soon(storage.watch_table, self, table)

    def skip_ids(self, numbers) -> None:
        """Never hand out a table id numbered ``numbers`` or below (ids a tournament's log names)."""
        self._next = max([self._next, *numbers])

    def shared_syncer(self) -> Journal | None:
        """The server's group commit under ``batch`` (its journal, started with the first log), else None:
        ``always`` gives each log a syncer of its own, ``never`` syncs nothing."""
        if self.durability != "batch":
            return None
        if self._syncer is None:
            self._syncer = Journal(self.data_dir.root, limit=self.journal_limit)
            self.nursery.start_soon(self._syncer.run)
        return self._syncer

    def evict_finished(self) -> None:
        """Make room: forget tables whose game is over (their logs stay on disk for replay and playback)."""
        for table in list(self.tables.values()):
            if table.over.is_set() and table.id not in self.aliases.values() and table.end_shown():  # (a delay
                # that has not shown its end yet keeps it: at most an hour)
                self.forget(table, summary=not table.read_only)

    def forget(self, table: Table, summary: bool = True) -> None:
        """Stop a table and let go of it; a finished one stays listed by its summary (bounded in number)."""
        if self.tables.get(table.id) is not table:
            return
        table.submit_nowait(intents.Stop())
        del self.tables[table.id]
        self.owners.pop(table.id, None)
        self.finished.pop(table.id, None)
        if summary and table.over.is_set():
            heldends.keep_summary(self, table)  # the real one, once its spectators have seen its end

    async def open_playback(self, log_table: str, speed: float = 1.0, owner: Owner | None = None,
                            source=None) -> Table:
        """A read-only table that plays the finished log of ``log_table`` to its watchers at ``speed``; counted in
        the table cap, and against ``owner``'s address (``playbacks_per_address``). ``source(data_dir, log)``
        reads and checks the log whole (``frames.playback_source``; the gateway's runs it in the replay worker's
        process, else a thread). One at a time, server-wide: sixteen at once, each reading a 30 MB log in a
        thread here, froze every table for 15 s; one at a time, each address's playbacks are counted before its
        next one is read."""
        async with self._opening_playback:
            return await self._open_playback(log_table, speed, owner, source)

    async def _open_playback(self, log_table: str, speed: float, owner: Owner | None, source) -> Table:
        from .logs.frames import playback_source

        self._make_room()
        if owner is not None:
            _, held = held_by(self.owners, self.tables, owner, playbacks=True)
            if self.quotas.playbacks_per_address and held >= self.quotas.playbacks_per_address:
                raise Refusal(Code.TOO_MANY_PLAYBACKS, f"your address has {held} playbacks open, the most it may "
                                 f"(serve --playbacks-per-address {self.quotas.playbacks_per_address}); one nobody "
                                 "watches closes by itself")
        if self.data_dir is None:
            raise Refusal(Code.NO_LOGS, "this server keeps no logs (it runs without a data directory)")
        if not 0.01 <= speed <= 10_000:
            raise Refusal(Code.BAD_SPEED, f"speed is 0.01..10000, not {speed}")
        finished_log(self.data_dir, log_table)  # (refused here at once: no log, another worker's still playing)
        if source is None:
            header, seed, entries = await trio.to_thread.run_sync(playback_source, self.data_dir, log_table)
        else:  # any worker's of this machine, once it finished
            header, seed, entries = await source(self.data_dir, log_table)
        game = get_game(header.game)
        setup = Setup(seats=header.seats, mode=header.mode, options=header.options)
        self._next += 1
        table = Table(f"p{self._next}", game, setup, seed,
                      TableSettings(name=f"playback of {log_table}", read_only=True))
        await self.nursery.start(table.run)
        self.nursery.start_soon(table.play_back, entries, speed)
        self.tables[table.id] = table
        if owner is not None:
            self.owners[table.id] = owner
        self.nursery.start_soon(tending.tend_playback, self, table)
        return table

    async def recover(self) -> list[str]:
        """Reopen every table whose log has no end (the server stopped or died mid-game), under its alias if
        it had one. Returns their ids; a log that cannot be reopened, or whose table is recorded as finished
        (``finished.py``), is reported and left alone."""
        if self.data_dir is None:
            return []
        if self._syncer is not None:
            raise RuntimeError("recover before any log is opened: the journal's replay must come first")
        # first, whatever the durability now: lines a log file lacks that the journal made durable
        replayed = await trio.to_thread.run_sync(replay, self.data_dir.root)
        for note in replayed.notes:
            logger.info(f"journal {note} (the end of a round that was never acknowledged)")
        if replayed.restored:
            logger.info(f"the journal wrote back {replayed.restored} line(s) to {', '.join(replayed.logs)}")
        reopened = []
        logs, strays = numbered_logs(table_dir(self.data_dir), "t")
        for path in strays:
            logger.info(f"leaving {path} alone: a table's log is named t<number>.log")
        for path in logs:
            self._next = max(self._next, int(path.stem[1:]))
            try:
                read = read_log(path)
                if read.end is not None:
                    heldends.after_restart(self, path, read)  # its broadcast delay still runs past its end
                    continue
                finished = finished_marker(path)
                if finished is not None:
                    logger.info(f"not reopening {path.stem}: {finished}, but its log {path} has lost its "
                                "end record; left as it is")
                    continue
                if self._never_sat(read):
                    await trio.to_thread.run_sync(self._end_expired, path, read)
                    logger.info(f"not reopening {path.stem}: nobody ever sat at it; ended as expired")
                    continue
                table = self._rebuild(path, read)
            except (LogError, RulesError, Refusal, OSError, ValueError) as error:
                logger.info(f"cannot reopen {path}: {error}")
                continue
            table.alias = read.header.table_options.get("alias") or None
            await self.start_table(table)
            if table.alias:
                self.aliases[table.alias] = table.id  # a kept table (the demo's) takes its name back
            reopened.append(table.id)
        return reopened

    def _never_sat(self, read) -> bool:
        """A waiting table nobody ever sat at (no seat taken by a person, nothing accepted), not kept under an
        alias (the demo's open table waits for a player for ever): not worth reopening."""
        if not self.quotas.waiting_expiry or read.header.table_options.get("alias"):
            return False
        return not any(type(r) is SeatTaken and r.token_hash for r in read.records) and \
            not any(type(r) is Entry and r.accepted for r in read.records)

    @staticmethod
    def _game_of(path: Path, read) -> tuple:
        """The game, set-up and seed of a table's log (its seed file checked against the log's commitment)."""
        header = read.header
        game = get_game(header.game)
        setup = Setup(seats=header.seats, mode=header.mode, options=header.options)
        seed = int(seed_beside(path).read_text())
        if seed_commitment(seed) != header.commitment:
            raise ValueError("its seed file does not match the log's commitment")
        return header, game, setup, seed

    def _end_expired(self, path: Path, read) -> None:
        """Append the end record (``expired``) to the log of a table nobody sat at, then its ``.done`` marker."""
        header, game, setup, seed = self._game_of(path, read)
        store = reopen(path, read, "never" if self.durability == "never" else "always")
        try:
            seq = len(read.entries())
            store.append(End(seq=seq, seed=seed, digest=Session(game, setup, seed).digest(), reason="expired"))
        finally:
            store.close()
        write_marker(path, Finished(table=header.table, seq=seq, end_hash=store.head))

    def _rebuild(self, path: Path, read) -> Table:
        header, game, setup, seed = self._game_of(path, read)
        session, log = restored(game, setup, seed, read.entries())  # each entry checked as `replay` does
        options = header.table_options
        settings = settings_of(header.name, options,
                               None if options.get("alias") else self.quotas.waiting_expiry or None,
                               self._abandon_after(options.get("alias") or options.get("tournament")))
        store = reopen(path, read, self.durability, self.shared_syncer())
        return reopen_table(read, game, setup, seed, settings, session=session, log=log, store=store)

    def _abandon_after(self, kept) -> float | None:
        """A table's ``abandon_after``: none for one ``kept`` under an alias (the app replaces the demo's) or a
        tournament's (its round's clock ends it), else ``serve --abandoned-after`` (0: none)."""
        return None if kept else self.quotas.abandoned_after or None

    async def stop_all(self) -> None:
        self._stopping = True
        for table in list(self.tables.values()):
            await table.stop()
        if self._syncer is not None:
            await self._syncer.aclose()  # its last round and checkpoint: no journal is left to replay
