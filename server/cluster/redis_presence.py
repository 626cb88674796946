"""``Presence`` on Redis, through coredis (its anyio back end runs under trio): what `serve --cluster` uses.

One client, opened by ``open_redis_presence(url)`` for the life of the server. Every call is bounded in time
(``timeout``) and any failure of the store (refused, reset, timed out, a wrong answer) is a ``PresenceError``;
coredis reconnects by itself on the next call, so a node notices Redis coming back at its next heartbeat.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import coredis
import trio

from .presence import PresenceError
from ..protocol.addresses import parse_redis_url


class RedisPresence:
    def __init__(self, client: coredis.Redis, timeout: float) -> None:
        self.client = client
        self.timeout = timeout

    async def _do(self, request):
        try:
            with trio.fail_after(self.timeout):
                return await request
        except (coredis.exceptions.RedisError, OSError, trio.TooSlowError) as error:
            raise PresenceError(f"Redis: {error or type(error).__name__}") from None

    async def set(self, key: str, value: str, *, ttl_ms: int | None = None, only_new: bool = False) -> bool:
        return bool(await self._do(self.client.set(key, value, px=ttl_ms,
                                                   condition=coredis.PureToken.NX if only_new else None)))

    async def get(self, key: str) -> str | None:
        return await self._do(self.client.get(key))

    async def get_many(self, keys: list[str]) -> list[str | None]:
        return list(await self._do(self.client.mget(keys))) if keys else []

    async def delete(self, *keys: str) -> None:
        if keys:
            await self._do(self.client.delete(list(keys)))

    async def incr(self, key: str, by: int = 1) -> int:
        return int(await self._do(self.client.incrby(key, by)))

    async def hset(self, key: str, mapping: dict[str, str]) -> None:
        if mapping:
            await self._do(self.client.hset(key, mapping))

    async def hdel(self, key: str, *fields: str) -> None:
        if fields:
            await self._do(self.client.hdel(key, list(fields)))

    async def hgetall(self, key: str) -> dict[str, str]:
        return dict(await self._do(self.client.hgetall(key)))

    async def hgetall_many(self, keys: list[str]) -> list[dict[str, str]]:
        if not keys:
            return []

        async def pipelined():
            async with self.client.pipeline(transaction=False) as pipe:
                requests = [pipe.hgetall(key) for key in keys]
            return [dict(await request) for request in requests]

        return await self._do(pipelined())

    async def publish(self, channel: str, message: str) -> None:
        await self._do(self.client.publish(channel, message))

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator:
        try:
            async with self.client.pubsub(channels=[channel], ignore_subscribe_messages=True) as pubsub:
                yield _Messages(pubsub)
        except (coredis.exceptions.RedisError, OSError) as error:
            raise PresenceError(f"Redis: {error}") from None

    def urgent(self) -> "RedisPresence":
        return self  # (no lock of ours queues the calls: Redis answers each in turn, in microseconds)

    async def aclose(self) -> None:
        pass


class _Messages:
    """The data of each message on a subscription, as an async iterator."""

    def __init__(self, pubsub) -> None:
        self.pubsub = pubsub

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        async for message in self.pubsub:
            if message["type"] == "message":
                return message["data"]
        raise StopAsyncIteration


@asynccontextmanager
async def open_redis_presence(url: str, timeout: float = 2.0) -> AsyncIterator[RedisPresence]:
    """A presence on the Redis at ``url`` (``redis://HOST:PORT[/DB]``) until the block ends. Does not wait
    for Redis to answer: a node starts while Redis is away and joins when it comes."""
    host, port, db = parse_redis_url(url)
    client = coredis.Redis(host=host, port=port, db=db, decode_responses=True, connect_timeout=timeout,
                           stream_timeout=timeout, client_name="photofinish")
    try:
        async with client:
            yield RedisPresence(client, timeout)
    except BaseExceptionGroup as group:  # coredis's task group wraps a failure of its own connections
        redis, rest = group.split((coredis.exceptions.RedisError, OSError))
        if rest is not None or redis is None:
            raise  # the server's own failure, not Redis's: it must show as it is
        raise PresenceError(f"Redis: {redis.exceptions[0]}") from None
