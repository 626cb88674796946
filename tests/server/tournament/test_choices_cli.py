"""`photofinish tournament` with the organiser's choices: create with points per size, a tiebreak order,
seeding by ratings and reported tables (and its suggested rounds), then `report` from three players and
`settle` by the organiser, over a real server."""

from __future__ import annotations

from functools import partial

import pytest
import trio

from clients.cli import main
from clients.client import open_client
from server.app import run_server


async def cli(*argv: str) -> int:
    return await trio.to_thread.run_sync(main, list(argv))


async def test_create_report_and_settle_from_the_command_line(nursery, tmp_path, capsys):
    running = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path, durability="never"))
    assert await cli("tournament", "create", running.url, "--game", "flush", "--seats", "3", "--rounds", "1",
                     "--points-at", "2=4,0", "--points-at", "3=6,2,0", "--tiebreaks", "share,opponents",
                     "--first-round-by-ratings", "--reported-tables", "1") == 0
    out = capsys.readouterr()
    tid = out.out.strip()
    secret = out.err.split("organiser secret: ")[1].split()[0]
    assert "suggested for the field (ceil(log_3 players))" in out.err and "10-27 players: 3" in out.err
    assert "play with real cards" in out.err
    async with open_client(running.url) as client:
        tokens = {}
        for name in ("Ana", "Ben", "Cy"):
            async with open_client(running.url) as phone:
                entry = await phone.register(tid, name)
                tokens[entry.player] = entry.token
        assert await cli("tournament", "reported-tables", running.url, tid, "--secret", "wrong", "--tables", "0") == 2
        assert "bad_secret" in capsys.readouterr().err
        assert await cli("tournament", "reported-tables", running.url, tid, "--secret", secret, "--tables", "0") == 0
        assert (await client.watch_tournament(tid)).tournament.reported_tables == 0
        assert await cli("tournament", "reported-tables", running.url, tid, "--secret", secret, "--tables", "1") == 0
        capsys.readouterr()
        info = (await client.watch_tournament(tid)).tournament
        assert (info.tiebreaks, info.seeding, info.reported_tables) == (["share", "opponents"], "ratings", 1)
        state = await client.start_tournament(tid, secret)
    (table,) = state.seatings
    a, b, c = table.players
    for player, places in ((a, "1,2,3"), (b, "1,2,3"), (c, "3,2,1")):
        assert await cli("tournament", "report", running.url, tid, "--token", tokens[player], "--table",
                         table.table, "--places", places) == 0
    said = capsys.readouterr().out
    assert "real cards: 3 of 3 reported, they disagree: the organiser settles it" in said
    assert await cli("tournament", "settle", running.url, tid, "--secret", secret, "--table", table.table,
                     "--places", "1,2,3", "--reason", "the judge saw it") == 0
    said = capsys.readouterr().out
    assert "over" in said.splitlines()[0]
    assert await cli("tournament", "settle", running.url, tid, "--secret", secret, "--table", table.table,
                     "--places", "1,2,3") == 2
    assert "tournament_over" in capsys.readouterr().err  # (before the end: already_settled)
    assert await cli("tournament", "verify", str(tmp_path / "tournaments" / f"{tid}.log")) == 0
    running.cancel_scope.cancel()


@pytest.mark.parametrize("flag, words", [("--points-at=4", "table size, then its points"),
                                         ("--tiebreaks=lot", "tiebreaks are among")])
def test_a_malformed_choice_is_refused_before_connecting(flag, words, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["tournament", "create", "ws://127.0.0.1:1", flag])
    assert stopped.value.code == 2 and words in capsys.readouterr().err
