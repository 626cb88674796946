"""The organiser's actions through the director (``server/tournament/organiser.py``), in memory under the autojump
clock: an evening with its pairings published first, a pairing fixed before the round begins, a round ended
early, a late player penalised, a disqualification, a drop undone, a re-entry and a cancellation; every decision
in the log, with the round history every ``tournament`` message carries, and the log verifies. Then the same
over a real websocket and the command line (``photofinish tournament swap/repair/begin/...``)."""

from __future__ import annotations

import subprocess
import sys
from functools import partial

import pytest
import trio

from clients.client import ServerError, open_client
from server.app import run_server
from server.protocol import Refusal
from server.tournament import organiser
from server.tournament.actions import Repaired, RoundBegun, RoundEnded, Swapped
from server.tournament.tlog import Ended
from server.tournament.verify import verify_tournament

from .test_rules import open_director


async def refused(call, code: str) -> None:
    with pytest.raises(Refusal) as error:
        await call
    assert error.value.code == code, error.value.message


async def test_an_evening_fixed_by_its_organiser_is_all_in_the_log_and_verifies(nursery, autojump_clock, tmp_path):
    director, secret = await open_director(nursery, seats=3, rounds=3, pairings_first=True, reentry=True)
    ids = [(await director.register(name))[0] for name in ("Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gil")]
    await director.start(secret, False)
    state = director.state
    assert state.org.held == 1 and not director.tables  # published, nothing open yet
    view = director.snapshot()
    assert view.tournament.waiting_round == 1 and view.rounds[0].begun is False
    # a wrong pairing fixed before the round starts: two players swapped, then the round re-paired with a pair
    # kept apart
    first, second = state.seatings[0].tables[:2]
    await organiser.swap(director, secret, first[0], second[0], "Ana and Ben came together")
    assert state.seatings[0].tables[0][0] == second[0]
    await refused(organiser.swap(director, secret, first[1], first[2], "x"), "same_table")
    await refused(organiser.swap(director, "wrong", first[1], second[1], "x"), "bad_secret")
    await refused(organiser.swap(director, secret, first[1], second[1], "  "), "no_reason")
    await organiser.repair(director, secret, [["Ana", "Ben"]], "siblings never play each other")
    assert not any({ids[0], ids[1]} <= set(t) for t in state.seatings[0].tables)
    await refused(organiser.repair(director, secret, [["Ana", "Ana"]], "x"), "bad_exclude")
    await refused(organiser.end_round(director, secret, "x"), "no_round_playing")
    await director.start(secret, True)  # begins round 1: its tables open
    assert state.org.held == 0 and len(director.tables) == len(state.seatings[0].tables)
    await refused(organiser.swap(director, secret, first[1], second[1], "x"), "round_begun")
    # nobody plays (the tables wait for their players): the organiser ends the round now
    await organiser.end_round(director, secret, "the hall closes at ten")
    assert all(director.tables[t].halted[0] == "time_limit" for t, (r, _) in state.tables.items() if r == 1)
    assert state.round == 2 and state.org.held == 2  # round 2 seated from round 1's results, waiting
    await organiser.penalise(director, secret, "Cy", "late to the table", 2.0, "")
    table = next(t for t, (r, players) in state.tables.items() if r == 1 and ids[3] in players)
    await organiser.penalise(director, secret, "Dee", "marked cards", 0.0, table)
    await refused(organiser.penalise(director, secret, "Dee", "x", 1.0, table), "bad_penalty")
    await organiser.disqualify(director, secret, "Eve", "abuse of a player")
    await refused(organiser.undrop(director, secret, "Eve", "x"), "disqualified")
    await director.drop("", secret, ids[5])
    await organiser.undrop(director, secret, "Fay", "dropped by mistake")
    await director.drop("", secret, ids[6])
    gil2, token = await organiser.reenter(director, secret, "Gil", "paid again")
    assert director.state.names[gil2] == "Gil #2" and director.tokens
    await organiser.repair(director, secret, [], "Eve is out, Gil #2 in")  # re-seated without Eve, with Gil #2
    seated = {p for t in state.seatings[1].tables for p in t} | set(state.seatings[1].byes)
    assert ids[4] not in seated and gil2 in seated and ids[6] not in seated
    view = director.snapshot()
    rows = {row.player: row for row in view.standings}
    assert view.standings[-1].player == ids[4] and rows[ids[4]].dropped
    assert [p.disqualified for p in view.players if p.player == ids[4]] == [True]
    assert [r.round for r in view.rounds] == [1, 2] and view.rounds[0].ended_early and not view.rounds[1].begun
    assert all(t.places is not None for t in view.rounds[0].tables)  # round 1's tables stay in the history
    assert any(t.counted for t in view.rounds[0].tables if t.table == table)  # Dee's game loss
    kinds = [a.kind for a in view.actions]
    assert kinds == ["swapped", "repaired", "round_begun", "round_ended", "penalised", "penalised",
                     "disqualified", "dropped", "undropped", "dropped", "reentered", "repaired"]
    assert view.actions[4].reason == "late to the table" and view.actions[4].points == 2.0
    await organiser.cancel(director, secret, "the fire alarm")
    end = director.log.records[-1]
    assert type(end) is Ended and end.reason == "cancelled" and end.note == "the fire alarm"
    await refused(organiser.cancel(director, secret, "again"), "tournament_over")
    report = director.log.verify(tmp_path)
    assert report.ok, (report.problem, report.line)
    assert report.end_reason == "cancelled"
    assert [r.player for r in report.standings] == list(end.standings)
    logged = {type(r) for r in director.log.records}
    assert {Repaired, Swapped, RoundBegun, RoundEnded} <= logged


async def test_re_entry_is_refused_when_the_settings_do_not_allow_it(nursery, autojump_clock):
    director, secret = await open_director(nursery, seats=2, rounds=2)
    ana, _ = await director.register("Ana")
    for name in ("Ben", "Cy"):
        await director.register(name)
    await director.start(secret, False)
    await director.drop("", secret, ana)
    await refused(organiser.reenter(director, secret, "Ana", "paid again"), "no_reentry")
    await refused(organiser.repair(director, secret, [], "x"), "round_begun")
    await refused(organiser.undrop(director, secret, "Ben", "x"), "not_dropped")
    await refused(organiser.penalise(director, secret, "Nobody", "x", 1.0, ""), "unknown_player")


async def start_server(nursery, data_dir):
    return await nursery.start(partial(run_server, "127.0.0.1", 0, data_dir, durability="never"))


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clients.cli", "tournament", *args], capture_output=True,
                          text=True, timeout=60)


async def test_the_organiser_fixes_a_round_over_the_wire_and_from_the_command_line(nursery, tmp_path):
    import trio

    running = await start_server(nursery, tmp_path)
    url = running.url
    async with open_client(url) as organiser_client:
        created = await organiser_client.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=2,
                                                           pairings_first=True, no_show_ms=3_600_000)
        tid, secret = created.tournament.tournament, created.secret
        for name in ("Ana", "Ben", "Cy", "Dee"):
            await organiser_client.register(tid, name)
        state = await organiser_client.start_tournament(tid, secret)
        assert state.tournament.waiting_round == 1 and not state.rounds[0].begun
        with pytest.raises(ServerError) as error:
            await organiser_client.organiser_action("swap_players", tid, secret, players=["Ana", "Ana"],
                                                     reason="x")
        assert error.value.code == "same_table"
    pair = state.rounds[0].tables[0].players
    names = {p.player: p.name for p in state.players}
    other = state.rounds[0].tables[1].players[0]
    done = await trio.to_thread.run_sync(cli, "swap", url, tid, "--secret", secret, "--players",
                                         f"{names[pair[0]]},{names[other]}", "--reason", "came together")
    assert done.returncode == 0, done.stderr
    assert "round 1 (waiting to begin)" in done.stdout
    done = await trio.to_thread.run_sync(cli, "swap", url, tid, "--secret", secret, "--players", "Ana,Zed",
                                         "--reason", "x")
    assert done.returncode != 0 and "not registered" in done.stderr
    done = await trio.to_thread.run_sync(cli, "start", url, tid, "--secret", secret)  # begins the round
    assert done.returncode == 0, done.stderr
    done = await trio.to_thread.run_sync(cli, "end-round", url, tid, "--secret", secret, "--reason", "time")
    assert done.returncode == 0, done.stderr
    done = await trio.to_thread.run_sync(cli, "penalise", url, tid, "--secret", secret, "--player", "Ben",
                                         "--points", "1", "--reason", "late")
    assert done.returncode == 0, done.stderr
    done = await trio.to_thread.run_sync(cli, "rounds", url, tid)
    assert done.returncode == 0 and "round 1" in done.stdout and "penalised" in done.stdout, done.stdout
    done = await trio.to_thread.run_sync(cli, "export", url, tid, "--format", "csv", "--rounds")
    assert done.returncode == 0 and done.stdout.startswith("round,table,seat"), done.stdout
    assert done.stdout.count("\n") == 1 + 4 + 4  # a row per seat of round 1's two tables and of round 2's
    done = await trio.to_thread.run_sync(cli, "export", url, tid, "--format", "json")
    assert done.returncode == 0 and '"rounds"' in done.stdout and '"penalised"' in done.stdout, done.stdout
    done = await trio.to_thread.run_sync(cli, "standings", url, tid)
    assert done.returncode == 0 and "earlier rounds:" in done.stdout and "round 1 (ended early" in done.stdout
    done = await trio.to_thread.run_sync(cli, "cancel", url, tid, "--secret", secret, "--reason", "alarm")
    assert done.returncode == 0, done.stderr
    report = verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables")
    assert report.ok, report.problem
    assert report.end_reason == "cancelled"


async def test_a_restart_keeps_the_waiting_round_closed_the_re_entry_s_token_and_the_swap(nursery, autojump_clock,
                                                                                          tmp_path):
    from server.datadir import DataDir
    from server.protocol import CreateTournament
    from server.tournament.store import Store

    from .test_rules import reopen

    hub = await reopen(nursery, tmp_path)
    director, secret = await hub.create(CreateTournament(game="flag_finish", mode="challenge", seats=2, rounds=2,
                                                         no_show_ms=3_600_000, pairings_first=True, reentry=True))
    for name in ("Ana", "Ben", "Cy", "Dee"):
        await director.register(name)
    await director.start(secret, False)  # round 1 seated, waiting
    await director.start(secret, False)  # ... begun
    await organiser.end_round(director, secret, "nobody came")  # round 2 seated, waiting
    await director.drop("", secret, "T1p4")
    dee2, token = await organiser.reenter(director, secret, "Dee", "back from dinner")
    await organiser.repair(director, secret, [], "Dee #2 plays")
    tables = [t for t in director.state.seatings[1].tables]
    await organiser.swap(director, secret, tables[0][0], tables[1][0], "friends apart")
    seating = director.state.seatings[1]
    director.log.close()
    await hub.close()

    again = await reopen(nursery, tmp_path)
    reopened = again.find(director.id)
    assert reopened.state.org.held == 2 and reopened.state.seatings[1] == seating
    assert not [t for t, (r, _) in reopened.state.tables.items() if r == 2 and t in reopened.tables]  # not open
    assert reopened._player(token) == dee2
    await reopened.start(secret, False)  # the waiting round begins after the restart: its tables open
    assert all(t in reopened.tables for t, (r, _) in reopened.state.tables.items() if r == 2)
    await again.close()
    store = Store(DataDir(tmp_path).store)
    try:
        assert [s.tables for s in store.seatings(director.id)] == [s.tables for s in reopened.state.seatings]
        assert [p for p, _, _ in store.entries(director.id)] == reopened.state.players
    finally:
        store.close()


async def test_two_end_rounds_at_once_end_the_round_once(nursery, autojump_clock):
    """Red team (round three): two organisers' screens sending end_round at the same moment both had it logged
    (the first one's tables look unfinished until their results are in), and three more after it too."""
    director, secret = await open_director(nursery, seats=2, rounds=3)
    for name in ("Ana", "Ben", "Cy", "Dee"):
        await director.register(name)
    await director.start(secret, True)
    answers = []

    async def end(reason: str) -> None:
        try:
            await organiser.end_round(director, secret, reason)
            answers.append("ended")
        except Refusal as refusal:
            answers.append(refusal.code)

    async with trio.open_nursery() as both:
        both.start_soon(end, "first")
        both.start_soon(end, "second")
    assert sorted(answers) == ["ended", "no_round_playing"]
    ended = [r for r in director.log.records if type(r) is RoundEnded]
    assert [r.round for r in ended] == [1]
    assert director.state.round == 2


async def test_a_drop_with_a_token_and_another_player_is_refused_and_drops_nobody(nursery, autojump_clock):
    """Red team (round three): ``drop`` with a player's token and another player named dropped the token's
    owner, silently: a mistake said in words now, and nobody leaves."""
    director, secret = await open_director(nursery, seats=2, rounds=3)
    (ana, token), (ben, _) = [await director.register(name) for name in ("Ana", "Ben")]
    await refused(director.drop(token, "", ben), "unknown_player")
    assert not director.state.dropped
    await director.drop(token, "", ana)  # its own player, named or not
    assert ana in director.state.dropped and ben not in director.state.dropped
