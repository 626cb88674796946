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
