"""A finished table's replay and playback asked of a node whose machine does not keep its log: a cluster's
nodes each keep their logs in their own data directory, so a node that does not find the log but finds the
table's node in the directory answers with a ``redirect`` there (as for a seat), and the client follows it; a
table nobody knows is still ``no_log``, and a delayed table's node still refuses until its end is shown.

Nodes are ``run_server``s in one trio run (their sockets on 127.0.0.1), on the in-process presence and on a
real Redis on loopback (skipped, saying how to install it, where redis-server is missing; failing under CI).
Every wait is bounded; nothing waits for wall time but the games the bots play."""

from __future__ import annotations

import pytest
import trio

from clients.client import ServerError, open_client
from server.protocol import BotSeat, OpenPlayback, Redirect, Replay, ReplayFrames, TableCreated

from .test_cluster import KINDS, cluster_of

GAME = dict(game="flag_finish", mode="challenge", seats=2, options={"races": 1})
BOTS = [BotSeat(0), BotSeat(1, "random")]


async def finished_on(node, **fields) -> str:
    """A table of two server bots, created on ``node`` and played to its end there (its end marked in its log)."""
    async with open_client(node.url) as client:
        table = node.lobby.tables[(await client.create_table(placed=True, bots=BOTS, **GAME, **fields)).table]
    await table.over.wait()
    await table.marked.wait()
    return table.id


@pytest.mark.parametrize("kind", KINDS)
async def test_a_replay_of_a_table_another_node_ran_is_redirected_to_that_node_and_answered_there(kind, tmp_path):
    with trio.fail_after(60):
        async with cluster_of(2, kind, tmp_path) as (nodes, _):
            owner, other = nodes
            table = await finished_on(owner)
            async with open_client(other.url) as client:
                redirect = await client._home._call(Replay(log=table, count=1))
                assert type(redirect) is Redirect and redirect.url == owner.url and redirect.table == table
                frames = await client.request(Replay(log=table, count=2))  # followed by the library itself
                assert type(frames) is ReplayFrames and frames.frames
                redirect = await client._home._call(OpenPlayback(log=table, speed=10_000))
                assert type(redirect) is Redirect and redirect.url == owner.url
                created = await client.request(OpenPlayback(log=table, speed=10_000))
                assert type(created) is TableCreated and created.table.table in owner.lobby.tables
                assert client.routes[created.table.table] == owner.url  # watched there, where it plays
                with pytest.raises(ServerError) as unknown:
                    await client.request(Replay(log="t9000000000000000", count=1))
                assert unknown.value.code == "no_log"  # a table nobody knows
                with pytest.raises(ServerError) as unknown:
                    await client.request(OpenPlayback(log="t9000000000000000"))
                assert unknown.value.code == "no_log"


async def test_a_delayed_table_on_another_node_is_still_refused_there_until_its_end_is_shown(tmp_path):
    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as (nodes, _):
            owner, other = nodes
            table = await finished_on(owner, spectator_delay_ms=300_000)
            async with open_client(other.url) as client:
                for message in (Replay(log=table, count=1), OpenPlayback(log=table)):
                    with pytest.raises(ServerError) as refused:
                        await client.request(message)
                    assert refused.value.code == "not_finished"


async def test_photofinish_playback_through_a_node_that_lacks_the_log_plays_it_on_the_node_that_has_it(
        tmp_path, monkeypatch):
    """``photofinish playback URL T``: the playback opens on the table's node, and is watched there (its ``p``
    id is that node's own, unknown to the node first asked)."""
    from clients.terminal import playback

    from .test_terminal import Person

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as (nodes, _):
            owner, other = nodes
            table = await finished_on(owner)
            person = Person()
            assert await playback(other.url, table, 1000.0, terminal=person.terminal) == 0
    assert " 1 heuristic bot " in person.text and " 2 random bot " in person.text and "Game over." in person.text
