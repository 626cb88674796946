"""``Presence`` in one SQLite file: the cluster's directory for the processes of one machine, with nothing to
install (`serve --workers N`, or `serve --cluster sqlite:PATH`).

Each process opens the file (WAL, so readers never wait for the writer) through one connection used from one
worker thread at a time (``trio.to_thread``, under a lock), and every call is one short transaction: ``set``
with ``only_new`` is an ``INSERT`` that a live key refuses, ``incr`` an upsert, so several processes claim and
count atomically. The heartbeat (``urgent``) has a connection, lock and thread of its own, and goes first: a flood
of clients' writes (each ``create_table`` claims and announces its table) queues on the other lock, which starts
no transaction while a heartbeat's call is under way (``Priority``), so the heartbeat waits for at most the one
transaction being written in each process, never for the queue: a flood never makes a node miss its heartbeat's
deadline (which took both workers of `serve --workers 2` out of the cluster for seconds). Expiry is in wall-clock time (``time.time()``: the one clock every process of the machine
shares), checked when a key is read. Publish/subscribe is a table of messages that a subscriber reads when a
publisher wakes it (``server/cluster/localwake.py``: each subscription's process is listed with its channel in
``wakers``, and a publish sends each a datagram), and at least every ``POLL_S`` (every ``POLL_UNWOKEN_S`` where
no process can be woken: not Linux). A file that cannot be opened, written or read raises ``PresenceError``, as
Redis away does.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import AsyncIterator, Callable

import trio

from .localwake import Waker, open_waker
from .presence import PresenceError

POLL_S = 1.0  # a subscriber reads new messages at least this often (besides when woken: a lost wake-up's bound)
POLL_UNWOKEN_S = 0.05  # ... and this often where it cannot be woken
BUSY_MS = 5_000  # a write waits this long for another process's transaction before it fails

SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL);
CREATE TABLE IF NOT EXISTS hashes (key TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL,
                                   PRIMARY KEY (key, field));
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, channel TEXT NOT NULL,
                                     message TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS messages_at ON messages (at);
CREATE TABLE IF NOT EXISTS wakers (channel TEXT NOT NULL, address TEXT NOT NULL, PRIMARY KEY (channel, address));
"""


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # a directory, not a store of record: the table logs are
    db.executescript(SCHEMA)
    return db


class Priority:
    """The heartbeat's calls under way: the clients' connection starts no transaction of this process meanwhile,
    so the heartbeat competes for the file's write lock with the other processes alone."""

    def __init__(self) -> None:
        self.urgent = 0
        self.idle = trio.Event()
        self.idle.set()

    @contextmanager
    def first(self):
        self.urgent += 1
        if self.idle.is_set():
            self.idle = trio.Event()
        try:
            yield
        finally:
            self.urgent -= 1
            if not self.urgent:
                self.idle.set()

    async def after(self) -> None:
        while self.urgent:
            await self.idle.wait()


class SqlitePresence:
    def __init__(self, db: sqlite3.Connection, waker: Waker | None = None) -> None:
        self.db = db
        self.lock = trio.Lock()
        self.waker = waker
        self._urgent: SqlitePresence | None = None  # the heartbeat's: another connection to the file
        self.priority: Priority | None = None  # shared by the two (``open_sqlite_presence``)
        self.first = False  # this is the heartbeat's
        self._subscribed: dict[str, int] = {}  # this process's subscriptions per channel (listed in ``wakers``)
        self._gone: set[str] = set()  # wake-up addresses no process holds any more: forgotten at the next publish

    async def _do(self, work: Callable[[sqlite3.Connection], object]):
        if self.priority is not None and self.first:
            with self.priority.first():
                return await self._locked(work)
        return await self._locked(work)

    async def _locked(self, work):
        async with self.lock:
            if self.priority is not None and not self.first:
                await self.priority.after()
            try:
                return await trio.to_thread.run_sync(self._transaction, work)
            except sqlite3.Error as error:
                raise PresenceError(f"SQLite: {error}") from None

    def _transaction(self, work):
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            result = work(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return result

    async def set(self, key: str, value: str, *, ttl_ms: int | None = None, only_new: bool = False) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            now = time.time()
            expires = now + ttl_ms / 1000 if ttl_ms is not None else None
            if only_new:
                db.execute("DELETE FROM kv WHERE key = ? AND expires IS NOT NULL AND expires <= ?", (key, now))
                return db.execute("INSERT OR IGNORE INTO kv VALUES (?, ?, ?)", (key, str(value), expires)).rowcount == 1
            db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (key, str(value), expires))
            return True
        return await self._do(work)

    async def get(self, key: str) -> str | None:
        return (await self.get_many([key]))[0]

    async def get_many(self, keys: list[str]) -> list[str | None]:
        def work(db: sqlite3.Connection) -> list[str | None]:
            now = time.time()
            found = {}
            for key in keys:
                row = db.execute("SELECT value, expires FROM kv WHERE key = ?", (key,)).fetchone()
                if row is not None and (row[1] is None or row[1] > now):
                    found[key] = row[0]
            return [found.get(key) for key in keys]
        return await self._do(work) if keys else []

    async def delete(self, *keys: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            for key in keys:
                db.execute("DELETE FROM kv WHERE key = ?", (key,))
                db.execute("DELETE FROM hashes WHERE key = ?", (key,))
        await self._do(work)

    async def incr(self, key: str, by: int = 1) -> int:
        def work(db: sqlite3.Connection) -> int:
            row = db.execute("SELECT value, expires FROM kv WHERE key = ?", (key,)).fetchone()
            live = row is not None and (row[1] is None or row[1] > time.time())
            value = (int(row[0]) if live else 0) + by
            db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (key, str(value), row[1] if live else None))
            return value
        return await self._do(work)

    async def hset(self, key: str, mapping: dict[str, str]) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.executemany("INSERT OR REPLACE INTO hashes VALUES (?, ?, ?)",
                           [(key, field, str(value)) for field, value in mapping.items()])
        if mapping:
            await self._do(work)

    async def hdel(self, key: str, *fields: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.executemany("DELETE FROM hashes WHERE key = ? AND field = ?", [(key, field) for field in fields])
        if fields:
            await self._do(work)

    async def hgetall(self, key: str) -> dict[str, str]:
        return (await self.hgetall_many([key]))[0]

    async def hgetall_many(self, keys: list[str]) -> list[dict[str, str]]:
        def work(db: sqlite3.Connection) -> list[dict[str, str]]:
            return [dict(db.execute("SELECT field, value FROM hashes WHERE key = ?", (key,)).fetchall())
                    for key in keys]
        return await self._do(work) if keys else []

    async def publish(self, channel: str, message: str) -> None:
        gone, self._gone = self._gone, set()

        def work(db: sqlite3.Connection) -> list[str]:
            now = time.time()
            db.execute("INSERT INTO messages (channel, message, at) VALUES (?, ?, ?)", (channel, message, now))
            db.execute("DELETE FROM messages WHERE at < ?", (now - 60,))  # a subscriber polls far more often
            db.executemany("DELETE FROM wakers WHERE address = ?", [(address,) for address in gone])
            if self.waker is None:
                return []
            return [row[0] for row in db.execute("SELECT address FROM wakers WHERE channel = ?", (channel,))]
        try:
            addresses = await self._do(work)
        except PresenceError:
            self._gone |= gone
            raise
        if addresses:
            self._gone.update(self.waker.wake(addresses, channel))

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[trio.MemoryReceiveChannel]:
        waker = self.waker
        listed = waker is not None and self._subscribed.get(channel, 0) == 0

        def start(db: sqlite3.Connection) -> int:  # listed before the first read: nothing published after is missed
            if listed:
                db.execute("INSERT OR IGNORE INTO wakers VALUES (?, ?)", (channel, waker.address))
            return db.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]
        last = await self._do(start)
        if waker is not None:
            self._subscribed[channel] = self._subscribed.get(channel, 0) + 1
        send, receive = trio.open_memory_channel[str](1024)

        async def poll() -> None:  # a read that fails (the file away a moment) is tried again: ``last`` keeps
            nonlocal last  # the place, and messages stay a minute, so nothing is skipped
            while True:
                armed = waker.arm(channel) if waker is not None else None  # (before the read: see ``Waker.arm``)
                try:
                    rows = await self._do(lambda db: db.execute(
                        "SELECT id, message FROM messages WHERE channel = ? AND id > ? ORDER BY id",
                        (channel, last)).fetchall())
                except PresenceError:
                    rows = []
                for row_id, message in rows:
                    last = row_id
                    await send.send(message)
                if armed is None:
                    await trio.sleep(POLL_UNWOKEN_S)
                else:
                    await waker.wait(channel, armed, POLL_S)

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(poll)
                try:
                    yield receive
                finally:
                    nursery.cancel_scope.cancel()
        finally:
            if waker is not None:
                await self._unsubscribe(channel, waker)

    async def _unsubscribe(self, channel: str, waker: Waker) -> None:
        """This process no longer wants wake-ups for ``channel`` once its last subscription to it ends (best
        effort: an address left behind is forgotten when a publish finds nobody there)."""
        self._subscribed[channel] -= 1
        if self._subscribed[channel]:
            return
        del self._subscribed[channel]
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            try:
                await self._do(lambda db: db.execute("DELETE FROM wakers WHERE channel = ? AND address = ?",
                                                     (channel, waker.address)))
            except PresenceError:
                pass

    def urgent(self) -> SqlitePresence:
        return self._urgent or self

    async def aclose(self) -> None:
        async with self.lock:
            self.db.close()


@asynccontextmanager
async def open_sqlite_presence(path: str | Path) -> AsyncIterator[SqlitePresence]:
    """The presence store in the SQLite file ``path`` (made if missing), for the life of the block."""
    try:
        db = await trio.to_thread.run_sync(_connect, Path(path))
        try:
            urgent = await trio.to_thread.run_sync(_connect, Path(path))
        except BaseException:
            db.close()
            raise
    except sqlite3.Error as error:
        raise PresenceError(f"SQLite: cannot open {path}: {error}") from None
    presence = SqlitePresence(db)
    presence._urgent = SqlitePresence(urgent)
    presence.priority = presence._urgent.priority = Priority()
    presence._urgent.first = True
    try:
        async with open_waker() as waker:
            presence.waker = presence._urgent.waker = waker  # (the heartbeat subscribes to nothing: its
            yield presence  # publishes, if any, wake as the others')
    finally:
        await presence._urgent.aclose()
        await presence.aclose()
