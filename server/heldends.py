"""Finished tables with a broadcast delay whose end their spectators have not been shown yet, and that the lobby
no longer holds as tables: logs that ended less than their delay before a restart, or a table stopped before its
delay ran out.

The lobby itself never lets such a table go early (``tending.py``, ``Lobby.evict_finished``: it stays until its
end is shown, at most its delay, an hour). One it does not hold is kept here (``Lobby.unshown``) until its delay
has passed since its end: listed as its spectators were shown it (``playing``, no seq nor seed), and its replay and
playback refused ``not_finished`` in the words a held table gets (``rematch.not_shown_yet``); then it is listed by
its real summary, as every finished table is. After a restart the end's time is the one its ``.done`` marker
records (``logs/finished.py`` ``ended_at``), so a replay opens when it would have without the restart.

A finished table another worker of `serve --workers` holds is not this worker's to know: its log, found in that
worker's directory, says (``refuse_unshown_elsewhere``: its header's delay, the end its marker records).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import trio

from rules import RulesError, Setup, get_game

from .limits import LOG_ID
from .logs.logfile import LogError, ReadLog, read_log
from .logs.finished import ended_at, read_finished
from .logs.rebuild import restored
from .protocol import TableInfo
from .rematch import not_shown_yet
from .table import Table
from .table.restore import reopen as reopen_table
from .table.restore import settings_of
from .table.seats import BOT, move

if TYPE_CHECKING:
    from .lobby import Lobby

logger = logging.getLogger(__name__)

wall = time.time  # the wall clock the end's time is read against (a test moves it on)


class Unshown(NamedTuple):
    due: float  # trio time from which spectators may know its end
    delay_ms: int
    delay_entries: int


def refuse_unshown(lobby: Lobby, table_id: str, what: str) -> None:
    """``not_finished`` for ``what`` (a replay) of a table kept here whose delay has not passed yet."""
    unshown = lobby.unshown.get(table_id)
    if unshown is not None and trio.current_time() < unshown.due:
        raise not_shown_yet(table_id, unshown.delay_ms, unshown.delay_entries, what)


def refuse_unshown_elsewhere(lobby: Lobby, table_id: str, what: str) -> None:
    """``not_finished`` for ``what`` of a finished table whose log is in another worker's directory (that worker
    holds it, not this one) and whose ``spectator_delay_ms`` has not passed since its end, in the words a held
    table gets. A log without its marker is refused unfinished when it is asked for (``finished_log``)."""
    data = lobby.data_dir
    if data is None or not table_id or not LOG_ID.fullmatch(table_id):
        return
    path = data.find_table_log(table_id)
    if data.keeps(path) or read_finished(path) is None:  # this worker's own (held or kept here), none, or live
        return
    try:
        with path.open("rb") as file:
            options = read_log(path, file.readline(1 << 20)).header.table_options  # the header alone
    except (OSError, LogError):
        return  # the replay itself finds the log does not check out
    delay_ms = options.get("spectator_delay_ms", 0)
    if delay_left(path, delay_ms) > 0:
        raise not_shown_yet(table_id, delay_ms, options.get("spectator_delay_entries", 0), what)


def delay_left(path: Path, delay_ms: int) -> float:
    """Seconds until a finished log's broadcast delay has passed since its end (its marker's time), 0 or less
    once it has; never more than the delay itself (a wall clock set back)."""
    if not delay_ms:
        return 0.0
    return min(ended_at(path) + delay_ms / 1000 - wall(), delay_ms / 1000)


async def until_shown(lobby: Lobby, table_id: str) -> None:
    """Return once the end of a table kept here may be known (its delay has passed since it): at once for any
    other (a tournament takes a result found in a log at a restart no sooner than its spectators would have)."""
    unshown = lobby.unshown.get(table_id)
    if unshown is not None:
        await trio.sleep_until(unshown.due)


def keep_summary(lobby: Lobby, table: Table) -> None:
    """A finished table let go: listed by its summary, its real one only once its end is shown (a table stopped
    before that: the end was held at most its delay from now)."""
    if table.end_shown():
        return listed(lobby, table.id, table.info())
    settings = table.settings
    hold(lobby, table.id, table.info(), table.info(unmasked=True), trio.current_time() + table.stream.delay,
         settings.spectator_delay_ms, settings.spectator_delay_entries)


def after_restart(lobby: Lobby, path: Path, read: ReadLog) -> None:
    """A log with its end record, read at start: kept here if its delay has not passed since its end."""
    options = read.header.table_options
    delay_ms = options.get("spectator_delay_ms", 0)
    if not delay_ms or read.end.reason == "expired":  # (entries alone: its end was shown with it)
        return
    left = delay_left(path, delay_ms)
    if left <= 0:
        return
    try:
        masked, real = summaries_of(read)
    except (LogError, RulesError, ValueError) as error:
        logger.info(f"{path.stem} is not listed until its delay has passed: its summary cannot be rebuilt ({error})")
        masked = real = None
    hold(lobby, read.header.table, masked, real, trio.current_time() + left, delay_ms,
         options.get("spectator_delay_entries", 0))


def summaries_of(read: ReadLog) -> tuple[TableInfo, TableInfo]:
    """A finished log's table as its spectators are shown it before its end, and its real summary."""
    header, end = read.header, read.end
    game = get_game(header.game)
    setup = Setup(seats=header.seats, mode=header.mode, options=header.options)
    session, log = restored(game, setup, end.seed, read.entries())
    table = reopen_table(read, game, setup, end.seed, settings_of(header.name, header.table_options, None),
                         session=session, log=log, store=None)
    if end.reason != "over":
        table.halted = (end.reason, list(end.places or ()))
    for seat, policy in table.bot_seats.items():  # seated as its arbiter seats them
        move(table.slots[seat], BOT)
        table.slots[seat].name = f"{policy} bot"
    return table.info(), table.info(unmasked=True)


def hold(lobby: Lobby, table_id: str, masked: TableInfo | None, real: TableInfo | None, due: float,
         delay_ms: int, delay_entries: int) -> None:
    lobby.unshown[table_id] = Unshown(due, delay_ms, delay_entries)
    if masked is not None:
        listed(lobby, table_id, masked)
    lobby.nursery.start_soon(_reveal, lobby, table_id, real, due)


async def _reveal(lobby: Lobby, table_id: str, real: TableInfo | None, due: float) -> None:
    await trio.sleep_until(due)
    lobby.unshown.pop(table_id, None)
    if real is not None and table_id in lobby.summaries:  # (unless older summaries pushed it out meanwhile)
        lobby.summaries[table_id] = real


def listed(lobby: Lobby, table_id: str, info: TableInfo) -> None:
    """List a finished table no longer held by ``info`` (the oldest go past ``summaries_most``)."""
    lobby.summaries[table_id] = info
    while len(lobby.summaries) > lobby.quotas.summaries_most:
        lobby.summaries.popitem(last=False)
