"""A finished table played again: its rematch, opened once for everyone who asks, and offered to the people
still at the finished table.

A rematch is a new table set up as the finished one was (game, mode, seats, options, server bots and their
pace, clocks, ordering, spectator delay, name) with a fresh deal: never its seed, so a practice table's rematch
is an ordinary one, and never its broadcast view (its key is given to a table's creator alone). The first
``rematch`` request opens it (counted against the asker's waiting tables like a ``create_table``) and points
the finished table at it (``TableInfo.rematch``); the finished table's arbiter then pushes ``rematch_offered``
to its seats and spectators. Asked again while that table is held, by anyone, the answer is the same table:
two players who both click "play again" meet at one table. Only a finished table still held in memory has a
rematch (a playback has none). At a table with a spectator delay the rematch opens only once its spectators
have been shown its end, and until then it is refused in the same words whether the game is over or not: the
new table (listed under the same name) or the refusal's words would otherwise tell anyone of the end early.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .protocol import Code, CreateTable, Refusal, Rematch, RematchOffered, delay_behind
from .table import Table, intents

if TYPE_CHECKING:
    from .cluster.directory import Directory
    from .lobby import Lobby


def request_for(table: Table) -> CreateTable:
    """The create request that sets a new table up as ``table`` was (a fresh deal: no seed; delayed for its
    spectators alike, but with no broadcast view: that needs a key only a table's creator is given)."""
    settings = table.settings
    return CreateTable(game=table.game.info.name, mode=table.setup.mode, seats=table.setup.seats,
                       options=dict(table.setup.options), bots=list(settings.bots), name=settings.name,
                       turn_time_ms=settings.turn_time_ms, grace_ms=settings.grace_ms,
                       bot_delay_ms=settings.bot_delay_ms, ordering=settings.ordering, fair_ms=settings.fair_ms,
                       spectator_delay_ms=settings.spectator_delay_ms,
                       spectator_delay_entries=settings.spectator_delay_entries,
                       placed=True)  # opened on the node that holds the finished table: it offers it


def refuse_until_end_shown(table: Table, what: str) -> None:
    """``not_finished`` while a table with a spectator delay has not shown them its end: in the same words
    whether its game is over or still played (else the refusal itself would say that it is over). ``what``
    (its ``replay``, its ``rematch``) opens once they have seen it."""
    if not table.end_shown():
        raise not_shown_yet(table.id, table.settings.spectator_delay_ms, table.settings.spectator_delay_entries,
                            what)


def not_shown_yet(table_id: str, delay_ms: int, delay_entries: int, what: str) -> Refusal:
    """The refusal of ``what`` at a table whose spectators have not been shown its end (``heldends.py`` too)."""
    return Refusal(Code.NOT_FINISHED, f"table {table_id} is shown to spectators "
                   f"{delay_behind(delay_ms, delay_entries)} behind: its {what} opens once they have seen its end")


async def open_rematch(conn, lobby: Lobby, directory: Directory, message: Rematch, create) -> Table:
    """The rematch table of ``message.table`` (opened now with ``create``, the gateway's ``create_table``, or
    the one already open), or a ``Refusal`` (``no_table``, ``table_over``, ``not_finished``, ``read_only``, and
    whatever a create is refused for)."""
    old = lobby.find(message.table)
    if old.read_only:
        raise Refusal(Code.READ_ONLY, f"{old.id} plays back a finished log: it has no rematch")
    refuse_until_end_shown(old, "rematch")
    if not old.over.is_set():
        raise Refusal(Code.NOT_FINISHED, f"table {old.id} has not finished: a rematch opens once its game is over")
    async with old.rematching:  # a second ask waits here for the first one's table
        held = lobby.tables.get(old.rematch) if old.rematch is not None else None
        if held is not None:
            return held
        table = await create(conn, lobby, directory, request_for(old))
        old.rematch = table.id
    seat = next((slot.seat for slot in old.slots if slot.receiver is conn), None)
    await old.submit(intents.Offer(RematchOffered(table=old.id, rematch=table.id, seat=seat)))
    return table
