"""What one client may hold of the server, and for how long: the lobby's limits (``photofinish serve`` flags).

A waiting table is counted against the connection and the address that created it, and so is a table whose
every seat is a server bot until its game is over (it starts at once, and would otherwise hold one of the
server's tables for hours, counted nowhere); a playback against the address that opened it; a tournament's registrations against the connection and the address that made them
(in that tournament, since the server started; ``tournament/director.py`` counts them). Tables a tournament opens have no owner and are never counted. Waiting tables nobody
ever sat at expire. A started table at which no player has been connected for ``abandoned_after`` seconds ends
itself as it stands (``abandoned``: ``table/timers.py``), so that a table left to its bots is never held for
good; it is not counted against its creator's address instead (browser tests, a LAN behind one NAT: many
people share one address and leave tables behind). Finished tables leave memory after a while (their logs stay
on disk, their summaries stay listed). A count of 0 is no limit, an expiry of 0 never. docs/operators.md "The server" has the table of limits,
defaults and flags.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .protocol import Code, Refusal

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
    waiting_expiry: float = 600.0  # --waiting-expiry: seconds a table nobody sits at may wait (0: never)
    abandoned_after: float = 900.0  # --abandoned-after: seconds a started table may go on with no player connected
    # (its other seats server bots or away); then it ends as it stands (0: never). Longer than a seat's grace
    playbacks_per_address: int = 4  # --playbacks-per-address: playbacks held for one IP address
    playback_idle: float = 60.0  # seconds a playback with no watcher is kept while it plays
    played_out_idle: float = 5.0  # ... once it has played to its end
    keep_finished: float = 300.0  # --keep-finished: seconds a finished table stays in memory (watchable)
    finished_most: int = 200  # finished tables held in memory at most (the oldest leave first)
    summaries_most: int = 1000  # finished tables that left memory still listed by their summary
    registrations_per_connection: int = 4  # --registrations-per-connection: players one connection enters in one
    # tournament (a player registers themself; a few for a family at one screen)
    registrations_per_address: int = 64  # --registrations-per-address: ... all connections from one IP address
    min_free_mb: int = 256  # --min-free-mb: below this much free disk no new table or tournament (0: no floor)


def counts(table, playbacks: bool) -> bool:
    """Whether a table held for whoever opened it counts against them: a playback (``playbacks``); else a table
    waiting for players, one played by server bots alone while its game is not over, and one kept behind a
    broadcast delay until its spectators have been shown its end. (Such a table is never let go before then, to
    make room or otherwise, so one client could fill the server with finished games hours long; counted from
    its creation, not from its end, so that its creator's count never tells them the end before the delay.)"""
    if table.read_only or playbacks:
        return table.read_only and playbacks
    if table.stream.delayed and not table.end_shown():
        return True
    return not table.started or (len(table.bot_seats) == len(table.slots) and not table.over.is_set())


def held_by(owners: dict[str, Owner], tables: dict, owner: Owner, playbacks: bool) -> tuple[int, int]:
    """(by ``owner``'s connection, by its address): the tables of ``owners`` that count against them."""
    mine = address = 0
    for table_id, who in owners.items():
        table = tables.get(table_id)
        if table is not None and who.address == owner.address and counts(table, playbacks):
            address += 1
            mine += who.connection == owner.connection
    return mine, address


HELD = "tables waiting for players, played by server bots alone or kept behind a broadcast delay"


def check_waiting(quotas: Quotas, owners: dict[str, Owner], tables: dict, owner: Owner) -> None:
    """A ``too_many_waiting`` refusal if ``owner``'s connection or address holds its share of tables already."""
    mine, address = held_by(owners, tables, owner, playbacks=False)
    if quotas.waiting_per_connection and mine >= quotas.waiting_per_connection:
        raise Refusal(Code.TOO_MANY_WAITING, f"this connection has {mine} {HELD}, the most it may (serve "
                      f"--waiting-per-connection {quotas.waiting_per_connection}): sit at one, or let one fill "
                      "or end first")
    if quotas.waiting_per_address and address >= quotas.waiting_per_address:
        raise Refusal(Code.TOO_MANY_WAITING, f"your address has {address} {HELD}, the most it may (serve "
                      f"--waiting-per-address {quotas.waiting_per_address})")
