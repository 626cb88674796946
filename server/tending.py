"""The lobby's tending of what it holds: a finished table leaves memory ``keep_finished`` seconds after its log
is closed (fewer when more than ``finished_most`` are held; its summary stays listed, its log on disk), never
before a broadcast delay has shown its spectators its end; a waiting table nobody sat at ends itself
(``expired``) and is forgotten, and a playback nobody watches is closed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from .table import Table

if TYPE_CHECKING:
    from .lobby import Lobby


async def first_of(*events: trio.Event) -> None:
    """Return once any of ``events`` is set."""
    async with trio.open_nursery() as nursery:
        async def wait(event: trio.Event) -> None:
            await event.wait()
            nursery.cancel_scope.cancel()

        for event in events:
            nursery.start_soon(wait, event)


async def tend(lobby: Lobby, table: Table) -> None:
    """A table's life in the lobby: forgotten once it expires (nobody sat at it), or held for
    ``keep_finished`` seconds once it finished and its log is closed (fewer when more than
    ``finished_most`` are held)."""
    await first_of(table.over, table.stopped)
    if table.store is not None:
        await first_of(table.marked, table.stopped)  # the end on disk, the marker written, the file closed
    if table.stopped.is_set():
        if table.halted is not None and table.halted[0] == "expired":
            lobby.forget(table, summary=False)
        return
    if table.id in lobby.aliases.values():
        return  # kept under its alias (the demo): ``app.keep_table`` replaces it
    lobby.finished[table.id] = None
    hold_fewer_finished(lobby)
    with trio.move_on_after(lobby.quotas.keep_finished + table.settings.spectator_delay_ms / 1000):  # its
        # spectators are shown the end a broadcast delay later
        await table.stopped.wait()
    if not table.end_shown():  # its spectators see its end a little later still: forgotten only then
        await first_of(table.stream.ended, table.stopped)
    lobby.forget(table)


def hold_fewer_finished(lobby: Lobby) -> None:
    """Forget the oldest finished tables while more than ``finished_most`` are held, never one whose spectators
    have not been shown its end (a delay: its own wait ends once they have); a function of its own: a waiting
    task's frame must not keep a forgotten table alive."""
    for table_id in list(lobby.finished):
        if len(lobby.finished) <= lobby.quotas.finished_most:
            return
        table = lobby.tables.get(table_id)
        if table is None:
            lobby.finished.pop(table_id, None)
        elif table.end_shown():
            lobby.forget(table)


async def tend_playback(lobby: Lobby, table: Table) -> None:
    """Close a playback nobody watches: after ``playback_idle`` seconds while it plays, after
    ``played_out_idle`` once it has played to its end."""
    unwatched = trio.current_time()
    while not table.stopped.is_set():
        await trio.sleep(1.0)
        now = trio.current_time()
        if table.spectators:
            unwatched = now
        elif now - unwatched >= (lobby.quotas.played_out_idle if table.played_out else lobby.quotas.playback_idle):
            break
    lobby.forget(table, summary=False)
