"""A finished table played again over real websockets: ``rematch`` opens one new table set up as the finished one
(game, mode, seats, options, bots, pace), answers the same table to everyone who asks, points the finished
table's info at it, and tells the people still at the finished table (``rematch_offered``); a table still
playing has none, and a table with a spectator delay has none until its end has been shown to its spectators
(refused in the same words before and after its end: the lobby and the gateway's own path, on a virtual clock).
And ``list_games`` says the server bots' human pace, the browser form's default."""

from __future__ import annotations

import pytest
import trio

from types import SimpleNamespace

from clients.client import ServerError, open_client
from server.app import run_server
from server.cluster.directory import LocalDirectory
from server.gateway.requests import create_table
from server.lobby import Lobby
from server.protocol import BotSeat, Code, CreateTable, ListGames, Refusal, Rematch, RematchOffered
from server.protocol.commandline import human_pace_ms
from server.quotas import Owner
from server.rematch import open_rematch


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


def bot_game(**delay) -> CreateTable:
    """Two server bots, one race, a move every 0.1 s (of a virtual clock)."""
    return CreateTable(game="flag_finish", mode="lockstep", seats=2, options={"races": 1},
                       bots=[BotSeat(0), BotSeat(1)], bot_delay_ms=100, **delay)


async def ask_rematch(lobby: Lobby, table_id: str):
    """A spectator's ``rematch`` through the gateway's own create (counted against its connection)."""
    spectator = SimpleNamespace(owner=Owner("10.0.0.9", 9), local="")
    return await open_rematch(spectator, lobby, LocalDirectory(), Rematch(table=table_id), create_table)


async def refusal(lobby: Lobby, table_id: str) -> Refusal:
    with pytest.raises(Refusal) as refused:
        await ask_rematch(lobby, table_id)
    return refused.value


async def test_a_delayed_tables_rematch_opens_once_its_end_is_shown_and_is_delayed_alike(nursery, autojump_clock):
    """Else polling ``rematch`` would tell anyone that the game is over ~30 s before its spectators see it: by
    the new table (listed under the same name at once), or by the refusal's words changing at the end."""
    lobby = Lobby(nursery)
    old = await lobby.create(bot_game(spectator_delay_ms=30_000, spectator_delay_entries=3, broadcast=True))
    playing = await refusal(lobby, old.id)
    assert not old.over.is_set()
    await old.over.wait()
    over = await refusal(lobby, old.id)
    assert (over.code, over.message) == (playing.code, playing.message) == (
        Code.NOT_FINISHED, f"table {old.id} is shown to spectators 30 s and 3 moves behind: its rematch opens once "
                           "they have seen its end")
    assert list(lobby.tables) == [old.id] and old.info().rematch is None  # nothing opened, nothing listed
    await trio.sleep(29)
    assert not old.end_shown() and (await refusal(lobby, old.id)).message == playing.message
    await trio.sleep(1.1)
    assert old.end_shown()
    new = await ask_rematch(lobby, old.id)
    assert (new.settings.spectator_delay_ms, new.settings.spectator_delay_entries) == (30_000, 3)
    assert (new.info().spectator_delay_ms, new.info().broadcast) == (30_000, False)  # no key: nobody was given one
    assert old.info().rematch == new.id and (await ask_rematch(lobby, old.id)) is new


async def test_a_tables_rematch_without_a_delay_opens_right_at_its_end(nursery, autojump_clock):
    lobby = Lobby(nursery)
    old = await lobby.create(bot_game())
    assert (await refusal(lobby, old.id)).message == f"table {old.id} has not finished: a rematch opens once its " \
                                                     "game is over"
    await old.over.wait()
    new = await ask_rematch(lobby, old.id)
    assert new.id != old.id and new.settings.spectator_delay_ms == 0 and old.info().rematch == new.id
