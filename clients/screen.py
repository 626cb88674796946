"""The terminal screen of `play` and `watch`: what the reader knows, and how it is laid out in 80x24.

``Seen`` is everything the reader has learnt from the server (the table's info, the newest view and legal
moves, the event feed, the result, a refusal to keep on screen, a lost connection until it is back, the turn
clock); ``compose`` lays it out as at most ``height`` lines of fewer than ``width`` characters: who you are,
the table, what happened, your moves or the result, the lost connection and the last refusal. Pure: the
terminal module does the I/O.
"""

from __future__ import annotations

import textwrap
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from server.protocol import BroadcastView, delay_behind

from .feed import describe_result, feed_lines
from .moves import menu
from .render import render
from .words import command_name, seat_no

FEED_KEPT = 60


@dataclass
class Seen:
    game: str
    table: str
    url: str = ""
    seat: int | None = None  # None: a spectator
    title: str = ""  # the game's title and mode, from the table info
    info: Any = None  # the table's TableInfo, refreshed now and then
    view: Any = None
    legal: list = field(default_factory=list)
    to_act: list[int] = field(default_factory=list)
    seq: int = 0
    result: Any = None
    feed: deque = field(default_factory=lambda: deque(maxlen=FEED_KEPT))
    note: str = ""  # a refusal or a typo's explanation: stays until the next line is typed
    connection: str = ""  # the connection is lost (the server shuts down...): shown until the table is heard again
    deadline: float | None = None  # when the seat's time to act runs out (trio time), if the table has a clock
    greeting: list[str] = field(default_factory=list)  # fed after the catch-up, with the first view
    played_by: list[str] = field(default_factory=list)  # a playback's seats: who played them (its own are empty)
    ended: str = ""  # the table was ended before its game's end (`table_ended`), in words
    hands: list = field(default_factory=list)  # a broadcast view's: each seat's hand (``watch --broadcast-key``)
    last_turn: list[str] = field(default_factory=list)  # what your own last turn did: stays until your next
    _turn_open: bool = False  # the events of your turn are still coming

    @property
    def names(self) -> list[str]:
        """Each seat's name from the table info: 'ann', 'heuristic bot', '(free)', 'ann (away)'."""
        if self.played_by:
            return [(name or "someone")[:16] for name in self.played_by]
        if self.info is None:
            return []
        names = []
        for seat in self.info.seats:
            name = seat.name or ""
            name = name[:16] or "someone"
            names.append("(free)" if seat.state == "free" else f"{name} (away)" if seat.state == "away" else name)
        return names

    @property
    def waiting_for(self) -> list[int]:
        """The free seats of a table that has not started."""
        if self.info is None or self.info.status != "waiting":
            return []
        return [seat.seat for seat in self.info.seats if seat.state in ("free", "away")]

    def take(self, message: Any) -> None:
        """An update or snapshot from the server: the newest view, legal moves, events and result; and the
        connection is up again, if it was lost (a reconnect's resume is answered with a snapshot)."""
        self.connection = ""
        events = getattr(message, "events", None) or []
        self.feed.extend(feed_lines(self.game, events, self.seat, message.view or self.view))
        if self.seat is not None:
            self._keep_last_turn(events)
        if message.view is not None and self.greeting:  # after the catch-up, which comes without views
            self.feed.extend(self.greeting)
            self.greeting = []
        self.seq = max(self.seq, message.seq)
        self.to_act = list(message.to_act)
        if type(message.view) is BroadcastView:  # a commentator's screen: the public view, and every hand
            self.view = message.view.public
            self.hands = [getattr(view, "hand", None) for view in message.view.seats]
        elif message.view is not None:
            self.view = message.view
            self.legal = list(message.legal or [])
        if message.result is not None:
            self.result = message.result

    def _keep_last_turn(self, events) -> None:
        """Your own events, from the first of a turn to the next event of another seat: what your last turn did
        (your move, your roll, a card you did not activate), kept on screen while the bots' events scroll."""
        for event in events:
            seat = getattr(event, "seat", None)
            if seat is None or type(event).__name__ == "TurnStarted":
                continue
            if seat != self.seat:
                self._turn_open = False
                continue
            if not self._turn_open:
                self.last_turn, self._turn_open = [], True
            self.last_turn += feed_lines(self.game, [event], self.seat, self.view)


def _who(seen: Seen, seat: int) -> str:
    names = seen.names
    name = names[seat] if seat < len(names) else ""
    return f"seat {seat_no(seat)}" + (f" {name}" if name.startswith("(") else f" ({name})" if name else "")


def header(seen: Seen, now: float) -> str:
    where = f"table {seen.table}" + (f", {seen.title}" if seen.title else "")
    if seen.seat is None:
        return f"Watching {where}: the broadcast view, every hand shown" if seen.hands else \
            f"Watching {where} as a spectator"
    clock = ""
    if seen.deadline is not None and seen.result is None and seen.legal:
        clock = f", {max(0, int(seen.deadline - now + 0.999))} s left to move"
    return f"You are {_who(seen, seen.seat)}{clock} - {where}"


def status(seen: Seen) -> list[str]:
    """Your moves, or what the table waits for, or the result."""
    if seen.result is not None:
        return [describe_result(seen.result, seen.seat, seen.game)]
    if seen.ended:
        return [seen.ended]
    waiting = seen.waiting_for
    if waiting or (seen.view is None and seen.info is not None and seen.info.status == "waiting"):
        join = f"{command_name()} play {seen.url} --table {seen.table}" if seen.url else ""
        free = ", ".join(_who(seen, s) for s in waiting) or "its players"
        return [f"Waiting for {free} to sit down; the game starts when every seat is taken.",
                *([f"  (join with: {join})"] if join else [])]
    if seen.view is None:
        return ["Waiting for the table..."]
    if seen.seat is None:
        return [f"{', '.join(_who(seen, s) for s in seen.to_act)} to move."] if 0 < len(seen.to_act) < 3 else []
    if seen.legal:
        return ["Your moves:", *menu(seen.game, seen.view, seen.legal)]
    if seen.seat in getattr(seen.view, "finishers", ()):
        return ["You finished this race: waiting for the others."]
    others = [s for s in seen.to_act if s != seen.seat]
    if others:
        return [f"Waiting for {', '.join(_who(seen, s) for s in others)} to move."]
    return ["Waiting for the next deal."]


def _wrapped(lines, width: int) -> list[str]:
    out = []
    for line in lines:
        out += textwrap.wrap(line, width - 1, subsequent_indent="    ", break_on_hyphens=False) or [""]
    return out


def compose(seen: Seen, now: float = 0.0, height: int = 24, width: int = 80) -> list[str]:
    """The whole screen as lines: at most ``height - 1`` of them (the last row is the prompt), each shorter
    than ``width``. The feed gets the rows the rest leaves, newest last."""
    top = [header(seen, now)]
    late = delay_behind(seen.info.spectator_delay_ms, seen.info.spectator_delay_entries) \
        if seen.seat is None and seen.info is not None else ""
    if late:  # (a line of its own: the header is cut at the screen's width)
        top.append(f"Shown {late} behind the table (a broadcast delay)")
    if seen.view is not None:
        top += render(seen.game, seen.view, seen.names).split("\n")
    names = seen.names
    for seat, hand in enumerate(seen.hands):  # the broadcast view: each seat's hand, as its player sees it
        if hand is not None:
            who = names[seat] if seat < len(names) and names[seat] else ""
            top.append(f"   seat {seat_no(seat)}{f' ({who})' if who else ''} hand: {' '.join(map(str, hand)) or '-'}")
    bottom = _wrapped(status(seen), width)
    if seen.connection:
        bottom += _wrapped([f"! {seen.connection}"], width)[:2]
    if seen.note:
        bottom += _wrapped([f"! {seen.note}"], width)[:2]
    top = [line[:width - 1] for line in top]
    room = height - 1 - len(top) - len(bottom)
    if seen.last_turn and seen.result is None and room > 0:  # before the feed: the bots' moves scroll it away
        last = _wrapped(["Your last turn: " + "; ".join(seen.last_turn)], width)[:min(2, room)]
        bottom = last + bottom
        room -= len(last)
    feed = _wrapped(list(seen.feed)[-max(room, 0):], width)[-max(room, 0):] if room > 0 else []
    lines = top + feed + bottom
    return lines[:height - 1]
