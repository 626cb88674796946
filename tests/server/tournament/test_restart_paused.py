"""A tournament whose round is in its log but whose table never opened (a kill -9 between the two) reopens after a
restart even when that table cannot open yet (a disk that fails its write): the round is paused and its table
tried again until it opens, as while the server runs (``opening.retry_tables``), never the whole tournament
left out of the server until the next restart."""

from __future__ import annotations

import shutil

import trio

from server.lobby import Lobby
from server.logs import crashpoint
from server.protocol import Code, CreateTournament, Refusal
from server.tournament import opening

from ..test_abandoned import passes
from .test_restart_clocks import run_hub
from .test_rules import SEED


async def test_a_round_whose_table_cannot_open_at_the_restart_is_paused_and_tried_again(
        mock_clock, tmp_path, monkeypatch):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(game="flag_finish", mode="challenge", seats=2,
                                                             rounds=1, seed=SEED, no_show_ms=3_600_000))
        for name in ("Ana", "Ben"):
            await director.register(name)

        def reached(name: str) -> None:  # the server dies once round 1 is on disk, before its table opens
            if name == "tournament:round_seated" and not (tmp_path / "second").exists():
                shutil.copytree(tmp_path / "first", tmp_path / "second")
        monkeypatch.setattr(crashpoint, "reached", reached)
        await director.start(secret, False)
        tid, (table_id,) = director.id, director.state.tables
        create, failures = Lobby.create, []

        async def full_disk(lobby, *args, **kwargs):  # the lobby refuses it once, as a disk failing its write does
            if not failures:
                failures.append(args)
                raise Refusal(Code.STORAGE_FAILED, "cannot write a log for the table: No space left on device")
            return await create(lobby, *args, **kwargs)
        monkeypatch.setattr(Lobby, "create", full_disk)
        hub = await run_hub(nursery, tmp_path / "second")
        director = hub.find(tid)  # it is there: watched, registered to, acted on
        assert failures and director.paused and table_id not in director.tables
        await passes(mock_clock, opening.RETRY_SECONDS + 1)  # tried again (its files written in a thread) ...
        while director.paused is not None:
            await director._changed.wait()
        assert table_id in director.tables and director.paused is None  # opened once the disk could be written
        nursery.cancel_scope.cancel()
