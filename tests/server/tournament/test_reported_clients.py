"""The clients at a table played with real cards: a person following their tournament in the terminal is asked
for the places and reports them (a mistyped line is asked again), and `tournament bots` report theirs in seat
order, so an event of people and bots runs to its end."""

from __future__ import annotations

from functools import partial

import pytest
import trio

from clients.client import open_client
from clients.tournament_bots import fill_tournament
from clients.tournament_play import follow_tournament
from server.app import run_server
from server.tournament.verify import verify_tournament


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


async def test_a_person_types_the_places_of_a_table_played_with_cards_and_bots_agree(nursery, tmp_path):
    running = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path, durability="never"))
    typed = trio.open_memory_channel[str](10)
    said: list[str] = []
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flush", seats=3, rounds=1, reported_tables=1)
        tid = created.tournament.tournament
        ann = await organiser.register(tid, "ann")
        await nursery.start(fill_tournament, running.url, tid, 2, "heuristic", 3)

        async def asked():  # the person types once asked: first a slip, then the places in seat order
            for line in ("1,x,3", "1,2,3"):
                await typed[0].send(line)

        nursery.start_soon(asked)
        with trio.fail_after(60):
            async with trio.open_nursery() as inner:
                inner.start_soon(lambda: follow_tournament(running.url, tid, ann.token, read_line=typed[1].receive,
                                                           out=said.append))
                await organiser.start_tournament(tid, created.secret)
        final = await organiser.watch_tournament(tid)
    assert final.tournament.status == "over"
    table = final.seatings[0]
    assert any(line.endswith("played with real cards") and table.table in line for line in said)
    assert "'1,x,3': places are whole numbers by seat, e.g. 1,3,2" in said
    assert [row.name for row in final.standings][0] == next(p.name for p in final.players
                                                            if p.player == table.players[0])
    assert verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables").ok
