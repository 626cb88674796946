"""A tournament on a cluster: its director runs on the node that created it, its rounds' tables open across the
nodes, and their results come back through the presence store, logged as a local table's are.

Two (or one) ``run_server`` nodes in one trio run share an in-process ``LocalPresence`` on trio's autojump
clock. Every seat is left to its stand-in bot (``no_show_ms``), so whole tournaments play in virtual time;
the real-process test with bots over websockets and a real Redis is ``test_cluster_tournament_nodes.py``.
"""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import given, strategies as st

from server.app import ClusterConfig, run_server
from server.cluster.node import NODES, PREFIX, NodeLoad
from server.cluster.presence import LocalPresence
from server.protocol import CreateTable, CreateTournament
from server.tournament import remote
from server.tournament.outcome import TableOutcome
from server.tournament.remote import OpenRequest, RemoteTables, open_key, spread, tourney_key
from server.tournament.verify import verify_tournament

HEARTBEAT = 0.05
EXPIRY = 0.5
PLAYERS = 6  # at 3 seats: two tables a round


@pytest.fixture(autouse=True)
def patient_directors(request, monkeypatch):
    """A director waits as long as it takes for the other node's answer (but in the test of a node that never
    answers): on the autojump clock, virtual time races ahead while a node opens a table's files in a thread, and
    a slow disk would otherwise run out the director's 3 virtual seconds and open the table at home."""
    if "never_answers" not in request.node.name:
        monkeypatch.setattr(remote, "ANSWER_WAIT", 3600.0)


async def start_node(nursery, presence, data_dir):
    config = ClusterConfig(presence, heartbeat=HEARTBEAT, expiry=EXPIRY)
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=data_dir, durability="never",
                                                              cluster=config, task_status=task_status))


async def beats(*nodes) -> None:
    for node in nodes:
        await node.directory.next_beat()


async def tournament(node, rounds: int = 2, no_show_ms: int = 1000):
    """A started Swiss of ``PLAYERS`` players, created on ``node``; every seat is played by its stand-in, from
    ``no_show_ms`` after its table opens."""
    hub = node.lobby.tournaments
    director, secret = await hub.create(CreateTournament(name="cup", game="flag_finish", mode="challenge", seats=3,
                                                         rounds=rounds, options={"races": 1}, no_show_ms=no_show_ms,
                                                         seed=7))
    for index in range(PLAYERS):
        await director.register(f"player {index + 1}")
    await director.start(secret, next_round=False)
    return director


async def two_nodes_and_a_tournament(nursery, presence, tmp_path, rounds: int = 2, no_show_ms: int = 1000):
    """A ``home`` and an ``other`` node that have seen each other, and a tournament started on ``home``."""
    home = await start_node(nursery, presence, tmp_path / "home")
    other = await start_node(nursery, presence, tmp_path / "other")
    await beats(home, other, home)
    return home, other, await tournament(home, rounds=rounds, no_show_ms=no_show_ms)


def tables_of(director, node) -> set[str]:
    return set(director.state.tables) & set(node.lobby.tables)


def verify(tmp_path, director, *data_dirs):
    """The tournament's log checked against its tables' logs, wherever each table ran."""
    merged = tmp_path / "all-tables"
    merged.mkdir(exist_ok=True)
    for data in data_dirs:
        for path in (data / "tables").glob("t*.log"):
            shutil.copy(path, merged / path.name)
    return verify_tournament(data_dirs[0] / "tournaments" / f"{director.id}.log", merged)


async def test_a_tournaments_tables_spread_over_two_nodes_and_it_ends_with_the_standings_its_log_recomputes(
        autojump_clock, tmp_path):
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home, other, director = await two_nodes_and_a_tournament(nursery, presence, tmp_path)
        round_one = set(director.state.tables)
        assert len(tables_of(director, home)) == 1 and len(tables_of(director, other)) == 1  # one on each node
        with trio.fail_after(600):
            await director.over.wait()
        assert len(director.state.tables) == 4 and len(director.state.results) == 4
        assert round_one <= set(director.state.results)
        assert tables_of(director, other)  # the other node ran some of them
        assert not any(t in other.lobby.tables for t in tables_of(director, home))  # and never the same one twice
        assert await presence.hgetall(open_key(other.directory.node)) == {}  # every request answered
        assert await presence.hgetall(tourney_key(director.id)) == {}  # every result logged, the hash cleared
        for node in (home, other):
            await node.shutdown()
    report = verify(tmp_path, director, tmp_path / "home", tmp_path / "other")
    assert report.ok, report.problem
    assert report.results == 4 and report.table_logs == 4
    assert [s.player for s in report.standings] == [row.player for row in director.state.standings()]


async def test_a_node_that_never_answers_has_its_tables_opened_at_home(autojump_clock, tmp_path):
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home = await start_node(nursery, presence, tmp_path / "home")
        # a node that is listed alive and idle but does nothing (frozen): the director's requests go unanswered
        await presence.hset(NODES, {"ghost": "ws://127.0.0.1:9"})
        ghost = NodeLoad(url="ws://127.0.0.1:9", tables=0, connections=0)
        await presence.set(f"{PREFIX}alive:ghost", msgspec.json.encode(ghost).decode(), ttl_ms=3_600_000)
        await beats(home, home)
        assert "ghost" in home.directory.peers
        started = trio.current_time()
        director = await tournament(home, rounds=1)
        assert trio.current_time() - started >= 3.0  # it waited for the ghost's answer, then gave up
        assert tables_of(director, home) == set(director.state.tables)  # both tables opened here
        assert await presence.get(f"{PREFIX}table:{sorted(director.state.tables)[0]}") == home.directory.node
        with trio.fail_after(600):
            await director.over.wait()
        await home.shutdown()
    report = verify(tmp_path, director, tmp_path / "home")
    assert report.ok and report.results == 2, report.problem


# How long a round's tables wait for their players before stand-ins play them, where the away table must still be
# playing when the director's node begins to stop: far longer than the rest of a round's opening takes, however far
# virtual time runs ahead while a thread opens a file. With 1 s an away table sometimes ended, and its result was
# heard and logged, before the node had begun to stop: the restart was no longer mid-round.
SLOW_NO_SHOW_MS = 30_000


@pytest.mark.parametrize("away_table", ["still_open", "forgotten", "its_node_restarted"])
async def test_the_directors_node_restarted_mid_round_hears_the_other_nodes_results_and_finishes(
        autojump_clock, tmp_path, away_table):
    """Whatever became of the other node's finished table meanwhile, its result is heard without waiting out an
    answer, and the table is never opened again (a second game under its id) at home."""
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home, other, director = await two_nodes_and_a_tournament(nursery, presence, tmp_path,
                                                                 no_show_ms=SLOW_NO_SHOW_MS)
        [away] = tables_of(director, other)
        tid = director.id
        assert not other.lobby.tables[away].over.is_set()
        await home.shutdown()  # the director's node stops mid-round; the other node's table plays on
        assert away not in director.state.results  # nor is its result logged by a node that has begun to stop
        with trio.fail_after(600):
            await other.lobby.tables[away].over.wait()
            await beats(other, other)
        assert f"result:{away}" in await presence.hgetall(tourney_key(tid))  # waiting for the director
        if away_table == "forgotten":  # the other node made room: its claim on the table is gone
            other.lobby.evict_finished()
            assert away not in other.lobby.tables
        elif away_table == "its_node_restarted":  # and the result it wrote lost (the store lost its data too):
            await other.shutdown()                 # the director asks again, and the node answers from its log
            await presence.hdel(tourney_key(tid), f"result:{away}")
            other = await start_node(nursery, presence, tmp_path / "other")
            assert away not in other.lobby.tables  # over: not reopened
        started = trio.current_time()
        home = await start_node(nursery, presence, tmp_path / "home")  # same data directory: the same node
        director = home.lobby.tournaments.find(tid)
        with trio.fail_after(600):
            await director.over.wait()
        assert trio.current_time() - started < remote.ANSWER_WAIT  # (3600 s here) no answer was waited out
        assert not (tmp_path / "home" / "tables" / f"{away}.log").exists()  # never opened a second time at home
        assert away in director.state.results and len(director.state.results) == 4
        for node in (home, other):
            await node.shutdown()
    report = verify(tmp_path, director, tmp_path / "home", tmp_path / "other")
    assert report.ok, report.problem
    assert report.results == 4


async def test_a_director_restarted_while_its_table_plays_on_another_node_is_answered_by_that_node_at_once(
        autojump_clock, tmp_path):
    """The restarted director asks the other node again for the table it followed there, which that node still
    runs: the node answers the new ask at once. (It skipped a request for a table it followed already, so the
    director waited out its whole answer time holding its lock, and every result waited behind it.)"""
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        # nobody comes and no stand-in plays for an hour: the away table ends only when the test halts it
        home, other, director = await two_nodes_and_a_tournament(nursery, presence, tmp_path, rounds=1,
                                                                 no_show_ms=3_600_000)
        [away] = tables_of(director, other)
        tid = director.id
        await home.shutdown()
        home = await start_node(nursery, presence, tmp_path / "home")
        director = home.lobby.tournaments.find(tid)
        with trio.fail_after(60):
            while away not in director.opened:  # followed there again: the node answered
                await home.directory.next_beat()
        assert not other.lobby.tables[away].over.is_set()
        for table in tables_of(director, home) | {away}:  # the round's time runs out
            await (home if table in home.lobby.tables else other).lobby.tables[table].halt("time_limit")
        with trio.fail_after(600):
            await director.over.wait()
        assert away in director.state.results and len(director.state.results) == 2
        assert not (tmp_path / "home" / "tables" / f"{away}.log").exists()
        for node in (home, other):
            await node.shutdown()
    assert verify(tmp_path, director, tmp_path / "home", tmp_path / "other").ok


async def test_a_result_heard_as_the_directors_node_begins_to_stop_is_left_in_the_store_for_its_next_start(
        autojump_clock, tmp_path):
    """The away table's result is heard while the director is busy (it holds its lock: another result, a table
    opening), and the node begins to stop before the director is free: the result is not logged by a node
    leaving the cluster (it was, and taken out of the store, mid-shutdown), but stays for the next start."""
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home, other, director = await two_nodes_and_a_tournament(nursery, presence, tmp_path)
        [away] = tables_of(director, other)
        tid = director.id
        async with director.lock:
            with trio.fail_after(600):
                while away not in director.remote.handling:  # heard: logging it waits for the lock
                    await other.directory.next_beat()
            await trio.testing.wait_all_tasks_blocked()
            assert director.lock.statistics().tasks_waiting
            home.lobby.tournaments.stop_hearing()  # the first step of a shutdown
        await beats(home, other)  # the director is free
        assert away not in director.state.results
        assert f"result:{away}" in await presence.hgetall(tourney_key(tid))
        await home.shutdown()
        home = await start_node(nursery, presence, tmp_path / "home")
        director = home.lobby.tournaments.find(tid)
        with trio.fail_after(600):
            await director.over.wait()
        assert away in director.state.results and len(director.state.results) == 4
        for node in (home, other):
            await node.shutdown()
    assert verify(tmp_path, director, tmp_path / "home", tmp_path / "other").ok


async def test_a_tables_result_answers_a_director_that_asks_for_it_as_it_ends(autojump_clock):
    """A director asks a node for a table just as it ends there (asking again after a restart): the node writes
    the result and takes the ask out with the request, without answering it. The result is the answer."""
    presence = LocalPresence()
    cluster = SimpleNamespace(presence=presence, heartbeat=HEARTBEAT)
    heard = []

    async def on_result(table, outcome):
        heard.append(table)
        return True

    request = OpenRequest(tournament="T1", director="n1", round=1, table="t5",
                          create=CreateTable(game="flag_finish", seats=3), reserved=[], stand_in="heuristic")
    outcome = TableOutcome(places=(1, 2, 3), scores=(0, 0, 0), log_hash="")
    async with trio.open_nursery() as nursery:
        tables = RemoteTables(cluster, nursery, "T1", on_result)

        async def node_ends_the_table():
            while "t5" not in await presence.hgetall(open_key("n2")):
                await trio.sleep(HEARTBEAT)
            await presence.hset(tourney_key("T1"), {"result:t5": remote.encode(outcome).decode()})
            await presence.hdel(open_key("n2"), "t5")

        nursery.start_soon(node_ends_the_table)
        with trio.fail_after(1):
            assert await tables.open("n2", request)
        await tables.stop()
    assert heard == ["t5"]


async def test_without_the_presence_store_the_tables_play_on_and_the_round_ends_once_it_is_back(
        autojump_clock, tmp_path):
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home, other, director = await two_nodes_and_a_tournament(nursery, presence, tmp_path, rounds=1)
        [away] = tables_of(director, other)
        presence.down = True
        with trio.fail_after(600):
            await other.lobby.tables[away].over.wait()
            for _ in range(20):
                await beats(home, other)
        assert away not in director.state.results  # the result waits on its node for the store
        assert not director.over.is_set()
        presence.down = False
        with trio.fail_after(600):
            await director.over.wait()
        assert away in director.state.results
        for node in (home, other):
            await node.shutdown()
    assert verify(tmp_path, director, tmp_path / "home", tmp_path / "other").ok


@given(st.lists(st.integers(0, 20), min_size=1, max_size=5), st.integers(0, 40))
def test_each_table_goes_to_a_node_with_the_least_load(initial, count):
    loads = {f"n{i}": float(load) for i, load in enumerate(initial)}
    placed = spread(loads, count)
    assert len(placed) == count and set(placed) <= loads.keys()
    final = {node: loads[node] + placed.count(node) for node in loads}
    lowest = min(final.values())
    for node in set(placed):  # it had the least load when it got its last table
        assert final[node] <= lowest + 1
    if count and len(set(initial)) == 1:
        assert placed[0] == "n0"  # a tie goes to the first node: the director's own
