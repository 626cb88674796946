"""The ``Directory`` contract: a server alone (``LocalDirectory``) and a cluster node (``Cluster`` on the in-process
presence and on a real redis-server on loopback) answer the same calls the same way, as Colyseus runs one
driver test over each of its drivers. What only a cluster has (another node's claims) is checked on both
presences."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest
import trio

from server.protocol import Refusal
from server.cluster.node import Cluster
from server.cluster.directory import Directory, LocalDirectory
from server.cluster.presence import LocalPresence
from server.protocol import SeatInfo, TableInfo, TournamentInfo
from tests.server.redis_server import redis_server

KINDS = ["local", "cluster", "cluster-redis", "cluster-sqlite"]


class _Held:
    """What a server holds, as a directory reads it: no tables and no tournaments here."""

    tables: dict = {}
    tournaments = None
    aliases: dict = {}


@asynccontextmanager
async def presence_of(kind: str, tmp_path):
    if kind == "cluster-sqlite":
        from server.cluster.sqlite_presence import open_sqlite_presence

        async with open_sqlite_presence(tmp_path / "cluster.sqlite") as presence:
            yield presence
        return
    if kind != "cluster-redis":
        yield LocalPresence()
        return
    from server.cluster.redis_presence import open_redis_presence

    async with redis_server(tmp_path) as redis, open_redis_presence(redis.url) as presence:
        yield presence


@asynccontextmanager
async def directories(kind: str, tmp_path, count: int = 1):
    """``count`` directories of ``kind`` (nodes of one cluster), each running and ready."""
    async with presence_of(kind, tmp_path) as presence, trio.open_nursery() as nursery:
        if kind == "local":
            made: list[Directory] = [LocalDirectory()]
        else:
            made = [Cluster(presence, f"n00000000000{index + 1}", f"ws://127.0.0.1:{9001 + index}", heartbeat=0.2,
                            expiry=1.0) for index in range(count)]
        for directory in made:
            await nursery.start(directory.run, _Held(), "ws://127.0.0.1:0")
        yield made
        nursery.cancel_scope.cancel()


def table(key: str) -> TableInfo:
    return TableInfo(table=key, name=key, game="flag_finish", mode="challenge", options={},
                     seats=[SeatInfo(0, "free"), SeatInfo(1, "free")], seq=0, status="waiting", spectators=0,
                     turn_time_ms=0, grace_ms=0)


@pytest.mark.parametrize("kind", KINDS)
async def test_every_directory_numbers_claims_finds_lists_and_forgets_alike(kind, tmp_path):
    with trio.fail_after(20):
        async with directories(kind, tmp_path) as [directory]:
            assert directory.online and isinstance(directory.spans_nodes, bool)
            first = directory.number(1)
            assert first >= 1 and directory.number(first) == first  # a number it hands out is its own
            assert directory.number(first + 1) > first
            key = f"t{first}"
            directory.require_online()
            assert directory.placement() is None  # alone: every new table opens here
            assert next(iter(directory.loads())) == directory.node  # this node's load first

            assert await directory.owner("table", key) is None  # nobody's yet
            await directory.claim("table", key)
            await directory.claim("table", key)  # its own claim: claimed again (a table reopened from its log)
            assert await directory.holder("table", key) == directory.node
            assert await directory.owner("table", key) == directory.node
            assert await directory.locate("table", key) is None  # here: nowhere else to send anyone
            assert await directory.locate("tournament", "T1") is None  # nobody's: not found anywhere

            await directory.announce(table(key))
            mine = [table(key)]
            assert await directory.list_tables(mine) == mine  # alone: its own tables, as they are
            assert await directory.list_tournaments([]) == []

            await directory.release("table", key)  # it did not open after all: the id is free again
            assert await directory.owner("table", key) is None
            assert await directory.holder("table", key) == directory.node  # and claimed anew
            await directory.leave()


@pytest.mark.parametrize("kind", ["cluster", "cluster-redis", "cluster-sqlite"])
async def test_a_cluster_node_refuses_another_nodes_claim_and_sends_clients_to_it(kind, tmp_path):
    with trio.fail_after(20):
        async with directories(kind, tmp_path, count=2) as [here, there]:
            await there.claim("table", "t7")
            with pytest.raises(Refusal) as refused:
                await here.claim("table", "t7")
            assert refused.value.code == "table_exists"
            assert await here.holder("table", "t7") == there.node  # the one claim decides, whoever asks
            assert await here.owner("table", "t7") == there.node
            assert await here.locate("table", "t7") == there.url
            await there.leave()  # not alive any more: its tables are unavailable, not elsewhere
            with pytest.raises(Refusal) as down:
                await here.locate("table", "t7")
            assert down.value.code == "table_unavailable"
            assert await here.owner("table", "t7") == there.node  # a node that left keeps its claims


async def test_a_tournament_is_listed_from_its_nodes_directory(autojump_clock):
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        here, there = (Cluster(presence, name, f"ws://127.0.0.1/{name}", heartbeat=1.0) for name in ("na", "nb"))
        for node in (here, there):
            await nursery.start(node.run, _Held())
        info = TournamentInfo(tournament="T5", name="cup", game="flag_finish", mode="challenge", seats=3, options={},
                              format="swiss", rounds=3, round=0, status="registration", players=0, commitment="")
        await there.announce(info)  # at once, before any heartbeat
        assert await here.list_tournaments([]) == [info]
        assert await LocalDirectory().list_tournaments([info]) == [info]
        nursery.cancel_scope.cancel()
