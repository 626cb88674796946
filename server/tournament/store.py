"""The tournament store: SQLite (stdlib ``sqlite3``) in the data directory, ``DATA/tournaments.sqlite3``
(``DataDir.store``).

What it keeps: players, tournaments (settings, seed commitment, state, the seed once revealed), each
tournament's entries (registration order, check-in, drop), rounds (with their byes), seatings (table, seat,
player), results (places, scores, stand-ins, the table log's end-line hash, a correction's reason) and
ratings per player per game. The tournament's log (``tlog``) stays the truth that ``verify`` checks; the
store is what the server queries and resumes from.

- **Schema versions**: ``MIGRATIONS`` is a list of steps (SQL, or a function of the connection where SQL cannot
  say it); step i brings the schema to version i + 1.
  Opening applies the missing steps in order, each in one transaction with its version bump, so a crash
  mid-migration leaves the previous version. A database newer than this code is refused.
- **Durability**: WAL with ``synchronous=FULL``: every commit fsyncs the WAL before it returns, so a write
  that was acknowledged survives a killed process *and* a power cut. ``NORMAL`` would survive only the
  former; tournament writes are a few a second at most, so the fsync is cheap, and the table logs already
  wait for the disk before acknowledging (``--durability batch``): the store keeps the same promise.
- **Threads**: ``Store`` is the blocking core (one connection; tests and the command line use it directly).
  From trio, ``AsyncStore.call`` runs each call in a worker thread through ``trio.to_thread.run_sync`` with a
  ``CapacityLimiter(1)``: one call at a time ever touches the connection, never the event loop's thread
  (hence ``check_same_thread=False``: the worker thread may change, the exclusion does not).
- **Errors**: a write that breaks a rule (a second registration, a result for an unknown table) raises
  ``Refusal`` and its transaction is rolled back: it changes nothing.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator, TypeVar

import msgspec
import trio

from ..datadir import DataDir
from ..logs.disk import private_dir
from ..protocol import Code, Refusal
from ..protocol.names import skeleton
from .model import Seating, Settings, TableResult
from .ratings import Rating

T = TypeVar("T")


def _ratings_by_skeleton(db: sqlite3.Connection) -> None:
    """Ratings were keyed by the case-folded name as typed, so ``Ana``, ``Ana`` + U+200B and ``Аna`` (Cyrillic
    А), or ``José`` composed and decomposed, were different players. Each rating is re-keyed by the skeleton
    (``server.protocol.names.skeleton``) of the first registered name that case-folds to its key, and keeps that key
    as the name the leaderboard shows. Two old ratings that meet under one skeleton keep the one from more
    tables (then the first by key): they were one person's, split."""
    db.execute("ALTER TABLE ratings ADD COLUMN name TEXT NOT NULL DEFAULT ''")
    typed: dict[str, str] = {}
    for (name,) in db.execute("SELECT name FROM players ORDER BY rowid"):
        typed.setdefault(name.casefold(), name)
    rows = db.execute("SELECT player, game, mu, sigma, tables FROM ratings ORDER BY tables DESC, player").fetchall()
    db.execute("DELETE FROM ratings")
    kept: set[tuple[str, str]] = set()
    for player, game, mu, sigma, tables in rows:
        key = skeleton(typed.get(player, player))
        if (key, game) not in kept:
            kept.add((key, game))
            db.execute("INSERT INTO ratings (player, game, mu, sigma, tables, name) VALUES (?, ?, ?, ?, ?, ?)",
                       (key, game, mu, sigma, tables, player))


MIGRATIONS: list[str | Callable[[sqlite3.Connection], None]] = [
    # 1: everything the issue names
    """
    CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT);
    CREATE TABLE tournaments (id TEXT PRIMARY KEY, name TEXT NOT NULL, game TEXT NOT NULL,
        options TEXT NOT NULL, settings TEXT NOT NULL, commitment TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'registration', seed TEXT, created TEXT NOT NULL);
    CREATE TABLE entries (tournament TEXT NOT NULL REFERENCES tournaments(id),
        player TEXT NOT NULL REFERENCES players(id), position INTEGER NOT NULL,
        checked_in INTEGER NOT NULL DEFAULT 0, dropped INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament, player));
    CREATE TABLE rounds (tournament TEXT NOT NULL REFERENCES tournaments(id), round INTEGER NOT NULL,
        byes TEXT NOT NULL, PRIMARY KEY (tournament, round));
    CREATE TABLE seatings (tournament TEXT NOT NULL, round INTEGER NOT NULL, table_id TEXT NOT NULL,
        seat INTEGER NOT NULL, player TEXT NOT NULL, PRIMARY KEY (tournament, table_id, seat),
        FOREIGN KEY (tournament, round) REFERENCES rounds(tournament, round));
    CREATE TABLE results (tournament TEXT NOT NULL, table_id TEXT NOT NULL, round INTEGER NOT NULL,
        places TEXT NOT NULL, scores TEXT NOT NULL, lower_is_better INTEGER NOT NULL,
        stand_ins TEXT NOT NULL, log_hash TEXT NOT NULL, corrected TEXT,
        PRIMARY KEY (tournament, table_id));
    CREATE TABLE ratings (player TEXT NOT NULL, game TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
        tables INTEGER NOT NULL, PRIMARY KEY (player, game));
    """,
    # 2: the leaderboard reads ratings by game
    "CREATE INDEX ratings_by_game ON ratings (game);",
    # 3: the organiser's secret, as its sha256 (the secret itself is never stored)
    "ALTER TABLE tournaments ADD COLUMN secret_hash TEXT;",
    # 4: ratings keyed by the skeleton of the player's name, shown by the name (see _ratings_by_skeleton)
    _ratings_by_skeleton,
    # 5: which tables' results are in the ratings (written with them): a restart rates exactly the rest; the
    # results already stored were rated when they were stored
    """
    CREATE TABLE rated (tournament TEXT NOT NULL, table_id TEXT NOT NULL, PRIMARY KEY (tournament, table_id));
    INSERT INTO rated SELECT tournament, table_id FROM results;
    """,
]


_encode = msgspec.json.encode


class Store:
    """The blocking store over one connection (see the module's text for threads)."""

    def __init__(self, path: Path | str, migrations: list = MIGRATIONS) -> None:
        self.path = Path(path)
        if not self.path.exists():  # private like the logs (SQLite gives its -wal and -shm the file's mode)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            if self.db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
                self.db.execute("INSERT INTO schema_version VALUES (0)")
        except sqlite3.DatabaseError as error:  # not a database, damaged, unreadable: nothing was changed
            raise Refusal(Code.STORE_UNREADABLE, f"cannot open the tournament store {self.path}: {error}. "
                             "If it is damaged, move it aside and start again: the tournaments' logs stay, "
                             "but what only the store keeps (players' tokens, ratings) is lost") from None
        self.migrate(migrations)

    def version(self) -> int:
        return self.db.execute("SELECT version FROM schema_version").fetchone()[0]

    def migrate(self, migrations: list) -> None:
        current = self.version()
        if current > len(migrations):
            raise Refusal(Code.STORE_TOO_NEW, f"{self.path} is at schema version {current}; this server "
                                              f"knows {len(migrations)}")
        for number, step in enumerate(migrations[current:], start=current + 1):
            with self._transaction():
                if callable(step):  # a step SQL cannot say (it computes in Python), in the same transaction
                    step(self.db)
                else:
                    for statement in _statements(step):
                        self.db.execute(statement)
                self.db.execute("UPDATE schema_version SET version = ?", (number,))

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _write(self, code: str, message: str, statements: list[tuple[str, tuple]]) -> None:
        """Run ``statements`` in one transaction; a constraint broken anywhere rolls all of them back."""
        try:
            with self._transaction() as db:
                for sql, args in statements:
                    db.execute(sql, args)
        except sqlite3.IntegrityError as error:
            raise Refusal(code, f"{message} ({error})") from None

    # -- writes ----------------------------------------------------------------------------------------

    def add_player(self, player: str, name: str, token_hash: str | None = None) -> None:
        self._write(Code.PLAYER_EXISTS, f"player {player!r} exists already",
                       [("INSERT INTO players VALUES (?, ?, ?)", (player, name, token_hash))])

    def add_tournament(self, tournament: str, name: str, game: str, options: dict[str, Any],
                       settings: Settings, commitment: str, created: str) -> None:
        settings.check()
        self._write(Code.TOURNAMENT_EXISTS, f"tournament {tournament!r} exists already",
                       [("INSERT INTO tournaments (id, name, game, options, settings, commitment, created) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (tournament, name, game, _encode(options), _encode(settings), commitment, created))])

    def set_state(self, tournament: str, state: str, seed: int | None = None) -> None:
        """``registration``, ``running`` or ``ended`` (which stores the revealed seed)."""
        with self._transaction() as db:
            changed = db.execute("UPDATE tournaments SET state = ?, seed = COALESCE(?, seed) WHERE id = ?",
                                 (state, None if seed is None else str(seed), tournament)).rowcount
            if not changed:
                raise Refusal(Code.UNKNOWN_TOURNAMENT, f"no tournament {tournament!r}")

    def register(self, tournament: str, player: str) -> None:
        """Enter a known player in a known tournament (after the ones before)."""
        if self.tournament(tournament) is None:
            raise Refusal(Code.UNKNOWN_TOURNAMENT, f"no tournament {tournament!r}")
        if self.db.execute("SELECT 1 FROM players WHERE id = ?", (player,)).fetchone() is None:
            raise Refusal(Code.UNKNOWN_PLAYER, f"no player {player!r}")
        self._write(Code.ALREADY_REGISTERED, f"{player!r} is registered in {tournament!r} already",
                       [("INSERT INTO entries (tournament, player, position) SELECT ?, ?, COUNT(*) FROM entries "
                         "WHERE tournament = ?", (tournament, player, tournament))])

    def check_in(self, tournament: str, player: str) -> None:
        self._flag(tournament, player, "checked_in")

    def drop(self, tournament: str, player: str) -> None:
        self._flag(tournament, player, "dropped")

    def _flag(self, tournament: str, player: str, column: str) -> None:
        with self._transaction() as db:
            if not db.execute(f"UPDATE entries SET {column} = 1 WHERE tournament = ? AND player = ?",
                              (tournament, player)).rowcount:
                raise Refusal(Code.UNKNOWN_PLAYER, f"{player!r} is not registered in {tournament!r}")

    def add_round(self, tournament: str, round_no: int, tables: dict[str, tuple[str, ...]],
                  byes: tuple[str, ...] = ()) -> None:
        """A round's seating: ``tables`` maps each table id to its players in seat order."""
        rows = [("INSERT INTO rounds VALUES (?, ?, ?)", (tournament, round_no, _encode(list(byes))))]
        rows += [("INSERT INTO seatings VALUES (?, ?, ?, ?, ?)", (tournament, round_no, table, seat, player))
                 for table, players in tables.items() for seat, player in enumerate(players)]
        self._write(Code.BAD_ROUND, f"round {round_no} of {tournament!r} cannot be stored", rows)

    def add_result(self, tournament: str, round_no: int, result: TableResult, log_hash: str) -> None:
        seated = self.table_players(tournament, result.table)
        if seated != result.players:
            raise Refusal(Code.BAD_RESULT, f"table {result.table} of {tournament!r} seated {list(seated)}")
        result.check()
        self._write(Code.ALREADY_FINISHED, f"table {result.table} has a result already",
                       [("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                         (tournament, result.table, round_no, _encode(result.places), _encode(result.scores),
                          int(result.lower_is_better), _encode(result.stand_ins), log_hash))])

    def correct_result(self, tournament: str, table: str, places: tuple[int, ...], scores: tuple[int, ...],
                       reason: str) -> None:
        old = self.result(tournament, table)
        if old is None:
            raise Refusal(Code.UNKNOWN_TABLE, f"table {table} of {tournament!r} has no result")
        msgspec.structs.replace(old, places=tuple(places), scores=tuple(scores)).check()
        with self._transaction() as db:
            db.execute("UPDATE results SET places = ?, scores = ?, corrected = ? WHERE tournament = ? AND "
                       "table_id = ?", (_encode(list(places)), _encode(list(scores)), reason, tournament, table))

    def set_secret(self, tournament: str, digest: str) -> None:
        with self._transaction() as db:
            db.execute("UPDATE tournaments SET secret_hash = ? WHERE id = ?", (digest, tournament))

    def secret(self, tournament: str) -> str | None:
        row = self.db.execute("SELECT secret_hash FROM tournaments WHERE id = ?", (tournament,)).fetchone()
        return row[0] if row else None

    def tokens(self, tournament: str) -> dict[str, str]:
        """Each registered player's token hash -> the player."""
        return {digest: player for player, digest in self.db.execute(
            "SELECT players.id, players.token_hash FROM entries JOIN players ON players.id = entries.player "
            "WHERE entries.tournament = ? AND players.token_hash IS NOT NULL", (tournament,))}

    def save_ratings(self, ratings: list[Rating], table: tuple[str, str] | None = None) -> None:
        """Save ratings; with ``table`` (tournament, table id), mark that table's result rated in the same
        transaction (a table already rated is refused, ``already_rated``, and changes nothing)."""
        statements = [("INSERT OR REPLACE INTO ratings (player, game, mu, sigma, tables, name) VALUES (?, ?, ?, ?, ?, ?)",
                       (r.player, r.game, r.mu, r.sigma, r.tables, r.name)) for r in ratings]
        if table is not None:
            statements.append(("INSERT INTO rated VALUES (?, ?)", table))
        self._write(Code.ALREADY_RATED, f"table {table} is rated already", statements)

    def rated(self, tournament: str) -> set[str]:
        """The tables of ``tournament`` whose results are in the ratings."""
        return {row[0] for row in self.db.execute("SELECT table_id FROM rated WHERE tournament = ?", (tournament,))}

    def mirror(self, created: Any, records: list, tokens: dict[str, str]) -> None:
        """Make the store's rows of one tournament exactly what its log says, in one transaction: the log is
        the truth, the store a projection of it, rebuilt (idempotently) at every start, so no crash between a
        record and its store write leaves the two apart. ``tokens``: player -> token hash, for an old log whose
        ``registered`` records carry none (from the store as it was)."""
        from .tlog import CheckedIn, Corrected, Dropped, Ended, Registered, RoundSeated, TableFinished

        tid = created.tournament
        with self._transaction() as db:
            for table in ("results", "seatings", "rounds", "entries"):
                db.execute(f"DELETE FROM {table} WHERE tournament = ?", (tid,))
            db.execute("INSERT OR IGNORE INTO tournaments (id, name, game, options, settings, commitment, created) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (tid, created.name, created.game, _encode(created.options),
                                                        _encode(created.settings), created.commitment, created.started))
            if created.secret is not None:
                db.execute("UPDATE tournaments SET secret_hash = ? WHERE id = ?", (created.secret, tid))
            state, seed, position = "registration", None, 0
            for record in records:
                kind = type(record)
                if kind is Registered:
                    token = record.token or tokens.get(record.player)
                    db.execute("INSERT OR REPLACE INTO players VALUES (?, ?, ?)", (record.player, record.name, token))
                    db.execute("INSERT INTO entries (tournament, player, position) VALUES (?, ?, ?)",
                               (tid, record.player, position))
                    position += 1
                elif kind is CheckedIn or kind is Dropped:
                    column = "checked_in" if kind is CheckedIn else "dropped"
                    db.execute(f"UPDATE entries SET {column} = 1 WHERE tournament = ? AND player = ?",
                               (tid, record.player))
                elif kind is RoundSeated:
                    state = "running"
                    db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?)",
                               (tid, record.round, _encode(list(record.byes))))
                    for table in record.tables:
                        for seat, player in enumerate(table.players):
                            db.execute("INSERT OR REPLACE INTO seatings VALUES (?, ?, ?, ?, ?)",
                                       (tid, record.round, table.table, seat, player))
                elif kind is TableFinished:
                    db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                               (tid, record.table, record.round, _encode(record.places), _encode(record.scores),
                                int(record.lower_is_better), _encode(record.stand_ins), record.log_hash))
                elif kind is Corrected:
                    db.execute("UPDATE results SET places = ?, scores = ?, corrected = ? WHERE tournament = ? AND "
                               "table_id = ?", (_encode(list(record.places)), _encode(list(record.scores)),
                                                record.reason, tid, record.table))
                elif kind is Ended:
                    state, seed = "ended", str(record.seed)
            db.execute("UPDATE tournaments SET state = ?, seed = COALESCE(?, seed) WHERE id = ?", (state, seed, tid))

    # -- reads -----------------------------------------------------------------------------------------

    def tournament(self, tournament: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT id, name, game, options, settings, commitment, state, seed, created "
                              "FROM tournaments WHERE id = ?", (tournament,)).fetchone()
        if row is None:
            return None
        return {"id": row[0], "name": row[1], "game": row[2], "options": msgspec.json.decode(row[3]),
                "settings": msgspec.json.decode(row[4], type=Settings), "commitment": row[5], "state": row[6],
                "seed": None if row[7] is None else int(row[7]), "created": row[8]}

    def entries(self, tournament: str) -> list[tuple[str, bool, bool]]:
        """(player, checked in, dropped) in registration order."""
        return [(p, bool(c), bool(d)) for p, c, d in self.db.execute(
            "SELECT player, checked_in, dropped FROM entries WHERE tournament = ? ORDER BY position",
            (tournament,))]

    def seatings(self, tournament: str) -> list[Seating]:
        out = []
        for round_no, byes in self.db.execute("SELECT round, byes FROM rounds WHERE tournament = ? "
                                              "ORDER BY round", (tournament,)).fetchall():
            tables: dict[str, list[str]] = {}
            for table, player in self.db.execute("SELECT table_id, player FROM seatings WHERE tournament = ? "
                                                 "AND round = ? ORDER BY rowid", (tournament, round_no)):
                tables.setdefault(table, []).append(player)
            out.append(Seating(tables=tuple(tuple(t) for t in tables.values()),
                               byes=tuple(msgspec.json.decode(byes))))
        return out

    def table_players(self, tournament: str, table: str) -> tuple[str, ...]:
        return tuple(p for (p,) in self.db.execute("SELECT player FROM seatings WHERE tournament = ? AND "
                                                   "table_id = ? ORDER BY seat", (tournament, table)))

    def result(self, tournament: str, table: str) -> TableResult | None:
        row = self.db.execute("SELECT places, scores, lower_is_better, stand_ins FROM results WHERE "
                              "tournament = ? AND table_id = ?", (tournament, table)).fetchone()
        if row is None:
            return None
        return TableResult(table=table, players=self.table_players(tournament, table),
                           places=tuple(msgspec.json.decode(row[0])), scores=tuple(msgspec.json.decode(row[1])),
                           lower_is_better=bool(row[2]), stand_ins=tuple(msgspec.json.decode(row[3])))

    def results(self, tournament: str) -> list[tuple[TableResult, str, str | None]]:
        """Every result (as corrected), with its table log's hash and the correction's reason, if any."""
        rows = self.db.execute("SELECT table_id, log_hash, corrected FROM results WHERE tournament = ? "
                               "ORDER BY rowid", (tournament,)).fetchall()
        return [(self.result(tournament, table), log_hash, reason) for table, log_hash, reason in rows]

    def ratings(self, game: str) -> list[Rating]:
        return [Rating(player=p, game=game, mu=mu, sigma=sigma, tables=n, name=name)
                for p, mu, sigma, n, name in self.db.execute(
                    "SELECT player, mu, sigma, tables, name FROM ratings WHERE game = ? ORDER BY player", (game,))]


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


class AsyncStore:
    """A ``Store`` used from trio: every call runs in a worker thread, one at a time."""

    def __init__(self, store: Store, limiter: trio.CapacityLimiter | None = None) -> None:
        self.store = store
        self.limiter = limiter or trio.CapacityLimiter(1)

    async def call(self, method: Callable[..., T], *args: Any) -> T:
        """``await db.call(Store.add_player, "p1", "Ann")``: the method, run on this store in the worker."""
        return await trio.to_thread.run_sync(method, self.store, *args, limiter=self.limiter)


@asynccontextmanager
async def open_store(data_dir: Path | str) -> AsyncIterator[AsyncStore]:
    """The store of a data directory, opened (and migrated) in a worker thread, closed on the way out."""
    private_dir(data_dir)
    limiter = trio.CapacityLimiter(1)
    store = await trio.to_thread.run_sync(Store, DataDir(data_dir).store, limiter=limiter)
    wrapped = AsyncStore(store, limiter)
    try:
        yield wrapped
    finally:
        await trio.to_thread.run_sync(store.close, limiter=limiter)
