"""Taking a table's result (lila's SwissFinish and score computing): from a table open here when it ends (with
a broadcast delay, once its spectators have been shown its end: ``outcome.shown_end``), or from another node of
the cluster (which writes it no sooner); logged once (``table_result``, the table's places, scores, stand-ins
and the hash of its log's end line, never what a player says), mirrored in the store, rated, and then the event
advances (``Director.advance``).

Ratings are openskill's per player and game (``ratings.py``), kept in the store with the tables they took in,
so a restart rates exactly the results the log has and the store has not.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

import msgspec

from ..names import skeleton
from ..protocol import Refusal
from ..table import Table
from .model import TableResult
from .outcome import TableOutcome, outcome_of, shown_end
from .ratings import rate_table
from .store import Store
from .tlog import TableFinished

if TYPE_CHECKING:
    from .director import Director

logger = logging.getLogger(__name__)


async def await_result(d: Director, table: Table, round_no: int, players: tuple[str, ...]) -> None:
    """A table open here: its result once it is over, its end is on disk and its spectators have been shown it."""
    await table.over.wait()
    await table.wait_end_durable()
    await shown_end(table)
    await finished(d, round_no, table.id, players, outcome_of(d.game, table))


async def remote_result(d: Director, table_id: str, outcome: TableOutcome) -> bool:
    """A result another node wrote for one of our tables: logged as a local table's is, once. False when it
    was not dealt with (the server is shutting down): it stays where it was written."""
    seated = d.state.tables.get(table_id)
    if seated is None or table_id in d.state.results:
        return True
    try:
        return await finished(d, seated[0], table_id, seated[1], outcome)
    except Refusal as error:  # a result that does not fit its seating: refused, nothing changed
        logger.info(f"tournament {d.id}: the result of table {table_id} is refused: {error.message}")
        return True


async def finished(d: Director, round_no: int, table_id: str, players: tuple[str, ...],
                   outcome: TableOutcome) -> bool:
    """Log a table's result (once), rate it, then advance the event; False when the server is shutting down
    and it was not logged."""
    async with d.lock:
        if d.hub.closing:  # the store is closing: the table's log has the result for the next start
            return False
        if d.state.ended is not None:  # an event stopped while this table played: nothing follows the end
            return True
        if table_id in d.state.results:  # heard twice (a cluster's result, written again): logged once
            return True
        record = TableFinished(round=round_no, table=table_id, players=players, places=outcome.places,
                               scores=outcome.scores, log_hash=outcome.log_hash,
                               lower_is_better=outcome.lower_is_better, stand_ins=outcome.stand_ins,
                               time=d.now())
        await d.record(record)
        result = record.result()
        await d.mirror(Store.add_result, d.id, round_no, result, record.log_hash)
        await rate(d, result)
        d.push()
        await d.advance()
        return True


async def rate(d: Director, result: TableResult) -> None:
    """Rate a table's result once (the store remembers which tables it rated, in the same transaction as
    the ratings, so a restart rates exactly the results the log has and the store has not)."""
    try:
        await rate_once(d, result)
    except (sqlite3.Error, OSError, Refusal) as error:
        logger.warning(f"tournament {d.id}: table {result.table} not rated yet ({error}); it is rated "
                       "at the next start")


async def rate_once(d: Director, result: TableResult) -> None:
    """Ratings are by player identity across tournaments: the skeleton of the name (a LAN player keeps their
    name; ``Ana`` and ``ANA`` or ``Аna`` with a Cyrillic А are one player), shown by the name case-folded;
    stand-ins are not rated."""
    if d.store is None:
        return
    keys = tuple(skeleton(d.state.names[p]) for p in result.players)
    if len(set(keys)) != len(keys):
        return  # two players of one name at one table (an old log's): no rating can tell them apart
    shown = {key: d.state.names[p].casefold() for key, p in zip(keys, result.players)}
    by_key = type(result)(table=result.table, players=keys, places=result.places, scores=result.scores,
                          lower_is_better=result.lower_is_better, stand_ins=result.stand_ins)
    known = {r.player: r for r in await d.store.call(Store.ratings, d.game.info.name)}
    updated = rate_table(known, d.game.info.name, by_key)
    await d.store.call(Store.save_ratings, [msgspec.structs.replace(r, name=shown[key])
                                            for key, r in updated.items()], (d.id, result.table))
