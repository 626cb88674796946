"""The SQLite presence store (`serve --workers`, `--cluster sqlite:PATH`): what several processes of one machine
share instead of Redis. Two connections to one file stand for two processes (SQLite locks the file, not the
connection)."""

from __future__ import annotations

import types

import trio

from server.cluster import sqlite_presence
from server.cluster.sqlite_presence import open_sqlite_presence


async def test_two_processes_racing_for_the_same_claims_each_get_one_and_only_one(tmp_path):
    path = tmp_path / "cluster.sqlite"
    won: dict[str, list[str]] = {}
    async with open_sqlite_presence(path) as one, open_sqlite_presence(path) as two:
        async def claim_all(presence, name: str) -> None:
            for n in range(40):
                if await presence.set(f"claim:t{n}", name, only_new=True):
                    won.setdefault(f"t{n}", []).append(name)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(claim_all, one, "one")
            nursery.start_soon(claim_all, two, "two")
        assert sorted(won) == sorted(f"t{n}" for n in range(40)) and all(len(w) == 1 for w in won.values())
        for key, (winner,) in won.items():
            assert await two.get(f"claim:{key}") == winner  # both see the one winner
        counts = []
        async with trio.open_nursery() as nursery:
            for presence in (one, two) * 10:
                nursery.start_soon(lambda p: _append(counts, p.incr("ids")), presence)
        assert sorted(counts) == list(range(1, 21))  # every id handed out once


async def _append(into: list, call) -> None:
    into.append(await call)


async def test_keys_expire_by_the_wall_clock_and_hashes_keep_their_fields(tmp_path, monkeypatch):
    clock = types.SimpleNamespace(now=1000.0)
    monkeypatch.setattr(sqlite_presence, "time", types.SimpleNamespace(time=lambda: clock.now))
    async with open_sqlite_presence(tmp_path / "cluster.sqlite") as presence:
        assert await presence.set("alive:n1", "load", ttl_ms=5_000)
        assert not await presence.set("alive:n1", "other", only_new=True)  # live: not taken over
        clock.now += 6
        assert await presence.get("alive:n1") is None  # expired
        assert await presence.set("alive:n1", "back", only_new=True)
        await presence.hset("nodes", {"n1": "ws://a", "n2": "ws://b"})
        await presence.hdel("nodes", "n1")
        assert await presence.hgetall_many(["nodes", "none"]) == [{"n2": "ws://b"}, {}]
        assert await presence.get_many(["alive:n1", "none"]) == ["back", None]
        await presence.delete("alive:n1", "nodes")
        assert await presence.get("alive:n1") is None and await presence.hgetall("nodes") == {}


async def test_a_subscriber_gets_what_is_published_after_it_subscribed_in_order(tmp_path):
    path = tmp_path / "cluster.sqlite"
    async with open_sqlite_presence(path) as one, open_sqlite_presence(path) as two:
        await one.publish("results", "before")
        async with two.subscribe("results") as messages:
            for text in ("a", "b", "c"):
                await one.publish("results", text)
            await one.publish("other", "x")
            with trio.fail_after(5):
                assert [await messages.receive() for _ in range(3)] == ["a", "b", "c"]


async def test_a_file_that_cannot_be_opened_is_a_presence_error(tmp_path):
    import pytest

    from server.cluster.presence import PresenceError

    with pytest.raises(PresenceError):
        async with open_sqlite_presence(tmp_path / "missing" / "cluster.sqlite"):
            pass


async def test_a_subscriber_in_another_process_is_woken_by_a_publish_not_left_to_its_next_poll(tmp_path,
                                                                                              monkeypatch):
    """`serve --workers`: a spectator on the worker that does not run the table gets each update as it is
    published, not up to a poll later. With polls an hour apart, only the wake-up can bring it."""
    monkeypatch.setattr(sqlite_presence, "POLL_S", 3600)
    monkeypatch.setattr(sqlite_presence, "POLL_UNWOKEN_S", 3600)
    path = tmp_path / "cluster.sqlite"
    async with open_sqlite_presence(path) as table_node, open_sqlite_presence(path) as other:
        assert other.waker is not None  # (Linux: an abstract Unix socket)
        async with other.subscribe("relay:t1") as first, other.subscribe("relay:t1") as second:
            with trio.fail_after(5):
                for text in ("a", "b", "c"):
                    await table_node.publish("relay:t1", text)
                    assert await first.receive() == text and await second.receive() == text
        async with other.subscribe("relay:t1") as frames:
            async with other.subscribe("relay:t1") as leaving:
                pass  # one subscription of two ends: the process is still woken for the other
            await table_node.publish("relay:t1", "d")
            with trio.fail_after(5):
                assert await frames.receive() == "d"
        assert await _wakers(other) == []  # its last subscription over: no longer listed to be woken


async def test_a_process_that_died_subscribed_is_forgotten_and_costs_a_publish_nothing(tmp_path):
    path = tmp_path / "cluster.sqlite"
    async with open_sqlite_presence(path) as one:
        dead = "\0photofinish-wake-0000000000000000"  # a subscriber's process killed: nobody holds its socket
        await one._do(lambda db: db.execute("INSERT INTO wakers VALUES ('relay:t1', ?)", (dead,)))
        await one.publish("relay:t1", "a")  # no error: its wake-up refused, the address noted
        await one.publish("relay:t1", "b")  # ... and forgotten
        assert await _wakers(one) == []


async def test_where_no_process_can_be_woken_subscribers_still_get_every_message_by_polling(tmp_path,
                                                                                         monkeypatch):
    from server.cluster import localwake

    monkeypatch.setattr(localwake, "PREFIX", str(tmp_path / "no-such-folder" / "wake-"))  # the bind fails
    path = tmp_path / "cluster.sqlite"
    async with open_sqlite_presence(path) as one, open_sqlite_presence(path) as two:
        assert two.waker is None
        async with two.subscribe("relay:t1") as frames:
            for text in ("a", "b"):
                await one.publish("relay:t1", text)
            with trio.fail_after(5):
                assert [await frames.receive() for _ in range(2)] == ["a", "b"]


async def _wakers(presence) -> list:
    return await presence._do(lambda db: db.execute("SELECT channel, address FROM wakers").fetchall())
