"""Reported results over real websockets: three players at a table played with real cards each report its
places from their own connection; a disagreement waits for the organiser's settlement; every refusal is typed
and changes nothing; the event's log then verifies, reports and settlement included."""

from __future__ import annotations

from contextlib import AsyncExitStack
from functools import partial

import pytest
import trio

from clients.client import ServerError, open_client
from server.app import run_server
from server.protocol import TournamentState, YourTable
from server.tournament.tlog import read_tournament_log
from server.tournament.verify import verify_tournament


async def start_server(nursery, data_dir):
    return await nursery.start(partial(run_server, "127.0.0.1", 0, data_dir, durability="never"))


async def next_of(client, kind, test=lambda m: True):
    async for message in client.messages:
        if type(message) is kind and test(message):
            return message


async def test_three_players_report_a_table_the_organiser_settles_a_dispute_and_the_log_verifies(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with AsyncExitStack() as stack:
        organiser = await stack.enter_async_context(open_client(running.url))
        created = await organiser.create_tournament(name="cards night", game="flush", seats=3, rounds=2,
                                                    reported_tables=1)
        tid, secret = created.tournament.tournament, created.secret
        assert created.tournament.reported_tables == 1 and created.tournament.suggested_rounds == 1
        phones, tokens = {}, {}
        for name in ("Ana", "Ben", "Cy"):
            phone = await stack.enter_async_context(open_client(running.url))
            entry = await phone.register(tid, name)
            phones[entry.player], tokens[entry.player] = phone, entry.token
            await phone.watch_tournament(tid, entry.token)
        state = await organiser.start_tournament(tid, secret)
        (table,) = state.seatings
        assert table.reported and table.places is None and table.reports == {}
        with trio.fail_after(30):
            for player, phone in phones.items():  # each phone is told its seat at a table played with cards
                told = await next_of(phone, YourTable)
                assert told.reported and told.table == table.table and table.players[told.seat] == player
        a, b, c = table.players

        async def refused(call, code):
            with pytest.raises(ServerError) as error:
                await call
            assert error.value.code == code, error.value.message

        await refused(phones[a].report_result(tid, tokens[a], table.table, [1, 1, 2]), "bad_places")
        await refused(phones[a].report_result(tid, tokens[a], table.table, [1, 2]), "bad_places")
        await refused(phones[a].report_result(tid, "forged", table.table, [1, 2, 3]), "bad_token")
        await refused(phones[a].report_result(tid, tokens[a], "t999", [1, 2, 3]), "unknown_table")
        await refused(organiser.settle_result(tid, "not-the-secret", table.table, [1, 2, 3]), "bad_secret")
        await phones[a].report_result(tid, tokens[a], table.table, [1, 2, 3])
        await phones[b].report_result(tid, tokens[b], table.table, [1, 2, 3])
        state = await phones[c].report_result(tid, tokens[c], table.table, [2, 1, 3])  # c disagrees
        (shown,) = state.seatings
        assert shown.places is None and shown.reports == {a: [1, 2, 3], b: [1, 2, 3], c: [2, 1, 3]}
        assert state.tournament.round == 1
        await refused(organiser.start_tournament(tid, secret, next_round=True), "reports_pending")
        state = await organiser.settle_result(tid, secret, table.table, [1, 2, 3], "the judge saw the last hand")
        assert state.tournament.round == 2  # the result stands: round 2 is seated from it
        first = next(row for row in state.standings if row.player == a)
        assert first.rank == 1 and first.points == 3
        await refused(phones[c].report_result(tid, tokens[c], table.table, [1, 2, 3]), "already_settled")
        await refused(organiser.settle_result(tid, secret, table.table, [3, 2, 1]), "already_settled")
        (table2,) = state.seatings
        assert table2.reported
        for player in table2.players:  # round 2: all three agree, and the event ends
            state = await phones[player].report_result(tid, tokens[player], table2.table, [2, 1, 3])
        assert state.tournament.status == "over"
    log = tmp_path / "tournaments" / f"{tid}.log"
    report = verify_tournament(log, tmp_path / "tables")
    assert report.ok, report.problem
    assert report.results == 2 and report.table_logs == 0  # no server table: nothing to check beside the log
    kinds = [type(r).__struct_config__.tag for r in read_tournament_log(log).records]
    assert kinds.count("reported") == 6 and kinds.count("settled") == 1
    assert not (tmp_path / "tables" / f"{table.table}.log").exists()  # never opened on the server


async def test_a_report_for_another_table_or_a_server_table_is_refused(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    async with AsyncExitStack() as stack:
        organiser = await stack.enter_async_context(open_client(running.url))
        created = await organiser.create_tournament(game="flush", seats=3, rounds=1, reported_tables=1,
                                                    no_show_ms=3_600_000)
        tid = created.tournament.tournament
        tokens = {}
        for i in range(6):
            phone = await stack.enter_async_context(open_client(running.url))
            entry = await phone.register(tid, f"Player {i}")
            tokens[entry.player] = entry.token
        state = await organiser.start_tournament(tid, created.secret)
        server_table, reported = state.seatings
        assert not server_table.reported and reported.reported
        elsewhere = server_table.players[0]
        for table, code in ((reported.table, "not_your_table"), (server_table.table, "not_reported")):
            with pytest.raises(ServerError) as error:
                await organiser.report_result(tid, tokens[elsewhere], table, [1, 2, 3])
            assert error.value.code == code
        after = await organiser.watch_tournament(tid)
        assert all(s.places is None and s.reports == {} for s in after.seatings)
        assert type(after) is TournamentState


async def test_round_one_seeded_by_ratings_parts_the_best_rated_and_logs_the_ratings_it_used(nursery, tmp_path):
    running = await start_server(nursery, tmp_path)
    names = [f"Player {i}" for i in range(6)]
    async with AsyncExitStack() as stack:
        organiser = await stack.enter_async_context(open_client(running.url))

        async def event(**fields):
            created = await organiser.create_tournament(game="flush", seats=3, rounds=1, reported_tables=2, **fields)
            tid, tokens, phones = created.tournament.tournament, {}, {}
            for name in names:
                phone = await stack.enter_async_context(open_client(running.url))
                entry = await phone.register(tid, name)
                tokens[entry.player], phones[entry.player] = entry.token, phone
            return tid, created.secret, tokens, phones

        tid, secret, tokens, phones = await event()  # a first evening rates everyone: two winners
        state = await organiser.start_tournament(tid, secret)
        names_of = {p.player: p.name for p in state.players}
        winners = []
        for table in state.seatings:
            winners.append(names_of[table.players[0]])
            for player in table.players:
                state = await phones[player].report_result(tid, tokens[player], table.table, [1, 2, 3])
        assert state.tournament.status == "over"
        board = await organiser.leaderboard("flush")
        assert {row.player for row in board[:2]} == {w.casefold() for w in winners}

        tid, secret, tokens, phones = await event(seeding="ratings")
        state = await organiser.start_tournament(tid, secret)
        assert state.tournament.seeding == "ratings"
        names_of = {p.player: p.name for p in state.players}
        tables_of = {names_of[p]: i for i, t in enumerate(state.seatings) for p in t.players}
        assert tables_of[winners[0]] != tables_of[winners[1]]  # the two best rated sit apart in round 1
        for table in state.seatings:
            for player in table.players:
                state = await phones[player].report_result(tid, tokens[player], table.table, [1, 2, 3])
        assert state.tournament.status == "over"
    log = tmp_path / "tournaments" / f"{tid}.log"
    (logged,) = [r for r in read_tournament_log(log).records if type(r).__struct_config__.tag == "ratings_seeded"]
    by_name = {row.player: row.ordinal for row in board}
    assert {names_of[p]: v for p, v in logged.ratings.items()} == {
        n: pytest.approx(by_name.get(n.casefold(), 0.0), abs=1e-3) for n in names}
    assert verify_tournament(log, tmp_path / "tables").ok


async def a_reported_round_begun(running, organiser) -> tuple:
    """A Flush cup of Ana, Ben and Cy whose one table is played with real cards, its round begun: (its id, each
    player's token, the table's seating)."""
    created = await organiser.create_tournament(game="flush", seats=3, rounds=1, reported_tables=1)
    tid = created.tournament.tournament
    tokens = {}
    for name in ("Ana", "Ben", "Cy"):
        async with open_client(running.url) as phone:
            entry = await phone.register(tid, name)
            tokens[entry.player] = entry.token
    (table,) = (await organiser.start_tournament(tid, created.secret)).seatings
    return tid, tokens, table


async def test_a_restart_keeps_the_reports_and_never_opens_a_reported_table(tmp_path):
    async with trio.open_nursery() as first_run:
        running = await start_server(first_run, tmp_path)
        async with open_client(running.url) as organiser:
            tid, tokens, table = await a_reported_round_begun(running, organiser)
            first = table.players[0]
            await organiser.report_result(tid, tokens[first], table.table, [1, 2, 3])
        first_run.cancel_scope.cancel()
    async with trio.open_nursery() as second_run:  # the same data directory: the tournament reopens from its log
        running = await start_server(second_run, tmp_path)
        async with open_client(running.url) as phone:
            state = await phone.watch_tournament(tid)
            assert state.seatings[0].reports == {first: [1, 2, 3]} and state.seatings[0].reported
            with pytest.raises(ServerError) as refused:  # not opened on the server after the restart either
                await phone.resume(table.table, tokens[first])
            assert refused.value.code == "no_table"
            for player in table.players[1:]:
                state = await phone.report_result(tid, tokens[player], table.table, [1, 2, 3])
            assert state.tournament.status == "over"
            assert len(await phone.leaderboard("flush")) == 3
        second_run.cancel_scope.cancel()
    assert verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables").ok
    assert not (tmp_path / "tables" / f"{table.table}.log").exists()


async def test_a_restart_gives_a_player_who_spent_their_reports_no_new_ones(tmp_path):
    """The too_many_reports budget is counted from the log: a player who spent it (changing their report over and
    over) does not get it afresh by the server restarting."""
    from server.tournament.reported import CHANGES_MOST

    async with trio.open_nursery() as first_run:
        running = await start_server(first_run, tmp_path)
        async with open_client(running.url) as organiser:
            tid, tokens, table = await a_reported_round_begun(running, organiser)
            first = table.players[0]
            for flip in range(CHANGES_MOST):
                await organiser.report_result(tid, tokens[first], table.table, [2, 1, 3] if flip % 2 else [1, 2, 3])
        first_run.cancel_scope.cancel()
    async with trio.open_nursery() as second_run:
        running = await start_server(second_run, tmp_path)
        async with open_client(running.url) as phone:
            with pytest.raises(ServerError) as refused:
                await phone.report_result(tid, tokens[first], table.table, [3, 2, 1])
            assert refused.value.code == "too_many_reports"
            await phone.report_result(tid, tokens[table.players[1]], table.table, [3, 2, 1])  # another still may
        second_run.cancel_scope.cancel()
