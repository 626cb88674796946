"""Between a page and the server (Playwright's ``route_web_socket``): every frame passes, but the answer to the
next request of a kind asked after ``hold`` is kept until ``release``: what a page does with an answer that
comes after the person has gone on to another page."""

from __future__ import annotations

from .frames import read_frame


class HeldAnswer:
    def __init__(self, page, ws_url: str, kind: str) -> None:
        self.kind = kind
        self.holding = False
        self.id = None  # the held request's id, once asked
        self.answer = None  # its answer, once it came
        self.released = False
        self.ws = None
        page.route_web_socket(f"{ws_url}/", self._between)

    def hold(self) -> None:
        self.holding, self.id, self.answer, self.released = True, None, None, False

    def release(self) -> None:
        self.released = True
        if self.answer is not None:
            answer, self.answer = self.answer, None
            self.ws.send(answer)

    def _between(self, ws) -> None:
        server = ws.connect_to_server()
        self.ws = ws

        def up(frame):
            if self.holding and read_frame(frame)["type"] == self.kind:
                self.id = read_frame(frame)["id"]
                self.holding = False
            server.send(frame)

        def down(frame):
            message = read_frame(frame)
            refs = [m.get("ref") for m in message["messages"]] if message["type"] == "batch" else [message.get("ref")]
            if self.id is not None and self.id in refs and not self.released:
                self.answer = frame
            else:
                ws.send(frame)

        ws.on_message(up)
        server.on_message(down)
