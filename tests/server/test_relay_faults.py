"""The relay (spectators served by a node that does not run the table) under a failing directory store: the
store refuses every call for a while, from its Nth call after the spectator starts watching (a seam, as a
Redis or the SQLite file of `serve --workers` on a full or lost disk does). Whatever N, the players' game on the table's own node goes on to
its end with every accepted action in its log, and the spectator on the other node is never left with a
stale view: once the store is back it is shown the game's end, and the table's node counts it again."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest
import trio

from clients.client import open_client
from server.cluster.presence import LocalPresence, PresenceError
from server.cluster.sqlite_presence import SqlitePresence, open_sqlite_presence
from server.protocol import BotSeat, Snapshot, Update
from server.logs.replay import check_log

from .test_cluster import GAME, start_node

FAILING_CALLS = 12  # the store refuses this many calls in a row, then works again


class Checked:
    """A subscription's messages, each first checked by the store: in the window the subscription fails
    from its own stream, as a Redis pubsub whose connection is lost does."""

    def __init__(self, messages, check) -> None:
        self.messages, self.check = messages, check

    def __aiter__(self):
        return self

    async def __anext__(self):
        message = await self.messages.__anext__()
        self.check()
        return message


class Window:
    """The calls a store refuses: from its ``fail_at``-th once armed, ``FAILING_CALLS`` of them."""

    def __init__(self) -> None:
        self.calls, self.fail_at, self.refused = 0, None, 0

    def check(self) -> None:
        if self.fail_at is None:
            return
        self.calls += 1
        if self.fail_at <= self.calls < self.fail_at + FAILING_CALLS:
            self.refused += 1
            raise PresenceError("the presence store is down (injected)")


class FailingPresence(LocalPresence):
    """``LocalPresence`` whose calls fail in the window once armed, its subscriptions' messages counted as
    calls."""

    def __init__(self) -> None:
        super().__init__()
        self.window = Window()

    @asynccontextmanager
    async def subscribe(self, channel: str):
        async with super().subscribe(channel) as messages:
            yield Checked(messages, self._check)

    def _check(self) -> None:
        super()._check()
        self.window.check()


class FailingSqlite(SqlitePresence):
    """The SQLite file store of `serve --workers` whose transactions fail in the window (a full or lost disk)."""

    def __init__(self, db, window: Window, waker=None) -> None:
        super().__init__(db, waker)
        self.window = window

    async def _do(self, work):
        self.window.check()
        return await super()._do(work)


@asynccontextmanager
async def failing_store(kind: str, tmp_path):
    """The shared store and the window its calls fail in: in memory, or a SQLite file as `--workers` uses."""
    if kind == "local":
        presence = FailingPresence()
        yield presence, presence.window
        return
    async with open_sqlite_presence(tmp_path / "cluster.sqlite") as opened:
        window = Window()
        yield FailingSqlite(opened.db, window, opened.waker), window  # (its publishes wake its subscribers)


@pytest.mark.parametrize("kind", ["local", "sqlite"])
@pytest.mark.parametrize("fail_at", [1, 3, 8, 20, 45, 90])
async def test_a_spectator_on_another_node_sees_the_end_whenever_the_store_fails(kind, fail_at, tmp_path):
    with trio.fail_after(60):
        async with failing_store(kind, tmp_path) as (presence, window), trio.open_nursery() as nursery:
            a = await start_node(nursery, presence, tmp_path / "a")
            b = await start_node(nursery, presence, tmp_path / "b")
            for node in (a, b):
                await node.directory.next_beat()
            async with open_client(a.url, reconnect=False) as creator:
                info = await creator.create_table(**{**GAME, "seats": 2}, bots=[BotSeat(0), BotSeat(1)],
                                                  bot_delay_ms=60, placed=True)
            table = a.lobby.find(info.table)
            await b.directory.next_beat()
            async with open_client(b.url, reconnect=False) as spectator:
                await spectator.watch(info.table)
                window.fail_at = fail_at
                last = None
                async for message in spectator.messages:
                    if type(message) in (Update, Snapshot) and message.view is not None:
                        last = message
                        if message.result is not None:
                            break
                while window.calls < window.fail_at + FAILING_CALLS:  # (the store back, whenever it failed)
                    await a.directory.next_beat()
                for _ in range(3):
                    await a.directory.next_beat()
                assert table.stream.followers == 1, "the spectator on B is counted at A once the store is back"
            await table.over.wait()
            assert window.refused > 0, "the store failed while the spectator watched"
            assert last is not None and last.result is not None, "the spectator was shown the game's end"
            assert last.view == table.game.view(table.session.state, None), "where the game truly ended"
            for node in (a, b):
                await node.shutdown()
            nursery.cancel_scope.cancel()
    report = check_log(tmp_path / "a" / "tables" / f"{info.table}.log")
    assert report.ok and report.ended, report.summary()
