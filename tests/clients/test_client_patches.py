"""The client library over a real socket: it asks for patches by default and hands its user whole views, the same
as a client that asked for whole views; a patch that does not fit (a bug) makes it resync from snapshots."""

from __future__ import annotations

import msgspec
import pytest
import trio

from clients.client import ActionRejected, open_client
from server.wire import encodeonce
from server.app import run_server
from server.protocol import BotSeat, Codec, Snapshot, Update, codecs, rows
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


async def play(client, table: str, seat: int) -> list:
    """Play ``seat`` with the first legal action each time it is to act, to the game's end; every update with
    a view it was handed."""
    seen = []
    async for message in client.messages:
        if type(message) not in (Update, Snapshot) or message.view is None:
            continue
        if type(message) is Update:
            seen.append(message)
        if message.result is not None:
            return seen
        if seat in (message.to_act or ()) and message.legal:
            try:
                await client.act(table, message.legal[0])
            except ActionRejected:  # a list gone stale meanwhile: the next update brings the new one
                pass
    return seen


async def test_a_rows_seat_and_rows_spectators_end_with_the_views_a_map_client_gets(nursery, monkeypatch):
    """Hello ``rows``: a seat and two spectators that asked for arrays play and watch a game to its end and are
    handed the same messages as a map client, though their views came as rows (patched by places, not keys), and
    the seat's legal actions too (it plays on the maps made of them); the spectators' rows are encoded once per
    update for both."""
    encoded: dict = {}
    real = Codec.bytes_of

    def bytes_of(codec, message):
        if type(message) is Update and encodeonce.shared(message):  # a spectators' update (held while shared)
            encoded.setdefault(codec.name, []).append(id(message))
        return real(codec, message)

    monkeypatch.setattr(Codec, "bytes_of", bytes_of)
    read, messages = [], []  # the rows the clients read, and the messages each stands for (before ``Views``)

    def converted(value):
        read.append(value[0])
        messages.append(rows.converted(value))
        return messages[-1]

    monkeypatch.setattr(codecs, "converted", converted)
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    url = f"ws://127.0.0.1:{running.port}"
    async with (open_client(url, encoding="msgpack", rows=True, events=False) as bot,
                open_client(url, encoding="msgpack", rows=True, events=False) as watcher,
                open_client(url, encoding="msgpack", rows=True, events=False) as other,
                open_client(url, encoding="msgpack", events=False) as mapped):
        info = await mapped.create_table(game="flag_finish", mode="lockstep", seats=3, options={"races": 1},
                                         bots=[BotSeat(1), BotSeat(2)], bot_delay_ms=20)
        for client in (watcher, other, mapped):
            await client.watch(info.table)
        await bot.take_seat(info.table, 0)
        with trio.fail_after(60):
            played = await play(bot, info.table, 0)
            got, also = await follow(watcher, info.table), await follow(other, info.table)
            want = await follow(mapped, info.table)
        table = running.lobby.find(info.table)
        assert table.over.is_set()
        assert sorted_json(played[-1].view) == sorted_json(table.game.view(table.session.state, 0))
    assert len(got) > 10 and len(want) > 10
    by_seq = {m.seq: m for m in want}
    for message in got:
        if message.seq in by_seq:
            assert sorted_json(message) == sorted_json(by_seq[message.seq])
    assert sorted_json(got[-1]) == sorted_json(want[-1]) == sorted_json(also[-1])
    shared = encoded["msgpack rows"]
    assert len(shared) > 10 and len(set(shared)) == len(shared)  # each update's row encoded once for both spectators
    assert read.count(1) >= len(got) + len(also) + len(played) and 3 in read  # what they saw came as rows
    views = [m.view for m in messages if type(m) in (Update, Snapshot) and m.view is not None]
    patches = [m.view_patch for m in messages if type(m) is Update and m.view_patch]
    assert views and all(type(view) is list and view[0] == "flag_finish" for view in views)  # their views too
    assert len(patches) > 10 and all(type(step) is int for patch in patches for op in patch for step in op[0])
    lists = [m.legal for m in messages if type(m) in (Update, Snapshot) and m.legal]
    legal_patches = [m.legal_patch for m in messages if type(m) is Update and m.legal_patch]
    assert lists and all(type(action) is list and type(action[0]) is str for listed in lists for action in listed)
    assert all(type(step) is int for patch in legal_patches for op in patch for step in op[0])  # legal rows too
    await running.shutdown()
