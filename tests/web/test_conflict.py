"""A Challenge conflict over one discard card, decided deterministically, shown as lost in the browser.

Ana's page and Ben, a seat scripted with the client library, sit at a Flag Finish Challenge table. Every frame
from the server to the page is held back (Playwright's ``route_web_socket``) while Ben takes a card and gets
his ``accepted``: the page still shows the card and Ana clicks it. Her request reaches the arbiter after Ben's,
so the arbiter's order decides: she is refused. While her answer is held the card shows as pending; once the
frames go through, the page says who got it. Nothing waits on time: only on answers and page elements.
"""

from __future__ import annotations

import queue
import re
import threading

import trio

from clients.client import open_client

from .test_browser import create_table, lobby


class ScriptedSeat:
    """Ben: a client-library seat in a thread of its own; ``act`` sends an action and returns the answer."""

    def __init__(self, url: str, table: str, seat: int, name: str) -> None:
        self.url, self.table, self.seat, self.name = url, table, seat, name
        self.commands: queue.Queue = queue.Queue()
        self.answers: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self.thread.start()
        self._answer()  # seated

    async def _main(self) -> None:
        try:
            async with open_client(self.url) as client:
                self.answers.put(await client.take_seat(self.table, self.seat, self.name))
                while (action := await trio.to_thread.run_sync(self.commands.get)) is not None:
                    try:
                        self.answers.put(await client.act(self.table, action))
                    except Exception as error:  # a refusal, handed to the test to assert on
                        self.answers.put(error)
        except BaseException as error:
            self.answers.put(error)
            raise

    def _answer(self):
        answer = self.answers.get(timeout=20)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def act(self, action: dict):
        self.commands.put(action)
        return self._answer()

    def close(self) -> None:
        self.commands.put(None)
        self.thread.join(timeout=10)


class HeldSocket:
    """Routes the page's websocket through Playwright; while ``holding``, frames to the page wait in ``held``."""

    def __init__(self, page) -> None:
        self.holding = False
        self.held: list = []
        self.route = None
        page.route_web_socket(re.compile(r"^ws://127\.0\.0\.1:\d+/"), self._connect)

    def _connect(self, route) -> None:
        self.route = route
        server = route.connect_to_server()
        server.on_message(self._from_server)

    def _from_server(self, message) -> None:
        if self.holding:
            self.held.append(message)
        else:
            self.route.send(message)

    def release(self) -> None:
        while self.held:  # a frame that comes while these are sent is sent after them, in order
            self.route.send(self.held.pop(0))
        self.holding = False


def test_a_challenge_card_lost_to_a_faster_seat_says_who_got_it(page, live_server, shots):
    socket = HeldSocket(page)
    lobby(page, live_server, name="Ana")
    table = create_table(page, mode="challenge", seats=2, bots=(), options={"races": 1})
    ben = ScriptedSeat(live_server.ws_url, table, 1, "Ben")
    try:
        page.wait_for_selector(".seats li:has-text('Ben')")
        offered = [b.get_attribute("data-card") for b in page.locator(".discard button.move[data-action^='take']").all()]
        shown = [c.get_attribute("data-card") for c in page.locator(".discard [data-card]").all()]
        card = next(c for c in offered if shown.count(c) == 1)  # one copy only (a flag may lie there twice):
        # once Ben has it, none is left for Ana

        socket.holding = True
        accepted = ben.act({"type": "take", "card": card})  # Ben's take is in the log first
        assert accepted.seq > 0
        button = page.locator(f".discard button[data-card='{card}']").first
        button.click()  # the page has not heard of Ben's take: the card is still there
        page.wait_for_selector(f".discard button.pending[data-card='{card}']")
        assert "sent..." in page.locator(f".discard button[data-card='{card}']").first.text_content()
        page.screenshot(path=shots / "challenge_pending.png", full_page=True)

        socket.release()
        notice = page.wait_for_selector(".notice").text_content()
        colour = {"G": "green", "R": "red", "B": "blue", "Y": "yellow", "O": "orange", "P": "purple"}
        name = "flag" if card == "F" else f"{colour[card[0]]} {card[1:]}"
        assert notice == f"Ben got {name} first."
        assert page.locator(f".discard button.pending[data-card='{card}']").count() == 0
        assert any(line.endswith(f"Ben took {name} from the discard pile.") for line in page.locator(".feed li").all_text_contents())
        page.screenshot(path=shots / "challenge_lost.png", full_page=True)
    finally:
        ben.close()
