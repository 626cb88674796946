"""A tournament across two `photofinish serve --cluster` processes and a real Redis on loopback: it is created on
one node, bots register and play through that node (their seats at the other node's tables are redirected
there), its tables run on both nodes, and it ends with the standings its log recomputes against the tables'
logs of both nodes. Skips (saying how to install it) where redis-server is missing."""

from __future__ import annotations

import shutil

import trio

from bench.server_bench import free_port
from clients.client import open_client
from clients.tournament_bots import fill_tournament
from server.protocol import TournamentState
from server.tournament.verify import verify_tournament
from tests.server.redis_server import redis_server
from tests.server.test_cluster_crash import start_node, stop

# 6 tables a round. Every player (and the organiser) is connected to the tournament's node, so its load
# (tables + connections / 3) is above 4 at each seating: the tables go to the other node until its load is
# higher, and some stay home (each node's load: server/cluster/node.py)
PLAYERS = 12


async def test_a_tournament_with_tables_on_two_node_processes_finishes_with_the_standings_its_log_recomputes(
        tmp_path):
    async with redis_server(tmp_path) as redis, trio.open_nursery() as output:
        ports = free_port(), free_port()
        home_url = f"ws://127.0.0.1:{ports[0]}"
        other = await start_node(ports[1], tmp_path / "other", redis.url, output)
        home = await start_node(ports[0], tmp_path / "home", redis.url, output)  # sees the other at its first beat
        try:
            with trio.fail_after(60):
                async with open_client(home_url) as organiser:
                    created = await organiser.create_tournament(name="cup", game="flag_finish", mode="challenge",
                                                                seats=2, rounds=2, options={"races": 1})
                    tid = created.tournament.tournament
                    async with trio.open_nursery() as players:
                        await players.start(fill_tournament, home_url, tid, PLAYERS, "heuristic", 21)
                        await organiser.start_tournament(tid, created.secret)
                        final = await organiser.watch_tournament(tid)
                        while final.tournament.status != "over":
                            message = await organiser.messages.receive()
                            if type(message) is TournamentState:
                                final = message
        finally:
            await stop(home)
            await stop(other)
            output.cancel_scope.cancel()
    seated = {s.table for s in final.seatings}
    assert all(not s.stand_ins for s in final.seatings)  # the bots found their seats, wherever they were
    ran = {node: {p.stem for p in (tmp_path / node / "tables").glob("t*.log")} for node in ("home", "other")}
    assert ran["home"] and ran["other"], ran  # the tables were spread over both nodes
    assert not ran["home"] & ran["other"]  # and none ran twice
    assert seated <= ran["home"] | ran["other"]
    merged = tmp_path / "all-tables"
    merged.mkdir()
    for node in ("home", "other"):
        for path in (tmp_path / node / "tables").glob("t*.log"):
            shutil.copy(path, merged / path.name)
    report = verify_tournament(tmp_path / "home" / "tournaments" / f"{tid}.log", merged)
    assert report.ok, report.problem
    assert report.rounds == 2 and report.results == 12 and report.table_logs == 12
    assert [s.player for s in report.standings] == [row.player for row in final.standings]
    assert all(row.tables == 2 for row in final.standings)
