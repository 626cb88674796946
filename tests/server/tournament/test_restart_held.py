"""A round seated and waiting to begin (``pairings_first``) across a restart: its tables played with cards are not
told to their players before the organiser begins it, as without the restart (a swap or a re-pair may still
change them; a report for them is refused ``round_not_begun``)."""

from __future__ import annotations

import shutil

import trio

from server.protocol import CreateTournament, YourTable

from .test_restart_clocks import run_hub
from .test_rules import SEED


class Receiver:
    def __init__(self) -> None:
        self.got = []

    def deliver(self, message) -> bool:
        self.got.append(message)
        return True


async def test_a_waiting_rounds_reported_tables_are_not_told_after_a_restart(mock_clock, tmp_path):
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, rounds=2, seed=SEED, pairings_first=True,
            reported_tables=1, no_show_ms=3_600_000))
        tokens = [(await director.register(name))[1] for name in ("Ana", "Ben", "Cy", "Dan")]
        await director.start(secret, False)  # round 1 seated, waiting for the organiser to begin it
        assert director.state.org.held == 1 and not director.opened
        shutil.copytree(tmp_path / "first", tmp_path / "second")  # the server dies here
        hub = await run_hub(nursery, tmp_path / "second")
        director = hub.find(director.id)
        assert not director.opened  # nothing told before the round begins
        told = []
        for token in tokens:
            receiver = Receiver()
            director.watch(receiver, token, None)
            told += [m for m in receiver.got if type(m) is YourTable]
        assert told == []
        await director.start(secret, False)  # begun: now each player is told their table
        assert len(director.opened) == 2
        nursery.cancel_scope.cancel()
