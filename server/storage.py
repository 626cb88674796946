"""The lobby's storage: a new table's seed file and log (its header written; under ``batch`` the server's one
journal syncs it), and the watch on a data directory that failed a write. While it fails, new tables are refused
(``storage_failed``); every ``STORAGE_RETRY`` seconds a probe file is written and synced, and once that works the
tables that stopped on the failure are reopened from their logs, as a restart would, and new tables are taken
again.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import msgspec
import trio

from rules import RulesError, Setup

from .logs import disk
from .datadir import DataDir
from .fairness import EPSILON as FAIR_EPSILON
from .logs.logfile import Header, LogError, read_log, seed_commitment
from .logs.logstore import FileLog, table_dir, utc_now
from .protocol import PROTOCOL_VERSION, CreateTable, Refusal
from .table import Table

if TYPE_CHECKING:
    from .lobby import Lobby

logger = logging.getLogger(__name__)

STORAGE_RETRY = 1.0  # seconds between checks that a failing data directory can be written again
PROBE_BYTES = 64 * 1024  # what such a check writes and syncs (a full disk must show as full)
REOPEN_TRIES = 5  # reopenings of one table after disk failures before it is left for a restart


async def watch_table(lobby: Lobby, table: Table) -> None:
    await table.stopped.wait()
    if table.failed_code == "log_failed" and lobby.tables.get(table.id) is table:
        storage_failed(lobby, table.store.error)


def storage_failed(lobby: Lobby, error: OSError | None) -> None:
    """The data directory failed a write: refuse new tables and start checking until it works again."""
    if error is not None or lobby.storage_error is None:
        what = disk.error_text(error) if error is not None else "a table's log could not be written"
        lobby.storage_error = f"the data directory {lobby.data_dir} failed a write ({what})"
    if not lobby._recovering and not lobby._stopping:
        lobby._recovering = True
        lobby.nursery.start_soon(recover_storage, lobby)


async def recover_storage(lobby: Lobby) -> None:
    """Every ``STORAGE_RETRY`` seconds, write and sync a probe file; once that works, start a new journal
    if the old one failed, reopen every table that stopped on a disk failure from its log (as a restart
    would), and take new tables again."""
    try:
        while not lobby._stopping:
            await trio.sleep(STORAGE_RETRY)
            if lobby._stopping:
                return
            try:
                await trio.to_thread.run_sync(probe, lobby.data_dir)
            except OSError as error:
                lobby.storage_error = (f"the data directory {lobby.data_dir} cannot be written "
                                      f"({disk.error_text(error)})")
                continue
            if lobby._syncer is not None and lobby._syncer.error is not None:
                lobby._syncer.close()  # its file stays: the next start checks it against the logs
                lobby._syncer = None
            if await reopen_failed(lobby):
                lobby.storage_error = None
                logger.warning(f"the data directory {lobby.data_dir} can be written again: new tables "
                               "are taken")
                return
    finally:
        lobby._recovering = False


def probe(data_dir: DataDir) -> None:
    path = data_dir.probe
    fd = disk.current().open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, disk.FILE_MODE)
    try:
        disk.write_all(fd, bytes(PROBE_BYTES))
        disk.current().fsync(fd)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)


async def reopen_failed(lobby: Lobby) -> bool:
    """Reopen the tables stopped on a disk failure; False if one failed again (the watch goes on)."""
    ok = True
    for table in [t for t in lobby.tables.values() if t.failed_code == "log_failed" and t.stopped.is_set()]:
        tries = lobby._reopen_tries[table.id] = lobby._reopen_tries.get(table.id, 0) + 1
        if tries > REOPEN_TRIES:
            continue
        try:
            read = read_log(table.store.path)
            if read.end is not None:  # it ended before it failed: nothing to reopen
                continue
            again = lobby._rebuild(table.store.path, read)
        except (LogError, RulesError, Refusal, OSError, ValueError) as error:
            logger.warning(f"cannot reopen {table.id} yet: {error}")
            ok = False
            if tries == REOPEN_TRIES:
                logger.warning(f"leaving {table.id} stopped; restarting the server reopens it from its "
                               "log")
            continue
        await lobby.start_table(again)
        logger.warning(f"reopened {table.id} from its log after the disk failure")
    return ok


def open_log(lobby: Lobby, table_id: str, game, setup: Setup, request: CreateTable, seed: int,
              alias: str | None = None, extra: dict | None = None) -> FileLog:
    """The new table's seed file and log, its header written (with the alias it is kept under, if any,
    so that a restarted server gives the reopened table its name back, and ``extra`` table options)."""
    table_dir(lobby.data_dir)
    syncer = lobby.shared_syncer()
    if syncer is not None and syncer.error is not None:  # the journal failed: no line could be acknowledged
        raise syncer.error
    store = FileLog(lobby.data_dir.table_log(table_id), lobby.durability, syncer=syncer)
    try:
        store.append(Header(
            format=1, table=table_id, name=request.name.strip(), game=game.info.name,
            rules_version=game.info.rules_version, protocol=PROTOCOL_VERSION, seats=setup.seats,
            mode=setup.mode, options=dict(setup.options),
            table_options={"turn_time_ms": request.turn_time_ms, "grace_ms": request.grace_ms,
                           "bot_delay_ms": request.bot_delay_ms,
                           "ordering": request.ordering or ("fair" if setup.mode == "challenge" else "arrival"),
                           "fair_ms": request.fair_ms, "fair_epsilon_ms": FAIR_EPSILON * 1000,
                           **({"unverified_credit_ms": lobby.unverified_credit_ms}
                              if lobby.unverified_credit_ms is not None else {}),
                           "bots": [msgspec.to_builtins(b) for b in request.bots],
                           **({"practice": True} if request.practice else {}),
                           **({"spectator_delay_ms": request.spectator_delay_ms}
                              if request.spectator_delay_ms else {}),
                           **({"spectator_delay_entries": request.spectator_delay_entries}
                              if request.spectator_delay_entries else {}),
                           **({"chosen_seed": request.seed} if request.seed is not None else {}),
                           **({"alias": alias} if alias else {}), **(extra or {})},
            commitment=seed_commitment(seed), started=utc_now()))
    except OSError:
        store.file.close()
        raise
    return store
