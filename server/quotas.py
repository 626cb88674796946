"""What one client may hold of the server, and for how long: the lobby's limits (``photofinish serve`` flags).

A waiting table is counted against the connection and the address that created it; a playback against the
address that opened it; a tournament's registrations against the connection and the address that made them
(in that tournament, since the server started; ``tournament/director.py`` counts them). Tables a tournament opens have no owner and are never counted. Waiting tables nobody
ever sat at expire; finished tables leave memory after a while (their logs stay on disk, their summaries
stay listed). A count of 0 is no limit, an expiry of 0 never. docs/operators.md "The server" has the table of limits,
defaults and flags.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

_connections = itertools.count(1)


@dataclass(frozen=True)
class Owner:
    """Who asked for a table: the peer's IP address and a number for its connection (never reused)."""

    address: str
    connection: int


def peer_address(ws) -> str | None:
    """The IP address a websocket connection comes from: its endpoint, or (a connection upgraded from plain
    HTTP, ``http.ReplayStream``) the socket beneath its stream; None if neither says."""
    address = getattr(getattr(ws, "remote", None), "address", None)
    if address is not None:
        return str(address)
    stream = getattr(ws, "_stream", None)
    while stream is not None and not hasattr(stream, "socket"):
        stream = getattr(stream, "stream", None) or getattr(stream, "transport_stream", None)
    try:
        return str(stream.socket.getpeername()[0]) if stream is not None else None
    except (OSError, IndexError, TypeError, AttributeError):
        return None


def new_owner(address: str | None) -> Owner:
    """The owner of what one new connection (from ``address``) creates."""
    return Owner(address or "unknown", next(_connections))


@dataclass(frozen=True)
class Quotas:
    waiting_per_connection: int = 4  # --waiting-per-connection: waiting tables one connection created
    waiting_per_address: int = 16  # --waiting-per-address: ... all connections from one IP address
    waiting_expiry: float = 600.0  # --waiting-expiry: seconds a table nobody sat at may wait (0: never)
    playbacks_per_address: int = 4  # --playbacks-per-address: playbacks held for one IP address
    playback_idle: float = 60.0  # seconds a playback with no watcher is kept while it plays
    played_out_idle: float = 5.0  # ... once it has played to its end
    keep_finished: float = 300.0  # --keep-finished: seconds a finished table stays in memory (watchable)
    finished_most: int = 200  # finished tables held in memory at most (the oldest leave first)
    summaries_most: int = 1000  # finished tables that left memory still listed by their summary
    registrations_per_connection: int = 4  # --registrations-per-connection: players one connection enters in one
    # tournament (a player registers themself; a few for a family at one screen)
    registrations_per_address: int = 64  # --registrations-per-address: ... all connections from one IP address
