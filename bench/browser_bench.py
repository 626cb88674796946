"""From a click to the page showing the answer, in headless Chromium over loopback, next to the floor.

`python -m bench.browser_bench [CLICKS] [--one-process] [--cores] [--pause=MS]` (default 300 a page, 100 ms). Three servers, each in a process
of its own (``--serve NAME FOLDER``: as a user runs ``photofinish serve``; ``--one-process``: all three in one trio
loop in a thread of this process, the setup before issue 18's last step, to compare): two photofinish servers,
each serving the web client and seating the page at a Flag Finish Challenge table (the page's seat
takes a discard card, then discards, and so on; the other seat is a server bot that waits a minute before each
move): one at the server's default durability (``batch``: each answer waits for its log line's fdatasync, in a
temporary data folder: what a user gets) and one at ``never``. The floor is a bare echo page (a button that
sends a frame, the echo written into the page) served the same way as the web client: plain HTTP and the
websocket on one port, read by ``server/http.py`` and handed to trio-websocket, frames sent as photofinish
sends them. Every page is loaded from its server by URL, in the same viewport.

Each page clicks and times itself (``button.click()``: the same click event and handler as a person's click;
no Playwright call between a click and its answer, whose polling would hold the page's main thread): from the
click to the first DOM change that shows the answer (the next move offered and nothing pending; on the echo
page, the echoed count). Before each click it waits until the browser has drawn what the last answer changed
(an animation frame, then a task): a person clicks what they see, and a click made while the browser still
lays out the last answer would time that work too. Then it waits ``--pause`` ms more (default ``PAUSE_MS``, 100:
the fastest a person reacts to what they see; 0 is the timing before 2026-11-24) and one more frame: the
browser's paint and raster of the last answer go on on its other threads after that frame, and on shared cores
a click that comes at once competes with them (bench/README.md, "A person's pace between clicks"). The pages take turns in a few rounds, so a shared machine's
load falls on each alike. For each page it also reports when, after the click, the page sent its frame and the
answer's frame came in (hooks on the page's WebSocket, installed before the page's own code), so the time
splits into the way there and back (network, server) and the page handling the answer (parse, redraw); and
the style and layout the answer's DOM change costs the browser, forced at once after it (it would come before
the next paint anyway; not part of the click's time, which stops at the DOM change).

``--cores``: the servers on CPU 0 and Chromium (all its processes) on CPU 1, as if the browser ran on another
machine than the server (a player's laptop or phone at a LAN event); by default they share every core, and the
browser's work on one page competes with the server's for the same two cores.

Target: within 2 ms of the floor at p50. Needs Debian's Chromium (/usr/bin/chromium) and the playwright
package; without them it says so and stops.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import trio
from trio_websocket import ConnectionClosed, wrap_server_stream

from server.app import run_server
from server.http import load_site, serve_http
from server.protocol import BotSeat, CreateTable
from server.wire.sendpath import send_promptly

CHROMIUM = Path("/usr/bin/chromium")
WEB_ROOT = Path(__file__).resolve().parents[1] / "clients" / "web"
WARM_UP = 20  # clicks a page makes before it is measured
PAUSE_MS = 100  # before each click, after the last answer was drawn: the fastest a person reacts to what they see
ROUNDS = 3  # the pages take turns this many times
VIEWPORT = {"width": 1100, "height": 900}
SERVERS = ("echo", "batch", "never")

# Installed before the page's own scripts: when the page last sent a frame (not a pong: the answer to the
# server's round-trip ping) and when the first frame after it came in (not a ping).
HOOKS = """(() => {
  const times = (window.__bench = { sent: 0, arrived: 0 });
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!String(data).includes('"type":"pong"')) { times.sent = performance.now(); times.arrived = 0; }
    return send.call(this, data);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (frame) => {
        if (!times.arrived && !String(frame.data).startsWith('{"type":"ping"')) times.arrived = performance.now();
      });
    }
  };
})();"""

# For each click: wait until the page has drawn the last answer and a person's reaction time (``pause`` ms) has
# passed, click the first button matching the step's
# ``click``, and wait for the first DOM change after which ``answered`` matches and nothing is pending. Steps
# alternate, counted across calls (``{n}`` is the page's click count), so rounds go on where the last stopped.
HARNESS = """async ([steps, count, pause]) => {
  const drawn = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const reacted = () => new Promise((resolve) => setTimeout(resolve, pause));
  const answered = (selector) => new Promise((resolve) => {
    const done = () => document.querySelector(selector) && !document.querySelector(".pending");
    const observer = new MutationObserver(() => {
      if (!done()) return;
      observer.disconnect();
      const at = performance.now();
      document.body.offsetHeight; // style and layout now, not later: work the browser does before it can paint
      resolve([at, performance.now()]);
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const samples = [];
  for (let i = 0; i < count; i++) {
    const n = (window.__clicks = (window.__clicks || 0) + 1);
    const [click, answer] = steps[(n - 1) % steps.length].map((text) => text.replaceAll("{n}", String(n)));
    await drawn();
    if (pause) { await reacted(); await drawn(); }
    const button = document.querySelector(click);
    if (!button) throw new Error(`nothing to click at click ${n}: ${click}`);
    const shown = answered(answer);
    const clicked = performance.now();
    button.click();
    const [at, laid] = await shown;
    const { sent, arrived } = window.__bench;
    samples.push([at - clicked, sent - clicked, arrived - clicked, at - arrived, laid - at]);
  }
  return samples;
}"""

ECHO_HTML = """<!doctype html><meta charset="utf-8"><title>echo</title>
<button id="send">send</button> <span id="out">0</span>
<script type="module" src="echo.js"></script>
"""
ECHO_JS = """const ws = new WebSocket(`ws://${location.host}/`);
let sent = 0;
ws.onmessage = (m) => { const out = document.getElementById("out"); out.textContent = m.data; out.dataset.n = m.data; };
document.getElementById("send").addEventListener("click", () => ws.send(String(++sent)));
window.ready = new Promise((resolve) => { ws.onopen = resolve; });
"""


async def serve_echo(folder: Path, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """The floor's server: plain HTTP and a websocket echo on one port, the way the photofinish gateway serves
    (``server/http.py`` reads the request, an upgrade goes to trio-websocket, frames go out promptly)."""
    (folder / "index.html").write_text(ECHO_HTML)
    (folder / "echo.js").write_text(ECHO_JS)
    site = load_site(folder)

    async def connection(stream: trio.SocketStream) -> None:
        try:
            upgrade = await serve_http(stream, site)
            if upgrade is None:
                return
            async with trio.open_nursery() as nursery:
                ws = await (await wrap_server_stream(nursery, upgrade)).accept()
                send_promptly(ws)
                try:
                    while True:
                        await ws.send_message(await ws.get_message())
                except ConnectionClosed:
                    pass
                nursery.cancel_scope.cancel()
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionClosed):
            pass  # the browser went away
        finally:
            await trio.aclose_forcefully(stream)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(connection, listeners)


async def serve_one(name: str, folder: Path, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """One of the bench's servers: ``echo`` (the floor) or photofinish at the durability ``name`` with its
    table (the bot keeps still: a minute a move); started with (port, table id or None)."""
    async with trio.open_nursery() as nursery:
        if name == "echo":
            folder.mkdir()
            task_status.started((await nursery.start(serve_echo, folder), None))
            return
        running = await nursery.start(partial(run_server, "127.0.0.1", 0, data_dir=folder, durability=name,
                                              web_root=WEB_ROOT))
        table = await running.lobby.create(CreateTable(
            game="flag_finish", mode="challenge", seats=2, bots=[BotSeat(1)], bot_delay_ms=60_000))
        task_status.started((running.port, table.id))


def serve_main(name: str, folder: str, cpu: int | None = None) -> None:
    """``--serve NAME FOLDER [CPU]``: run one server in this process (on CPU ``cpu`` alone, if given), print its
    port and table, stop when stdin closes (the bench ended or died)."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})

    async def main():
        async with trio.open_nursery() as nursery:
            port, table = await nursery.start(serve_one, name, Path(folder))
            print(port, table or "-", flush=True)
            await trio.to_thread.run_sync(sys.stdin.read)
            nursery.cancel_scope.cancel()

    trio.run(main)


def chromium_on(cpu: int, folder: Path) -> Path:
    """An executable that runs Chromium with every process it starts on CPU ``cpu`` alone."""
    wrapper = folder / "chromium-on-cpu"
    wrapper.write_text(f"#!{sys.executable}\nimport os, sys\nos.sched_setaffinity(0, {{{cpu}}})\n"
                       f"os.execv({str(CHROMIUM)!r}, [{str(CHROMIUM)!r}, *sys.argv[1:]])\n")
    wrapper.chmod(0o755)
    return wrapper


@contextmanager
def servers_apart(folder: Path, cpu: int | None = None):
    """Each server in a process of its own, as a user runs ``photofinish serve``: {name: (port, table or
    None)}."""
    pinned = [] if cpu is None else [str(cpu)]
    processes = {name: subprocess.Popen([sys.executable, "-m", "bench.browser_bench", "--serve", name,
                                         str(folder / name), *pinned], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, cwd=Path(__file__).resolve().parents[1])
                 for name in SERVERS}
    try:
        pages = {}
        for name, process in processes.items():
            port, table = process.stdout.readline().split()
            pages[name] = (int(port), None if table == "-" else table)
        yield pages
    finally:
        for process in processes.values():
            process.stdin.close()
        for process in processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@contextmanager
def servers_together(folder: Path):
    """All the servers in one trio loop in a thread of this process (the bench's setup before issue 18's
    last step, ``--one-process``: the page's answers then share the Playwright process with it)."""
    ready: queue.Queue = queue.Queue()

    async def main():
        async with trio.open_nursery() as nursery:
            pages = {name: await nursery.start(serve_one, name, folder / name) for name in SERVERS}
            ready.put((pages, nursery.cancel_scope, trio.lowlevel.current_trio_token()))

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    pages, cancel_scope, token = ready.get(timeout=20)
    try:
        yield pages
    finally:
        trio.from_thread.run_sync(cancel_scope.cancel, trio_token=token)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def open_echo(browser, port: int):
    page = browser.new_page(viewport=VIEWPORT)
    page.add_init_script(HOOKS)
    page.goto(f"http://127.0.0.1:{port}/")
    page.evaluate("() => window.ready")
    return page, [["#send", "#out[data-n='{n}']"]]


def open_photofinish(browser, port: int, table: str):
    page = browser.new_page(viewport=VIEWPORT)
    page.add_init_script(HOOKS)
    page.goto(f"http://127.0.0.1:{port}/")
    page.wait_for_selector(f"[data-key='sit-{table}-0']")
    page.fill("#name", "bench")
    page.click(f"[data-key='sit-{table}-0']")
    page.wait_for_selector(".discard button.move[data-action^='take']")
    take = ".discard button.move[data-action^='take']:not(.pending)"
    discard = ".hand button.move[data-action^='discard']:not(.pending)"
    return page, [[take, discard], [discard, take]]


def figures(samples: list[list[float]]) -> dict:
    column = lambda i: [sample[i] for sample in samples]  # noqa: E731
    return {"p50_ms": percentile(column(0), 0.5), "p99_ms": percentile(column(0), 0.99),
            "sent_p50_ms": percentile(column(1), 0.5), "arrived_p50_ms": percentile(column(2), 0.5),
            "handled_p50_ms": percentile(column(3), 0.5), "layout_p50_ms": percentile(column(4), 0.5)}


def run(clicks: int = 300, apart: bool = True, cores: bool = False, pause_ms: int = PAUSE_MS) -> dict | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser bench skipped: the playwright package is missing (.venv/bin/pip install -e '.[test]')")
        return None
    if not CHROMIUM.exists():
        print(f"browser bench skipped: no Chromium at {CHROMIUM} (apt-get install -y chromium, as root)")
        return None
    if cores and (not apart or len(os.sched_getaffinity(0)) < 2):
        print("browser bench: --cores needs two CPUs and the servers in their own processes")
        return None
    per_round = -(-clicks // ROUNDS // 2) * 2  # even: a photofinish round ends where the next one starts
    with tempfile.TemporaryDirectory(prefix="browser-bench-") as folder:
        cpus = sorted(os.sched_getaffinity(0))[:2] if cores else [None, None]
        chromium = chromium_on(cpus[1], Path(folder)) if cores else CHROMIUM
        servers_at = partial(servers_apart, cpu=cpus[0]) if apart else servers_together
        with servers_at(Path(folder)) as servers:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(chromium), headless=True,
                                                     args=["--no-sandbox", "--disable-gpu"])
                pages = {"echo": open_echo(browser, servers["echo"][0])}
                for durability in ("batch", "never"):
                    pages[durability] = open_photofinish(browser, *servers[durability])
                samples: dict[str, list] = {name: [] for name in pages}
                for name, (page, steps) in pages.items():
                    page.evaluate(HARNESS, [steps, WARM_UP, pause_ms])
                for _ in range(ROUNDS):
                    for name, (page, steps) in pages.items():
                        samples[name] += page.evaluate(HARNESS, [steps, per_round, pause_ms])
                browser.close()
    return {"clicks": per_round * ROUNDS, "cores": cores, "pause_ms": pause_ms, "echo": figures(samples["echo"]),
            "photofinish": figures(samples["batch"]), "photofinish_never": figures(samples["never"])}


def print_table(result: dict | None) -> None:
    if result is None:
        return
    echo, ours, never = result["echo"], result["photofinish"], result["photofinish_never"]
    print(f"click -> answer shown, headless Chromium over loopback, {result['clicks']} clicks a page, "
          f"taking turns in {ROUNDS} rounds, each click {result.get('pause_ms', 0)} ms after the last answer was drawn"
          + ("; the servers on one CPU, Chromium on another" if result.get("cores") else ""))
    print(f"{'page':<40}{'p50 ms':>8}{'p99 ms':>8}   p50 after the click: sent / answer in / shown after it / "
          "style and layout after that")
    rows = [("bare websocket echo (the floor)", echo), ("photofinish, durability batch (default)", ours),
            ("photofinish, durability never", never)]
    for label, row in rows:
        print(f"{label:<40}{row['p50_ms']:>8.2f}{row['p99_ms']:>8.2f}   {row['sent_p50_ms']:.2f} / "
              f"{row['arrived_p50_ms']:.2f} / +{row['handled_p50_ms']:.2f} / +{row['layout_p50_ms']:.2f}")
    gap = ours["p50_ms"] - echo["p50_ms"]
    print(f"p50 above the floor: {gap:.2f} ms at the default durability (target: 2 ms or less: "
          f"{'met' if gap <= 2 else 'NOT met'}); {never['p50_ms'] - echo['p50_ms']:.2f} ms at never")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve_main(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else None)
    else:
        arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
        pauses = [argument.removeprefix("--pause=") for argument in sys.argv[1:] if argument.startswith("--pause=")]
        print_table(run(int(arguments[0]) if arguments else 300, apart="--one-process" not in sys.argv,
                        cores="--cores" in sys.argv, pause_ms=int(pauses[-1]) if pauses else PAUSE_MS))
