"""A node that never comes back: its tables are listed ``unavailable`` for ``forget_after`` seconds after it
died, then no node lists them; if it does come back (same node id, same data directory) they are listed again.

Three ``Cluster``s on one in-process presence, in virtual time (trio's autojump clock): ten minutes of
heartbeats take no real time.
"""

from __future__ import annotations

import pytest
import trio

from server.protocol import Refusal
from server.cluster.node import Cluster
from server.cluster.presence import LocalPresence
from server.protocol import SeatInfo, TableInfo

HEARTBEAT, EXPIRY, FORGET = 1.0, 5.0, 60.0


class _Table:
    read_only = False

    def __init__(self, table: str) -> None:
        self.id = table
        self.over = trio.Event()
        self._info = TableInfo(table=table, name=table, game="flag_finish", mode="challenge", options={},
                               seats=[SeatInfo(0, "free"), SeatInfo(1, "free")], seq=0, status="waiting",
                               spectators=0, turn_time_ms=0, grace_ms=0)

    def info(self) -> TableInfo:
        return self._info


class _Lobby:
    def __init__(self, *tables: str) -> None:
        self.tables = {table: _Table(table) for table in tables}
        self.tournaments = None
        self.aliases: dict = {}
        self._next = 0


def node(presence, name: str, lobby: _Lobby) -> Cluster:
    cluster = Cluster(presence, name, f"ws://127.0.0.1/{name}", heartbeat=HEARTBEAT, expiry=EXPIRY,
                      forget_after=FORGET)
    cluster.lobby = lobby  # what it publishes, before it runs (``start``)
    return cluster


async def start(nursery, cluster: Cluster) -> trio.CancelScope:
    """Run ``cluster``'s heartbeat until the returned scope is cancelled (the node killed)."""
    scope = trio.CancelScope()

    async def run():
        with scope:
            await cluster.run(cluster.lobby)

    nursery.start_soon(run)
    await cluster.first_beat.wait()
    return scope


async def status(cluster: Cluster, table: str) -> str | None:
    return {info.table: info.status for info in await cluster.list_tables([])}.get(table)


async def test_a_dead_nodes_tables_leave_every_list_after_forget_after_and_come_back_with_it(autojump_clock):
    presence = LocalPresence()
    lobby = _Lobby("t100001")
    async with trio.open_nursery() as nursery:
        doomed = node(presence, "na", lobby)
        others = [node(presence, name, _Lobby()) for name in ("nb", "nc")]
        killed = await start(nursery, doomed)
        for other in others:
            await start(nursery, other)
        for other in others:
            assert await status(other, "t100001") == "waiting"

        await doomed.next_beat()
        killed.cancel()  # killed just after a heartbeat: silent from now on
        died = trio.current_time()
        await trio.sleep(EXPIRY + HEARTBEAT)
        for other in others:
            assert await status(other, "t100001") == "unavailable"
        await trio.sleep_until(died + EXPIRY + FORGET - HEARTBEAT)
        for other in others:
            assert await status(other, "t100001") == "unavailable"  # not forgotten a moment early
        with pytest.raises(Refusal) as refused:
            await others[0].locate("table", "t100001")
        assert refused.value.code == "table_unavailable"

        await trio.sleep_until(died + EXPIRY + FORGET + HEARTBEAT)
        for other in others:
            assert await status(other, "t100001") is None  # forgotten by every node
            assert [info.table for info in await other.list_tables([])] == []
        with pytest.raises(Refusal) as refused:  # a seat there still says why, rather than "no such table"
            await others[0].locate("table", "t100001")
        assert refused.value.code == "table_unavailable"

        back = node(presence, "na", lobby)  # restarted on the same data directory: the same node id
        await start(nursery, back)
        for other in others:
            assert await status(other, "t100001") == "waiting"
        nursery.cancel_scope.cancel()


async def test_a_node_stopped_cleanly_is_forgotten_after_forget_after_too(autojump_clock):
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        leaving = node(presence, "na", _Lobby("t100001"))
        other = node(presence, "nb", _Lobby())
        stopped = await start(nursery, leaving)
        await start(nursery, other)
        assert await status(other, "t100001") == "waiting"
        stopped.cancel()
        await leaving.leave()
        left = trio.current_time()
        assert await status(other, "t100001") == "unavailable"  # at once: it said it is going
        await trio.sleep_until(left + FORGET - HEARTBEAT)
        assert await status(other, "t100001") == "unavailable"
        await trio.sleep_until(left + FORGET + HEARTBEAT)
        assert await status(other, "t100001") is None
        nursery.cancel_scope.cancel()


async def test_forget_after_zero_lists_a_dead_nodes_tables_not_at_all(autojump_clock):
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        doomed = Cluster(presence, "na", "ws://127.0.0.1/na", heartbeat=HEARTBEAT, expiry=EXPIRY, forget_after=0)
        doomed.lobby = _Lobby("t100001")
        other = node(presence, "nb", _Lobby())
        killed = await start(nursery, doomed)
        await start(nursery, other)
        assert await status(other, "t100001") == "waiting"
        killed.cancel()
        await trio.sleep(EXPIRY + HEARTBEAT)
        assert await status(other, "t100001") is None
        nursery.cancel_scope.cancel()
