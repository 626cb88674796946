"""One node of a cluster: several `photofinish serve` processes that share one lobby through a ``Presence``.
``Cluster`` is the node's ``Directory`` (``server/cluster/directory.py``): the rest of the server uses it as it would a
server alone's ``LocalDirectory``, and never asks which one it has.

What it owns, and the keys it keeps (all under ``photofinish:``):

- **Registration and heartbeat.** ``nodes`` (a hash: node id -> public URL) says who has ever joined;
  ``alive:<node>`` (a ``NodeLoad``) expires ``expiry`` seconds after the node's last heartbeat, so a dead node
  drops out of the directory within that time; ``known:<node>`` expires ``forget_after`` seconds after that:
  while it lasts the dead node's tables are listed ``unavailable``, after it they are not listed at all. The
  node id is kept in the data directory (``node.id``), so a node restarted on the same data directory is the
  same node and its tables are its own again.
- **Claims.** ``table:<id>`` and ``tournament:<id>`` name the one node a table or tournament lives on. A node
  claims a table or tournament before it opens it (``SET NX``: atomically, once; ``locate`` finds it by this
  from any node once its create is answered); one reopened from its log after a restart is reclaimed (the
  claim already names this node). Only another node's name on the key refuses a claim (``_claim``, the one
  claim every caller goes through): a refusal with nothing there is asked again (its two calls straddled a
  Redis restart). A node that leaves keeps its claims (its heartbeat stops first).
- **Ids** (see "Ids" below) come from the node's own id, not from the store: nothing in Redis is needed to
  keep them apart, so nothing Redis forgets can make two nodes hand out the same one.
- **The directory.** ``tables:<node>`` and ``tournaments:<node>`` (hashes: id -> ``TableInfo`` /
  ``TournamentInfo``) are what the node publishes with each heartbeat, only what changed (and a new one at
  once, before its create is answered: ``announce``). Every node's lists are its own tables live and the
  others' from these hashes; a table whose node is not alive is listed with status ``unavailable`` until the
  node is forgotten (dead for ``forget_after`` seconds: a node that never comes back); a forgotten node that
  comes back on its data directory publishes its tables again.
- **Load and placement.** A node's load is its open tables plus its connections / 3 (a table's usual seats);
  a ``create_table`` is sent (``redirect``) to the least loaded live node when that node's load is lower by
  more than 1, else the table opens here. A redirected create comes back ``placed`` and always opens where it
  lands, so a create moves at most once.

Nothing on an action's path comes here: only creating, finding (``locate``: for a seat, a resume or a watch of
a table that is not on this node) and listing do. When the presence store cannot be reached the node keeps
running its tables, lists only its own, and refuses new tables (``cluster_unavailable``) until it is back;
its next heartbeat then registers it again, reclaims its tables and republishes its directory.

Ids: ``server/cluster/nodeid.py`` (a node numbers its own, needing nothing from the store).
"""

from __future__ import annotations

import logging
from typing import Callable
import msgspec
import trio


from .lists import listed
from .keys import NODES, PREFIX
from .nodeid import ID_SPACE, node_mark
from ..notices import say_peer_changes
from .presence import Presence, PresenceError
from .relay import Relay
from ..protocol import Code, Refusal, TableInfo, TournamentInfo

logger = logging.getLogger(__name__)
SEATS_PER_TABLE = 3  # connections that count as one table's load


class NodeLoad(msgspec.Struct, frozen=True):
    """What a node publishes with each heartbeat (the value of ``alive:<node>``)."""

    url: str
    tables: int
    connections: int

    @property
    def load(self) -> float:
        return self.tables + self.connections / SEATS_PER_TABLE


_encode = msgspec.json.Encoder().encode
_decode_load = msgspec.json.Decoder(NodeLoad).decode
_decode_table = msgspec.json.Decoder(TableInfo).decode
_decode_tournament = msgspec.json.Decoder(TournamentInfo).decode


class Cluster:
    """The ``Directory`` (``server/cluster/directory.py``) of node ``node`` in the cluster whose store is ``presence``;
    clients are sent to it at ``public_url`` (None: the URL ``run`` is given once the server listens). Run
    ``run`` in a nursery: it heartbeats every ``heartbeat`` seconds; silent for ``expiry`` seconds it is dead,
    and ``forget_after`` seconds later its tables are no longer listed."""

    spans_nodes = True

    def __init__(self, presence: Presence, node: str, public_url: str | None = None, heartbeat: float = 1.0,
                 expiry: float = 5.0, forget_after: float = 600.0) -> None:
        self.presence = presence  # for what clients ask (a create's claim, a locate, a list) ...
        self.store = presence.urgent()  # ... and for the heartbeat: a way of its own, which no client's waits on
        self.lobby = None  # what this node holds, read at each heartbeat (given to ``run``)
        self.node = node
        self.url = public_url or ""
        self.connections: Callable[[], int] = lambda: 0
        self.heartbeat = heartbeat
        self.expiry = expiry
        self.forget_after = forget_after
        self.online = False  # the last heartbeat reached the store
        self.mark = node_mark(node)  # the last 15 digits of every id this node numbers
        self.peers: dict[str, NodeLoad] = {}  # the other live nodes, as of the last heartbeat
        self.claimed: dict[str, set[str]] = {"table": set(), "tournament": set()}
        self.fresh: dict[str, set[str]] = {"table": set(), "tournament": set()}  # claimed by ``claim`` since the join
        self.conflicts: set[str] = set()  # ids another node holds (reported once)
        self.published: dict[str, dict[str, bytes]] = {"tables": {}, "tournaments": {}}
        self.announced: dict[str, set[str]] = {"tables": set(), "tournaments": set()}  # published at creation
        self.beats = 0
        self.joins = 0  # times this node (re)joined the store: a Redis restarted empty forgot what it held
        self.first_beat = trio.Event()  # set after the first heartbeat, reached or not (tests, startup)
        self.pulse = trio.Event()  # set (and replaced) after every heartbeat: ``await cluster.next_beat()``
        self.beating = trio.CancelScope()  # the heartbeat, cancelled by ``leave``
        self.relay = Relay(presence, expiry, node)  # spectators of other nodes' tables served here, and ours there

    # ------------------------------------------------------------------ the heartbeat

    async def run(self, lobby, url: str = "", connections: Callable[[], int] = lambda: 0,
                  task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Publish what ``lobby`` holds (its tables, its hub's tournaments) and this node's load (its tables and
        ``connections``) at every heartbeat, reachable at ``url`` unless a public URL was given; started once
        the first heartbeat has been given (reached or not). Heartbeat until ``leave``: a node that has left
        gives no beat more (one during its shutdown, its tables stopped and let go, released their claims: a
        restarted director took them for nobody's)."""
        self.lobby, self.connections = lobby, connections
        self.url = self.url or url
        with self.beating:
            async with trio.open_nursery() as nursery:
                await nursery.start(self.relay.run)
                while True:
                    await self.beat()
                    if not self.first_beat.is_set():
                        task_status.started()
                    self.first_beat.set()
                    self.pulse.set()
                    self.pulse = trio.Event()
                    await trio.sleep(self.heartbeat)

    async def next_beat(self) -> None:
        """Wait until a whole heartbeat begun after this call has been given (tests)."""
        for _ in range(2):
            await self.pulse.wait()

    async def beat(self) -> None:
        """One heartbeat: register again if the store was away, claim and publish, read the other nodes."""
        was, rejoined = self.online, False
        try:
            with trio.fail_after(max(self.heartbeat, 1.0) * 2):
                if not was or not await self._read_peers():  # away, or a Redis restarted empty forgot us
                    await self._join()
                    await self._read_peers()
                    rejoined = was
                await self.store.set(f"{PREFIX}alive:{self.node}", _encode(self._load()).decode(),
                                        ttl_ms=int(self.expiry * 1000))
                await self.store.set(f"{PREFIX}known:{self.node}", self.url,
                                        ttl_ms=int((self.expiry + self.forget_after) * 1000))
                await self._reconcile("table", "tables", self._local_tables())
                await self._reconcile("tournament", "tournaments", self._local_tournaments())
                for alias in self.lobby.aliases:  # `demo`, `open`: a client of any node is sent to the one here
                    await self.holds("table", alias, self.store)
                await self.relay.publisher.refresh(self.lobby, list(self.peers), self.store)
            self.online = True
            if rejoined:
                logger.info(f"in the cluster again as node {self.node}: its store had forgotten it; all republished")
            if not was:
                logger.info(f"in the cluster as node {self.node} ({self.url}); "
                            f"{len(self.peers)} other node(s) alive")
        except (PresenceError, trio.TooSlowError) as error:
            self.online = False
            if was or self.beats == 0:
                logger.info(f"cannot reach the cluster's Redis ({error}): running tables go on, no new "
                            "ones until it is back")
        self.beats += 1

    async def _join(self) -> None:
        """(Again) in the store: the registration, everything claimed and published anew (a Redis that
        restarted has forgotten it; a node notices at its next heartbeat, from its registration being gone)."""
        await self.store.hset(NODES, {self.node: self.url})
        for kind in self.claimed:
            self.claimed[kind] = set()
            self.fresh[kind] = set()
        self.published = {"tables": {}, "tournaments": {}}
        await self.store.delete(f"{PREFIX}tables:{self.node}", f"{PREFIX}tournaments:{self.node}")
        self.joins += 1

    def _load(self) -> NodeLoad:
        tables = sum(1 for table in self.lobby.tables.values() if not table.over.is_set())
        return NodeLoad(url=self.url, tables=tables, connections=self.connections())

    def _local_tables(self) -> dict[str, bytes]:
        return {info.table: _encode(info) for info in (t.info() for t in self.lobby.tables.values())
                if not info.table.startswith("p")}  # playbacks are this node's own read-only copies

    def _local_tournaments(self) -> dict[str, bytes]:
        hub = self.lobby.tournaments
        return {} if hub is None else {info.tournament: _encode(info) for info in hub.list()}

    async def _reconcile(self, kind: str, directory: str, local: dict[str, bytes]) -> None:
        """Claim what is new here, release what is gone, publish what changed."""
        claimed = self.claimed[kind]
        announced = set(self.announced[directory])  # as of ``local``: a table announced later is not gone
        fresh, self.fresh[kind] = self.fresh[kind], set()  # (the store said they are ours as they were created:
        claimed |= fresh & local.keys()  # not asked again, or a flood of creates made each heartbeat as long)
        for key in local.keys() - claimed:
            if key in self.conflicts:
                continue
            if await self.holds(kind, key, self.store):
                claimed.add(key)
            else:
                self.conflicts.add(key)
                logger.info(f"{kind} {key} is claimed by another node; not listed from here")
        gone = (claimed | announced) - local.keys()
        if gone:
            await self.store.delete(*(f"{PREFIX}{kind}:{key}" for key in gone))
            claimed -= gone
        published = self.published[directory]
        changed = {key: value.decode() for key, value in local.items()
                   if key in claimed and published.get(key) != value}
        removed = [key for key in published.keys() | announced if key not in claimed]
        hash_key = f"{PREFIX}{directory}:{self.node}"
        await self.store.hset(hash_key, changed)
        await self.store.hdel(hash_key, *removed)
        self.published[directory] = {key: value for key, value in local.items() if key in claimed}
        self.announced[directory] -= announced

    async def holds(self, kind: str, key: str, store: Presence | None = None) -> bool:
        """Claim ``key`` unless a node has it; whether this node holds it now (``PresenceError`` as ``_claim``)."""
        return await self._claim(kind, key, store or self.presence) == self.node

    async def holder(self, kind: str, key: str) -> str | None:
        """Claim ``key`` unless a node has it; the node that holds it now, or None when the store cannot say."""
        try:
            return await self._claim(kind, key, self.presence)
        except PresenceError:
            return None

    async def _claim(self, kind: str, key: str, store: Presence) -> str:
        """The one claim (``SET NX``) of the cluster: this node's name on ``key`` unless a node's is there; returns
        the node whose name is there now. A claim refused with nothing there is asked again: its two calls
        straddled a Redis that restarted empty (the refusal from the old one, which held our own claim, the empty
        read from the new one), or a node let the key go between them. Only another node's name there is a
        refusal; refused three times with nothing there, ``PresenceError`` (the caller tries again when the store
        answers sensibly)."""
        name = f"{PREFIX}{kind}:{key}"
        for _ in range(3):
            if await store.set(name, self.node, only_new=True):
                return self.node
            holder = await store.get(name)
            if holder is not None:
                return holder
        raise PresenceError(f"{name}: a claim refused three times with nothing there")

    async def owner(self, kind: str, key: str) -> str | None:
        """The node whose claim ``key`` has, or None; waits while the store is away."""
        while True:
            try:
                return await self.presence.get(f"{PREFIX}{kind}:{key}")
            except PresenceError:
                await trio.sleep(self.heartbeat)

    async def _read_peers(self) -> bool:
        """The other live nodes and their loads; returns whether this node is still registered."""
        nodes = await self.store.hgetall(NODES)
        others = sorted(node for node in nodes if node != self.node)
        loads = await self.store.get_many([f"{PREFIX}alive:{node}" for node in others])
        peers = {node: _decode_load(raw) for node, raw in zip(others, loads) if raw is not None}
        if self.online:  # what changed since the last heartbeat (the first one says how many are alive)
            say_peer_changes(self.peers, peers, self.expiry)
        self.peers = peers
        return self.node in nodes

    async def leave(self) -> None:
        """A clean stop: this node is not alive from now on (its tables show ``unavailable`` until it is back,
        or for ``forget_after`` seconds). The heartbeat stops first: its tables, stopped next, keep their claims
        (they are this node's again when it restarts)."""
        self.beating.cancel()
        try:
            with trio.move_on_after(1.0):
                await self.presence.delete(f"{PREFIX}alive:{self.node}")
                await self.presence.set(f"{PREFIX}known:{self.node}", self.url,
                                        ttl_ms=max(1, int(self.forget_after * 1000)))
        except PresenceError:
            pass

    # ------------------------------------------------------------------ ids

    def number(self, candidate: int) -> int:
        """The first number from ``candidate`` on that is this node's own (for a table or tournament id): at
        least ``ID_SPACE`` and ending in this node's mark (see "Ids" above). Needs nothing from the store."""
        candidate = max(candidate, ID_SPACE)
        return candidate + (self.mark - candidate) % ID_SPACE

    # ------------------------------------------------------------------ creating, finding, listing

    def require_online(self) -> None:
        if not self.online:
            raise Refusal(Code.CLUSTER_UNAVAILABLE, "this node cannot reach the cluster's Redis: its tables go on, "
                             "but it opens no new ones until Redis is back")

    def placement(self) -> str | None:
        """The URL of a live node to send a new table to (less loaded than this one by more than 1), or None:
        open it here."""
        self.require_online()
        if not self.peers:
            return None
        node, best = min(self.peers.items(), key=lambda item: (item[1].load, item[0]))
        if best.load < self._load().load - 1:
            self.peers[node] = msgspec.structs.replace(best, tables=best.tables + 1)  # until its next heartbeat
            return best.url
        return None

    def loads(self) -> dict[str, float]:
        """Each live node's load, this node's first, as of the last heartbeat (a tournament spreads its
        round's tables by them)."""
        return {self.node: self._load().load, **{node: peer.load for node, peer in self.peers.items()}}

    async def claim(self, kind: str, key: str) -> None:
        """Claim ``key`` for this node before it opens (``Refusal`` if the store is away or another node
        has it)."""
        self.require_online()
        joins = self.joins
        try:
            ours = await self.holds(kind, key)
        except PresenceError:
            self.online = False
            self.require_online()
        if not ours:
            raise Refusal(Code(f"{kind}_exists"), f"{kind} {key} exists on another node")
        if joins == self.joins:  # (the heartbeat that finds it open takes it as claimed, asking nothing; not
            self.fresh[kind].add(key)  # across a join: the store it was claimed in may have forgotten it)
        # not in self.claimed until the table is open: a heartbeat in between must not release it

    async def announce(self, info: TableInfo | TournamentInfo) -> None:
        """Put a table or tournament that has just opened here into the directory now, before its create is
        answered (the heartbeat keeps it there from then on). Without this a node that died between answering
        a create and its next heartbeat left a claimed table that no node's list showed, ever. Without the
        store it is left to the heartbeat, as everything is."""
        directory, key = (("tables", info.table) if isinstance(info, TableInfo)
                          else ("tournaments", info.tournament))
        try:
            await self.presence.hset(f"{PREFIX}{directory}:{self.node}", {key: _encode(info).decode()})
        except PresenceError:
            return
        self.announced[directory].add(key)  # the next heartbeat takes it over, or takes it out if it is gone

    async def release(self, kind: str, key: str) -> None:
        """Give up a claim made for a table that did not open after all."""
        self.fresh[kind].discard(key)
        try:
            await self.presence.delete(f"{PREFIX}{kind}:{key}")
        except PresenceError:
            pass

    async def follow(self, key: str):
        """A ``relay.Follower`` of table ``key``, which lives on another live node, to serve its spectators
        here; None when no other node has it (``locate``'s refusals when its node is down)."""
        found = await self._find("table", key)
        return None if found is None else self.relay.follow(key, found[0])

    async def locate(self, kind: str, key: str) -> str | None:
        """The public URL of the live node ``key`` lives on; None when no other node has it, ``Refusal``
        ``{kind}_unavailable`` when its node is down, ``cluster_unavailable`` without the store."""
        found = await self._find(kind, key)
        return None if found is None else found[1]

    async def _find(self, kind: str, key: str) -> tuple[str, str] | None:
        """``locate``'s: the node ``key`` lives on and its public URL."""
        try:
            owner = await self.presence.get(f"{PREFIX}{kind}:{key}")
            if owner is None or owner == self.node:
                return None
            alive = await self.presence.get(f"{PREFIX}alive:{owner}")
        except PresenceError:
            raise Refusal(Code.CLUSTER_UNAVAILABLE, f"no {kind} {key!r} on this node, and the cluster's Redis "
                             "cannot be reached to find it") from None
        if alive is None:
            raise Refusal(Code(f"{kind}_unavailable"), f"{kind} {key} lives on a node that is down; it comes back "
                             "when that node restarts")
        return owner, _decode_load(alive).url

    async def list_tables(self, local: list[TableInfo]) -> list[TableInfo]:
        """This node's tables as they are, then every other node's (``unavailable`` where its node is down);
        only this node's while the store cannot be reached."""
        return await listed(self.presence, self.node, "tables", local, _decode_table)

    async def list_tournaments(self, local: list[TournamentInfo]) -> list[TournamentInfo]:
        """As ``list_tables``, for tournaments."""
        return await listed(self.presence, self.node, "tournaments", local, _decode_tournament)
