"""Fixtures for the browser tests: a real server (with the web client) in a thread of its own, and Debian's
Chromium driven by Playwright. Without /usr/bin/chromium these tests skip, saying how to install it; under
CI=true they fail instead, since CI installs it first (.ci/run)."""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path

import pytest
import trio

from server.app import run_server

CHROMIUM = Path("/usr/bin/chromium")
WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web"
TIMEOUT_MS = 10_000  # for one page element to appear; the whole browser suite takes seconds


def _need_browser() -> None:
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "the playwright package is missing: .venv/bin/pip install -e '.[test]'"
    if missing is None and not CHROMIUM.exists():
        missing = f"no Chromium at {CHROMIUM}: install it with `apt-get install -y chromium` (as root)"
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests cannot run in CI: {missing}")
        pytest.skip(missing)


class LiveServer:
    """A photofinish server on 127.0.0.1, port 0, in a thread with its own trio loop."""

    def __init__(self) -> None:
        self.ready: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self.thread.start()
        self.running, self.token = self.ready.get(timeout=20)
        self.url = f"http://127.0.0.1:{self.running.port}/"
        self.ws_url = f"ws://127.0.0.1:{self.running.port}"

    async def _main(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, web_root=WEB_ROOT,
                                                                             task_status=task_status))
                self.ready.put((running, trio.lowlevel.current_trio_token()))
        except BaseException as error:  # tell the waiting test instead of leaving it blocked
            self.ready.put((error, None))
            raise

    def stop(self) -> None:
        trio.from_thread.run(self.running.shutdown, trio_token=self.token)
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def live_server():
    server = LiveServer()
    if isinstance(server.running, BaseException):
        raise server.running
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.errors = errors
    yield page
    context.close()
    assert not errors, f"the page logged errors: {errors}"


@pytest.fixture
def shots(tmp_path_factory):
    """Where screenshots go: under pytest's tmp dir (kept for the last runs), printed in the test's output."""
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {folder}")
    return folder


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A server with a data directory, one a test module (its tournaments keep a log, which the pages read)."""
    from .logged_server import LoggedServer

    server = LoggedServer(tmp_path_factory.mktemp("data"))
    yield server
    server.stop()
