"""Starting a round (lila's SwissDirector): a seating becomes open tables. The one narrow port through which a
tournament opens its tables: the local lobby, or another node of the cluster (``remote.py``).

``open_round`` logs the seating (``round_seated``) before anything opens (under ``pairings_first`` it stops
there: the organiser begins the round later, ``organiser.begin``, which opens them by ``open_seated``), then
opens each table (but a table played off the server, ``reporting.py``, whose players are told it and report
its places) with every seat
reserved for its player's token (``Reservation``) and a stand-in bot for a no-show after ``no_show_ms``; each
player watching the tournament gets ``your_table``, and a task per table waits for its result
(``results.await_result``). A table that cannot open is tried again every ``RETRY_SECONDS`` (``retry_tables``)
until it opens, so a logged round is never lost (at a restart too: ``reopen_table``). On a cluster a round's tables are spread over the live nodes by
load; a table opens here only once this node holds its claim, so a table is never open on two nodes.

Every function takes the tournament's ``Director``; ``open_round`` runs under its lock (the director's
``advance`` and ``start`` hold it), ``retry_tables`` and ``place_unplaced`` take it themselves.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import trio

from rules import RulesError

from ..protocol import Code, CreateTable, Refusal, YourTable
from ..table import Reservation, Table
from . import clocks, reporting, results
from .model import Seating
from .remote import OpenRequest, RemoteTables, spread
from .store import Store
from .tlog import RoundSeated, SeatedTable

if TYPE_CHECKING:
    from .director import Director

STAND_IN = "heuristic"  # the policy of a no-show's stand-in bot
RETRY_SECONDS = 5.0  # a round's table that could not open is tried again this often
_NO_TOKEN = "0" * 64  # an old log's player whose token the store lost: the seat is kept, a stand-in plays it


async def open_round(d: Director, seating: Seating, waiting: tuple[str, ...] = ()) -> None:
    """Log round ``d.state.round + 1``'s ``seating`` (for an arena, of the players ``waiting``), mirror it, open
    its tables at once (here or on other nodes) and tell their players; start its clock. A table that cannot
    open leaves the round paused (``retry_tables``) and raises ``tables_failed``."""
    round_no = d.state.round + 1
    lobby = d.hub.lobby
    tables = tuple(SeatedTable(table=lobby.new_table_id(), players=players) for players in seating.tables)
    await d.record(RoundSeated(round=round_no, tables=tables, byes=seating.byes, waiting=waiting,
                               note=seating.note, time=d.now()))
    await d.mirror(Store.add_round, d.id, round_no, {t.table: t.players for t in tables}, seating.byes)
    if d.state.org.held == round_no:  # pairings first: its tables open when the organiser begins it (organiser.py)
        return d.push()
    await open_seated(d, round_no, tables)


async def open_seated(d: Director, round_no: int, tables: tuple[SeatedTable, ...] | list[SeatedTable]) -> None:
    """Open round ``round_no``'s logged ``tables`` and start its clock (``open_round``'s second half); a table
    played off the server (``reporting.py``) is never opened: its players are told it."""
    off = set(reporting.reported_ids(d.state, round_no))  # played off the server: never opened, only told
    for seated in tables:
        if seated.table in off:
            tell_players(d, seated.table, round_no, seated.players)
    tables = tuple(t for t in tables if t.table not in off)
    nodes = placement(d, len(tables))
    try:
        async with trio.open_nursery() as opening:  # at once: each waits on its own files (or node)
            for seated, node in zip(tables, nodes):
                opening.start_soon(open_table, d, seated.table, round_no, seated.players, node)
    except BaseExceptionGroup as group:
        failed = group.subgroup((RulesError, Refusal))
        if failed is None:
            raise
        first = failed
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        d.push()  # the tables that did open play on; the others are opened again by retry_tables
        d.paused = f"round {round_no} is seated but not all its tables opened ({first.message})"
        d.hub.spawn(d.id, retry_tables, d)
        if d.request.round_time_ms and d.state.settings.format != "arena":
            d.hub.spawn(d.id, clocks.round_clock, d, round_no, [t.table for t in tables])
        raise Refusal(Code.TABLES_FAILED, f"round {round_no} is seated in the log but a table could not "
                                          f"open ({first.message}); it is tried again every "
                                          f"{RETRY_SECONDS:g} s, and restarting the server opens it") from None
    d.push()
    if d.request.round_time_ms and d.state.settings.format != "arena":
        d.hub.spawn(d.id, clocks.round_clock, d, round_no, [t.table for t in tables])


async def retry_tables(d: Director) -> None:
    """A round is in the log but some of its tables did not open (the lobby refused them: a disk that
    failed a write, say): try them again every ``RETRY_SECONDS`` until they are open, so the event goes on
    by itself once the server can open tables again (a restart opens them too)."""
    while True:
        await trio.sleep(RETRY_SECONDS)
        async with d.lock:
            if d.state.ended is not None or d.failed is not None:
                return
            missing = [t for t in d.state.unfinished() if t not in d.opened]
            for table_id in missing:
                round_no, players = d.state.tables[table_id]
                try:
                    await open_table(d, table_id, round_no, players)
                except (RulesError, Refusal) as error:
                    d.paused = f"table {table_id} of round {round_no} cannot open yet ({error.message})"
                    break
                if d.request.round_time_ms and d.state.settings.format != "arena":
                    d.hub.spawn(d.id, clocks.round_clock, d, round_no, [table_id])  # its time from now
            else:
                d.paused = None
                d.push()
                return


async def reopen_table(d: Director, table_id: str, round_no: int, players: tuple[str, ...]) -> None:
    """At a restart, a table seated in the log that never opened: opened now; one that cannot open yet (a disk that
    fails its write) leaves its round paused and tried again (``retry_tables``) as while the server runs, and the
    tournament reopens all the same (it was left out of the server until the next restart)."""
    try:
        await open_table(d, table_id, round_no, players)
    except (RulesError, Refusal) as error:
        if d.paused is None:
            d.hub.spawn(d.id, retry_tables, d)
        d.paused = f"table {table_id} of round {round_no} cannot open yet ({error.message})"


def placement(d: Director, count: int) -> list[str | None]:
    """The node each of a round's ``count`` tables opens on (None: here): on a cluster, the least loaded
    live nodes (``remote.spread``); an arena, which seats a table at a time, keeps its tables here."""
    directory = d.hub.directory
    if not directory.online or not directory.peers or d.state.settings.format == "arena":
        return [None] * count
    return [None if node == directory.node else node for node in spread(directory.loads(), count)]


def remote_tables(d: Director) -> RemoteTables:
    """On a cluster: the tournament's tables other nodes run, heard from from now on."""
    if d.remote is None:
        d.remote = RemoteTables(d.hub.directory, d.hub.nursery, d.id, partial(results.remote_result, d))
        d.remote.start()
    return d.remote


async def open_table(d: Director, table_id: str, round_no: int, players: tuple[str, ...],
                     node: str | None = None) -> None:
    """Open a seated table here, or on ``node`` of the cluster. On a cluster a table opens here only once
    this node holds its claim: if the node asked (or, after a restart, any node) has it, it is followed
    there."""
    request = d.request
    lockstep = request.mode == "lockstep"
    create = CreateTable(game=request.game, mode=request.mode, seats=len(players), options=dict(request.options),
                         name=f"{request.name or d.id} round {round_no}",
                         turn_time_ms=request.turn_time_ms if lockstep else 0, grace_ms=request.no_show_ms,
                         bot_delay_ms=request.bot_delay_ms, spectator_delay_ms=request.spectator_delay_ms,
                         spectator_delay_entries=request.spectator_delay_entries)
    digests = {player: digest for digest, player in d.tokens.items()}
    reserved = [Reservation(seat, d.state.names[p], digests.get(p) or _NO_TOKEN) for seat, p in enumerate(players)]
    directory = d.hub.directory
    if node is not None:
        asked = OpenRequest(tournament=d.id, director=directory.node, round=round_no, table=table_id,
                            create=create, reserved=[(r.seat, r.name, r.token_hash) for r in reserved],
                            stand_in=STAND_IN,
                            halt_after_ms=request.round_time_ms if request.format != "arena" else 0)
        if await remote_tables(d).open(node, asked):
            return follow_remote(d, table_id, round_no, players)
    holder = await directory.holder("table", table_id)  # the one claim: here, or the node that has it
    if holder is not None and holder != directory.node:
        return follow_remote(d, table_id, round_no, players)
    table = await d.hub.lobby.create(create, reserved=reserved, stand_in=STAND_IN,
                                     tags={"tournament": d.id, "round": round_no}, table_id=table_id)
    await directory.announce(table.info())  # listed everywhere at once, even if this node dies before its beat
    follow(d, table, round_no, players)


def follow_remote(d: Director, table_id: str, round_no: int, players: tuple[str, ...]) -> None:
    """A table another node runs: its players are told (their seat redirects them there); its result
    comes through ``d.remote``."""
    tell_players(d, table_id, round_no, players)


def tell_players(d: Director, table_id: str, round_no: int, players: tuple[str, ...]) -> None:
    d.opened.add(table_id)
    for receiver, player in list(d.watchers.items()):
        if player in players:
            receiver.deliver(YourTable(tournament=d.id, round=round_no, table=table_id,
                                       seat=players.index(player),
                                       reported=reporting.is_reported(d.state, table_id)))


async def place_unplaced(d: Director) -> None:
    """After a restart on a cluster: the tables seated in the log that are neither open here nor logged
    here are another node's (followed there: asked again, in case that node lost the request) or were
    never opened (opened now, here or on the node that claims them meanwhile). A table whose result is
    waiting in the store ended on its node, which may have forgotten it since (and given up its claim): it
    is not opened again, its result is logged as it is heard."""
    await d.hub.joined.wait()
    directory, remote = d.hub.directory, remote_tables(d)
    pending, d.unplaced = d.unplaced, []
    owners = [await directory.owner("table", table_id) for table_id, _, _ in pending]
    ended = await remote.results_waiting()
    async with d.lock:
        async with trio.open_nursery() as opening:
            for (table_id, round_no, players), owner in zip(pending, owners):
                if table_id not in d.state.results and table_id not in ended:
                    node = owner if owner is not None and owner != directory.node else None
                    opening.start_soon(open_table, d, table_id, round_no, players, node)
        d.push()
        await d.advance()


def follow(d: Director, table: Table, round_no: int, players: tuple[str, ...]) -> None:
    d.tables[table.id] = table
    tell_players(d, table.id, round_no, players)
    d.hub.spawn(d.id, results.await_result, d, table, round_no, players)
