"""`serve --workers`: the lobby lists every worker's tables, so a finished table's replay and playback are
answered by whichever worker a connection lands on, from the log in that table's worker's directory
(``DataDir.find_table_log``). Another worker's table still playing is refused ``not_finished`` without its log
being read, and one whose broadcast delay has not shown its end yet is refused in the words a held table gets,
until that delay has passed since its end (its header's delay, its marker's end time).

Two lobbies in one process stand for the two workers: worker 0 keeps its logs in DATA itself, worker 1 in
DATA/worker-1, beside the workers' shared DATA/cluster.sqlite, as ``server/workers.py`` lays them out."""

from __future__ import annotations

import pytest
import trio

from server import heldends
from server.datadir import DataDir
from server.gateway.requests import not_before_its_end_is_shown
from server.lobby import Lobby
from server.logs import frames
from server.logs.finished import Finished, read_finished
from server.protocol import BotSeat, CreateTable, Refusal, Replay
from server.rematch import not_shown_yet

DELAY_MS = 300_000


def bots_game(**fields) -> CreateTable:
    return CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                       bots=[BotSeat(0), BotSeat(1, "random")], **fields)


def workers(nursery, data) -> tuple[Lobby, Lobby]:
    """Worker 0's lobby and worker 1's, in the data directory ``data`` (its table ids numbered apart, as each
    cluster node's are)."""
    (data / "cluster.sqlite").touch()
    first, second = Lobby(nursery, data, "never"), Lobby(nursery, data / "worker-1", "never")
    second.skip_ids([1000])
    return first, second


async def finished(lobby: Lobby, request: CreateTable, **create):
    table = await lobby.create(request, **create)
    await table.over.wait()
    await table.marked.wait()  # its .done marker is written
    return table


def replayed(lobby: Lobby, table_id: str):
    """What the gateway does for a ``replay`` (the end-shown check, the budget, the worker's frames)."""
    not_before_its_end_is_shown(lobby, table_id)
    message = Replay(log=table_id, count=2)
    return frames.log_units(lobby.data_dir, message), frames.answer(lobby.data_dir, message)


async def played_back(lobby: Lobby, table_id: str):
    not_before_its_end_is_shown(lobby, table_id)  # the gateway asks it before a playback too
    return await lobby.open_playback(table_id, speed=10_000)


def refusal(call, *args) -> Refusal:
    with pytest.raises(Refusal) as refused:
        call(*args)
    return refused.value


async def refusal_of_playback(lobby: Lobby, table_id: str) -> Refusal:
    with pytest.raises(Refusal) as refused:
        await played_back(lobby, table_id)
    return refused.value


def test_each_worker_finds_the_others_logs_and_a_lone_directory_only_its_own(tmp_path):
    (tmp_path / "worker-1" / "tables").mkdir(parents=True)
    (tmp_path / "worker-2" / "tables").mkdir(parents=True)
    lone = DataDir(tmp_path / "worker-1")
    assert lone.workers() == [lone], "a folder named worker-1 with no workers' lobby beside it is a server alone"
    (tmp_path / "cluster.sqlite").touch()
    assert DataDir(tmp_path / "worker-1").workers() == [DataDir(tmp_path / "worker-1"), DataDir(tmp_path),
                                                         DataDir(tmp_path / "worker-2")]
    assert DataDir(tmp_path).workers() == [DataDir(tmp_path), DataDir(tmp_path / "worker-1"),
                                           DataDir(tmp_path / "worker-2")]
    (tmp_path / "worker-2" / "tables" / "t7.log").write_text("")
    assert DataDir(tmp_path).find_table_log("t7") == tmp_path / "worker-2" / "tables" / "t7.log"
    assert DataDir(tmp_path).find_table_log("t8") == tmp_path / "tables" / "t8.log", "none: its own path"
    assert not DataDir(tmp_path).keeps(tmp_path / "worker-2" / "tables" / "t7.log")


async def test_a_finished_tables_log_is_replayed_and_played_back_from_either_worker(tmp_path, autojump_clock,
                                                                                  monkeypatch):
    monkeypatch.setattr(frames, "LOG_UNIT", 1)  # a replay costs a unit a byte: its log was found to be charged
    async with trio.open_nursery() as nursery:
        first, second = workers(nursery, tmp_path)
        on_first, on_second = await finished(first, bots_game()), await finished(second, bots_game())
        assert on_second.store.path.parent == tmp_path / "worker-1" / "tables"
        for lobby, table in ((first, on_second), (second, on_first)):  # each asked for the other's table
            units, answer = replayed(lobby, table.id)
            assert units == table.store.path.stat().st_size
            assert answer.game == "flag_finish" and answer.total == table.log.accepted + 1
            assert [frame.seq for frame in answer.frames] == [0, 1]
            playback = await played_back(lobby, table.id)
            assert playback.read_only and lobby.tables[playback.id] is playback
            await playback.over.wait()  # played to its end from the other worker's log
            assert playback.session.state == table.session.state  # the same game, to its end
        assert refusal(replayed, first, "t999").code == "no_log"
        nursery.cancel_scope.cancel()


async def test_a_table_still_played_on_the_other_worker_is_refused_not_finished(tmp_path, autojump_clock,
                                                                              monkeypatch):
    async with trio.open_nursery() as nursery:
        first, second = workers(nursery, tmp_path)
        live = await second.create(CreateTable(game="flag_finish", mode="challenge", seats=2))  # waits for people
        read = []
        monkeypatch.setattr(frames, "read_log", lambda path: read.append(path))
        refused = refusal(replayed, first, live.id)
        assert refused.code == "not_finished" and "has not finished" in refused.message
        assert read == [], "another worker's live log is never read here"
        refused = await refusal_of_playback(first, live.id)
        assert refused.code == "not_finished" and "has not finished" in refused.message
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("tournament", [False, True], ids=["table", "tournament table"])
async def test_a_delayed_table_on_the_other_worker_opens_only_once_its_delay_has_passed_since_its_end(
        tmp_path, autojump_clock, monkeypatch, tournament):
    async with trio.open_nursery() as nursery:
        first, second = workers(nursery, tmp_path)
        table = await finished(second, bots_game(spectator_delay_ms=DELAY_MS),
                               **({"tags": {"tournament": "T1", "round": 1}} if tournament else {}))
        marker = read_finished(table.store.path)
        assert isinstance(marker, Finished) and marker.ended is not None
        monkeypatch.setattr(heldends, "wall", lambda: marker.ended + 1)  # it ended a second ago
        for refused in (refusal(replayed, first, table.id), await refusal_of_playback(first, table.id)):
            assert refused.code == "not_finished"
            assert refused.message == (f"table {table.id} is shown to spectators 300 s behind: its replay opens "
                                       "once they have seen its end")
            assert refused.message == not_shown_yet(table.id, DELAY_MS, 0, "replay").message  # a held table's

        monkeypatch.setattr(heldends, "wall", lambda: marker.ended + DELAY_MS / 1000 - 1)
        assert refusal(replayed, first, table.id).code == "not_finished"
        monkeypatch.setattr(heldends, "wall", lambda: marker.ended + DELAY_MS / 1000 + 1)  # its delay has passed
        _, answer = replayed(first, table.id)
        assert answer.total == table.log.accepted + 1
        playback = await played_back(first, table.id)
        await playback.over.wait()
        nursery.cancel_scope.cancel()
