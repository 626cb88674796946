"""Presence: the one narrow interface the cluster's directory is kept behind (Colyseus's ``Presence``).

Keys with an optional expiry, hashes, a counter, and publish/subscribe; values are strings. Two
implementations: ``LocalPresence`` here (in memory, one process: several nodes in one trio run share one, as
the tests do) and ``RedisPresence`` (``server/cluster/redis_presence.py``, coredis) for nodes in several processes or
machines. ``server/cluster/node.py`` is the only user and never knows which one it has.

Every call may raise ``PresenceError`` (the store cannot be reached); the caller goes on without it. Nothing
here is a store of record: the table logs are.
"""

from __future__ import annotations

import math
from contextlib import asynccontextmanager
from typing import AsyncIterator, Protocol

import trio


class PresenceError(Exception):
    """The presence store cannot be reached (or answered nonsense): nothing was read or changed there."""


class Presence(Protocol):
    async def set(self, key: str, value: str, *, ttl_ms: int | None = None, only_new: bool = False) -> bool:
        """Set ``key``; with ``only_new`` only if it does not exist (atomically). True if it was set."""

    async def get(self, key: str) -> str | None: ...

    async def get_many(self, keys: list[str]) -> list[str | None]: ...

    async def delete(self, *keys: str) -> None: ...

    async def incr(self, key: str, by: int = 1) -> int:
        """Add ``by`` to the counter at ``key`` (0 if absent) atomically; returns the new value."""

    async def hset(self, key: str, mapping: dict[str, str]) -> None: ...

    async def hdel(self, key: str, *fields: str) -> None: ...

    async def hgetall(self, key: str) -> dict[str, str]: ...

    async def hgetall_many(self, keys: list[str]) -> list[dict[str, str]]:
        """Several hashes in one round trip."""

    async def publish(self, channel: str, message: str) -> None: ...

    def subscribe(self, channel: str):
        """``async with presence.subscribe(channel) as messages: async for message in messages``: every message
        published on ``channel`` after the subscription, in order."""

    def urgent(self) -> "Presence":
        """The same store by a way that no other caller's requests queue on: the heartbeat's, so that a flood
        of clients' writes never makes a node miss its heartbeat's deadline (SQLite: a connection of its own)."""

    async def aclose(self) -> None: ...


class LocalPresence:
    """In memory, for one process. Expiry follows ``trio.current_time()``, so tests run it in virtual time.
    ``down`` makes every call raise ``PresenceError``, as a store that cannot be reached does (for tests)."""

    def __init__(self) -> None:
        self.values: dict[str, str | dict[str, str]] = {}
        self.expires: dict[str, float] = {}
        self.subscribers: dict[str, set[trio.MemorySendChannel]] = {}
        self.down = False

    def _check(self) -> None:
        if self.down:
            raise PresenceError("the presence store is down")

    def _live(self, key: str):
        at = self.expires.get(key)
        if at is not None and trio.current_time() >= at:
            self.values.pop(key, None)
            self.expires.pop(key, None)
        return self.values.get(key)

    async def set(self, key: str, value: str, *, ttl_ms: int | None = None, only_new: bool = False) -> bool:
        self._check()
        if only_new and self._live(key) is not None:
            return False
        self.values[key] = str(value)
        if ttl_ms is not None:
            self.expires[key] = trio.current_time() + ttl_ms / 1000
        else:
            self.expires.pop(key, None)
        return True

    async def get(self, key: str) -> str | None:
        self._check()
        value = self._live(key)
        return value if isinstance(value, str) else None

    async def get_many(self, keys: list[str]) -> list[str | None]:
        return [await self.get(key) for key in keys]

    async def delete(self, *keys: str) -> None:
        self._check()
        for key in keys:
            self.values.pop(key, None)
            self.expires.pop(key, None)

    async def incr(self, key: str, by: int = 1) -> int:
        self._check()
        value = int(self._live(key) or 0) + by
        self.values[key] = str(value)
        return value

    async def hset(self, key: str, mapping: dict[str, str]) -> None:
        self._check()
        current = self._live(key)
        if not isinstance(current, dict):
            current = self.values[key] = {}
        current.update(mapping)

    async def hdel(self, key: str, *fields: str) -> None:
        self._check()
        current = self._live(key)
        if isinstance(current, dict):
            for name in fields:
                current.pop(name, None)

    async def hgetall(self, key: str) -> dict[str, str]:
        self._check()
        current = self._live(key)
        return dict(current) if isinstance(current, dict) else {}

    async def hgetall_many(self, keys: list[str]) -> list[dict[str, str]]:
        return [await self.hgetall(key) for key in keys]

    async def publish(self, channel: str, message: str) -> None:
        self._check()
        for send in list(self.subscribers.get(channel, ())):
            send.send_nowait(message)

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[trio.MemoryReceiveChannel]:
        self._check()
        send, receive = trio.open_memory_channel[str](math.inf)
        self.subscribers.setdefault(channel, set()).add(send)
        try:
            yield receive
        finally:
            self.subscribers[channel].discard(send)

    def urgent(self) -> "LocalPresence":
        return self  # (nothing queues here)

    async def aclose(self) -> None:
        pass
