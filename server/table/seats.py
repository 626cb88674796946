"""A table's seats: who holds each one, its state, and the one table of the moves a seat's state may make.

A seat is ``free``; ``taken`` by a connected player (or ``away``: its player disconnected or has not come back
yet, and its grace period runs); ``bot`` (a server bot from the start); or ``stand_in`` (a server bot playing
for its absent player until they resume). Every change of state goes through ``move``, which refuses a move
the table below does not list: a bug, never a client's mistake (a client's mistakes are refused before).
"""

from __future__ import annotations

import enum
import hashlib
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from ..protocol import MessageId

PATH_KEPT = 32  # per seat: the last takes' arrival - first send, an upper bound of its round trip (fairness.py)
STALE = object()  # a seat's cached path bound after a new take or reply: to be computed again


class SeatState(enum.StrEnum):
    FREE = "free"
    TAKEN = "taken"  # a player sits here and is connected
    AWAY = "away"  # its player is not connected: back by token within the grace period (a reservation too)
    BOT = "bot"  # a server bot from the start
    STAND_IN = "stand_in"  # a server bot playing for the absent player, until they resume


FREE, TAKEN, AWAY, BOT, STAND_IN = SeatState
HELD = frozenset({TAKEN, AWAY, STAND_IN})  # a player's token resumes a seat in these states

# (from, to): what makes that move. Nothing else moves a seat. A reopened table replays its log's seat
# records over free seats (free -> away -> stand_in -> away -> free ...) through the same table.
MOVES: dict[tuple[SeatState, SeatState], str] = {
    (FREE, TAKEN): "a player takes the seat",
    (FREE, AWAY): "a reserved seat waits for its player; or a reopened table's seat for its owner",
    (FREE, BOT): "a bot seat starts",
    (TAKEN, TAKEN): "its player resumes from another connection",
    (TAKEN, AWAY): "its player's connection is gone",
    (TAKEN, FREE): "its player leaves",
    (AWAY, TAKEN): "its player resumes",
    (AWAY, AWAY): "a reopened table: taken again in its log",
    (AWAY, STAND_IN): "the grace period ran out at a table with stand-ins",
    (AWAY, FREE): "the grace period ran out; or freed in a reopened table's log",
    (STAND_IN, TAKEN): "its player resumes and takes over from the stand-in",
    (STAND_IN, AWAY): "a reopened table: its log says the stand-in stopped",
    (STAND_IN, STAND_IN): "a reopened table: the stand-in plays on",
}


@dataclass
class SeatSlot:
    seat: int
    state: SeatState = FREE
    name: str = ""
    token_hash: str | None = None
    receiver: Any = None  # a Receiver while connected (or a bot)
    away_since: float | None = None
    answers: dict[MessageId, Any] = field(default_factory=dict)  # first answer to each message id
    stood_in: bool = False  # a stand-in has played this seat (a tournament places it last)
    played_by: str | None = None  # the name of the last player who held it (None: none did); kept when it is
    # freed, for a finished table's list of who played
    # fair tables: each contested action legal for this seat now -> [the seq whose update first offered it, when
    # that update first left for this seat (table time; None until it has)]: stamped once, never by a resume
    since: dict[Any, list] = field(default_factory=dict)
    left: dict[Any, float] = field(default_factory=dict)  # contested actions no longer legal -> when (the recent
    # ones, oldest first: a seat's draw makes every take leave at once, which a dict takes in one ``update``, at a
    # third of an OrderedDict's cost; dropping its oldest, past the slots freed before it, costs what popitem did)
    paused: dict[Any, tuple] = field(default_factory=dict)  # the same -> (their offer, the seq they left at): one
    # back while the card stayed on the pile keeps its offer (``offers.reoffered``)
    guessed: OrderedDict[Any, float] = field(default_factory=OrderedDict)  # ... asked for before they were offered
    # -> when (the recent ones, oldest first: an ordered dict drops its oldest in constant time)
    guesses: int = 0  # contested actions asked for before the seat could have seen them (too_early, guess)
    path: deque = field(default_factory=lambda: deque(maxlen=PATH_KEPT))  # arrival - first send, per take
    # ... and its other actions: each newly legal for this seat -> [the seq that offered it, when that left], and
    # the last arrivals - sends of those it sent (replies: what it answers at once shows its round trip too)
    offers: dict[Any, list] = field(default_factory=dict)
    replies: deque = field(default_factory=lambda: deque(maxlen=PATH_KEPT))
    replied: list = field(default_factory=list)  # ``replies`` in order of size (their median read at once)
    distrust: int = 0  # takes left during which its pongs are not believed: it was caught answering them late
    # fair ordering's caches, each only what the data above already says (``fair.py``): the entries of ``since``
    # and ``offers`` not stamped yet (some perhaps gone since), the path bound its takes and replies give
    # (``STALE`` after each new one), and the last round trip credited with what it came from
    unstamped: list = field(default_factory=list)
    listed: set | None = None  # the legal actions of its last update: those ``since`` and ``offers`` hold
    tracked: int = 0  # the seq of that update (a contested action legal since a later entry was never offered)
    bound: Any = STALE
    credit: tuple | None = None
    kernel_read: tuple | None = None  # (batch number, reader, value): the kernel read once per batch
    refusals: Any = None  # its budget of logged refusals (``refusals.Budget``; None: full, none spent yet)


def move(slot: SeatSlot, to: SeatState) -> None:
    """Move ``slot`` to state ``to``; a move ``MOVES`` does not list is a bug in the server (ValueError)."""
    if (slot.state, to) not in MOVES:
        raise ValueError(f"seat {slot.seat} cannot go from {slot.state} to {to}")
    slot.state = to


def take(slot: SeatSlot, name: str, token_hash: str | None, receiver: Any, state: SeatState = TAKEN) -> None:
    """A player (or a reservation, a reopened log: ``state`` away) holds the seat now."""
    move(slot, state)
    slot.name, slot.token_hash, slot.receiver, slot.away_since = name, token_hash, receiver, None
    slot.played_by = name


def free(slot: SeatSlot) -> None:
    move(slot, FREE)
    slot.name, slot.token_hash, slot.receiver, slot.away_since, slot.answers = "", None, None, None, {}


@dataclass(frozen=True)
class Reservation:
    """A seat kept for one player from the start (a tournament's table): it is theirs by their token."""

    seat: int
    name: str
    token_hash: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
