"""A finished table with a broadcast delay keeps its end from everyone until its spectators have been shown it,
whatever lets it go: many tables finishing (the lobby holds at most ``finished_most``) or a restart in between.
Its replay and playback stay refused ``not_finished``, its listing says ``playing`` with no seq nor seed, and once
the delay has passed it is listed by its real summary (never the masked one, frozen)."""

from __future__ import annotations

import os

import pytest
import trio

from server import heldends
from server.gateway.requests import not_before_its_end_is_shown
from server.lobby import Lobby
from server.logs.finished import Finished, marker_path, read_finished, write_marker
from server.protocol import BotSeat, CreateTable, Refusal
from server.quotas import Quotas

DELAY_MS = 300_000


def bots_game(**fields) -> CreateTable:
    return CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                       bots=[BotSeat(0), BotSeat(1, "random")], **fields)


def listed(lobby: Lobby, table_id: str):
    (info,) = [t for t in lobby.list() if t.table == table_id]
    return info


def replay_refused(lobby: Lobby, table_id: str) -> bool:
    """Whether a replay (or playback: the gateway asks the same) of ``table_id`` is refused as unfinished."""
    try:
        not_before_its_end_is_shown(lobby, table_id)
    except Refusal as refusal:
        assert refusal.code == "not_finished" and "shown to spectators 300 s behind" in refusal.message
        return True
    return False


async def test_many_tables_finishing_never_let_a_delayed_table_go_before_its_end_is_shown(autojump_clock):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, quotas=Quotas(finished_most=2))
        delayed = await lobby.create(bots_game(spectator_delay_ms=DELAY_MS))
        await delayed.over.wait()
        ended = trio.current_time()
        for _ in range(6):  # each one finished makes the lobby let its oldest finished tables go
            quick = await lobby.create(bots_game())
            await quick.over.wait()
        await trio.sleep(1)
        assert lobby.tables.get(delayed.id) is delayed and list(lobby.finished) == [delayed.id, quick.id]  # and the newest
        assert replay_refused(lobby, delayed.id)
        masked = listed(lobby, delayed.id)
        assert masked.status == "playing" and masked.revealed_seed is None and masked.seq < delayed.log.seq

        await trio.sleep_until(ended + DELAY_MS / 1000 + 1)  # its spectators have been shown its end
        assert not replay_refused(lobby, delayed.id)
        for _ in range(2):
            quick = await lobby.create(bots_game())
            await quick.over.wait()
        await trio.sleep(1)
        assert delayed.id not in lobby.tables  # let go now, and listed by its real summary
        summary = listed(lobby, delayed.id)
        assert summary.status == "over" and summary.seq == delayed.log.seq
        assert summary.revealed_seed == str(delayed.seed)
        nursery.cancel_scope.cancel()


async def finish_then_stop(folder, request: CreateTable):
    """A table played to its end on a logged server, which stops (before a delay could show its end)."""
    async with trio.open_nursery() as first:
        lobby = Lobby(first, folder, "never")
        table = await lobby.create(request)
        await table.over.wait()
        await table.marked.wait()
        first.cancel_scope.cancel()
    return table


async def test_a_restart_keeps_a_delayed_tables_end_until_its_delay_has_passed_since_it_ended(tmp_path,
                                                                                           autojump_clock):
    table = await finish_then_stop(tmp_path, bots_game(spectator_delay_ms=DELAY_MS))
    async with trio.open_nursery() as second:
        lobby = Lobby(second, tmp_path, "never")
        assert await lobby.recover() == []
        start = trio.current_time()
        assert replay_refused(lobby, table.id)
        masked = listed(lobby, table.id)  # as a table reopened mid-game is listed, not gone
        assert masked.status == "playing" and masked.seq == 0 and masked.revealed_seed is None
        with pytest.raises(Refusal) as watched:
            lobby.find(table.id)
        assert watched.value.code == "no_table"  # never ``table_over``: that would say it

        await trio.sleep_until(start + DELAY_MS / 1000 - 5)
        assert replay_refused(lobby, table.id)
        await trio.sleep(5)
        assert not replay_refused(lobby, table.id)
        assert listed(lobby, table.id) == table.info(unmasked=True)  # its real summary: over, its seq, its seed
        assert listed(lobby, table.id).status == "over"
        with pytest.raises(Refusal) as watched:
            lobby.find(table.id)
        assert watched.value.code == "table_over"
        second.cancel_scope.cancel()


async def test_after_a_restart_a_delay_already_past_or_in_entries_alone_keeps_nothing(tmp_path, autojump_clock,
                                                                                    monkeypatch):
    past = await finish_then_stop(tmp_path, bots_game(spectator_delay_ms=DELAY_MS))
    entries = await finish_then_stop(tmp_path, bots_game(spectator_delay_entries=3))
    marker = read_finished(past.store.path)
    assert isinstance(marker, Finished) and marker.ended is not None
    write_marker(past.store.path, Finished(table=marker.table, seq=marker.seq, end_hash=marker.end_hash))
    long_ago = marker.ended - DELAY_MS / 1000 - 1  # a marker written before it kept the time: its file's time
    os.utime(marker_path(past.store.path), (long_ago, long_ago))
    async with trio.open_nursery() as second:
        lobby = Lobby(second, tmp_path, "never")
        await lobby.recover()
        assert not replay_refused(lobby, past.id) and not replay_refused(lobby, entries.id)
        assert lobby.unshown == {}

        monkeypatch.setattr(heldends, "wall", lambda: marker.ended + 100)  # its marker's own time, once back
        write_marker(past.store.path, marker)
        again = Lobby(second, tmp_path, "never")
        await again.recover()
        assert replay_refused(again, past.id)
        await trio.sleep(DELAY_MS / 1000 - 100 + 0.5)
        assert not replay_refused(again, past.id)
        second.cancel_scope.cancel()
