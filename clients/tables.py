"""A server's tables as a person reads them: `photofinish tables URL` (one line per table), and the free seats
`photofinish bots` checks before it seats anyone."""

from __future__ import annotations

from rules import GAMES
from server.protocol import Code, SeatInfo, TableInfo
from server.protocol.names import printable

from .client import Client, ServerError


def describe_seat(seat: SeatInfo) -> str:
    """``1 free``, ``2 alice``, ``3 heuristic bot``, ``2 alice (away)``: the seat (numbered from 1, as a person
    counts; the wire's are 0-based), who holds it, its state."""
    if seat.state == "free":
        return f"{seat.seat + 1} free"
    name = seat.name or ("a bot" if seat.state == "bot" else "(no name)")
    return f"{seat.seat + 1} {name}" + (" (away)" if seat.state == "away" else "")


def describe_table(info: TableInfo) -> str:
    """One line: id, status, game and mode, every seat with its name and state, spectators, the table's name."""
    game = GAMES.get(info.game)
    title = game.info.title if game is not None else info.game
    watching = f"{info.spectators} watching"
    name = f"  {info.name!r}" if info.name and info.name != info.table else ""
    return printable(f"{info.table}  {info.status:<7}  {title} ({info.game}, {info.mode})  "
                     f"seats: {', '.join(describe_seat(s) for s in info.seats)}  {watching}{name}")


async def find_table(client: Client, table: str) -> TableInfo:
    """The table ``table`` names (an id or an alias such as ``open``), from the server's table list.

    An alias is not in the list: watching the table once (then leaving) tells its id. ``ServerError``
    ``no_table`` if there is none."""
    tables = {info.table: info for info in await client.list_tables()}
    if table not in tables:
        watching = await client.watch(table)  # raises ServerError no_table
        await client.leave(watching.table)
        tables = {info.table: info for info in await client.list_tables()}
        if watching.table not in tables:
            raise ServerError(Code.NO_TABLE, f"no table {table!r}")
        table = watching.table
    return tables[table]
