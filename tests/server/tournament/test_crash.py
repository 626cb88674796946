"""kill -9 the server mid-round: on restart the tournament, its round and its tables resume from their logs and
the store, the bots reconnect with their tokens, and the tournament finishes and verifies; no registration
that was acknowledged is lost."""

from __future__ import annotations

import signal
from functools import partial

import trio

from bench.server_bench import free_port
from clients.client import open_client
from clients.tournament_bots import play_tournament
from server.protocol import TournamentState, Update
from server.tournament.verify import verify_tournament
from tests.server.test_crash import start_server, stop_server


async def test_sigkill_mid_round_then_restart_and_the_tournament_finishes(tmp_path):
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    server = await start_server(port, tmp_path)
    registered: list[str] = []
    updates = [0]
    enough = trio.Event()
    try:
        with trio.fail_after(150):
            async with open_client(url) as organiser:
                created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=3,
                                                            rounds=2, options={"races": 2})
                tid = created.tournament.tournament
            async with trio.open_nursery() as players:
                for index in range(6):
                    await players.start(play_tournament, url, tid, f"bot {index}", "heuristic", 40 + index,
                                        lambda player, token: registered.append(player))
                async with open_client(url) as organiser:
                    started = await organiser.start_tournament(tid, created.secret)
                    await organiser.watch(started.seatings[0].table)  # kill once round 1 is well under way
                    async for message in organiser.messages:
                        if type(message) is Update:
                            updates[0] += 1
                            if updates[0] >= 60:
                                break
                server.send_signal(signal.SIGKILL)
                await server.wait()
                server = await start_server(port, tmp_path)
                async with open_client(url) as organiser:
                    state = await organiser.watch_tournament(tid)
                    assert [p.player for p in state.players] == registered  # nothing acknowledged was lost
                    while state.tournament.status != "over":
                        state = await organiser.messages.receive()
                        while type(state) is not TournamentState:
                            state = await organiser.messages.receive()
    finally:
        await stop_server(server)
    report = verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables")
    assert report.ok, report.problem
    assert report.rounds == 2 and report.results == 4 and report.table_logs == 4


async def test_a_server_restarted_mid_round_keeps_its_bots_at_their_seats(tmp_path):
    """The organiser stops the server (Ctrl-C, SIGTERM) mid-round and starts it again: the bots over the wire
    wait for it, resume their seats and play on, so no seat is handed to a stand-in (placed last)."""
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    server = await start_server(port, tmp_path)
    try:
        with trio.fail_after(150):
            async with open_client(url) as organiser:
                created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2,
                                                            rounds=1, options={"races": 1}, no_show_ms=5000)
                tid = created.tournament.tournament
            async with trio.open_nursery() as players:
                for index in range(2):
                    await players.start(partial(play_tournament, url, tid, f"bot {index}", "heuristic", 7 + index,
                                                pace_ms=100))
                async with open_client(url) as organiser:
                    started = await organiser.start_tournament(tid, created.secret)
                    await organiser.watch(started.seatings[0].table)
                    async for message in organiser.messages:
                        if type(message) is Update and message.seq >= 5:  # under way
                            break
                server.send_signal(signal.SIGTERM)
                await server.wait()
                server = await start_server(port, tmp_path)
            async with open_client(url) as organiser:
                final = await organiser.watch_tournament(tid)
    finally:
        await stop_server(server)
    assert final.tournament.status == "over"
    assert [seating.stand_ins for seating in final.seatings] == [[]]
    assert verify_tournament(tmp_path / "tournaments" / f"{tid}.log", tmp_path / "tables").ok
