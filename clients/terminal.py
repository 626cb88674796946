"""The terminal clients: `watch` (a spectator's live table) and `play` (a human seat, typing moves).

This module does the I/O: it follows the server's messages into a ``Seen`` (``screen.py`` lays it out),
reads what the person types (``moves.py`` understands it), redraws, keeps the turn clock ticking and the
table's info (seat names, who is still missing) fresh, and remembers the seat's token (``tokens.py``) so that
`play` again resumes it.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from contextlib import contextmanager
from typing import Any, Awaitable, Callable

import trio

from rules import get_game
from server.protocol import NO_RECONNECT, Closing, Code, Error, Snapshot, TableEnded, Update
from server.protocol.names import printable

from . import tokens
from .client import ActionRejected, Client, ServerError, open_client
from .feed import describe_contest
from .moves import NotAMove, parse_action, read_move
from .screen import Seen, compose
from .sentences import Reader
from .words import and_list, ordinal

__all__ = ["Terminal", "watch", "play", "playback", "parse_action"]

INFO_EVERY = 15.0  # s between refreshes of the table's info while a game goes on
WAITING_EVERY = 1.0  # ... and while the table waits for players
ALIAS_WAIT = 60.0  # s `watch` waits for an alias (`demo`) to name its next table once a game is over
ALIAS_POLL = 1.0  # ... asking this often
STOPPED = frozenset({"table_closed", "server_shutdown"})  # errors that last only until it is back


class Terminal:
    """Where screens go. On a terminal each screen is drawn in place in the rows above the prompt (the
    person's half-typed line on the last row is left alone); otherwise (a pipe, a test) each new screen is
    written after a rule."""

    def __init__(self, write: Callable[[str], Any] | None = None, tty: bool | None = None) -> None:
        self.write = write or (lambda text: (sys.stdout.write(text), sys.stdout.flush()))
        self.tty = sys.stdout.isatty() if tty is None else tty
        self.rows = max(12, shutil.get_terminal_size((80, 24)).lines) if self.tty else 24
        self._last: list[str] | None = None

    def show(self, lines: list[str], full: bool = False) -> None:
        lines = [printable(line) for line in lines]  # a name holding an escape sequence draws as text, never runs
        if not self.tty:
            if lines != self._last:
                self.write("\n" + "-" * 72 + "\n" + "\n".join(lines) + "\n")
            self._last = lines
            return
        if full:  # after Enter: the screen scrolled, so clear it and put the prompt back on the last row
            self.write("\x1b[H\x1b[2J" + "".join(f"\x1b[{i + 1};1H{line}" for i, line in enumerate(lines))
                       + f"\x1b[{self.rows};1H> ")
        else:
            rows = lines + [""] * (self.rows - 1 - len(lines))
            self.write("\x1b7" + "".join(f"\x1b[{i + 1};1H{line}\x1b[K" for i, line in enumerate(rows)) + "\x1b8")
        self._last = lines

    def close(self) -> None:
        if self.tty:
            self.write(f"\x1b[{self.rows};1H\x1b[K\n")


def _interrupted(error: BaseException) -> bool:
    """Ctrl-C, alone or in (nested) exception groups of nothing else."""
    if isinstance(error, BaseExceptionGroup):
        return all(_interrupted(inner) for inner in error.exceptions)
    return isinstance(error, KeyboardInterrupt)


async def read_stdin() -> str:
    return await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)


def _title(info: Any) -> str:
    try:
        title = get_game(info.game).info.title
    except Exception:  # a game this client does not know: its name will do
        title = info.game
    mode = {"challenge": "Challenge Mode", "lockstep": "lockstep"}.get(info.mode, info.mode)
    return f"{title}, {mode}"


class _Session:
    """One table followed on one connection: the ``Seen`` and everything that redraws it."""

    def __init__(self, client: Client, seen: Seen, terminal: Terminal) -> None:
        self.client = client
        self.seen = seen
        self.terminal = terminal
        self.wake_info = trio.Event()

    def draw(self, full: bool = False) -> None:
        self.terminal.show(compose(self.seen, trio.current_time(), self.terminal.rows), full)

    def say_lost(self, reason: str) -> None:
        """The connection is gone (the client reconnects by itself): say so at once, until the table is back.
        A word on it from elsewhere (`play --tournament`'s: the server shuts down) is kept: it says more."""
        if not self.seen.connection:
            self.seen.connection = f"connection lost ({reason}); reconnecting..."
            self.draw()

    async def refresh_info(self) -> None:
        try:
            tables = await self.client.list_tables()
        except ServerError:
            return
        info = next((t for t in tables if t.table == self.seen.table), None)
        if info is not None:
            self.seen.info = info
            self.seen.title = _title(info)

    async def keep_info(self) -> None:
        """Refresh the table's info now and then (seat names; whom a waiting table waits for)."""
        while True:
            await self.refresh_info()
            self.draw()
            waiting = self.seen.info is not None and self.seen.info.status == "waiting"
            with trio.move_on_after(WAITING_EVERY if waiting else INFO_EVERY):
                await self.wake_info.wait()
            self.wake_info = trio.Event()

    async def tick(self) -> None:
        """Redraw every second while the turn clock runs (a terminal only)."""
        while True:
            await trio.sleep(1)
            if self.seen.deadline is not None and self.seen.legal:
                self.draw()

    async def follow(self) -> int:
        """Take the server's messages until the game is over (0) or the connection is gone for good (1)."""
        seen = self.seen
        async for message in self.client.messages:
            kind = type(message)
            if kind is Closing:
                if message.code in NO_RECONNECT or message.code == Code.DISCONNECTED:
                    seen.note = f"the server closed the connection: {message.message}"
                    self.draw()
                    return 1
                # until it is back; a word on it from elsewhere (`play --tournament`'s) is kept: it says more
                seen.connection = seen.connection or f"connection lost ({message.message}); reconnecting..."
                self.draw()
                continue
            if kind is Error:
                if message.code in STOPPED:
                    seen.connection = f"{message.message}; reconnecting..."
                else:
                    seen.note = f"{message.message} ({message.code})"
                self.draw()
                continue
            if kind is TableEnded and message.table == seen.table:  # an end, though not the game's own
                places = and_list(f"{Reader(me=seen.seat).who(seat)} {ordinal(place)}" for seat, place in enumerate(message.places))
                seen.ended = (f"The table was ended before its game's end ({message.reason.replace('_', ' ')}). "
                              f"Places as it stood: {places}.")
                seen.note = seen.connection = ""
                self.draw()
                return 0
            if kind not in (Update, Snapshot) or message.table != seen.table:
                continue
            if seen.connection or (seen.info is not None and seen.info.status == "waiting"):
                self.wake_info.set()  # back after a reconnect, or the game has started: who sits where
            seen.take(message)
            if message.view is None:
                continue
            turn_ms = seen.info.turn_time_ms if seen.info is not None and seen.info.mode == "lockstep" else 0
            seen.deadline = trio.current_time() + turn_ms / 1000 if turn_ms and seen.legal else None
            if seen.result is not None:
                seen.note = ""  # nothing is refused any more: the result is the last word
            self.draw()
            if seen.result is not None:
                return 0
        return 1


async def watch(url: str, table: str, *, once: bool = False, terminal: Terminal | None = None,
                read_key: Callable[[], Awaitable[str]] | None = None, follow_alias: float = ALIAS_WAIT,
                played_by: list[str] | None = None, broadcast_key: str = "") -> int:
    """Show ``table`` live until its game is over (or the server goes away); ``q`` (or Ctrl-C) leaves quietly.
    A table named by an alias (``demo``) is followed to the alias's next table when its game is over, for up
    to ``follow_alias`` s. ``read_key``: the keys typed (default: the terminal's, when stdin is one).
    ``broadcast_key``: the table's broadcast view, every seat's hand shown (past its delay)."""
    try:
        return await _watch(url, table, once=once, terminal=terminal, read_key=read_key,
                            follow_alias=0 if broadcast_key else follow_alias, played_by=played_by,
                            broadcast_key=broadcast_key)
    except (KeyboardInterrupt, BaseExceptionGroup) as error:
        if not _interrupted(error):
            raise
        return 130


async def _watch(url: str, table: str, *, once: bool = False, terminal: Terminal | None = None,
                 read_key: Callable[[], Awaitable[str]] | None = None, follow_alias: float = ALIAS_WAIT,
                 played_by: list[str] | None = None, broadcast_key: str = "") -> int:
    terminal = terminal or Terminal()
    with _keys(read_key) as keys:
        async with open_client(url, name="watch") as client:
            try:
                watching = await client.watch(table, broadcast_key)
            except ServerError as error:
                print(f"photofinish watch: {error.message}", file=sys.stderr)
                return 2
            try:
                async with trio.open_nursery() as outer:
                    if keys is not None:
                        outer.start_soon(_quit_on_q, keys, outer.cancel_scope)
                    code = 0
                    while True:
                        code = await _watch_one(client, url, watching, terminal, once, played_by or [])
                        if once or code != 0 or watching.table == table or follow_alias <= 0:
                            break
                        following = await _next_at_alias(client, table, watching.table, follow_alias)
                        if following is None:
                            break
                        watching = following
                    outer.cancel_scope.cancel()
                    return code
            finally:
                terminal.close()
    return 0


async def _watch_one(client: Client, url: str, watching: Any, terminal: Terminal, once: bool,
                     played_by: list[str]) -> int:
    """Show one table until its game is over (0) or the connection is gone for good (1)."""
    session = _Session(client, Seen(game=watching.game, table=watching.table, url=url, played_by=played_by),
                       terminal)
    client.on_lost = session.say_lost
    await session.refresh_info()
    session.draw()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.keep_info)
        if once:
            async for message in client.messages:
                if type(message) in (Update, Snapshot) and message.view is not None:
                    session.seen.take(message)
                    break
            session.draw()
            code = 0
        else:
            code = await session.follow()
            if code == 0 and session.seen.result is not None:
                session.seen.connection = "the game is over; q leaves"
                session.draw()
        nursery.cancel_scope.cancel()
    return code


async def _next_at_alias(client: Client, alias: str, old: str, wait: float) -> Any | None:
    """The ``watching`` answer for the next table the alias ``alias`` names once it no longer names ``old`` (a
    kept table such as ``demo`` starts again when its game ends), or None after ``wait`` s."""
    await _leave_quietly(client, old)
    with trio.move_on_after(wait):
        while True:
            try:
                watching = await client.watch(alias)
            except ServerError:
                watching = None
            if watching is not None and watching.table != old:
                return watching
            if watching is not None:
                await _leave_quietly(client, watching.table)
            await trio.sleep(ALIAS_POLL)
    return None


async def _leave_quietly(client: Client, table: str) -> None:
    """Stop watching ``table``; one its node let go already (refused: ``no_table``) leaves nothing to do."""
    try:
        await client.leave(table)
    except ServerError:
        client.watching.discard(table)


async def _quit_on_q(keys: Callable[[], Awaitable[str]], cancel: trio.CancelScope) -> None:
    """``q`` (or the end of input) leaves `watch`."""
    while True:
        key = await keys()
        if not key or key.strip().lower() in ("q", "quit", "exit", "\x04"):
            cancel.cancel()
            return


@contextmanager
def _keys(read_key: Callable[[], Awaitable[str]] | None):
    """What `watch` reads keys with: ``read_key``, else each key of the terminal, unechoed (cbreak mode, put
    back on the way out), else nothing (stdin is no terminal: a pipe, a test)."""
    if read_key is not None:
        yield read_key
        return
    try:
        fd = sys.stdin.fileno()
        interactive = os.isatty(fd)
    except (AttributeError, OSError, ValueError):
        interactive = False
    if not interactive:
        yield None
        return
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        yield lambda: trio.to_thread.run_sync(lambda: os.read(fd, 1).decode(errors="replace"), abandon_on_cancel=True)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


async def playback(url: str, log_table: str, speed: float = 1.0, *, terminal: Terminal | None = None) -> int:
    """Ask the server to play the finished game of ``log_table`` back, and watch it."""
    from server.protocol import OpenPlayback, Replay

    async with open_client(url, name="playback") as client:
        try:
            created = await client.request(OpenPlayback(log=log_table, speed=speed))
        except ServerError as error:
            print(f"photofinish playback: {error.message}", file=sys.stderr)
            return 2
        try:  # the playback table's own seats are empty: who played them is in the log
            names = (await client.request(Replay(log=log_table, count=1))).names
        except ServerError:
            names = []
        at = client.routes.get(created.table.table, url)  # a cluster's node that has the log opened it (redirect)
    return await watch(at, created.table.table, played_by=names, terminal=terminal)


async def _sit(client: Client, url: str, table: str, seat: int | None, token: str | None):
    """Resume the seat of ``token`` (or of the token remembered for this server and table), else take one.
    Returns the ``Seated`` answer and what happened, in words."""
    remembered = tokens.recall(url, table) if token is None else None
    if remembered is not None and seat is not None and seat != remembered.seat:
        remembered = None  # asked for another seat than the remembered one
    resume = (table, token) if token is not None else (remembered.table, remembered.token) if remembered else None
    if resume is not None:
        infos = {info.table: info for info in await client.list_tables()}
        info = infos.get(resume[0])
        last_seq = max(0, info.seq - 30) if info is not None else 0  # the feed shows the last few entries
        try:
            seated = await client.resume(resume[0], resume[1], last_seq=last_seq)
            if seated.table != resume[0]:
                client.seats[seated.table] = client.seats.pop(resume[0])
            return seated, "resumed"
        except ServerError:
            if token is not None:
                raise
            tokens.forget(url, table)  # that table is over or gone: take a fresh seat
    seated = await client.take_seat(table, seat=seat)
    if seated.table != table:  # an alias ("open"): a reconnect resumes the table itself, wherever the alias goes
        client.seats[seated.table] = client.seats.pop(table)
    tokens.remember(url, table, tokens.Remembered(seat=seated.seat, token=seated.token, table=seated.table))
    return seated, "took"


async def play(url: str, table: str, seat: int | None = None, name: str = "", token: str | None = None, *,
               read_line: Callable[[], Awaitable[str]] | None = None, terminal: Terminal | None = None,
               notices: trio.MemoryReceiveChannel | None = None) -> int:
    """Sit at ``table`` as a human (or resume your seat): the table, what happened and your moves are shown;
    type a move. ``q`` or Ctrl-C leaves quietly; `play` again resumes the seat. ``notices``: news about the
    connection from elsewhere (`play --tournament`'s: the server shuts down), shown on the screen as it comes,
    until the table is heard from again."""
    try:
        return await _play(url, table, seat, name, token, read_line=read_line, terminal=terminal, notices=notices)
    except (KeyboardInterrupt, BaseExceptionGroup) as error:
        if not _interrupted(error):
            raise
        # as in the cli's main: a task trio had not started when Ctrl-C came is a coroutine never awaited, not news
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        print(f"photofinish play: you left {table}; the same `play` command resumes your seat", file=sys.stderr)
        return 130


async def _play(url: str, table: str, seat: int | None, name: str, token: str | None, *,
                read_line: Callable[[], Awaitable[str]] | None, terminal: Terminal | None,
                notices: trio.MemoryReceiveChannel | None = None) -> int:
    terminal = terminal or Terminal()
    read_line = read_line or read_stdin
    async with open_client(url, name=name or "human") as client:
        try:
            seated, how = await _sit(client, url, table, seat, token)
        except ServerError as error:
            print(f"photofinish play: {error.message}", file=sys.stderr)
            return 2
        if token is not None:
            tokens.remember(url, table, tokens.Remembered(seat=seated.seat, token=token, table=seated.table))
        seen = Seen(game=seated.game, table=seated.table, url=url, seat=seated.seat)
        seen.greeting = [f"{how} seat {seated.seat + 1} at table {seated.table}: q leaves, `play` again resumes it",
                         f"your token (remembered here): {seated.token}"]
        session = _Session(client, seen, terminal)
        client.on_lost = session.say_lost
        await session.refresh_info()
        session.draw(full=True)

        async def typing(cancel: trio.CancelScope) -> None:
            while True:
                line = await read_line()
                if not line or line.strip().lower() in ("q", "quit", "exit"):
                    left.set()  # the seat stays reserved for its token while the table's grace lasts
                    cancel.cancel()
                    return
                found = read_move(seen.game, line, seen.legal, seen.view)
                if isinstance(found, NotAMove):
                    seen.note = found.reason
                    session.draw(full=True)
                    continue
                seen.note = ""
                waiting = bool(seen.connection)
                if waiting:  # it waits for the reconnect: say so rather than sit at "> d"
                    seen.note = f"'{line.strip()}' is sent once the connection is back"
                    session.draw(full=True)
                try:
                    await client.act(seen.table, found)
                except ActionRejected as error:
                    lost = f": {describe_contest(error.contest, seen.seat)}" if error.contest is not None else ""
                    seen.note = f"refused: {error.message}{lost}"
                    session.draw(full=True)
                except ServerError as error:
                    if error.code in STOPPED:  # said until the table is heard from again, then it is old news
                        seen.connection = f"{error.message}: your move was not made; reconnecting..."
                    else:
                        seen.note = f"{error.message} ({error.code})"
                    session.draw(full=True)
                else:
                    if waiting and seen.note.endswith("once the connection is back"):
                        seen.note = ""  # sent and accepted
                    session.draw(full=True)  # the typed line scrolled the terminal: draw it all again

        async def show_notices() -> None:
            async for text in notices:
                seen.connection = text
                session.draw()

        code, left = 0, trio.Event()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(typing, nursery.cancel_scope)
                nursery.start_soon(session.keep_info)
                if notices is not None:
                    nursery.start_soon(show_notices)
                if terminal.tty:
                    nursery.start_soon(session.tick)
                code = await session.follow()
                nursery.cancel_scope.cancel()
        finally:
            terminal.close()
        if seen.result is not None or seen.ended:
            tokens.forget(url, table)
        elif left.is_set():
            print(f"photofinish play: you left {table}; the same `play` command resumes your seat", file=sys.stderr)
    return code
