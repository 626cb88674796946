"""How many watch a table, across nodes: a spectator who starts watching through a node that does not run the
table (``serve --workers``, ``--cluster``) is counted by the table's node, and its own spectators told, within
tens of milliseconds, not at the table's node's next heartbeat (``server/cluster/relay.py``, ``server/cluster/relaycount.py``).

Two nodes' relays over one store: the in-process one, the SQLite file of ``serve --workers`` opened twice (two
processes: a publish wakes the other through ``server/cluster/localwake.py``) and a real redis-server. The table's node
reads the others' counts at a heartbeat of its own here (``Beats``: as ``Cluster.beat`` does, once a second).
Times are the mock clock's: where the store works in a thread or a socket it moves only once everything has
waited ``IDLE_S`` of real time, so the path a count takes costs no virtual time and a wait for the heartbeat
costs what it would."""

from __future__ import annotations

import sys
import types
from contextlib import asynccontextmanager

import pytest
import trio

from server.cluster import relay
from server.cluster.presence import LocalPresence
from server.protocol import Presence as Present
from server.protocol import Snapshot, Watch
from server.table import intents
from server.table.spectating import COUNT_EVERY_S

from .helpers import Sink, new_table
from .redis_server import redis_server

EXPIRY = 5.0
HEARTBEAT = 1.0  # the cluster's default
IDLE_S = 0.3  # (real seconds everything waits before the mock clock jumps, with a store in a thread or socket)
PROMPT = 0.2  # (virtual seconds: well under a heartbeat)


@asynccontextmanager
async def two_stores(kind: str, tmp_path):
    """The store as each of two nodes sees it."""
    if kind == "local":
        shared = LocalPresence()
        yield shared, shared
    elif kind == "sqlite":
        from server.cluster.sqlite_presence import open_sqlite_presence

        async with open_sqlite_presence(tmp_path / "c.sqlite") as one, open_sqlite_presence(tmp_path / "c.sqlite") as two:
            yield one, two
    else:
        from server.cluster.redis_presence import open_redis_presence

        async with redis_server(tmp_path) as redis:
            async with open_redis_presence(redis.url) as one, open_redis_presence(redis.url) as two:
                yield one, two


class Beats:
    """The table's node's heartbeat, as far as the relay goes: the other nodes' counts read every ``HEARTBEAT``."""

    def __init__(self, publisher, lobby) -> None:
        self.publisher, self.lobby, self.pulse = publisher, lobby, trio.Event()

    async def run(self) -> None:
        while True:
            await self.publisher.refresh(self.lobby, ["node-b"])
            self.pulse.set()
            self.pulse = trio.Event()
            await trio.sleep(HEARTBEAT)


async def told(sink: Sink, count: int) -> float:
    """When ``sink`` was first told ``count`` watch (waiting until it is)."""
    while not any(p.spectators == count for p in sink.of(Present)):
        await sink.arrived.wait()
    return trio.current_time()


@asynccontextmanager
async def two_nodes(kind: str, tmp_path, clock):
    """Node A running table t1 (a page on A watching it) and node B following it (one page on B watching),
    each counted by the other; yields A's table, heartbeat, page, and B's follower."""
    clock.autojump_threshold = 0 if kind == "local" else IDLE_S
    async with two_stores(kind, tmp_path) as (store_a, store_b):
        async with trio.open_nursery() as nursery:
            a, b = relay.Relay(store_a, EXPIRY, "node-a"), relay.Relay(store_b, EXPIRY, "node-b")
            await nursery.start(a.run)
            await nursery.start(b.run)
            table = new_table()  # seat 0 and 1 free: nothing happens at it
            await nursery.start(table.run)
            beats = Beats(a.publisher, types.SimpleNamespace(tables={table.id: table}, aliases={}))
            on_a = Sink()
            await table.submit(intents.Watch(on_a, Watch(table=table.id, id=1)))
            follower = b.follow(table.id)
            follower.submit_nowait(intents.Watch(Sink(), Watch(table=table.id, id=1)))
            nursery.start_soon(beats.run)
            with trio.fail_after(10 * HEARTBEAT):
                await told(on_a, 2)  # B's first counted (the table's node starts publishing at a heartbeat)
            yield table, beats, on_a, follower
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize("kind", ["local", "sqlite", "redis"])
async def test_a_spectator_on_another_node_is_told_to_the_tables_own_within_tens_of_milliseconds(kind, tmp_path,
                                                                                               mock_clock):
    """A page on the table's node A is told "3 watching" as a second page starts watching through node B, at
    once rather than at A's next heartbeat: B publishes its count, A applies it. Before, A read B's count only at
    its heartbeat: the page was told up to a second later (here: a whole heartbeat, as B's page came right
    after one)."""
    async with two_nodes(kind, tmp_path, mock_clock) as (table, beats, on_a, follower):
        await trio.sleep(COUNT_EVERY_S)  # A's page may be told a new number now (at most once a second)
        await beats.pulse.wait()  # just after a heartbeat
        start = trio.current_time()
        follower.submit_nowait(intents.Watch(Sink(), Watch(table=table.id, id=1)))
        with trio.fail_after(10 * HEARTBEAT):
            lag = await told(on_a, 3) - start
        assert lag < PROMPT, f"told {lag:.2f} s after"
        assert table.stream.followers == 2


async def counted(table, count: int) -> float:
    """How long until the table's node counts ``count`` watching through other nodes (``PROMPT`` at most)."""
    start = trio.current_time()
    with trio.move_on_after(PROMPT):
        while table.stream.followers != count:
            await trio.sleep(0.01)  # (virtual)
    return trio.current_time() - start


@pytest.mark.parametrize("kind", ["local", "sqlite"])
async def test_spectators_coming_to_another_node_one_after_another_are_each_reported_at_once(kind, tmp_path,
                                                                                          mock_clock):
    """Two more pages start watching through B a tenth of a second apart: A counts each at once, not the
    second a second later. Before, B reported its count at most once a second."""
    async with two_nodes(kind, tmp_path, mock_clock) as (table, beats, on_a, follower):
        await beats.pulse.wait()
        for count in (2, 3):
            follower.submit_nowait(intents.Watch(Sink(), Watch(table=table.id, id=1)))
            assert await counted(table, count) < PROMPT
            await trio.sleep(0.1)


async def test_a_node_whose_spectators_all_leave_is_counted_out_at_once(mock_clock, tmp_path):
    """The last page on B leaves: B stops following and A counts nobody there at once, not at its heartbeat."""
    async with two_nodes("local", tmp_path, mock_clock) as (table, beats, on_a, follower):
        await beats.pulse.wait()
        (page,) = follower.watchers
        follower.submit_nowait(intents.Leave(page, Watch(table=table.id, id=1)))
        assert await counted(table, 0) < PROMPT


class Counting(LocalPresence):
    """The in-process store, counting the writes of each key and the messages on each channel; ``refusing``
    names channels whose publishes fail (the store away for them)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: dict[str, int] = {}
        self.refusing: set[str] = set()

    async def set(self, key: str, value: str, **kwargs) -> bool:
        self.writes[key] = self.writes.get(key, 0) + 1
        return await super().set(key, value, **kwargs)

    async def publish(self, channel: str, message: str) -> None:
        if channel in self.refusing:
            from server.cluster.presence import PresenceError

            raise PresenceError("refused (injected)")
        self.writes[channel] = self.writes.get(channel, 0) + 1
        await super().publish(channel, message)


async def test_a_thousand_spectators_coming_at_once_cost_a_few_writes_not_a_thousand(nursery, autojump_clock):
    """A thousand pages start watching through B within a second: B reports its count at once and then at most
    every ``REPORT_EVERY_S``, the count as it is by then, so the store is written a score of times, not a
    thousand (and the table's node woken as often)."""
    from server.cluster.relaycount import REPORT_EVERY_S, channel

    store = Counting()
    follower = relay.Follower(store, "t1", EXPIRY, lambda _: None, "node-b")
    follower.latest = Snapshot(table="t1", seq=3, view=None, to_act=[0])
    follower.report.owner = "node-a"
    nursery.start_soon(follower.run)
    await trio.sleep(0.5)  # (its mark written as it started)
    store.writes.clear()
    for _ in range(1000):  # a thousand in a second
        follower.submit_nowait(intents.Watch(Sink(), Watch(table="t1", id=1)))
        await trio.sleep(0.0009)
    await trio.sleep(2 * REPORT_EVERY_S)
    key = relay.watchers_key("t1", "node-b")
    assert await store.get(key) == "1000"
    most = 1 / REPORT_EVERY_S + 2  # (and the mark's tick)
    assert store.writes[key] <= most + 1 and store.writes[channel("node-a")] <= most
    follower.scope.cancel()


async def test_a_count_the_store_refuses_to_carry_is_read_at_the_tables_nodes_next_heartbeat(mock_clock,
                                                                                          tmp_path,
                                                                                          monkeypatch):
    """Publishing a count fails (the store away for it): nothing on either node fails with it, and the table's
    node counts the page at its heartbeat, from the store, as before."""
    from server.cluster.relaycount import channel

    store = Counting()
    monkeypatch.setattr(sys.modules[__name__], "LocalPresence", lambda: store)
    store.refusing.add(channel("node-a"))
    async with two_nodes("local", tmp_path, mock_clock) as (table, beats, on_a, follower):
        await beats.pulse.wait()
        follower.submit_nowait(intents.Watch(Sink(), Watch(table=table.id, id=1)))
        with trio.fail_after(HEARTBEAT + PROMPT):
            await told(on_a, 3)
        assert table.stream.followers == 2
