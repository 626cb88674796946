"""A disk nearly full keeps its room for the games in play: below ``--min-free-mb`` a new table or tournament is
refused ``disk_low`` and nothing is written, while the tables already open go on, take seats and a tournament's
rounds still open theirs; once there is room again new ones are taken (``server/diskroom.py``)."""

from __future__ import annotations

import pytest
import trio

from clients.client import ServerError, open_client
from server import diskroom
from server.app import run_server
from server.lobby import Lobby
from server.logs.replay import check_log
from server.protocol import BotSeat, CreateTable, Refusal, TakeSeat
from server.quotas import Owner, Quotas
from server.table import intents

from .helpers import Sink, settle

WAITING = CreateTable(game="flag_finish", mode="lockstep", seats=2)
MB = diskroom.MB


@pytest.fixture
def free(monkeypatch) -> dict:
    """The free bytes the data directory's file system reports (the test sets them)."""
    space = {"bytes": 100_000 * MB}
    monkeypatch.setattr(diskroom, "free_bytes", lambda path: space["bytes"])
    return space


async def test_below_the_floor_no_table_opens_and_the_open_ones_go_on(tmp_path, mock_clock, free):
    async with trio.open_nursery() as nursery:  # time passes only when the test says (seeds are written in threads)
        lobby = Lobby(nursery, tmp_path, "never", Quotas(min_free_mb=500))
        ana = Owner("10.0.0.1", 1)
        open_before = await lobby.create(WAITING, owner=ana)
        logs = sorted((tmp_path / "tables").iterdir())
        free["bytes"] = 499 * MB
        mock_clock.jump(diskroom.CHECK_EVERY)  # (the free space is read once a second at most)
        with pytest.raises(Refusal) as refused:
            await lobby.create(WAITING, owner=ana)
        assert refused.value.code == "disk_low" and "499 MB free" in refused.value.message
        assert sorted((tmp_path / "tables").iterdir()) == logs and list(lobby.tables) == [open_before.id]
        seated = Sink()
        await open_before.submit(intents.TakeSeat(seated, TakeSeat(table=open_before.id, seat=0)))
        await settle()
        assert open_before.slots[0].receiver is seated  # the table already open goes on
        round_table = await lobby.create(WAITING)  # a tournament's round (no owner): its players are mid-event
        assert round_table.id in lobby.tables
        free["bytes"] = 501 * MB
        with pytest.raises(Refusal):  # read again only a second after the last read
            await lobby.create(WAITING, owner=ana)
        mock_clock.jump(diskroom.CHECK_EVERY)
        again = await lobby.create(WAITING, owner=ana)
        assert again.id in lobby.tables
        await lobby.stop_all()
        nursery.cancel_scope.cancel()


async def test_a_client_is_told_the_disk_is_low_for_a_table_and_a_tournament(nursery, tmp_path, free):
    free["bytes"] = 10 * MB
    running = await nursery.start(lambda task_status: run_server(
        "127.0.0.1", 0, data_dir=tmp_path, quotas=Quotas(min_free_mb=500), task_status=task_status))
    async with open_client(running.url) as client:
        with pytest.raises(ServerError) as refused:
            await client.create_table(game="flag_finish", mode="challenge", seats=2)
        assert refused.value.code == "disk_low" and "10 MB free, less than the 500 MB" in refused.value.message
        with pytest.raises(ServerError) as refused:
            await client.create_tournament(name="cup", game="flag_finish", mode="challenge", seats=2,
                                           format="swiss", rounds=1)
        assert refused.value.code == "disk_low"
        assert not running.lobby.tables and not running.lobby.tournaments.directors


async def test_no_floor_reads_no_free_space(nursery, tmp_path, monkeypatch):
    def unread(path):
        raise AssertionError("read with no floor")

    monkeypatch.setattr(diskroom, "free_bytes", unread)
    running = await nursery.start(lambda task_status: run_server(
        "127.0.0.1", 0, data_dir=tmp_path, quotas=Quotas(min_free_mb=0), task_status=task_status))
    async with open_client(running.url) as client:
        created = await client.create_table(game="flag_finish", mode="challenge", seats=2)
        assert created.table in running.lobby.tables


async def test_below_the_floor_tables_of_bots_alone_end_as_they_stand_and_peoples_go_on(
        nursery, tmp_path, free, autojump_clock):
    """Tables of server bots alone write as fast as their bots act: below the floor they are ended (``disk_low``),
    logged and replayed like any halt; a table a person plays goes on."""
    running = await nursery.start(lambda task_status: run_server(
        "127.0.0.1", 0, data_dir=tmp_path, quotas=Quotas(min_free_mb=500), task_status=task_status))
    lobby = running.lobby
    bots = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 50},
                                          bots=[BotSeat(0), BotSeat(1)], bot_delay_ms=1_000))
    people = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 50},
                                            bots=[BotSeat(1)], bot_delay_ms=1_000))
    await people.submit(intents.TakeSeat(Sink(), TakeSeat(table=people.id, seat=0)))
    await trio.sleep(diskroom.WATCH_EVERY * 2)
    assert bots.started and not bots.is_over() and people.started  # room enough: both play on
    free["bytes"] = 100 * MB
    await trio.sleep(diskroom.WATCH_EVERY + 1)
    assert bots.halted is not None and bots.halted[0] == "disk_low"
    assert not people.is_over()
    await bots.marked.wait()
    report = check_log(bots.store.path)
    assert report.ok and report.halted == "disk_low", report.problem
