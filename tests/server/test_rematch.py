"""A finished table played again over real websockets: ``rematch`` opens one new table set up as the finished one
(game, mode, seats, options, bots, pace), answers the same table to everyone who asks, points the finished
table's info at it, and tells the people still at the finished table (``rematch_offered``); a table still
playing has none. And ``list_games`` says the server bots' human pace, the browser form's default."""

from __future__ import annotations

import pytest
import trio

from clients.client import ServerError, open_client
from server.app import run_server
from server.protocol import Code, ListGames, Rematch, RematchOffered
from server.protocol.commandline import human_pace_ms


async def start(nursery):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))


async def finished_table(client) -> str:
    """A two-bot Flag Finish table of one race (no pause), watched by ``client`` until its result."""
    info = await client.create_table(game="flag_finish", mode="lockstep", seats=2, options={"races": 1},
                                     bots=[{"seat": 0}, {"seat": 1, "policy": "random"}], name="Sunday final",
                                     turn_time_ms=30_000)
    await client.watch(info.table)
    with trio.fail_after(30):
        async for message in client.messages:
            if getattr(message, "result", None) is not None:
                return info.table
    raise AssertionError("the table never finished")


async def test_a_rematch_is_one_table_set_up_as_the_finished_one_and_offered_at_it(nursery):
    running = await start(nursery)
    async with open_client(running.url) as watcher, open_client(running.url) as ana, \
            open_client(running.url) as ben:
        old = await finished_table(watcher)
        first = (await ana.request(Rematch(table=old))).table
        assert (first.game, first.mode, len(first.seats), first.options["races"], first.name, first.turn_time_ms) \
            == ("flag_finish", "lockstep", 2, 1, "Sunday final", 30_000)
        assert [seat.state for seat in first.seats] == ["bot", "bot"]
        assert first.table != old
        again = (await ben.request(Rematch(table=old))).table  # Ben clicked too: the same table, not a second
        assert again.table == first.table
        with trio.fail_after(10):
            async for message in watcher.messages:
                if type(message) is RematchOffered:
                    assert (message.table, message.rematch, message.seat) == (old, first.table, None)
                    break
        listed = {t.table: t for t in await watcher.list_tables()}
        assert listed[old].rematch == first.table
        assert listed[first.table].rematch is None


async def test_a_table_still_playing_or_unknown_has_no_rematch(nursery):
    running = await start(nursery)
    async with open_client(running.url) as ana:
        info = await ana.create_table(game="flag_finish", seats=2)
        with pytest.raises(ServerError) as refused:
            await ana.request(Rematch(table=info.table))
        assert refused.value.code == Code.NOT_FINISHED
        with pytest.raises(ServerError) as refused:
            await ana.request(Rematch(table="t999"))
        assert refused.value.code == Code.NO_TABLE
        assert len(await ana.list_tables()) == 1  # nothing was opened


async def test_list_games_says_the_bots_human_pace_by_mode(nursery):
    running = await start(nursery)
    async with open_client(running.url) as ana:
        games = await ana.request(ListGames())
        assert games.human_pace_ms == {"challenge": human_pace_ms("challenge"), "lockstep": human_pace_ms("lockstep")}
        assert games.human_pace_ms["challenge"] == 2500  # the pace README.md and docs/players.md state
