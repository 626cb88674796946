"""A cluster node's side of other nodes' tournaments: it opens the tables their directors ask of it
(``photofinish:open:<node>``, ``remote.OpenRequest``) and writes each one's result (``outcome.TableOutcome``)
where its director reads it (``photofinish:tourney:<T>``): with a broadcast delay, once the table's spectators
have been shown its end (``outcome.shown_end``: the wait is here, where the table is). A table stopped before
its end was shown (this node shutting down) has nothing written on the way down; started again, the node finds
it ended in its log, answers the director as for a table open here, and writes its result once its delay has
passed since its end (``heldends.until_shown``), as a single server takes it. ``remote.py`` says how the two
sides meet.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import msgspec
import trio

from rules import RulesError

from ..cluster.node import Cluster
from ..cluster.presence import PresenceError
from ..heldends import until_shown
from ..protocol import Refusal
from ..table import Reservation, Table
from .outcome import TableOutcome, outcome_from_log, outcome_of, shown_end
from .remote import OpenAnswer, OpenRequest, decode_request, encode, open_key, poll, poll_interval, tourney_key

logger = logging.getLogger(__name__)


MAX_WRITTEN = 10_000  # results a node keeps to write again if Redis restarts empty


class TableHost:
    """A node's side: opens the tables directors ask of it (``open:<node>``) and writes each one's result where
    its director reads it. Run ``run`` once the node has joined its cluster."""

    def __init__(self, lobby: Any, cluster: Cluster, nursery: trio.Nursery) -> None:
        self.lobby = lobby
        self.cluster = cluster
        self.presence = self.cluster.presence
        self.nursery = nursery
        self.key = open_key(self.cluster.node)
        self.following: set[str] = set()
        self.answered: dict[str, str] = {}  # a table followed here -> the request (the ask) last answered
        self.written: dict[str, tuple[str, str]] = {}  # table -> (tournament, its result as written)
        self.joins = 0

    async def run(self) -> None:
        await poll(poll_interval(self.cluster), self._read)

    async def _read(self) -> None:
        if self.lobby.tournaments.closing:  # shutting down: nothing more opened, nor read from a log (next start)
            return
        if self.cluster.joins != self.joins:  # (re)joined: a Redis that restarted empty lost what we wrote
            for table, (tournament, raw) in list(self.written.items()):
                await self.presence.hset(tourney_key(tournament), {f"result:{table}": raw})
            self.joins = self.cluster.joins
        for table, raw in (await self.presence.hgetall(self.key)).items():
            if table in self.following:
                if self.answered.get(table, raw) != raw:  # asked again (the director restarted): it runs here
                    await self._answer_again(table, raw)
                continue
            try:
                request = decode_request(raw)
                if request.table != table:
                    raise ValueError(f"it is for table {request.table}")
            except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as error:
                logger.info(f"a request to open table {table} does not decode ({error}); dropped")
                await self.presence.hdel(self.key, table)
                continue
            self.following.add(table)
            self.nursery.start_soon(self._host, request, raw)

    async def _answer_again(self, table: str, raw: str) -> None:
        """A table open and followed here, asked for again: the director that asked before restarted (or lost
        its answer) and waits for one; without it, it waited out its answer time holding its lock."""
        try:
            request = decode_request(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        self.answered[table] = raw
        await self._answer(request, OpenAnswer(node=self.cluster.node, ok=True))

    async def _host(self, request: OpenRequest, raw: str) -> None:
        try:
            table = await self._open(request, raw)
            if table is None:
                return
            if request.halt_after_ms:
                self.nursery.start_soon(self._halt_after, table, request.halt_after_ms)
            await table.over.wait()
            await table.wait_end_durable()
            await shown_end(table)
            if not table.end_shown():  # stopped before its end was shown
                if self.lobby.tournaments.closing:  # shutting down: its log has the end for the next start
                    return
                await until_shown(self.lobby, table.id)  # let go here (``heldends.keep_summary``): its delay
            await self._write(request, outcome_of(table.game, table))
        except PresenceError:
            pass  # the store went away while opening: the request is read again when it is back
        finally:
            self.following.discard(request.table)
            self.answered.pop(request.table, None)

    async def _open(self, request: OpenRequest, raw: str) -> Table | None:
        """The table, open here (opened now, or already: reopened from its log); None when it is not."""
        lobby = self.lobby
        table = lobby.tables.get(request.table)
        if table is None:
            path = lobby.data_dir.table_log(request.table) if lobby.data_dir is not None else None
            if path is not None and path.exists():  # it ended here while nobody was there to write its result
                await self._from_log(request, raw, path)
                return None
            if not await self.cluster.holds("table", request.table):
                await self._refuse(request, "another node holds the table")
                return None
            try:
                table = await lobby.create(request.create, reserved=[Reservation(*r) for r in request.reserved],
                                           stand_in=request.stand_in, table_id=request.table,
                                           tags={"tournament": request.tournament, "round": request.round})
            except (RulesError, Refusal) as error:
                await self.cluster.release("table", request.table)
                await self._refuse(request, error.message)
                return None
            await self.cluster.announce(table.info())  # listed everywhere before the director hears it opened
        self.answered[request.table] = raw
        await self._answer(request, OpenAnswer(node=self.cluster.node, ok=True))
        return table

    async def _from_log(self, request: OpenRequest, raw: str, path: Path) -> None:
        """A table that ended here while nobody wrote its result (this node stopped in between): answered as a
        table still open here is (a director asking, restarted or not, follows it here and waits for the result
        instead of waiting out its answer time), then its result from its log, once its spectators may know its
        end: a delayed table's is held until its delay has passed since the end (``heldends``)."""
        try:
            outcome = await trio.to_thread.run_sync(outcome_from_log, path)
        except (ValueError, OSError) as error:
            await self._refuse(request, str(error))
            return
        self.answered[request.table] = raw  # (asked again meanwhile: answered again, ``_answer_again``)
        await self._answer(request, OpenAnswer(node=self.cluster.node, ok=True))
        await until_shown(self.lobby, request.table)
        await self._write(request, outcome)

    async def _answer(self, request: OpenRequest, answer: OpenAnswer) -> None:
        key = tourney_key(request.tournament)
        await self.presence.hset(key, {f"open:{request.table}": encode(answer).decode()})

    async def _refuse(self, request: OpenRequest, why: str) -> None:
        logger.info(f"not opening table {request.table} for tournament {request.tournament}: {why}")
        await self._answer(request, OpenAnswer(node=self.cluster.node, ok=False, error=why))
        await self.presence.hdel(self.key, request.table)

    async def _halt_after(self, table: Table, ms: int) -> None:
        await trio.sleep(ms / 1000)
        if not table.over.is_set():
            await table.halt("time_limit")

    async def _write(self, request: OpenRequest, outcome: TableOutcome) -> None:
        """Write the result where the director reads it (again and again until the store takes it), then drop
        the request: from now on the result is the director's to log."""
        raw = encode(outcome).decode()
        key = tourney_key(request.tournament)
        self.written[request.table] = (request.tournament, raw)
        while len(self.written) > MAX_WRITTEN:
            self.written.pop(next(iter(self.written)))
        while True:
            try:
                await self.presence.hset(key, {f"result:{request.table}": raw})
                break
            except PresenceError:
                await trio.sleep(self.cluster.heartbeat)
        try:
            await self.presence.hdel(self.key, request.table)
        except PresenceError:
            pass  # read again later: the table is over, so its result is written again, and logged once
