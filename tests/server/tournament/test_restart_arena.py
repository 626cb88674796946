"""An arena across a restart (in virtual time, on a data directory, the files copied as a kill -9 leaves them):
its time up before the kill stays up (no table is seated after it, its last tables' ``round_time_ms`` is not given
again), and the players waiting are seated in the order they became free, as they would have been."""

from __future__ import annotations

import shutil

import trio

from server.logs import crashpoint
from server.protocol import CreateTournament
from server.tournament import reported
from server.tournament.tlog import RoundSeated, read_tournament_log

from ..test_abandoned import passes
from .test_restart_clocks import run_hub
from .test_rules import SEED


def copy_at(monkeypatch, tmp_path, point: str, nth: int = 1) -> None:
    """The first server's files copied to ``second`` the ``nth`` time ``point``'s record is on disk."""
    seen = []

    def reached(name: str) -> None:
        if name == point:
            seen.append(name)
            if len(seen) == nth:
                shutil.copytree(tmp_path / "first", tmp_path / "second")
    monkeypatch.setattr(crashpoint, "reached", reached)


async def test_an_arena_whose_time_was_up_seats_no_table_after_a_restart(mock_clock, tmp_path, monkeypatch):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, format="arena", seed=SEED, arena_ms=60_000,
            round_time_ms=30_000, no_show_ms=3_600_000))  # nobody plays: the time ends the one table
        for name in ("Ana", "Ben", "Cy"):
            await director.register(name)
        await director.start(secret, False)
        # the arena's time is up at 60 s, its table halted at 90 s: the server dies once that result is on disk
        copy_at(monkeypatch, tmp_path, "tournament:table_result")
        await passes(mock_clock, 91)
        await director.over.wait()
        assert director.state.round == 1
        hub = await run_hub(nursery, tmp_path / "second")
        director = hub.find(director.id)
        await passes(mock_clock, 1)
        assert director.state.round == 1  # no table seated after its time: it ends as the first server did
        assert director.over.is_set() and director.state.ended.reason == "time_up"
        nursery.cancel_scope.cancel()


async def test_an_arenas_last_tables_are_not_given_their_round_time_again_after_a_restart(mock_clock, tmp_path):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, format="arena", seed=SEED, arena_ms=60_000,
            round_time_ms=60_000, no_show_ms=3_600_000))
        for name in ("Ana", "Ben", "Cy"):
            _, token = await director.register(name)
        await director.start(secret, False)
        await passes(mock_clock, 90)  # the arena's time is up (60 s) and its table has 30 s left to play
        await director.drop(token, "", None)  # Cy (waiting) leaves: the log's last record, at 90 s
        shutil.copytree(tmp_path / "first", tmp_path / "second")  # the server dies here
        hub = await run_hub(nursery, tmp_path / "second")
        director = hub.find(director.id)
        (table,) = director.tables.values()
        await passes(mock_clock, 29)
        assert not table.over.is_set()
        await passes(mock_clock, 2)
        assert table.over.is_set() and table.halted[0] == "time_limit"  # at 120 s, as it would have
        nursery.cancel_scope.cancel()


async def test_an_arena_seats_its_players_in_the_order_they_became_free_after_a_restart(
        mock_clock, tmp_path, monkeypatch):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, format="arena", seed=SEED, arena_ms=600_000,
            reported_tables=100, no_show_ms=3_600_000))  # every table played with cards: reported
        tokens = {}
        for name in ("Ana", "Ben", "Cy"):
            player, tokens[player] = await director.register(name)
        await director.start(secret, False)
        (table, (_, players)), = director.state.tables.items()
        (alone,) = director.waiting  # the one left waiting since the start
        # the table's result stands with its second report: the server dies once it is on disk
        copy_at(monkeypatch, tmp_path, "tournament:reported", nth=2)
        for player in players:
            await reported.report(director, tokens[player], table, [1, 2])
        hub2 = await run_hub(nursery, tmp_path / "second")
        again = hub2.find(director.id)
        rounds = lambda path: [r for r in read_tournament_log(path).records if type(r) is RoundSeated]
        before = rounds(tmp_path / "first" / "tournaments" / f"{director.id}.log")[1]
        after = rounds(tmp_path / "second" / "tournaments" / f"{director.id}.log")[1]
        assert before.waiting[0] == alone  # who waited longest comes first ...
        assert after.waiting == before.waiting and after.tables == before.tables  # ... after a restart too
        nursery.cancel_scope.cancel()


async def test_an_arena_seats_again_a_player_whose_drop_was_undone(mock_clock, tmp_path):
    from server.tournament import organiser

    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, format="arena", seed=SEED, no_show_ms=3_600_000))
        for name in ("Ana", "Ben", "Cy"):
            _, token = await director.register(name)
        await director.start(secret, False)
        (cy,) = director.waiting
        await director.drop(token, "", None)
        assert director.waiting == []
        await organiser.undrop(director, secret, cy, "dropped by mistake")
        assert director.waiting == [cy]  # free again (it was never seated again before, until a restart)
        nursery.cancel_scope.cancel()


async def test_an_arena_table_that_ended_while_the_server_was_down_frees_its_players_after_those_waiting(
        mock_clock, tmp_path):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, format="arena", seed=SEED, no_show_ms=3_600_000))
        for name in ("Ana", "Ben", "Cy"):
            await director.register(name)
        await director.start(secret, False)
        (alone,) = director.waiting
        (table,) = director.tables.values()
        async with director.lock:  # its end on disk, its result not yet in the tournament's log: a kill -9
            await table.halt("time_limit")
            await table.over.wait()
            await table.wait_end_durable()
            shutil.copytree(tmp_path / "first", tmp_path / "second")
            assert table.id not in director.state.results
        hub = await run_hub(nursery, tmp_path / "second")
        again = hub.find(director.id)
        assert table.id in again.state.results  # read from the table's log at the restart ...
        seated = [r for r in read_tournament_log(tmp_path / "second" / "tournaments" / f"{director.id}.log").records
                  if type(r) is RoundSeated][1]
        assert seated.waiting == (alone, *director.state.tables[table.id][1])  # ... its players after the one waiting
        nursery.cancel_scope.cancel()
