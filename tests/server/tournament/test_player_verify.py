"""A player verifies the whole event on their own machine: `tournament_log` gives the log as it stands (the
seed hidden until the end), `photofinish tournament log` saves it, and `photofinish tournament verify` checks
the copy, with the receipt the player's registration gave."""

from __future__ import annotations

from functools import partial

import trio

from clients.cli import main
from clients.client import open_client
from server.app import run_server
from server.protocol import TournamentState


async def test_a_player_downloads_the_log_and_verifies_it_with_their_receipt(nursery, tmp_path, capsys, monkeypatch):
    running = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path / "data", durability="never"))
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1,
                                                    options={"races": 1}, no_show_ms=100, bot_delay_ms=0)
        tid = created.tournament.tournament
        me = await organiser.register(tid, "Ann")
        await organiser.register(tid, "Ben")
        early = await organiser.tournament_log(tid)
        assert early.lines == 3 and '"ended"' not in early.log and str(created.tournament.commitment) in early.log
        await organiser.start_tournament(tid, created.secret)
        state = await organiser.watch_tournament(tid)
        with trio.fail_after(60):
            while state.tournament.status != "over":
                message = await organiser.messages.receive()
                if type(message) is TournamentState:
                    state = message
    monkeypatch.chdir(tmp_path)
    await trio.to_thread.run_sync(main, ["tournament", "log", running.url, tid])  # a player's own copy
    said = capsys.readouterr().out
    assert f"{tid}.log" in said and f"photofinish tournament verify {tid}.log" in said
    copy = tmp_path / f"{tid}.log"
    assert copy.read_bytes() == (tmp_path / "data" / "tournaments" / f"{tid}.log").read_bytes()
    assert main(["tournament", "verify", str(copy), "--receipt", me.receipt]) == 0
    assert "verified" in capsys.readouterr().out
    assert main(["tournament", "verify", str(copy), "--receipt", "0" * 64]) == 1
    assert "NOT VERIFIED" in capsys.readouterr().out
    running.cancel_scope.cancel()
