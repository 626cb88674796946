"""The web client in a cluster: a page served by one node plays, resumes and watches a table that lives on
another node, following the server's ``redirect`` by itself (clients/web/js/protocol.js).

A real ``redis-server`` on loopback and two real nodes with the web client (A and B) in a thread with their own
trio loop; Debian's Chromium driven by Playwright. Without Redis or Chromium this skips saying how to install
them; under CI=true it fails instead. Every wait is for a page element, with a timeout; nothing sleeps.
"""

from __future__ import annotations

import queue
import threading

import pytest
import trio

from clients.client import open_client
from server.app import ClusterConfig, run_server
from server.cluster.redis_presence import open_redis_presence
from tests.server.redis_server import need_redis, redis_server
from tests.web.conftest import TIMEOUT_MS, WEB_ROOT
from tests.web.test_browser import feed, next_flag_finish_click, play_to_the_end, play_until_it_waits


class TwoNodes:
    """A Redis and two cluster nodes (``a``, ``b``) serving the web client on 127.0.0.1, in a thread."""

    def __init__(self, folder) -> None:
        self.folder = folder
        self.ready: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self.thread.start()
        self.nodes, self.token = self.ready.get(timeout=30)
        if isinstance(self.nodes, BaseException):
            raise self.nodes

    async def _main(self) -> None:
        try:
            async with redis_server(self.folder) as redis, trio.open_nursery() as nursery:
                nodes = []
                for name in ("a", "b"):
                    presence = await nursery.start(_hold, redis.url)
                    config = ClusterConfig(presence, heartbeat=0.1, expiry=0.5)
                    nodes.append(await nursery.start(lambda task_status, name=name, config=config: run_server(
                        "127.0.0.1", 0, data_dir=self.folder / name, web_root=WEB_ROOT, cluster=config,
                        task_status=task_status)))
                self.done = trio.Event()
                self.ready.put((nodes, trio.lowlevel.current_trio_token()))
                await self.done.wait()
                for node in nodes:
                    await node.shutdown()
                nursery.cancel_scope.cancel()
        except BaseException as error:  # tell the waiting test instead of leaving it blocked
            self.ready.put((error, None))
            raise

    def run(self, function, *args):
        return trio.from_thread.run(function, *args, trio_token=self.token)

    def stop(self) -> None:
        trio.from_thread.run_sync(self.done.set, trio_token=self.token)
        self.thread.join(timeout=15)


async def _hold(url: str, task_status=trio.TASK_STATUS_IGNORED):
    async with open_redis_presence(url, timeout=1.0) as presence:
        task_status.started(presence)
        await trio.sleep_forever()


@pytest.fixture
def two_nodes(browser, tmp_path):
    need_redis()
    nodes = TwoNodes(tmp_path)
    yield nodes
    nodes.stop()


async def create_on(url: str) -> str:
    async with open_client(url) as client:
        info = await client.create_table(game="flag_finish", mode="lockstep", seats=2, placed=True,
                                         options={"races": 1, "action_limit": 120}, bots=[{"seat": 1}])
    return info.table


def new_page(browser, errors: list[str]):
    """A page in a browser context of its own (as another person's browser), its errors kept in ``errors``."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return page


def test_a_page_on_one_node_sits_resumes_and_watches_at_a_table_on_the_other(browser, two_nodes):
    a, b = two_nodes.nodes
    table = two_nodes.run(create_on, a.url)
    page_b = f"http://127.0.0.1:{b.port}/"
    errors: list[str] = []  # a redirect the page may not follow (its Content-Security-Policy) shows here
    page = new_page(browser, errors)

    page.goto(page_b)
    page.fill("#name", "Ana")
    page.click(f"[data-key='sit-{table}-0']")  # B's lobby lists A's table; the seat is taken through B
    page.wait_for_selector(f".table-page[data-table='{table}'] .board section")
    assert page.text_content(".you") == "You are Ana (seat 1)."
    assert page.evaluate("window.photofinish.client.url") == a.url  # followed the redirect to A

    play_until_it_waits(page, clicks=3)  # and the bot has answered: the table waits for Ana
    before = feed(page)
    assert before
    page.reload()  # the page comes from B again: its resume is redirected to A
    page.wait_for_selector(".board button.move")
    assert page.text_content(".you") == "You are Ana (seat 1)."
    assert feed(page) == before  # nothing lost or doubled on the way through B
    assert page.evaluate("window.photofinish.client.url") == a.url

    watcher = new_page(browser, errors)
    watcher.goto(f"{page_b}#/watch/{table}")  # a spectator through B, served there (server/cluster/relay.py)
    watcher.wait_for_selector(".flag-finish")
    assert watcher.text_content(".you") == "You are watching as a spectator."

    play_to_the_end(page, next_flag_finish_click)
    assert "Final scores: you: " in page.text_content(".result")
    watcher.wait_for_selector(".result")  # the spectator saw the game end, too
    # served by B, it counts itself among the spectators (A's list, asked again at the end, counts none of B's)
    assert watcher.text_content(".spectators") == "1 watching"
    page.context.close()
    watcher.context.close()
    assert not errors, f"the pages logged errors: {errors}"

    def where():
        return a.lobby.tables[table].over.is_set(), table in b.lobby.tables

    assert trio.from_thread.run_sync(where, trio_token=two_nodes.token) == (True, False)  # played on A only


async def finished_on(node) -> str:
    """A table of two server bots, created on ``node`` and played to its end there (its log's end marked)."""
    async with open_client(node.url) as client:
        info = await client.create_table(game="flag_finish", mode="challenge", seats=2, placed=True,
                                         options={"races": 1}, bots=[{"seat": 0}, {"seat": 1, "policy": "random"}])
    table = node.lobby.tables[info.table]
    with trio.fail_after(60):
        await table.over.wait()
        await table.marked.wait()
    return info.table


def test_a_replay_page_on_one_node_shows_a_table_the_other_node_played(browser, two_nodes):
    """The log is on A's machine only: B answers the page's ``replay`` with a redirect to A, which it follows."""
    a, b = two_nodes.nodes
    table = two_nodes.run(finished_on, a)
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(f"http://127.0.0.1:{b.port}/#/replay/{table}")
    page.wait_for_selector(".replay-controls")
    page.wait_for_function("() => !document.querySelector('.replay-where').textContent.includes('loading')")
    assert page.text_content(".replay-where").startswith("Step 0 of ")
    assert page.evaluate("window.photofinish.client.url") == a.url
    page.context.close()
    assert not errors, f"the page logged errors: {errors}"
