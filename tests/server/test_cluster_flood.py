"""A flood of clients' writes to the cluster's store never makes a node miss its heartbeat (the red team's create
flood across both workers of `serve --workers 2`: their heartbeats missed the 2 s deadline and both refused
every create with ``cluster_unavailable`` for seconds). The heartbeat has its own way to the SQLite file
(``SqlitePresence.urgent``: a connection, a lock and a thread of its own, first in its process), and takes the
tables a create claimed as claimed instead of claiming each again.

Real time, bounded: the SQLite store works in threads, where a mock clock would jump while they run."""

from __future__ import annotations

import time

import trio

from clients.client import open_client
from server.cluster.presence import LocalPresence

from .test_cluster import GAME, cluster_of, start_node

SLOW_WRITE_S = 0.02  # each client's write (a slow disk; or read it as the queue of a thousand creates)
QUEUED = 200  # ... so the clients' queue holds 4 s of writes: twice the heartbeat's deadline


async def test_a_heartbeat_lands_before_its_deadline_behind_seconds_of_clients_writes(tmp_path):
    """200 client writes of 20 ms each are queued on the store (4 s of them); the node's heartbeats go on within
    the deadline meanwhile (here: two whole beats within 1.5 s) and the node stays in the cluster. Before, the
    heartbeat's calls queued behind them on the process's one connection: it missed its 2 s deadline and the node
    refused creates (``cluster_unavailable``) until the flood was over."""
    with trio.fail_after(30):
        async with cluster_of(1, "sqlite", tmp_path) as ([node], _):
            cluster, done = node.directory, []

            def slow(db) -> None:
                time.sleep(SLOW_WRITE_S)
                db.execute("INSERT OR REPLACE INTO kv VALUES ('flood', ?, NULL)", (str(len(done)),))
                done.append(1)

            async with trio.open_nursery() as flood:
                for _ in range(QUEUED):
                    flood.start_soon(cluster.presence._do, slow)
                with trio.fail_after(1.5):
                    await cluster.next_beat()
                assert cluster.online
                assert len(done) < QUEUED / 2  # (the flood was still there)
                flood.cancel_scope.cancel()


class CountingClaims(LocalPresence):
    def __init__(self) -> None:
        super().__init__()
        self.claims = 0

    async def set(self, key: str, value: str, *, ttl_ms: int | None = None, only_new: bool = False) -> bool:
        self.claims += only_new
        return await super().set(key, value, ttl_ms=ttl_ms, only_new=only_new)


async def test_a_heartbeat_after_a_burst_of_creates_claims_none_of_their_tables_again(tmp_path):
    """Each create claims its table (one ``SET NX``); the heartbeat that first publishes them asks the store for
    none of them again. Before, it claimed each once more, two calls a table: a flood of creates made every
    heartbeat thousands of calls long, and a node that had missed one had every table to claim again."""
    presence = CountingClaims()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            node = await start_node(nursery, presence, tmp_path)
            cluster = node.directory
            cluster.heartbeat = 3600.0
            await cluster.pulse.wait()  # its last beat of its own: the one below is the test's
            for _ in range(4):  # (4 waiting tables a connection, 16 an address: the defaults)
                async with open_client(node.url, reconnect=False) as client:
                    for _ in range(4):
                        await client.create_table(placed=True, **GAME)
            presence.claims = 0
            await cluster.beat()
            assert cluster.online and len(cluster.claimed["table"]) == 16
            assert presence.claims == 0
            await node.shutdown()
            nursery.cancel_scope.cancel()
