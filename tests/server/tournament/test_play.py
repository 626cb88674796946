"""A person follows their tournament in the terminal: `play --tournament T --token TOKEN` waits for each
round's seating, plays the table, and ends with the final standings."""

from functools import partial

import pytest
import trio

from clients.client import open_client
from clients.tournament_bots import fill_tournament, play_tournament
from clients.tournament_play import follow_tournament
from server.app import run_server
from tests.server.helpers import Said
from tests.server.test_terminal import Person


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


async def test_a_person_plays_every_round_of_a_swiss_against_bots_to_the_final_standings(nursery, tmp_path):
    running = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path / "data", durability="never"))
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3, rounds=2,
                                                    options={"races": 1})
        tid = created.tournament.tournament
        ann = await organiser.register(tid, "ann")
        await nursery.start(fill_tournament, running.url, tid, 5, "heuristic", 11)
        person, said = Person(), []
        async with trio.open_nursery() as inner:
            inner.start_soon(lambda: follow_tournament(running.url, tid, ann.token, read_line=person.read_line,
                                                       terminal=person.terminal, out=said.append))
            await organiser.start_tournament(tid, created.secret)
        final = await organiser.watch_tournament(tid)
    assert final.tournament.status == "over"
    assert [line for line in said if line.startswith("round ")] == [
        f"round {r}: your table is {t}, seat {s + 1}" for r, t, s in _ann_tables(final, ann.player, running)]
    assert "You are seat" in person.text and person.typed, "ann played her tables herself"
    assert said[-1].startswith(f"{final.tournament.name} is over. Final standings:") and " ann " in said[-1]
    assert next(row for row in final.standings if row.player == ann.player).tables == 2


def _ann_tables(final, player, running):
    director = running.lobby.tournaments.find(final.tournament.tournament)
    for table, (round_no, players) in director.state.tables.items():
        if player in players:
            yield round_no, table, players.index(player)


async def test_a_person_waits_through_a_server_restart_and_plays_the_round_it_seats(nursery, tmp_path):
    """The organiser restarts the server before the start: `play --tournament` says so, waits, and is seated
    once it is back, instead of ending."""
    first = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path / "data"))
    async with open_client(first.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1,
                                                    options={"races": 1})
        tid = created.tournament.tournament
        ann = await organiser.register(tid, "ann")
    person, said = Person(), Said()
    async with trio.open_nursery() as inner:
        inner.start_soon(lambda: follow_tournament(first.url, tid, ann.token, read_line=person.read_line,
                                                   terminal=person.terminal, out=said))
        with trio.fail_after(20):
            await said.heard.wait()  # ann is following before the restart
        await first.shutdown()
        back = await nursery.start(partial(run_server, "127.0.0.1", first.port, tmp_path / "data"))
        await nursery.start(partial(play_tournament, back.url, tid, "bot", "heuristic", 3))
        async with open_client(back.url) as organiser:
            await organiser.start_tournament(tid, created.secret)
        with trio.fail_after(60):
            await person.wait_for("Game over")
    assert any("shutting down" in line and "goes on once it is back" in line for line in said)
    assert any(line.startswith("round 1: your table is") for line in said), said
    # seated and shown its table (on a quick machine the unpaced bot may end the race before a move is
    # offered to the person: 1 full CI run in 3; a paced one made the person's simple rule loop to the limit)
    assert "You are seat" in person.text, person.frames[-2:]
