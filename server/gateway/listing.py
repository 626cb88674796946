"""The list of tables as a connection gets it: made in steps (a big lobby never stalls a table), encoded once,
and reused for a while once it is large."""

from __future__ import annotations

import math

import msgspec
import trio

from ..cluster.directory import Directory
from ..lobby import Lobby
from ..protocol import CODECS

CACHE_BYTES = 64 * 1024  # a list of tables this large is reused for ``Limits.tables_cache`` s (a smaller one: never)
MOST_PAGES = 8  # encoded pages of the cached list kept at once
LIST_STEP = 100  # tables listed or encoded between two checkpoints: a big lobby's list never stalls a table


async def encoded(items: list, encoding: str) -> msgspec.Raw:
    """``items`` encoded as one array, JSON in steps of ``LIST_STEP`` items with checkpoints between."""
    encoder = CODECS[encoding].encoder
    if encoding != "json" or len(items) <= LIST_STEP:
        return msgspec.Raw(encoder.encode(items))
    parts = []
    for start in range(0, len(items), LIST_STEP):
        parts.append(encoder.encode(items[start:start + LIST_STEP])[1:-1])
        await trio.lowlevel.checkpoint()
    return msgspec.Raw(b"[" + b",".join(parts) + b"]")


class TablesCache:
    """The list of tables, reused for ``ttl`` seconds once it is large (invalidated by nothing but time), with
    its pages already encoded: a lobby of a thousand tables asked for at a high rate is listed and encoded once
    per ``ttl`` for every connection. A small list (most events) is made afresh for each request."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self.until = -math.inf
        self.tables: list = []
        self.pages: dict[tuple, msgspec.Raw] = {}

    async def page(self, lobby: Lobby, directory: Directory, encoding: str, offset: int,
                   limit: int | None) -> tuple[msgspec.Raw, int]:
        """The tables ``offset`` to ``offset + limit`` encoded (``lobby``'s, then the other nodes' from
        ``directory``), and how many there are in all."""
        if trio.current_time() >= self.until:
            self.tables = await directory.list_tables(await lobby.list_in_steps(LIST_STEP))
            self.pages = {}
            whole = await encoded(self.tables, encoding)
            self.pages[(encoding, 0, None)] = whole
            large = len(whole) >= CACHE_BYTES
            self.until = trio.current_time() + self.ttl if large else -math.inf
        key = (encoding, offset, limit)
        raw = self.pages.get(key)
        if raw is None:
            if len(self.pages) >= MOST_PAGES:
                self.pages.clear()
            chosen = self.tables[offset:] if limit is None else self.tables[offset:offset + limit]
            raw = self.pages[key] = msgspec.Raw(CODECS[encoding].encoder.encode(chosen))
        return raw, len(self.tables)
