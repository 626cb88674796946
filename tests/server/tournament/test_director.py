"""Whole tournaments over real websockets: bots register, follow the tournament, take their reserved seats
each round and play to the final standings; the tournament's log then verifies against its tables' logs.
Also: refusals (forged organiser secret and player tokens), a round time limit, a no-show, and a restart."""

from __future__ import annotations

from functools import partial

import pytest
import trio
import trio.testing

from clients.client import ServerError, open_client
from clients.tournament_bots import fill_tournament, play_tournament
from server.app import run_server
from server.protocol import TournamentState
from server.tournament.verify import verify_tournament


async def start_server(nursery, data_dir):
    return await nursery.start(partial(run_server, "127.0.0.1", 0, data_dir, durability="never"))


async def wait_over(client, tournament: str):
    from server.protocol import TournamentState

    state = await client.watch_tournament(tournament)
    if state.tournament.status == "over":
        return state
    async for message in client.messages:
        if type(message) is TournamentState and message.tournament.status == "over":
            return message


async def test_a_12_bot_swiss_of_flag_finish_challenge_runs_to_verified_standings(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(name="club night", game="flag_finish", mode="challenge",
                                                    seats=3, options={"races": 1}, format="swiss", rounds=3)
        tid, secret = created.tournament.tournament, created.secret
        ids = await nursery.start(fill_tournament, running.url, tid, 12, "heuristic", 5)
        assert len(ids) == 12
        await organiser.start_tournament(tid, secret)
        with trio.fail_after(120):
            final = await wait_over(organiser, tid)
    rows = final.standings
    assert [row.rank for row in rows] == sorted(row.rank for row in rows) and len(rows) == 12
    assert all(row.tables == 3 for row in rows)  # 12 players at 3 seats: 4 tables a round, no byes
    assert sum(row.points for row in rows) == 3 * 4 * (3 + 1 + 0)  # each table pays 3/1/0 (ties split)
    report = verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables")
    assert report.ok, report.problem
    assert report.rounds == 3 and report.results == 12 and report.table_logs == 12
    assert [s.player for s in report.standings] == [row.player for row in rows]
    async with open_client(running.url) as client:
        board = await client.leaderboard("flag_finish")
    assert len(board) == 12 and all(row.tables == 3 for row in board)
    assert [row.ordinal for row in board] == sorted((row.ordinal for row in board), reverse=True)
    assert {row.player for row in board} == {row.name.casefold() for row in rows}


async def test_ten_players_of_flush_sit_at_tables_of_4_3_and_3(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flush", seats=4, options={"rounds": 1}, rounds=1)
        tid = created.tournament.tournament
        await nursery.start(fill_tournament, running.url, tid, 10, "heuristic", 9)
        state = await organiser.start_tournament(tid, created.secret)
        assert sorted(len(s.players) for s in state.seatings) == [3, 3, 4]
        with trio.fail_after(120):
            final = await wait_over(organiser, tid)
    assert len(final.standings) == 10 and all(row.tables == 1 for row in final.standings)
    assert verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables").ok


async def test_forged_secrets_and_tokens_are_refused_and_change_nothing(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1)
        tid = created.tournament.tournament
        ana = await client.register(tid, "Ana")
        await client.register(tid, "Ben")
        other = await client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1)
        for call, code in ((client.start_tournament(tid, "not-the-secret"), "bad_secret"),
                           (client.start_tournament(tid, other.secret), "bad_secret"),  # another's secret
                           (client.check_in(tid, "forged-token"), "bad_token"),
                           (client.drop(tid, token="forged-token"), "bad_token"),
                           (client.drop(tid, secret="wrong", player=ana.player), "bad_secret"),
                           (client.check_in(other.tournament.tournament, ana.token), "bad_token")):
            with pytest.raises(ServerError) as refused:
                await call
            assert refused.value.code == code
        state = await client.watch_tournament(tid)
        assert state.tournament.status == "registration" and state.tournament.round == 0
        assert [p.dropped for p in state.players] == [False, False]


async def test_a_name_registered_twice_is_refused_whatever_its_case_and_changes_nothing(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1)
        tid = created.tournament.tournament
        ana = await client.register(tid, "Ana")
        for again in ("Ana", "ana", " ANA "):
            with pytest.raises(ServerError) as refused:
                await client.register(tid, again)
            assert refused.value.code == "name_taken" and ana.player in refused.value.message
        await client.register(tid, "Anabel")
        state = await client.watch_tournament(tid)
    assert [p.name for p in state.players] == ["Ana", "Anabel"]
    assert sorted(row.name for row in state.standings) == ["Ana", "Anabel"]  # (unplayed: ordered by lot)


async def test_a_no_show_is_played_by_a_stand_in_and_placed_last(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="lockstep", seats=2, rounds=1,
                                                 options={"races": 1}, no_show_ms=300)  # turns: waits for the absent
        tid = created.tournament.tournament
        await client.register(tid, "absent")  # registers, never comes
        await nursery.start(play_tournament, running.url, tid, "present", "heuristic", 3)
        await client.start_tournament(tid, created.secret)
        with trio.fail_after(60):
            final = await wait_over(client, tid)
    by_name = {row.name: row for row in final.standings}
    assert by_name["present"].rank == 1 and by_name["absent"].rank == 2
    table = final.seatings[0]
    absent_seat = [p.name for p in final.players].index("absent")
    assert table.stand_ins == [table.players.index(final.players[absent_seat].player)]


async def test_a_round_time_limit_ends_tables_as_they_stand(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1,
                                                 round_time_ms=300, no_show_ms=3_600_000)
        tid = created.tournament.tournament
        await client.register(tid, "Ana")  # both absent: nobody plays, the clock ends the round
        await client.register(tid, "Ben")
        await client.start_tournament(tid, created.secret)
        with trio.fail_after(120):
            final = await wait_over(client, tid)
    assert final.tournament.status == "over" and final.seatings[0].places is not None
    table = running.lobby.find(final.seatings[0].table)
    assert table.halted is not None and table.halted[0] == "time_limit"
    assert verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables").ok


async def test_an_organiser_corrects_a_result_and_the_standings_follow(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=2,
                                                 round_time_ms=1500, no_show_ms=3_600_000)
        tid, secret = created.tournament.tournament, created.secret
        ana, ben = await client.register(tid, "Ana"), await client.register(tid, "Ben")
        state = await client.watch_tournament(tid)
        first = (await client.start_tournament(tid, secret)).seatings[0]  # nobody plays: time limits, ties
        while type(state) is not TournamentState or state.tournament.round < 2:
            state = await client.messages.receive()
        places = [1 if player == ben.player else 2 for player in first.players]
        with pytest.raises(ServerError) as refused:
            await client.correct_result(tid, secret, first.table, places, "")
        assert refused.value.code == "no_reason"
        await client.correct_result(tid, secret, first.table, places, "Ana conceded round 1")
        with trio.fail_after(60):
            final = await wait_over(client, tid)
        with pytest.raises(ServerError) as late:
            await client.correct_result(tid, secret, first.table, places, "too late")
        assert late.value.code == "tournament_over"
    points = {row.name: row.points for row in final.standings}
    assert points == {"Ben": 3 + 1.5, "Ana": 0 + 1.5}  # 2 seats pay 3/0; the round-2 tie splits them
    report = verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables")
    assert report.ok, report.problem
    assert [row.player for row in report.standings] == [ben.player, ana.player]


async def test_an_arena_seats_players_again_as_they_finish_until_its_time_is_up(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3, format="arena",
                                                    options={"races": 1}, arena_ms=2_000)
        tid = created.tournament.tournament
        await nursery.start(fill_tournament, running.url, tid, 6, "heuristic", 21)
        await organiser.start_tournament(tid, created.secret)
        with trio.fail_after(120):
            final = await wait_over(organiser, tid)
    assert final.tournament.round >= 3  # two tables at once, then players seated again as tables finished
    assert all(row.tables >= 1 for row in final.standings)
    report = verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables")
    assert report.ok, report.problem


async def test_a_swiss_with_a_top_3_final_table_decides_the_first_three(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3, rounds=1,
                                                    top=3, options={"races": 1})
        tid = created.tournament.tournament
        await nursery.start(fill_tournament, running.url, tid, 6, "heuristic", 31)
        await organiser.start_tournament(tid, created.secret)
        with trio.fail_after(120):
            final = await wait_over(organiser, tid)
    assert final.tournament.round == 2 and final.tournament.rounds == 2
    director = running.lobby.tournaments.find(tid)
    final_table = next(t for t, (r, _) in director.state.tables.items() if r == 2)
    result = director.state.results[final_table]
    place = dict(zip(result.players, result.places))
    top = [row.player for row in final.standings[:3]]
    assert set(top) == set(result.players)  # the final's players take 1st..3rd ...
    assert [place[p] for p in top] == sorted(place[p] for p in top)  # ... in the final's order
    assert verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables").ok


async def test_an_internal_error_in_one_tournament_is_one_line_and_the_server_goes_on(nursery, tmp_path,
                                                                                      monkeypatch, capsys):
    """A bug in a tournament's task (here: logging a table's result) must not stop the server: the other tables
    play on and new ones open; the operator reads one line naming the tournament."""
    from server.tournament import results

    failed = trio.Event()

    async def broken(*args):
        failed.set()
        raise RuntimeError("a bug")

    monkeypatch.setattr(results, "finished", broken)
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3, rounds=1,
                                                    options={"races": 1})
        tid = created.tournament.tournament
        await nursery.start(fill_tournament, running.url, tid, 3, "heuristic", 5)
        await organiser.start_tournament(tid, created.secret)
        with trio.fail_after(120):
            await failed.wait()  # a table of the round ended, and logging its result failed
        await trio.testing.wait_all_tasks_blocked()
        table = await organiser.create_table(game="flag_finish", mode="challenge", seats=2)
    assert running.lobby.find(table.table) is not None  # still serving
    said = capsys.readouterr().err
    assert f"tournament {tid}: an internal error in await_result (RuntimeError: a bug)" in said
    assert "Traceback" not in said


async def test_a_player_who_watches_while_a_round_opens_is_sent_to_their_table_only_once_it_is_open(
        nursery, tmp_path, monkeypatch):
    from server.protocol import YourTable

    running = await start_server(nursery, tmp_path)
    lobby, opening, gate = running.lobby, trio.Event(), trio.Event()
    create = lobby.create

    async def slow_create(*args, **kwargs):  # the round is seated in the log; its table is still opening
        opening.set()
        await gate.wait()
        return await create(*args, **kwargs)

    monkeypatch.setattr(lobby, "create", slow_create)
    async with open_client(running.url) as organiser, open_client(running.url) as player:
        created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3, rounds=1,
                                                    options={"races": 1})
        tid = created.tournament.tournament
        tokens = [(await organiser.register(tid, name)).token for name in ("ann", "ben", "cat")]
        nursery.start_soon(organiser.start_tournament, tid, created.secret)
        with trio.fail_after(10):
            await opening.wait()
        await player.watch_tournament(tid, tokens[0])
        await player.list_tables()  # answered after anything the watch sent
        early = []
        while True:
            try:
                early.append(player.messages.receive_nowait())
            except trio.WouldBlock:
                break
        assert not [m for m in early if type(m) is YourTable], "told of a table that is not open yet"
        gate.set()
        with trio.fail_after(10):
            async for message in player.messages:
                if type(message) is YourTable:
                    break
        assert lobby.find(message.table).slots[message.seat].name == "ann", "her reserved seat, open to take"


async def test_a_player_who_dropped_cannot_check_in_again_and_stays_dropped(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1,
                                                 check_in=True)
        tid = created.tournament.tournament
        ana = await client.register(tid, "Ana")
        await client.register(tid, "Ben")
        await client.drop(tid, token=ana.token)
        with pytest.raises(ServerError) as refused:
            await client.check_in(tid, ana.token)
        assert refused.value.code == "already_dropped" and "organiser" in refused.value.message
        state = await client.watch_tournament(tid)
    ana_row = next(p for p in state.players if p.player == ana.player)
    assert ana_row.dropped and not ana_row.checked_in
