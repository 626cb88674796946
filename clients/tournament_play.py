"""`photofinish play URL --tournament T --token TOKEN`: a registered person follows their tournament in the
terminal. It waits for each round's seating ("your table, your seat"), plays that table with `play` (the seat
reserved for the player's token; at a table played with real cards, it asks for the places and reports them), shows the standings between rounds, and stops when the tournament is over.

One task reads the keyboard for the whole tournament and hands lines to whichever table is being played, so
no typed line is lost between tables. While a table is played the tournament is still listened to: a shutdown
it announces is shown on the table's screen as it comes; the rest is taken up after the table.
"""

from __future__ import annotations

import math
import sys
from typing import Awaitable, Callable

import trio

from server.protocol import Closing, TournamentState, YourTable

from .client import ServerError, open_client
from .terminal import Terminal, play, read_stdin
from .tournament_text import round_words, standings_text


async def follow_tournament(url: str, tournament: str, token: str, *,
                            read_line: Callable[[], Awaitable[str]] | None = None,
                            terminal: Terminal | None = None, out=print) -> int:
    read_line = read_line or read_stdin
    lines_in, lines_out = trio.open_memory_channel[str](math.inf)

    async def keyboard() -> None:
        while True:
            line = await read_line()
            lines_in.send_nowait(line)
            if not line:
                return

    async with open_client(url, name="tournament player") as client, trio.open_nursery() as nursery:
        try:
            state = await client.watch_tournament(tournament, token=token)
        except ServerError as error:
            print(f"photofinish play: {error.message}", file=sys.stderr)
            return 2
        nursery.start_soon(keyboard)
        out(f"{state.tournament.name}: {state.tournament.format}, {round_words(state.tournament)}; you are "
            "registered. Waiting for your table (Ctrl-C leaves).")
        played: set[str] = set()
        code = 0
        later: list = []  # what the tournament said while a table was played, taken in order after it
        while True:
            if later:
                message = later.pop(0)
            else:
                try:
                    message = await client.messages.receive()
                except trio.EndOfChannel:
                    break
            if type(message) is YourTable and message.reported and message.table not in played:
                played.add(message.table)  # played with real cards at the venue: the places are typed here
                out(f"round {message.round}: your table is {message.table}, seat {message.seat + 1}, played with "
                    "real cards")
                if not await _report(client, tournament, token, message.table, lines_out, out):
                    break
                out("reported: waiting for the next round")
            elif type(message) is YourTable and message.table not in played:
                played.add(message.table)
                out(f"round {message.round}: your table is {message.table}, seat {message.seat + 1}")
                code = await _play_table(client, url, message.table, token, lines_out, terminal, later)
                if code == 130:
                    break
                if not await _table_over(client, message.table):
                    out("you left the table; the same command brings you back to it")
                    break
                out("table over: waiting for the next round")
            elif type(message) is TournamentState:
                state = message
                if state.tournament.status == "over":
                    out(f"{state.tournament.name} is over. Final standings:\n{standings_text(state)}")
                    break
            elif type(message) is Closing and message.code == "server_shutdown":
                out(_shutting_down(message))
            elif type(message) is Closing:
                out(f"the server closed the connection: {message.message}")
                code = 1
                break
        nursery.cancel_scope.cancel()
    return code


async def _play_table(client, url: str, table: str, token: str, lines, terminal: Terminal | None,
                      later: list) -> int:
    """Play ``table`` while still listening to the tournament: a shutdown it announces is shown on the table's
    screen at once; everything else it says is kept in ``later`` for after the table."""
    notices_in, notices_out = trio.open_memory_channel[str](math.inf)

    async def listen() -> None:
        async for message in client.messages:
            if type(message) is Closing and message.code == "server_shutdown":
                notices_in.send_nowait(_shutting_down(message))
            else:
                later.append(message)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen)
        code = await play(url, table, token=token, read_line=lines.receive, terminal=terminal, notices=notices_out)
        nursery.cancel_scope.cancel()
    return code


async def _report(client, tournament: str, token: str, table: str, lines, out) -> bool:
    """A table played with real cards: the person types each seat's places once it is over, until the server
    takes them (or the table's result stands already); False when the keyboard is closed."""
    while True:
        out("when the game is over, type each seat's place, seat 1 first (1 = first; ties share it: 1,1,3):")
        line = (await lines.receive()).strip()
        if not line:
            return False
        try:
            await client.report_result(tournament, token, table, [int(v) for v in line.split(",")])
            return True
        except ValueError:
            out(f"{line!r}: places are whole numbers by seat, e.g. 1,3,2")
        except ServerError as error:
            if error.code in ("already_settled", "tournament_over"):
                out(error.message)
                return True
            out(error.message)


def _shutting_down(message: Closing) -> str:
    return f"{message.message}; the tournament goes on once it is back (Ctrl-C leaves)"


async def _table_over(client, table: str) -> bool:
    infos = {info.table: info for info in await client.list_tables()}
    info = infos.get(table)
    return info is None or info.status == "over"
