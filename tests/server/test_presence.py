"""The Presence interface: the in-process store and Redis answer the same calls the same way (the Redis half
against a real redis-server on loopback), and the cluster's nodes number their ids apart without it."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest
import trio

from server.cluster.node import Cluster
from server.cluster.nodeid import ID_SPACE, node_mark
from server.cluster.presence import LocalPresence, PresenceError
from tests.server.redis_server import redis_server


@asynccontextmanager
async def presence_of(kind: str, tmp_path):
    if kind == "local":
        yield LocalPresence()
        return
    from server.cluster.redis_presence import open_redis_presence

    async with redis_server(tmp_path) as redis, open_redis_presence(redis.url) as presence:
        yield presence


@pytest.mark.parametrize("kind", ["local", "redis"])
async def test_both_stores_answer_the_interface_alike(kind, tmp_path):
    with trio.fail_after(20):
        async with presence_of(kind, tmp_path) as presence:
            assert await presence.set("claim", "n1", only_new=True)
            assert not await presence.set("claim", "n2", only_new=True)  # claimed once, atomically
            assert await presence.get("claim") == "n1"
            assert await presence.get_many(["claim", "none"]) == ["n1", None]
            assert await presence.incr("counter") == 1 and await presence.incr("counter", 5) == 6
            await presence.hset("h", {"a": "1", "b": "2"})
            await presence.hdel("h", "a")
            assert await presence.hgetall("h") == {"b": "2"}
            assert await presence.hgetall_many(["h", "none"]) == [{"b": "2"}, {}]
            await presence.delete("claim", "h")
            assert await presence.get("claim") is None and await presence.hgetall("h") == {}
            async with presence.subscribe("events") as messages:
                await presence.publish("events", "one")
                await presence.publish("events", "two")
                with trio.fail_after(5):
                    got = [await messages.__anext__(), await messages.__anext__()]
            assert got == ["one", "two"]


async def test_a_key_with_an_expiry_is_gone_after_it(autojump_clock):
    presence = LocalPresence()
    await presence.set("alive:n1", "x", ttl_ms=5000)
    await trio.sleep(4.9)
    assert await presence.get("alive:n1") == "x"
    await trio.sleep(0.2)
    assert await presence.get("alive:n1") is None


async def test_a_store_that_is_down_raises_and_changes_nothing():
    presence = LocalPresence()
    await presence.set("k", "v")
    presence.down = True
    with pytest.raises(PresenceError):
        await presence.set("k", "w")
    presence.down = False
    assert await presence.get("k") == "v"


async def test_redis_that_is_not_there_is_a_presence_error_not_a_hang(tmp_path):
    from bench.server_bench import free_port
    from server.cluster.redis_presence import open_redis_presence

    with trio.fail_after(10):
        async with open_redis_presence(f"redis://127.0.0.1:{free_port()}", timeout=1.0) as presence:
            with pytest.raises(PresenceError):
                await presence.get("anything")


def ids(node: Cluster, count: int) -> list[int]:
    """The first ``count`` numbers ``node`` hands out, as the lobby asks for them (one past the last)."""
    numbers = [node.number(1)]
    while len(numbers) < count:
        numbers.append(node.number(numbers[-1] + 1))
    return numbers


async def test_nodes_number_ids_apart_without_the_store():
    presence = LocalPresence()
    names = ["n000000000001", "n0000000000a2", "nffffffffffff", "a-name-set-by-hand"]
    nodes = [Cluster(presence, name, f"ws://127.0.0.1:{9000 + i}") for i, name in enumerate(names)]
    presence.down = True  # never reached: the store has no part in it
    numbered = [ids(node, 25) for node in nodes]
    for node, numbers in zip(nodes, numbered):
        assert numbers[0] == ID_SPACE + node_mark(node.node)  # the first, whatever came before on one server
        assert numbers == sorted(set(numbers)) and all(n % ID_SPACE == node.mark for n in numbers)
    assert len({n for numbers in numbered for n in numbers}) == 100  # no two nodes ever share one
    assert nodes[2].number(12 * ID_SPACE) == 12 * ID_SPACE + 0xffffffffffff  # from a reopened log's id on
    assert nodes[0].number(200002) == ID_SPACE + 1  # ids from the old leased blocks are left behind
    assert node_mark("nffffffffffff") < ID_SPACE and node_mark("a-name-set-by-hand") < 2**48


class _Straddled(LocalPresence):
    """A Redis restarted empty between a claim's two calls, ``times`` times: the old one refused the claim (it
    held it already), the new one has nothing."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    async def set(self, key: str, value: str, *, ttl_ms: int | None = None, only_new: bool = False) -> bool:
        if only_new and self.times:
            self.times -= 1
            return False
        return await super().set(key, value, ttl_ms=ttl_ms, only_new=only_new)


async def test_a_claim_refused_with_nothing_there_is_asked_again_not_taken_for_another_nodes():
    presence = _Straddled(times=2)
    node = Cluster(presence, "n000000000001", "ws://127.0.0.1:9000")
    assert await node.holds("table", "t1")
    assert await presence.get("photofinish:table:t1") == "n000000000001"
    await presence.set("photofinish:table:t2", "n0000000000a2")
    assert not await node.holds("table", "t2")  # another node's name there: that is a refusal
    presence.times = 3
    with pytest.raises(PresenceError):  # never sensible: the store is taken for away, tried again later
        await node.holds("table", "t3")
