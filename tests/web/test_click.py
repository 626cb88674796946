"""What a click costs the page: its move shows as pending at once, with no redraw of the table while the
answer is on its way, and the answer (``accepted`` and the update, one frame) is drawn in one redraw.

A redraw updates the table in place (tests/web/test_morph.py), and the browser then restyles, lays out and
paints what changed: done at the click, that work held the page's one thread when the answer came in
(bench/README.md, Browser).
"""

from __future__ import annotations

import trio

from server.protocol import BotSeat, CreateTable

from .test_browser import lobby

# Clicks a discard card (a real click event) and reads the page before anything from the server can come in;
# counts each redraw of the page (a call of the table page's render) from then on.
CLICK = """() => {
  const table = window.photofinish.page, render = table.render.bind(table);
  window.redraws = 0;
  table.render = () => { window.redraws += 1; return render(); };
  const page = document.querySelector(".table-page");
  const button = document.querySelector(".discard button.move[data-action^='take']");
  button.click();
  return { pending: button.classList.contains("pending"), busy: button.getAttribute("aria-busy"),
           text: button.textContent, shown: button.isConnected, redrawn: document.querySelector(".table-page") !== page,
           marked: document.querySelectorAll(".pending").length,
           same: document.querySelectorAll(`[data-key="${CSS.escape(button.dataset.key)}"]`).length };
}"""


def test_a_click_shows_its_move_pending_at_once_and_the_answer_in_one_redraw(page, live_server):
    table = trio.from_thread.run(live_server.running.lobby.create, CreateTable(  # the bot keeps still (a minute
        game="flag_finish", mode="challenge", seats=2, bots=[BotSeat(1)], bot_delay_ms=60_000),  # a move): only
        trio_token=live_server.token)  # our click changes the table
    lobby(page, live_server)
    page.click(f"[data-key='sit-{table.id}-0']")
    page.wait_for_selector(".discard button.move[data-action^='take']")
    page.wait_for_function("() => window.photofinish.page.state.info.status === 'playing'")  # its last refresh
    clicked = page.evaluate(CLICK)
    assert "(sent...)" in clicked.pop("text")
    assert clicked.pop("marked") == clicked.pop("same")  # that move alone (a card twice on the pile: both)
    assert clicked == {"pending": True, "busy": "true", "shown": True, "redrawn": False}  # in place, no redraw
    page.wait_for_selector(".hand button.move[data-action^='discard']")  # the answer: now discard one
    page.wait_for_selector(".pending", state="detached")
    assert page.evaluate("window.redraws") == 1
