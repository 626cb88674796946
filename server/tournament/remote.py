"""A tournament's tables on other nodes of a cluster, the director's side: it asks a node to open a table, the
node opens it (``host.py``, the node's side) and, when it ends, hands its result (``outcome.py``) back through the
cluster's presence (Redis). The requests, answers and keys both sides use are defined here.

Both sides keep what matters in Redis hashes and read them a few times a heartbeat (``poll_interval``), so
nothing depends on a message arriving: a node or director restarted, or away from Redis for a while, finds
everything again by reading them.

- ``photofinish:open:<node>`` (table -> ``OpenRequest``): the tables directors asked ``node`` to open. The
  node removes a request only once the table's result is written, so a node restarted on its data directory
  finds its requests again: a table it reopened from its log is followed again, a table that ended while
  nobody wrote its result has it read from its log, a table never opened is opened. A director restarted asks
  again for the tables it followed on other nodes: every ask is new (``asked``) and answered, by a node that runs
  the table already too (it skipped a table it followed, and the director waited out its answer time, holding
  its lock, with the table's result behind it), and a table's result is an answer to an ask of it.
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

import logging
import secrets
from typing import Any, Awaitable, Callable

import msgspec
import trio

from ..cluster.node import PREFIX, Cluster
from ..cluster.presence import PresenceError
from ..protocol import CreateTable
from .outcome import TableOutcome

logger = logging.getLogger(__name__)


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
    asked: str = ""  # new at every ask (``RemoteTables.open``): a node answers each ask, of a table it runs too


class OpenAnswer(msgspec.Struct, frozen=True):
    node: str
    ok: bool
    error: str = ""


encode = msgspec.json.Encoder().encode
decode_request = msgspec.json.Decoder(OpenRequest).decode
_decode_answer = msgspec.json.Decoder(OpenAnswer).decode
_decode_outcome = msgspec.json.Decoder(TableOutcome).decode


def open_key(node: str) -> str:
    return f"{PREFIX}open:{node}"


def tourney_key(tournament: str) -> str:
    return f"{PREFIX}tourney:{tournament}"


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

    def __init__(self, cluster: Cluster, nursery: trio.Nursery, tournament: str,
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
        """Ask ``node`` to open ``request.table``; True once it has (it answered, or the table's result is
        there: it ran it). False when it refused, did not answer within ``timeout``, or the store is away: then
        its claim (``Directory.holder``) says whether it may open here. Each ask is new (``asked``), so a node
        that runs the table already (this director asked before a restart) answers it again."""
        table = request.table
        event = self.waiting[table] = trio.Event()
        self.start()
        request = msgspec.structs.replace(request, asked=secrets.token_hex(8))
        try:
            await self.presence.hset(open_key(node), {table: encode(request).decode()})
            with trio.move_on_after(self.timeout):
                await event.wait()
        except PresenceError:
            pass
        finally:
            self.waiting.pop(table, None)
        answer = self.answers.pop(table, None)
        return answer is not None and answer.ok

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
            elif kind == "result":
                if table not in self.handling:
                    try:
                        outcome = _decode_outcome(raw)
                    except (msgspec.DecodeError, msgspec.ValidationError) as error:
                        logger.info(f"tournament {self.tournament}: table {table}'s result does not decode "
                                    f"({error}); ignored")
                        done.append(field)
                        continue
                    self.handling.add(table)
                    self.nursery.start_soon(self._result, field, table, outcome)  # it may open the next round
                event = self.waiting.get(table)
                if event is not None:  # asked (again: a restart) as it ended there: its result is the answer (the
                    self.answers[table] = OpenAnswer(node="", ok=True)  # node took the ask out, writing it)
                    event.set()
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
