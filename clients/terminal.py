"""The terminal clients: `watch` (a spectator's live table) and `play` (a human seat, typing actions)."""

from __future__ import annotations

import sys

import trio

from .client import ActionRejected, ServerError, open_client
from .render import describe_action, render
from server.protocol import Closing, Snapshot, Update

CLEAR = "\x1b[2J\x1b[H"


def _screen(text: str) -> None:
    prefix = CLEAR if sys.stdout.isatty() else "\n" + "-" * 72 + "\n"
    print(prefix + text, flush=True)


async def watch(url: str, table: str, *, once: bool = False) -> int:
    """Show ``table`` live until its game is over (or the server goes away)."""
    async with open_client(url, name="watch") as client:
        try:
            watching = await client.watch(table)
        except ServerError as error:
            print(f"photofinish watch: {error.message}", file=sys.stderr)
            return 2
        game = watching.game
        async for message in client.messages:
            if type(message) is Closing:
                print(f"photofinish watch: {message.message}", file=sys.stderr)
                return 1
            if type(message) not in (Update, Snapshot) or message.view is None:
                continue
            _screen(f"table {watching.table} ({url}), seq {message.seq}\n" + render(game, message.view))
            if message.result is not None or once:
                return 0
    return 0


async def playback(url: str, log_table: str, speed: float = 1.0) -> int:
    """Ask the server to play the finished game of ``log_table`` back, and watch it."""
    from server.protocol import OpenPlayback

    async with open_client(url, name="playback") as client:
        try:
            created = await client.request(OpenPlayback(log=log_table, speed=speed))
        except ServerError as error:
            print(f"photofinish playback: {error.message}", file=sys.stderr)
            return 2
    return await watch(url, created.table.table)


def parse_action(text: str, legal: list) -> object | None:
    """A typed line as one of the legal actions: its number in the list, or its text ('take G5')."""
    text = text.strip()
    if text.isdigit() and 0 < int(text) <= len(legal):
        return legal[int(text) - 1]
    for action in legal:
        if describe_action(action).lower() == text.lower():
            return action
    return None


async def play(url: str, table: str, seat: int | None = None, name: str = "") -> int:
    """Sit at ``table`` as a human: the table and your legal actions are shown; type a number or an action."""
    async with open_client(url, name=name or "human") as client:
        try:
            seated = await client.take_seat(table, seat=seat)
        except ServerError as error:
            print(f"photofinish play: {error.message}", file=sys.stderr)
            return 2
        print(f"seat {seated.seat} at {table}; token {seated.token} (keep it to resume)")
        state = {"legal": [], "view": None}

        async def show() -> None:
            async for message in client.messages:
                if type(message) is Closing:
                    print(message.message)
                    return
                if type(message) in (Update, Snapshot) and message.view is not None:
                    state["view"], state["legal"] = message.view, message.legal or []
                    menu = "\n".join(f"  {i + 1}. {describe_action(a)}" for i, a in enumerate(state["legal"]))
                    _screen(render(seated.game, message.view) + ("\nyour moves:\n" + menu if menu else
                                                                 "\n(waiting)"))
                    if message.result is not None:
                        return

        async with trio.open_nursery() as nursery:
            async def typing() -> None:
                while True:
                    line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
                    if not line:
                        nursery.cancel_scope.cancel()
                        return
                    action = parse_action(line, state["legal"])
                    if action is None:
                        print("not one of your moves: type its number, or e.g. 'draw', 'take G5', 'play R0'")
                        continue
                    try:
                        await client.act(table, action)
                    except ActionRejected as error:
                        print(f"refused: {error.message}")

            nursery.start_soon(typing)
            await show()
            nursery.cancel_scope.cancel()
    return 0
