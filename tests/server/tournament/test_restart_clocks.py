"""A tournament's clocks across a restart (in virtual time, on a data directory): a round with
``round_time_ms`` whose server restarts mid-round still ends its tables as they stand when its time is up,
counted from its seating to the log's last record and on from the restart (the time the server was down is not
counted: nobody could play)."""

from __future__ import annotations

import shutil

import trio

from server.lobby import Lobby
from server.protocol import CreateTournament
from server.tournament.hub import TournamentHub
from server.tournament.tlog import TableFinished, read_tournament_log

from ..test_abandoned import passes
from .test_rules import SEED

ROUND_S = 60


async def run_hub(nursery, folder):
    folder.mkdir(exist_ok=True)
    lobby = Lobby(nursery, folder, "never")
    hub = TournamentHub(nursery, lobby, folder, "never")
    lobby.tournaments = hub
    await hub.open()
    await lobby.recover()
    await hub.recover()
    return hub


async def test_a_rounds_time_goes_on_after_a_restart_and_ends_its_tables_when_it_is_up(mock_clock, tmp_path):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, rounds=1, seed=SEED, round_time_ms=ROUND_S * 1000,
            no_show_ms=3_600_000))  # nobody plays, and no stand-in comes within the round
        for name in ("Ana", "Ben"):
            await director.register(name)
        await director.start(secret, False)
        tid = director.id
        # the server dies here, its round's whole time still to run: what it left on disk starts another
        shutil.copytree(tmp_path / "first", tmp_path / "second")
        hub = await run_hub(nursery, tmp_path / "second")
        director = hub.find(tid)
        (table,) = director.tables.values()
        await passes(mock_clock, ROUND_S - 1)
        assert not table.over.is_set()
        await passes(mock_clock, 2)
        assert table.halted is not None and table.halted[0] == "time_limit"
        await director.over.wait()
        nursery.cancel_scope.cancel()
    (finished,) = [r for r in read_tournament_log(tmp_path / "second" / "tournaments" / f"{tid}.log").records
                   if type(r) is TableFinished]
    assert finished.round == 1 and finished.stand_ins == (False, False)  # ended by the clock, not by bots


async def killed_at(nursery, tmp_path, monkeypatch, point: str, act) -> tuple:
    """A tournament of two at one table nobody plays (no clock), ``act(director, secret)`` done on it, the
    server's files taken as a kill -9 leaves them the moment ``point``'s record is on disk, and a second server
    started on them: (that server's hub, the tournament's id)."""
    from server.logs import crashpoint

    hub = await run_hub(nursery, tmp_path / "first")
    director, secret = await hub.create(CreateTournament(game="flag_finish", mode="challenge", seats=2, rounds=2,
                                                         seed=SEED, no_show_ms=3_600_000))
    for name in ("Ana", "Ben"):
        await director.register(name)
    await director.start(secret, False)

    def reached(name: str) -> None:
        if name == point and not (tmp_path / "second").exists():
            shutil.copytree(tmp_path / "first", tmp_path / "second")
    monkeypatch.setattr(crashpoint, "reached", reached)
    await act(director, secret)
    assert (tmp_path / "second").exists()
    return await run_hub(nursery, tmp_path / "second"), director.id


async def test_a_round_the_organiser_ended_just_before_a_kill_ends_its_tables_after_the_restart(
        mock_clock, tmp_path, monkeypatch):
    from server.tournament import organiser

    async with trio.open_nursery() as nursery:
        hub, tid = await killed_at(nursery, tmp_path, monkeypatch, "tournament:round_ended",
                                   lambda director, secret: organiser.end_round(director, secret, "time is up"))
        director = hub.find(tid)
        (table,) = director.tables.values()
        await passes(mock_clock, 1)
        assert table.over.is_set() and table.halted[0] == "time_limit"  # halted as end_round halts it, and the
        # event goes on: round 2 is seated
        while director.state.round < 2:
            await director._changed.wait()
        nursery.cancel_scope.cancel()


async def test_a_tournament_cancelled_just_before_a_kill_leaves_no_table_playing_after_the_restart(
        mock_clock, tmp_path, monkeypatch):
    from server.tournament import organiser

    async with trio.open_nursery() as nursery:
        hub, tid = await killed_at(nursery, tmp_path, monkeypatch, "tournament:ended",
                                   lambda director, secret: organiser.cancel(director, secret, "rained off"))
        director = hub.find(tid)
        assert director.over.is_set()
        (table_id,) = director.state.tables
        table = hub.lobby.tables[table_id]  # reopened from its log, as every table with no end is ...
        await passes(mock_clock, 1)  # ... and halted, as cancel halts them: no table plays on for an event over
        assert table.over.is_set() and table.halted[0] == "time_limit"
        nursery.cancel_scope.cancel()


async def test_an_arena_reopened_after_a_restart_runs_for_what_was_left_of_its_time(mock_clock, tmp_path):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, format="arena", seed=SEED, arena_ms=2 * ROUND_S * 1000,
            no_show_ms=3_600_000))
        for name in ("Ana", "Ben", "Cy"):
            _, token = await director.register(name)
        await director.start(secret, False)
        await passes(mock_clock, ROUND_S)
        await director.drop(token, "", None)  # Cy, waiting, leaves: the log's last record, half the arena's time in
        shutil.copytree(tmp_path / "first", tmp_path / "second")  # the server dies here
        hub = await run_hub(nursery, tmp_path / "second")
        director = hub.find(director.id)
        await passes(mock_clock, ROUND_S - 1)
        assert not director.arena_over
        await passes(mock_clock, 2)
        assert director.arena_over  # never its whole time again
        nursery.cancel_scope.cancel()
