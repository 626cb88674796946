"""The relay's publishing side (``server/cluster/relay.py``), on the table's node: which of its tables other nodes
follow, their spectator streams published through the store, and a new follower answered at once.

- **At each heartbeat** (``Publisher.refresh``) it looks up which of its tables (or their aliases: ``demo``) are
  followed (``followed:<table>``), hooks those tables' spectator stream (``table.stream.relay``) and unhooks the
  others, and reads every following node's count (``server/cluster/relaycount.py``: the repair of the counts).
- **A follower that starts** and finds no snapshot kept in the store (``relaysnap:<table>``: nobody followed the
  table lately) marks the table followed and asks the table's node on its counts channel (a ``Count`` with
  ``first``); the publisher looks again at once (``answer``), hooks the table and publishes its snapshot, so the
  first ``watching`` comes within one publish's wake-up (``server/cluster/localwake.py`` for ``serve --workers``,
  Redis's own pub/sub for ``--cluster``), not at the table's node's next heartbeat (up to a second later).
  Asked for a table it already publishes, it publishes a snapshot again (the one kept may have expired).
"""

from __future__ import annotations

from typing import Any

import msgspec
import trio

from .presence import Presence, PresenceError
from ..protocol import Snapshot
from ..protocol import Presence as Present
from .relaycount import Counts, recount
from .relaykeys import JSON, NO_SNAPSHOT, Frame, channel, followed_key, snapshot_key, watchers_key
from ..table.present import shown as presence_shown
from ..table.spectating import current_snapshot

QUEUE = 4096  # frames waiting to be published; past it a frame is dropped (the next snapshot closes the gap)


class Publisher:
    """The table's node: publishes the spectator stream of each of its tables that another node follows."""

    def __init__(self, presence: Presence, expiry: float, node: str = "") -> None:
        self.presence = presence
        self.expiry = expiry
        self.node = node
        self.counts = Counts(presence, node, expiry, self.ask)  # the other nodes' counts of its tables, as they come
        self.hooked: dict[str, set[str]] = {}  # table id -> the names it is followed under
        self.aliased: dict[str, str] = {}  # alias -> the table it named at the last look-up
        self._send, self._receive = trio.open_memory_channel[tuple[str, bytes, bytes | None]](QUEUE)
        self.lobby = None  # what the last heartbeat looked up, and the other live nodes then (for ``answer``)
        self.nodes: list[str] = []
        self.store = presence  # the heartbeat's way to the store: every look-up goes by it (none waits on clients')
        self.asked: set[str] = set()  # names a new follower asked for since the last look-up
        self._asked = trio.Event()
        self._looking = trio.Lock()  # one look-up at a time: the heartbeat's or an answer's

    def ask(self, name: str) -> None:
        """A follower of ``name`` has started and the store keeps no snapshot of it: look again now."""
        self.asked.add(name)
        self._asked.set()

    async def answer(self) -> None:
        """Look up the followed tables as soon as a new follower asks (between heartbeats), for as long as the
        node runs. Before the node's first heartbeat there is nothing to look up: that heartbeat does it."""
        while True:
            await self._asked.wait()
            self._asked = trio.Event()
            if self.lobby is None:
                continue
            try:
                await self.refresh(self.lobby, self.nodes, self.store)
            except PresenceError:
                pass  # (the next heartbeat looks again)

    async def refresh(self, lobby, nodes: list[str] = (), store: Presence | None = None) -> None:
        """Hook the tables followed now, unhook the others, and count the spectators ``nodes`` (the other live
        nodes) serve of each (one heartbeat's look-up, through the heartbeat's ``store``, or one asked for by a
        new follower)."""
        async with self._looking:
            self.lobby, self.nodes, self.store = lobby, list(nodes), store or self.store
            asked, self.asked = self.asked, set()
            await self._refresh(lobby, nodes, asked, self.store)

    async def _refresh(self, lobby, nodes: list[str], asked: set[str], store: Presence) -> None:
        moved = [snapshot_key(alias) for alias, table_id in lobby.aliases.items()
                 if self.aliased.get(alias, table_id) != table_id]
        if moved:  # (a node that starts following the alias then waits for its new table's snapshot)
            await store.delete(*moved)
        self.aliased = dict(lobby.aliases)
        names = {table.id: [table.id] for table in lobby.tables.values() if not table.read_only}
        for alias, table_id in lobby.aliases.items():
            if table_id in names:
                names[table_id].append(alias)
        flat = [(table_id, name) for table_id, all_names in names.items() for name in all_names]
        marks = await store.get_many([followed_key(name) for _, name in flat])
        followed: dict[str, set[str]] = {}
        for (table_id, name), mark in zip(flat, marks):
            if mark is not None:
                followed.setdefault(table_id, set()).add(name)
        for table_id in self.hooked.keys() - followed.keys():
            table = lobby.tables.get(table_id)
            if table is not None:
                table.stream.relay = None
                recount(table, {})
        counted = [(table_id, watchers_key(name, node)) for table_id, under in followed.items() for name in under
                   for node in nodes]
        self.counts.heard = {}
        counts = await store.get_many([key for _, key in counted]) if counted else []
        heard = self.counts.heard  # (published while the store was read: newer than what it said)
        followers: dict[str, dict[str, int]] = {table_id: {} for table_id in followed}
        for (table_id, key), count in zip(counted, counts):
            count = heard.get(key, int(count) if count is not None and count.isdigit() else 0)
            if count:
                followers[table_id][key] = count
        for table_id, under in followed.items():
            table = lobby.tables[table_id]
            recount(table, followers[table_id])
            if self.hooked.get(table_id) != under or table.stream.relay is None or under & asked:
                table.stream.relay = self._hook(table, sorted(under))
                table.stream.relay([presence_shown(table)], current_snapshot(table))  # a new follower's first
        self.hooked = followed
        self.counts.tables = {name: lobby.tables[table_id] for table_id, under in followed.items() for name in under}

    def _hook(self, table, names: list[str]):
        game = table.game.info.name
        # what the store keeps for a node that starts following: the last snapshot and who is at the table, as
        last_snapshot = last_here = None  # published, with the other nodes' counts it counted (not a later frame's)
        last_counted: dict[str, int] = {}

        def publish(messages: list[Any], snapshot: Snapshot | None) -> None:
            nonlocal last_snapshot, last_here, last_counted
            encoded = [msgspec.Raw(JSON.encoder.encode(m)) for m in messages]
            here = [raw for message, raw in zip(messages, encoded) if type(message) is Present]
            counted = table.stream.counted  # (as the presence in ``messages`` counted them)
            if here:
                last_here, last_counted = here[-1], counted
            if snapshot is not None:
                last_snapshot = msgspec.Raw(JSON.encoder.encode(snapshot))
            frame = JSON.encoder.encode(Frame(table=table.id, game=game, messages=encoded, counted=counted,
                                              snapshot=last_snapshot if snapshot is not None else NO_SNAPSHOT,
                                              node=self.node))
            snap = JSON.encoder.encode(Frame(table=table.id, game=game, messages=[last_here] if last_here else [],
                                             snapshot=last_snapshot, counted=last_counted, node=self.node)) \
                if last_snapshot is not None and (snapshot is not None or here) else None
            for name in names:
                try:
                    self._send.send_nowait((name, frame, snap))
                except trio.WouldBlock:
                    return  # the store is behind: followers resync from the next snapshot
        return publish

    async def run(self) -> None:
        async for name, frame, snap in self._receive:
            try:
                await self.presence.publish(channel(name), frame.decode())
                if snap is not None:
                    await self.presence.set(snapshot_key(name), snap.decode(), ttl_ms=int(self.expiry * 1000 * 12))
            except PresenceError:
                pass  # followers see a gap and are caught up by the next snapshot


