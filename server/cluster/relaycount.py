"""How many watch a table through other nodes (``server/cluster/relay.py``): each following node's count of its
spectators, reported to the table's node as it changes, so that the table's own spectators are told the new
number within tens of milliseconds rather than at the table's node's next heartbeat.

- **Reported** (the following node, ``Report``): as a spectator there comes or goes, its count is written to the
  store (``watchers:<table>:<node>``, renewed with its mark, so that a node killed is forgotten when it expires)
  and then published on the table's node's channel (``counts:<node>``; the frames say which node that is), at
  once and then at most every ``REPORT_EVERY_S`` with the count as it is by then: a thousand spectators coming at
  once cost a few writes, not a thousand.
- **Applied** (the table's node, ``Counts``): it subscribes to its own channel once, not once per table (a
  subscription to the SQLite store polls), and applies each count to the table followed under the name it gives
  (``recount``: the table is woken to tell its spectators, at most once a second as ever:
  ``spectating.tell_present``). A count for a table it does not publish yet waits for its heartbeat. The same
  channel carries a new follower's ask (``Count.first``): the table's node publishes the table at once
  (``server/cluster/relaypublish.py``), so that a first watch through another node waits for no heartbeat.
- **Repaired** (the table's node's heartbeat, ``relaypublish.Publisher.refresh``): every live node's count is read from
  the store there too, as before: what catches a count published while the store or this node's subscription
  was away, and what drops a node gone. A count heard while that read was under way wins over what it read.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable

import msgspec
import trio

from .presence import Presence, PresenceError

from .relaykeys import counts_channel as channel
from .relaykeys import watchers_key

REPORT_EVERY_S = 0.05  # a following node reports a table's count at most this often (the first change at once)


class Count(msgspec.Struct):
    """One following node's spectators of the table followed under ``name``, as a message."""

    name: str
    node: str
    count: Annotated[int, msgspec.Meta(ge=0)]
    first: bool = False  # not a count: a follower that has just started asks for the table's snapshot now


_encode = msgspec.json.Encoder().encode
_count = msgspec.json.Decoder(Count)


def recount(table, counted: dict[str, int]) -> None:
    """The spectators other nodes serve of ``table``, each node's as it last reported them: where their number
    changed the table is woken to tell its people, even a table where nothing else happens (a finished one)."""
    from ..table import intents

    before = table.stream.followers
    table.stream.counted = counted
    if table.stream.followers != before:
        table.submit_nowait(intents.Recounted())


class Counts:
    """The table's node: the counts the other nodes publish for its tables, applied as they come."""

    def __init__(self, presence: Presence, node: str, expiry: float, ask: Callable[[str], None] = lambda name: None) -> None:
        self.presence = presence
        self.ask = ask  # called with the name a new follower asks for (``Publisher.ask``)
        self.node = node
        self.expiry = expiry
        self.tables: dict[str, Any] = {}  # name -> table, for each name a table here is published under (relay)
        self.heard: dict[str, int] = {}  # watchers key -> count, heard since the heartbeat's read began

    async def run(self) -> None:
        """Apply every count published for this node's tables, for as long as the node runs; the store away
        (``PresenceError``) ends nothing: it subscribes again a beat later (the heartbeat reads what it missed)."""
        if not self.node:
            return
        while True:
            try:
                async with self.presence.subscribe(channel(self.node)) as messages:
                    async for raw in messages:
                        self.apply(raw)
            except* PresenceError:
                pass
            await trio.sleep(self.expiry / 5)

    def apply(self, raw: str) -> None:
        try:
            count = _count.decode(raw)
        except msgspec.DecodeError:  # (not one of ours: a node of another version)
            return
        if count.first:
            self.ask(count.name)
            return
        key = watchers_key(count.name, count.node)
        self.heard[key] = count.count
        table = self.tables.get(count.name)
        if table is not None:
            counted = {other: n for other, n in table.stream.counted.items() if other != key}
            if count.count:
                counted[key] = count.count
            recount(table, counted)


class Report:
    """A following node's count of the spectators of the table it follows as ``name``: ``changed()`` as one
    comes or goes, ``run`` in the follower's nursery."""

    def __init__(self, presence: Presence, name: str, node: str, expiry: float, count: Callable[[], int]) -> None:
        self.presence = presence
        self.name = name
        self.node = node
        self.expiry = expiry
        self.count = count  # the spectators here now
        self.owner = ""  # the table's node, as its frames say: on whose channel the count is published
        self._changed = trio.Event()

    def changed(self) -> None:
        self._changed.set()

    async def run(self) -> None:
        reported = None
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            count = self.count()
            if count != reported:
                try:
                    await self.write(count)
                    reported = count
                except PresenceError:
                    pass  # (the mark's next tick writes it, and the table's node reads it at its heartbeat)
            await trio.sleep(REPORT_EVERY_S)

    async def write(self, count: int) -> None:
        """The count in the store (what the table's node's heartbeat reads), then to the table's node at once."""
        await self.presence.set(watchers_key(self.name, self.node), str(count), ttl_ms=int(self.expiry * 1000))
        if self.owner:
            await self.presence.publish(channel(self.owner),
                                        _encode(Count(name=self.name, node=self.node, count=count)).decode())

    async def ask(self) -> None:
        """A follower that has just started, with no snapshot of the table in the store: the table's node asked
        to publish one now (``server/cluster/relaypublish.py``) rather than at its next heartbeat."""
        if self.owner:
            await self.presence.publish(channel(self.owner),
                                        _encode(Count(name=self.name, node=self.node, count=0, first=True)).decode())

    async def gone(self) -> None:
        """Nobody here watches any more: the count taken out of the store, and the table's node told so."""
        await self.presence.delete(watchers_key(self.name, self.node))
        if self.owner:
            await self.presence.publish(channel(self.owner),
                                        _encode(Count(name=self.name, node=self.node, count=0)).decode())
