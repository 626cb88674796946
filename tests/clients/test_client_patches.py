"""The client library over a real socket: it asks for patches by default and hands its user whole views, the same
as a client that asked for whole views; a patch that does not fit (a bug) makes it resync from snapshots."""

from __future__ import annotations

import msgspec
import pytest
import trio

from clients.client import open_client
from server.app import run_server
from server.protocol import BotSeat, Update
from server.table import patching

sorted_json = msgspec.json.Encoder(order="sorted").encode


async def follow(client, table: str) -> list:
    """Every update with a view that ``client`` hands on, to the table's end."""
    seen = []
    async for message in client.messages:
        if type(message) is Update and message.view is not None:
            seen.append(message)
            if message.result is not None:
                return seen
    return seen


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_a_client_sees_the_same_whole_views_with_patches_as_without(nursery, monkeypatch, encoding):
    patches_made = []
    real = patching.diff
    monkeypatch.setattr(patching, "diff", lambda old, new: patches_made.append(1) or real(old, new))
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    url = f"ws://127.0.0.1:{running.port}"
    async with open_client(url, encoding=encoding) as patched, open_client(url, patches=False) as whole:
        info = await patched.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 1},
                                          bots=[BotSeat(s) for s in range(3)], bot_delay_ms=30)
        await patched.watch(info.table)
        await whole.watch(info.table)
        with trio.fail_after(60):
            got = await follow(patched, info.table)
            want = await follow(whole, info.table)
    assert patches_made  # the server did send patches to the one that asked
    by_seq = {m.seq: m.view for m in want}
    assert len(got) > 10
    for message in got:
        if message.seq in by_seq:
            assert sorted_json(message.view) == sorted_json(by_seq[message.seq])
    assert sorted_json(got[-1].view) == sorted_json(want[-1].view)
    await running.shutdown()


async def test_a_patch_that_does_not_fit_makes_the_client_resync_from_a_snapshot(nursery, monkeypatch):
    real = patching.diff
    broken = []

    def diff(old, new):
        if not broken:
            broken.append(1)
            return [[["no such field"], 1], [["no such field", 0], 1]]
        return real(old, new)

    monkeypatch.setattr(patching, "diff", diff)
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(f"ws://127.0.0.1:{running.port}") as client:
        info = await client.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 1},
                                         bots=[BotSeat(s) for s in range(3)], bot_delay_ms=30)
        await client.watch(info.table)
        with trio.fail_after(60):
            got = await follow(client, info.table)
        assert client.reconnects == 1 and broken
        table = running.lobby.find(info.table)
        assert sorted_json(got[-1].view) == sorted_json(table.game.view(table.session.state, None))
    await running.shutdown()
