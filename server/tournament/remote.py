"""A tournament's tables on other nodes of a cluster: the director asks a node to open a table, the node opens it
and, when it ends, hands its result back through the cluster's presence (Redis).

Both sides keep what matters in Redis hashes and read them a few times a heartbeat (``poll_interval``), so
nothing depends on a message arriving: a node or director restarted, or away from Redis for a while, finds
everything again by reading them.

- ``photofinish:open:<node>`` (table -> ``OpenRequest``): the tables directors asked ``node`` to open. The
  node removes a request only once the table's result is written, so a node restarted on its data directory
  finds its requests again: a table it reopened from its log is followed again, a table that ended while
  nobody wrote its result has it read from its log, a table never opened is opened.
- ``photofinish:tourney:<T>`` (``open:<table>`` -> ``OpenAnswer``, ``result:<table>`` -> ``TableOutcome``):
  what the nodes tell the director of tournament T. The director removes a result once it is in the
  tournament's log, so a director restarted after a crash reads every result it has not logged yet; a result
  read twice is logged once. A node keeps the results it wrote in memory and writes them again when it joins
  a Redis that restarted empty.

Who opens a table is decided by its claim (``photofinish:table:<id>``, ``SET NX``): a node claims a table
before it opens it. A director that has no answer in ``timeout`` claims the table itself and opens it at
home; if the asked node got the claim first, the table is that node's and the director follows it there.
Without the presence store the director opens its tables at home (tables already open play on; a result is
written once the store is back).

Why hashes read by polling rather than publish/subscribe or a stream: a published message is lost to a
subscriber that is not there, so a reader needs a readable copy anyway, and a hash (one field per table) is
that copy with nothing to trim; polling it is a few cheap reads a second per tournament that is waiting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

import msgspec
import trio

from rules import RulesError

from ..cluster import PREFIX
from ..logfile import StandIn
from ..presence import PresenceError
from ..protocol import CreateTable, Refusal
from ..table import Reservation, Table


class OpenRequest(msgspec.Struct, frozen=True):
    """What a director asks another node to open: the table, its seats reserved for the players' token hashes
    (never the tokens), the stand-in policy, and the round's time limit (the node keeps that clock)."""

    tournament: str
    director: str  # the node the tournament lives on
    round: int
    table: str
    create: CreateTable
    reserved: list[tuple[int, str, str]]  # (seat, name, token hash)
    stand_in: str
    halt_after_ms: int = 0


class OpenAnswer(msgspec.Struct, frozen=True):
    node: str
    ok: bool
    error: str = ""


class TableOutcome(msgspec.Struct, frozen=True):
    """A table's result as its own end gives it (a tournament logs it as a ``table_result``)."""

    places: tuple[int, ...]
    scores: tuple[int, ...]
    log_hash: str
    lower_is_better: bool = True
    stand_ins: tuple[bool, ...] = ()


_encode = msgspec.json.Encoder().encode
_decode_request = msgspec.json.Decoder(OpenRequest).decode
_decode_answer = msgspec.json.Decoder(OpenAnswer).decode
_decode_outcome = msgspec.json.Decoder(TableOutcome).decode


def open_key(node: str) -> str:
    return f"{PREFIX}open:{node}"


def tourney_key(tournament: str) -> str:
    return f"{PREFIX}tourney:{tournament}"


def outcome_of(game: Any, table: Table) -> TableOutcome:
    """The result of a table that is over, from the table itself."""
    result = game.result(table.session.state)
    seats = len(table.slots)
    return TableOutcome(places=tuple(table.places()),
                        scores=tuple(result.scores) if result is not None else (0,) * seats,
                        log_hash=table.end_hash or "", lower_is_better=result.lower_is_better if result else True,
                        stand_ins=tuple(slot.stood_in for slot in table.slots))


def outcome_from_log(path: Path) -> TableOutcome:
    """The result of a table that ended while nobody followed it, from its log (``ValueError`` if the log does
    not check out or has no end with places)."""
    from ..replay import check_log
    from .verify import end_line_hash

    report = check_log(path)
    read = report.read
    end = read.end if read is not None else None
    if not report.ok or end is None or end.places is None:
        raise ValueError(f"table {path.stem} has neither an end nor a live table "
                         f"({report.problem or 'no end record'})")
    stand_ins = [False] * len(end.places)
    for record in read.records:
        if type(record) is StandIn:
            stand_ins[record.seat] = True
    return TableOutcome(places=tuple(end.places), scores=tuple(end.scores or (0,) * len(end.places)),
                        log_hash=end_line_hash(path) or "",
                        lower_is_better=report.result.lower_is_better if report.result else True,
                        stand_ins=tuple(stand_ins))


def poll_interval(cluster: Any) -> float:
    """How often both sides read their hash: a quarter of a heartbeat, at most a quarter of a second."""
    return min(cluster.heartbeat, 1.0) / 4


def spread(loads: dict[str, float], count: int) -> list[str]:
    """Place ``count`` tables one by one, each on the node with the least load so far (ties: the first node
    in ``loads``' order, so put the home node first); each table adds 1 to its node's load."""
    loads = dict(loads)
    order = {node: index for index, node in enumerate(loads)}
    placed = []
    for _ in range(count):
        node = min(loads, key=lambda n: (loads[n], order[n]))
        loads[node] += 1
        placed.append(node)
    return placed


async def poll(interval: float, read: Callable[[], Awaitable[None]]) -> None:
    """Call ``read`` now and every ``interval`` seconds, for ever; while the store is away it just tries again."""
    while True:
        try:
            await read()
        except PresenceError:
            pass
        await trio.sleep(interval)


ANSWER_WAIT = 3.0  # seconds at least a director waits for a node to open a table it asked for


class RemoteTables:
    """The director's side, one per tournament on a cluster node: asks nodes to open its tables, and hears their
    answers and results (``on_result(table, outcome)``, which logs a result once however often it is heard, and
    says False when it did not: the server is shutting down)."""

    def __init__(self, cluster: Any, nursery: trio.Nursery, tournament: str,
                 on_result: Callable[[str, TableOutcome], Awaitable[bool]]) -> None:
        self.cluster = cluster
        self.presence = cluster.presence
        self.nursery = nursery
        self.tournament = tournament
        self.key = tourney_key(tournament)
        self.on_result = on_result
        self.timeout = max(10 * cluster.heartbeat, ANSWER_WAIT)  # for a node's answer, then the table opens at home
        self.waiting: dict[str, trio.Event] = {}
        self.answers: dict[str, OpenAnswer] = {}
        self.handling: set[str] = set()
        self.scope: trio.CancelScope | None = None
        self.listening = True

    def stop_listening(self) -> None:
        """The server is shutting down: hear nothing more and leave every request and result in the store."""
        self.listening = False
        if self.scope is not None:
            self.scope.cancel()

    def start(self) -> None:
        """Listen from now on (once)."""
        if self.scope is None:
            self.scope = trio.CancelScope()
            self.nursery.start_soon(self._run)

    async def _run(self) -> None:
        with self.scope:
            await poll(poll_interval(self.cluster), self._read)

    async def stop(self) -> None:
        """The tournament is over: stop listening and clear its hash."""
        if self.scope is not None:
            self.scope.cancel()
        try:
            await self.presence.delete(self.key)
        except PresenceError:
            pass

    async def open(self, node: str, request: OpenRequest) -> bool:
        """Ask ``node`` to open ``request.table``; True once it has. False when it refused, did not answer within
        ``timeout``, or the store is away: then ``holder`` says whether the table may open at home."""
        table = request.table
        event = self.waiting[table] = trio.Event()
        self.start()
        try:
            await self.presence.hset(open_key(node), {table: _encode(request).decode()})
            with trio.move_on_after(self.timeout):
                await event.wait()
        except PresenceError:
            pass
        finally:
            self.waiting.pop(table, None)
        answer = self.answers.pop(table, None)
        return answer is not None and answer.ok

    async def holder(self, table: str) -> str | None:
        """Claim ``table`` for this node unless a node has it; returns the node that has it (this one: open it
        here), or None when the store is away (open it here too: the heartbeat claims it when it is back)."""
        name = f"{PREFIX}table:{table}"
        try:
            for _ in range(3):  # a node may give up its claim between our two calls
                if await self.presence.set(name, self.cluster.node, only_new=True):
                    return self.cluster.node
                owner = await self.presence.get(name)
                if owner is not None:
                    return owner
        except PresenceError:
            pass
        return None

    async def owner(self, table: str) -> str | None:
        """The node that holds ``table``'s claim, or None; waits while the store is away."""
        while True:
            try:
                return await self.presence.get(f"{PREFIX}table:{table}")
            except PresenceError:
                await trio.sleep(self.cluster.heartbeat)

    async def results_waiting(self) -> set[str]:
        """The tables whose result a node has written for the director and it has not logged yet (empty while
        the store is away)."""
        try:
            fields = await self.presence.hgetall(self.key)
        except PresenceError:
            return set()
        return {field.partition(":")[2] for field in fields if field.startswith("result:")}

    async def _read(self) -> None:
        done = []
        for field, raw in (await self.presence.hgetall(self.key)).items():
            kind, _, table = field.partition(":")
            if kind == "open":
                event = self.waiting.get(table)
                if event is not None:
                    try:
                        self.answers[table] = _decode_answer(raw)
                    except (msgspec.DecodeError, msgspec.ValidationError):
                        self.answers[table] = OpenAnswer(node="", ok=False, error="an answer that does not decode")
                    event.set()
                done.append(field)
            elif kind == "result" and table not in self.handling:
                try:
                    outcome = _decode_outcome(raw)
                except (msgspec.DecodeError, msgspec.ValidationError) as error:
                    print(f"photofinish: tournament {self.tournament}: table {table}'s result does not decode "
                          f"({error}); ignored", flush=True)
                    done.append(field)
                    continue
                self.handling.add(table)
                self.nursery.start_soon(self._result, field, table, outcome)  # it may open the next round
        if done:
            await self.presence.hdel(self.key, *done)

    async def _result(self, field: str, table: str, outcome: TableOutcome) -> None:
        try:
            if not self.listening or not await self.on_result(table, outcome):
                return  # not logged (shutting down): left in the store for the next start
            try:
                await self.presence.hdel(self.key, field)  # logged: not needed any more
            except PresenceError:
                pass  # heard again later, and logged once
        finally:
            self.handling.discard(table)


MAX_WRITTEN = 10_000  # results a node keeps to write again if Redis restarts empty


class TableHost:
    """A node's side: opens the tables directors ask of it (``open:<node>``) and writes each one's result where
    its director reads it. Run ``run`` once the node has joined its cluster."""

    def __init__(self, lobby: Any, nursery: trio.Nursery) -> None:
        self.lobby = lobby
        self.cluster = lobby.cluster
        self.presence = self.cluster.presence
        self.nursery = nursery
        self.key = open_key(self.cluster.node)
        self.following: set[str] = set()
        self.written: dict[str, tuple[str, str]] = {}  # table -> (tournament, its result as written)
        self.joins = 0

    async def run(self) -> None:
        await poll(poll_interval(self.cluster), self._read)

    async def _read(self) -> None:
        if self.cluster.joins != self.joins:  # (re)joined: a Redis that restarted empty lost what we wrote
            for table, (tournament, raw) in list(self.written.items()):
                await self.presence.hset(tourney_key(tournament), {f"result:{table}": raw})
            self.joins = self.cluster.joins
        for table, raw in (await self.presence.hgetall(self.key)).items():
            if table in self.following:
                continue
            try:
                request = _decode_request(raw)
                if request.table != table:
                    raise ValueError(f"it is for table {request.table}")
            except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as error:
                print(f"photofinish: a request to open table {table} does not decode ({error}); dropped", flush=True)
                await self.presence.hdel(self.key, table)
                continue
            self.following.add(table)
            self.nursery.start_soon(self._host, request)

    async def _host(self, request: OpenRequest) -> None:
        try:
            table = await self._open(request)
            if table is None:
                return
            if request.halt_after_ms:
                self.nursery.start_soon(self._halt_after, table, request.halt_after_ms)
            await table.over.wait()
            await table.wait_end_durable()
            await self._write(request, outcome_of(table.game, table))
        except PresenceError:
            pass  # the store went away while opening: the request is read again when it is back
        finally:
            self.following.discard(request.table)

    async def _open(self, request: OpenRequest) -> Table | None:
        """The table, open here (opened now, or already: reopened from its log); None when it is not."""
        lobby = self.lobby
        table = lobby.tables.get(request.table)
        if table is None:
            path = lobby.data_dir / "tables" / f"{request.table}.log" if lobby.data_dir is not None else None
            if path is not None and path.exists():  # it ended here while nobody was there to write its result
                try:
                    outcome = await trio.to_thread.run_sync(outcome_from_log, path)
                except (ValueError, OSError) as error:
                    await self._refuse(request, str(error))
                    return None
                await self._write(request, outcome)
                # answered too, as a table still open here is: the director asking again (restarted) follows it
                # here and hears the result, instead of waiting out its answer time with the result unheard
                await self._answer(request, OpenAnswer(node=self.cluster.node, ok=True))
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
        await self._answer(request, OpenAnswer(node=self.cluster.node, ok=True))
        return table

    async def _answer(self, request: OpenRequest, answer: OpenAnswer) -> None:
        key = tourney_key(request.tournament)
        await self.presence.hset(key, {f"open:{request.table}": _encode(answer).decode()})

    async def _refuse(self, request: OpenRequest, why: str) -> None:
        print(f"photofinish: not opening table {request.table} for tournament {request.tournament}: {why}", flush=True)
        await self._answer(request, OpenAnswer(node=self.cluster.node, ok=False, error=why))
        await self.presence.hdel(self.key, request.table)

    async def _halt_after(self, table: Table, ms: int) -> None:
        from ..table import Intent

        await trio.sleep(ms / 1000)
        if not table.over.is_set():
            await table.submit(Intent("halt", None, "time_limit"))

    async def _write(self, request: OpenRequest, outcome: TableOutcome) -> None:
        """Write the result where the director reads it (again and again until the store takes it), then drop
        the request: from now on the result is the director's to log."""
        raw = _encode(outcome).decode()
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
