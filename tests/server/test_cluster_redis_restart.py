"""Issue 29: Redis restarted empty while a node is paused, then a new node joins. Three `photofinish serve
--cluster` processes and a real Redis on loopback (skipped, saying how to install it, where redis-server is
missing; failing under CI=true): a steady node and a node that is paused (SIGSTOP) after it has handed out
table and tournament ids; Redis is stopped and started again, empty, on the same port; a new node joins and
creates tables and a tournament; the paused node resumes (SIGCONT) and creates more. Every id is distinct, no
create is refused with ``table_exists``, and a watch of each table (or tournament) asked of another node is
redirected to the node that holds it.

Servers are waited for by what they print: ``listening on``, and a node's return to the emptied Redis by its
line saying it is in the cluster (again), printed once all it holds is published; a listing is then read to
check it (``until_listed`` reads again a heartbeat apart, bounded, where a create's announcement is still on
its way).
"""

from __future__ import annotations

import math
import signal

import trio

from bench.server_bench import free_port
from clients.client import open_client
from tests.server.redis_server import redis_server
from tests.server.test_cluster_crash import HEARTBEAT, said, start_node, stop

GAME = dict(game="flag_finish", mode="challenge", seats=2, options={"races": 1}, placed=True)
CUP = dict(game="flag_finish", mode="challenge", seats=2)


async def create(url: str, tables: int, holders: dict[str, str], cups: dict[str, str]) -> None:
    """``tables`` tables and one tournament at the node at ``url``, kept in ``holders`` / ``cups`` (id -> url)."""
    async with open_client(url, reconnect=False) as client:
        for _ in range(tables):
            table = (await client.create_table(**GAME)).table
            assert table not in holders, f"{table} handed out twice: by {holders[table]} and {url}"
            holders[table] = url
        tid = (await client.create_tournament(name="cup", **CUP)).tournament.tournament
        assert tid not in cups, f"{tid} handed out twice: by {cups[tid]} and {url}"
        cups[tid] = url


async def listed(url: str) -> dict[str, str]:
    async with open_client(url, reconnect=False) as client:
        tables = {info.table: info.status for info in await client.list_tables()}
        return tables | {info.tournament: "waiting" for info in await client.list_tournaments()
                         if info.status != "unavailable"}


async def until_listed(url: str, keys) -> None:
    """Until the node at ``url`` lists every one of ``keys`` (tables and tournaments) as there and waiting
    (their nodes are back in the directory; a node publishes its tables, then its tournaments, in each
    heartbeat): polled a heartbeat apart, for at most 10 s."""
    statuses = {}
    with trio.move_on_after(10):
        while True:
            statuses = await listed(url)
            if all(statuses.get(key) == "waiting" for key in keys):
                return
            await trio.sleep(HEARTBEAT)
    missing = {key: statuses.get(key) for key in keys if statuses.get(key) != "waiting"}
    raise AssertionError(f"{url} lists {missing} after 10 s (of {dict(keys)})")


async def check_watches(holders: dict[str, str], cups: dict[str, str], urls: list[str]) -> None:
    """A watch of each table and tournament, asked of a node that does not hold it, reaches the one that does: a
    tournament's by a redirect to it, a table's through the relay (the node asked serves the spectator, with
    what the holder publishes: it answers only once the holder is found and publishing)."""
    for key, holder in [*holders.items(), *cups.items()]:
        asked = next(url for url in urls if url != holder)
        async with open_client(asked, reconnect=False) as client:
            if key.startswith("t"):
                assert (await client.watch(key)).table == key
                assert key not in client.routes, f"{key} watched through {asked}: redirected, not relayed"
            else:
                assert (await client.watch_tournament(key)).tournament.tournament == key
                assert client.routes[key] == holder, f"{key} watched through {asked}: sent to the wrong node"


async def test_a_node_paused_while_redis_restarts_empty_keeps_ids_no_new_node_reuses(tmp_path):
    async with redis_server(tmp_path) as redis, trio.open_nursery() as output:
        ports = free_port(), free_port(), free_port()
        steady_url, paused_url, new_url = (f"ws://127.0.0.1:{port}" for port in ports)
        print(f"steady {steady_url}, paused {paused_url}, new {new_url}")  # shown with a failure
        to_steady, steady_said = trio.open_memory_channel(math.inf)
        to_paused, paused_said = trio.open_memory_channel(math.inf)
        steady = await start_node(ports[0], tmp_path / "steady", redis.url, output, to_steady)
        paused = await start_node(ports[1], tmp_path / "paused", redis.url, output, to_paused)
        new = None
        holders: dict[str, str] = {}
        cups: dict[str, str] = {}
        try:
            with trio.fail_after(60):
                await create(steady_url, 2, holders, cups)
                await create(paused_url, 2, holders, cups)  # ids handed out before the pause
                paused.send_signal(signal.SIGSTOP)  # frozen: no heartbeat, no claim, until SIGCONT
                await redis.stop()
                await redis.start()  # the same port, empty
                new = await start_node(ports[2], tmp_path / "new", redis.url, output)  # joins the empty Redis
                await create(new_url, 3, holders, cups)
                paused.send_signal(signal.SIGCONT)
                for node_said in (steady_said, paused_said):  # each in the empty Redis again, all it holds published
                    await said(node_said, "in the cluster")
                await until_listed(new_url, holders)  # the paused node is back, with every table it held
                await create(paused_url, 2, holders, cups)  # no table_exists: its ids are its own
                await create(steady_url, 1, holders, cups)
                await until_listed(steady_url, holders | cups)
                await check_watches(holders, cups, [steady_url, paused_url, new_url])
        finally:
            if paused.returncode is None:
                paused.send_signal(signal.SIGCONT)  # a stopped process would not hear SIGTERM
            for process in (steady, paused, new):
                if process is not None:
                    await stop(process)
            output.cancel_scope.cancel()
    assert len(holders) == 10 and len(cups) == 5  # every create answered, none refused
