"""From a click to the page showing the answer, in headless Chromium over loopback, next to the floor.

`python -m bench.browser_bench [CLICKS]` (default 300). One trio loop in a thread serves the photofinish web
client (a Flag Finish Challenge table: the page's seat takes a discard card, then discards, and so on; the other
seat is a server bot that waits a minute before each move) and a bare trio-websocket echo server; a tiny page
(a button that sends a frame, the echo written into the page) is the floor. The page clicks the button itself
(``button.click()``: the same click event and handler as a person's click) and times it, from the click to the
first DOM change that shows the answer (the next move offered, nothing pending; on the echo page, the echoed
count). Playwright only starts each run: its polling would hold the page's main thread between frames. Target: within 2 ms of the floor
at p50. Needs Debian's Chromium (/usr/bin/chromium) and the playwright package; without them it says so and
stops (it is not part of `make bench`).
"""

from __future__ import annotations

import queue
import sys
import threading
from pathlib import Path

import trio
from trio_websocket import ConnectionClosed, serve_websocket

from server.app import run_server
from server.protocol import BotSeat, CreateTable
from server.sendpath import send_promptly

CHROMIUM = Path("/usr/bin/chromium")
WEB_ROOT = Path(__file__).resolve().parents[1] / "clients" / "web"
WARM_UP = 20

# The page clicks and times itself (no Playwright call between a click and its answer, whose polling would
# otherwise hold the page's main thread): for each step it clicks the first button matching ``click`` and waits
# for the first DOM change after which ``answered`` matches and nothing is pending. Steps alternate.
HARNESS = """async ([steps, count]) => {
  const answered = (selector) => new Promise((resolve) => {
    const done = () => document.querySelector(selector) && !document.querySelector(".pending");
    const observer = new MutationObserver(() => { if (done()) { observer.disconnect(); resolve(performance.now()); } });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const samples = [];
  for (let n = 0; n < count; n++) {
    const [click, answer] = steps[n % steps.length].map((text) => text.replaceAll("{n}", String(n + 1)));
    const button = document.querySelector(click);
    if (!button) throw new Error(`nothing to click at step ${n}: ${click}`);
    const shown = answered(answer);
    const clicked = performance.now();
    button.click();
    samples.push((await shown) - clicked);
  }
  return samples;
}"""

ECHO_PAGE = """<!doctype html><meta charset="utf-8"><title>echo</title>
<button id="send">send</button> <span id="out">0</span>
<script>
  const ws = new WebSocket("ws://127.0.0.1:%d/");
  let sent = 0;
  ws.onmessage = (m) => { const out = document.getElementById("out"); out.textContent = m.data; out.dataset.n = m.data; };
  document.getElementById("send").addEventListener("click", () => ws.send(String(++sent)));
  window.ready = new Promise((resolve) => { ws.onopen = resolve; });
</script>"""


async def echo(request) -> None:
    ws = await request.accept()
    send_promptly(ws)  # as photofinish sends (server/sendpath.py): the floor is the browser and the socket alone
    try:
        while True:
            await ws.send_message(await ws.get_message())
    except ConnectionClosed:
        pass


def start_servers() -> tuple[int, int, str, object, object]:
    """The photofinish server and the echo server in one trio loop in a thread; their ports, a way to stop."""
    ready: queue.Queue = queue.Queue()

    async def main():
        async with trio.open_nursery() as nursery:
            running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, web_root=WEB_ROOT,
                                                                         task_status=task_status))
            listeners = await nursery.start(serve_websocket, echo, "127.0.0.1", 0, None)
            table = await running.lobby.create(CreateTable(  # the bot keeps still (a minute a move) while we click
                game="flag_finish", mode="challenge", seats=2, bots=[BotSeat(1)], bot_delay_ms=60_000))
            ready.put((running.port, listeners.port, table.id, nursery.cancel_scope,
                       trio.lowlevel.current_trio_token()))

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    return ready.get(timeout=20)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_echo(browser, port: int, clicks: int) -> list[float]:
    page = browser.new_page()
    page.set_content(ECHO_PAGE % port)
    page.evaluate("() => window.ready")
    samples = page.evaluate(HARNESS, [[["#send", "#out[data-n='{n}']"]], clicks + WARM_UP])
    page.close()
    return samples[WARM_UP:]


def measure_photofinish(browser, port: int, table: str, clicks: int) -> list[float]:
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(f"http://127.0.0.1:{port}/")
    page.wait_for_selector(f"[data-key='sit-{table}-0']")
    page.fill("#name", "bench")
    page.click(f"[data-key='sit-{table}-0']")
    page.wait_for_selector(".discard button.move[data-action^='take']")
    take = ".discard button.move[data-action^='take']:not(.pending)"
    discard = ".hand button.move[data-action^='discard']:not(.pending)"
    samples = page.evaluate(HARNESS, [[[take, discard], [discard, take]], clicks + WARM_UP])
    page.close()
    return samples[WARM_UP:]


def run(clicks: int = 300) -> dict | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser bench skipped: the playwright package is missing (.venv/bin/pip install -e '.[test]')")
        return None
    if not CHROMIUM.exists():
        print(f"browser bench skipped: no Chromium at {CHROMIUM} (apt-get install -y chromium, as root)")
        return None
    port, echo_port, table, cancel_scope, token = start_servers()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            floor = measure_echo(browser, echo_port, clicks)
            ours = measure_photofinish(browser, port, table, clicks)
            browser.close()
    finally:
        trio.from_thread.run_sync(cancel_scope.cancel, trio_token=token)
    return {"clicks": clicks,
            "echo": {"p50_ms": percentile(floor, 0.5), "p99_ms": percentile(floor, 0.99)},
            "photofinish": {"p50_ms": percentile(ours, 0.5), "p99_ms": percentile(ours, 0.99)}}


def print_table(figures: dict | None) -> None:
    if figures is None:
        return
    echo_, ours = figures["echo"], figures["photofinish"]
    gap = ours["p50_ms"] - echo_["p50_ms"]
    print(f"click -> answer shown, headless Chromium over loopback, {figures['clicks']} clicks each")
    print(f"{'page':<34}{'p50 ms':>9}{'p99 ms':>9}")
    print(f"{'bare websocket echo (the floor)':<34}{echo_['p50_ms']:>9.2f}{echo_['p99_ms']:>9.2f}")
    print(f"{'photofinish (take / discard)':<34}{ours['p50_ms']:>9.2f}{ours['p99_ms']:>9.2f}")
    print(f"p50 above the floor: {gap:.2f} ms (target: 2 ms or less: {'met' if gap <= 2 else 'NOT met'})")


if __name__ == "__main__":
    print_table(run(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
