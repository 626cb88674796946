"""The directory: what the server needs to know of where tables and tournaments live, behind one seam.

The rest of the server never asks whether it is one process or a node of a cluster (Colyseus's default
``LocalPresence`` and its ``RedisPresence`` behind one interface: the same code runs on either). It numbers
ids, claims an id before the table or tournament opens (``claim``, ``holder``), lets go of one that did not open
(``release``), puts a new one in the lists at once (``announce``), finds the node of one that is not here
(``locate``, ``owner``), lists the tables and tournaments of every node (``list_tables``, ``list_tournaments``),
places a new table (``placement``, ``loads``), and leaves when the server stops (``leave``).

Two implementations: ``LocalDirectory`` here, the default, for a server alone (every table is here; ids are
``t1``, ``t2``, ...; a claim is a set in memory), and ``Cluster`` (``server/cluster/node.py``), one node of several
sharing a ``Presence`` (in memory or on Redis). ``tests/server/test_directory.py`` runs one contract against
both.
"""

from __future__ import annotations

from typing import Callable, Protocol

import trio


from ..protocol import Code, Refusal, TableInfo, TournamentInfo

KINDS = ("table", "tournament")


class Directory(Protocol):
    node: str  # this server's name among the nodes ("local" for a server alone)
    online: bool  # new tables may be claimed now (a cluster node that cannot reach its store: False)
    peers: dict  # the other live nodes, as of the last heartbeat (empty for a server alone)
    spans_nodes: bool  # tables may live on other nodes: a tournament's are asked of them and followed there

    async def run(self, lobby, url: str = "", connections: Callable[[], int] = lambda: 0,
                  task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Keep the directory up to date with what ``lobby`` holds until ``leave`` (a cluster node's heartbeat),
        clients reaching this server at ``url``; started once the directory is ready (``nursery.start``)."""

    def number(self, candidate: int) -> int:
        """The first id number from ``candidate`` on that this node may hand out (a table's or tournament's)."""

    def require_online(self) -> None:
        """``Refusal`` ``cluster_unavailable`` when no new table or tournament may be claimed now."""

    def placement(self) -> str | None:
        """The URL of another node a new table should open on instead (``redirect``), or None: here."""

    def loads(self) -> dict[str, float]:
        """Each live node's load, this one's first (a tournament spreads a round's tables by them)."""

    async def claim(self, kind: str, key: str) -> None:
        """Claim ``key`` for this node before it opens: ``Refusal`` ``{kind}_exists`` if another node has it,
        ``cluster_unavailable`` without the store."""

    async def holder(self, kind: str, key: str) -> str | None:
        """Claim ``key`` unless a node has it; the node that has it now (this one: open it here), or None when
        the store cannot say (open it here: it is claimed once the store is back)."""

    async def owner(self, kind: str, key: str) -> str | None:
        """The node that holds ``key``'s claim (None: nobody); waits while the store is away."""

    async def release(self, kind: str, key: str) -> None:
        """Give up the claim on ``key`` (it did not open after all)."""

    async def announce(self, info: TableInfo | TournamentInfo) -> None:
        """List a table or tournament that has just opened here at once, before its create is answered."""

    async def locate(self, kind: str, key: str) -> str | None:
        """The URL of the live node ``key`` lives on; None when no other node has it; ``Refusal``
        ``{kind}_unavailable`` when its node is down, ``cluster_unavailable`` without the store."""

    async def follow(self, key: str):
        """Something a connection can watch table ``key`` through when it lives on another node (a cluster's
        ``relay.Follower``: its spectators are served here); None when it is not on another node."""

    async def list_tables(self, local: list[TableInfo]) -> list[TableInfo]:
        """This server's tables (``local``), then every other node's."""

    async def list_tournaments(self, local: list[TournamentInfo]) -> list[TournamentInfo]:
        """This server's tournaments (``local``), then every other node's."""

    async def leave(self) -> None:
        """A clean stop: the directory is no longer kept up to date; this node's claims stay its own."""


class LocalDirectory:
    """The directory of a server alone: every table and tournament lives here. Claims are kept in memory so
    that an id is claimed once, as on a cluster; nothing is ever elsewhere (``locate`` finds nothing)."""

    node = "local"
    online = True
    spans_nodes = False

    def __init__(self) -> None:
        self.peers: dict = {}
        self.claims: dict[str, set[str]] = {kind: set() for kind in KINDS}  # a few bytes a table: its log is more

    async def run(self, lobby, url: str = "", connections: Callable[[], int] = lambda: 0,
                  task_status=trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()  # nothing to keep up to date: the lobby and the hub list themselves

    def number(self, candidate: int) -> int:
        return candidate

    def require_online(self) -> None:
        pass

    def placement(self) -> str | None:
        return None

    def loads(self) -> dict[str, float]:
        return {self.node: 0.0}

    async def claim(self, kind: str, key: str) -> None:
        if await self.holder(kind, key) != self.node:  # never: this node is the only one
            raise Refusal(Code(f"{kind}_exists"), f"{kind} {key} exists on another node")

    async def holder(self, kind: str, key: str) -> str | None:
        self.claims[kind].add(key)
        return self.node

    async def owner(self, kind: str, key: str) -> str | None:
        return self.node if key in self.claims[kind] else None

    async def release(self, kind: str, key: str) -> None:
        self.claims[kind].discard(key)

    async def announce(self, info: TableInfo | TournamentInfo) -> None:
        pass  # listed from the lobby and the hub themselves

    async def locate(self, kind: str, key: str) -> str | None:
        return None

    async def follow(self, key: str):
        return None

    async def list_tables(self, local: list[TableInfo]) -> list[TableInfo]:
        return list(local)

    async def list_tournaments(self, local: list[TournamentInfo]) -> list[TournamentInfo]:
        return list(local)

    async def leave(self) -> None:
        pass
