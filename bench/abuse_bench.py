"""Abuse (issue 29): a normal player's round trip while one client attacks the server, and what the server keeps.

`.venv/bin/python -m bench.abuse_bench [--quick] [--only NAME ...] [--settle SECONDS] ...` (`--help` lists them).

For each attack in ``ATTACKS`` a fresh `photofinish serve` process (default limits and durability, its own
temporary data directory, 127.0.0.1 only) is started, then:

1. the **normal player** (``Player``, in this process) creates a two-seat Flag Finish Challenge table and takes
   both seats over two connections (a bot's pace would leave it idle between races), acting at
   ``--player-rate`` actions a second in all from its legal lists and timing each action -> its answer; it
   answers pings, and a probe opens a fresh connection (websocket handshake + hello -> welcome) every 0.5 s;
2. the attack's ``setup`` runs, if it has one (a finished game's log, a long log, a full lobby);
3. ``--alone`` seconds of the player alone; the server's RSS (VmRSS) and open fds are read: **start**;
4. the attack runs in a **separate process** (``python -m bench.abuse_bench --attacker JOB``: its sends and
   reads must not delay the player's), from the same address, 127.0.0.1, for ``--seconds``; RSS and fds: **end**;
5. ``--settle`` seconds (default 30) with the player alone again; RSS and fds: **+settle**.

Targets (PASS/FAIL per attack): the player's p99 during the attack at most 2x its p99 alone, every action and
every probe answered, and RSS after the settle within 10% of its start. The other figures (refusals the
attacker saw by code, notes such as connections still open) say what the server did; they have no target.

Every loop is bounded in count and in time, and the server is stopped (then killed) in a ``finally``. An attack
is a small async function of an ``Arena`` (the URL, its deadline, its context); add one to ``ATTACKS``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import msgspec
import trio
from trio_websocket import (ConnectionClosed, DisconnectionTimeout, HandshakeError, open_websocket_url,
                            wrap_client_stream)

from bench.server_bench import cpu_seconds, free_port, rss_kib
from clients.client import single_error
from clients.load import percentile
from rules import Rng
from server.protocol import (CODECS, PROTOCOL_VERSION, Act, BotSeat, Closing, CreateTable, Error, Hello, Leave,
                             ListTables,
                             OpenPlayback, Ping, Pong, Rejected, Replay, Resume, Snapshot, TableCreated, TakeSeat,
                             Update, decode_server)

JSON = CODECS["json"]
BIG = 64 * 1024 * 1024  # the largest message this bench's clients take (a full lobby's list, replay frames)
RATE = 190.0  # an attacker's messages a second per connection: just under the server's limit (200, bursts of 400)
PLAYER_GAME = dict(game="flag_finish", mode="challenge", seats=2, ordering="arrival",
                   options={"races": 50, "action_limit": 1_000_000, "extra_races": 0})
ANSWER_TIMEOUT = 10.0  # seconds the player waits for an answer before it counts the action as lost
PROBE_EVERY = 0.5  # seconds between the player's fresh-connection probes
PROBE_TIMEOUT = 10.0


# ------------------------------------------------------------------ the server


def raise_nofile() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (a server started from here inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def nofile_limit(pid: int) -> str:
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max open files"):
            return line.split()[3]
    return "?"


def folder_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


@dataclass
class Server:
    process: trio.Process
    url: str
    data: Path
    stderr: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def tracebacks(self) -> int:
        """Tracebacks the server printed so far (a bug or an unhandled error on some connection)."""
        lines = self.stderr.read_text(errors="replace").splitlines()  # a group's inner ones are drawn after "|"
        return sum(1 for line in lines if "Traceback (most recent call last)" in line and "|" not in line)


@asynccontextmanager
async def photofinish(extra: list[str] = ()):
    """A `photofinish serve` with default limits on a free port of 127.0.0.1 and a throwaway data directory;
    its output goes to files there (nothing reads a pipe, so it can never block on one). Stopped, then
    killed, whatever happens."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="abuse-") as folder:
        data, out, err = Path(folder) / "data", Path(folder) / "stdout", Path(folder) / "stderr"
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "clients.cli", "serve", "--workers", "1", "--host", "127.0.0.1", "--port", str(port),
                 "--data", str(data), "--no-web", *extra], stdout=stdout, stderr=stderr)
        try:
            with trio.fail_after(30):
                while b"listening on" not in out.read_bytes():
                    if process.poll() is not None:
                        raise RuntimeError(f"the server exited: {err.read_text(errors='replace')[-2000:]}")
                    await trio.sleep(0.05)
            yield Server(process, f"ws://127.0.0.1:{port}", data, err)
        finally:
            with trio.CancelScope(shield=True):
                process.terminate()
                with trio.move_on_after(10):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()


# ------------------------------------------------------------------ a connection that counts what it is told


class Light(msgspec.Struct):
    """What a connection needs of a server message; the rest of the frame is skipped, never built."""

    type: str
    ref: Any = None
    code: str | None = None
    ping: int = 0
    table: Any = None
    seq: int = 0
    total: int = 0


_light = msgspec.json.Decoder(Light).decode


class Conn:
    """A websocket after its hello. Its reader counts every message by type and every refusal by code
    (``error``, ``rejected`` and ``closing``: their code; the socket closed: ``closed <code>``) into counters
    it may share with other connections, answers pings, and hands ``request`` its answer."""

    def __init__(self, ws, refusals: Counter, types: Counter) -> None:
        self.ws = ws
        self.refusals = refusals
        self.types = types
        self.closed = trio.Event()
        self.close_code: Any = None
        self._waiting: dict[Any, tuple[trio.Event, list]] = {}
        self._ids = 0

    async def send(self, message: Any) -> None:
        await self.ws.send_message(JSON.encode(message))

    async def send_text(self, text: str) -> None:
        await self.ws.send_message(text)

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def request(self, message: Any, timeout: float = 30.0) -> Any:
        """Send with a fresh id; the answer with that ref, decoded whole (``decode_server``)."""
        message = msgspec.structs.replace(message, id=f"r{self.next_id()}")
        done, box = self._waiting[message.id] = (trio.Event(), [])
        await self.send(message)
        with trio.fail_after(timeout):
            await done.wait()
        del self._waiting[message.id]
        if not box:
            raise ConnectionError("the server closed the connection before answering")
        return decode_server(box[0], JSON)

    async def read(self) -> None:
        try:
            while True:
                frame = await self.ws.get_message()
                seen = _light(frame)
                self.types[seen.type] += 1
                if seen.type in ("error", "rejected", "closing"):
                    self.refusals[seen.code] += 1
                elif seen.type == "ping":
                    await self.send(Pong(ping=seen.ping))
                waiting = self._waiting.get(seen.ref) if seen.ref is not None else None
                if waiting is not None and not waiting[1] and seen.type not in ("update", "snapshot"):
                    waiting[1].append(frame)
                    waiting[0].set()
        except ConnectionClosed as closed:
            self.close_code = closed.reason.code if closed.reason else None
            self.refusals[f"closed {self.close_code}"] += 1
        finally:
            self.closed.set()
            for done, _ in self._waiting.values():
                done.set()


ATTACKER = "127.0.0.2"  # every attack comes from this loopback address, the normal player from 127.0.0.1:
# per-address limits are what protect the player, as on a LAN where the attacker is one machine among many


@asynccontextmanager
async def open_ws(url: str, source: str | None = None):
    """A websocket to ``url`` (on 127.0.0.1) from the loopback address ``source`` (None: the system's)."""
    if source is None:
        async with open_websocket_url(url, max_message_size=BIG, disconnect_timeout=2) as ws:
            yield ws
        return
    host, port = url.removeprefix("ws://").split(":")
    sock = trio.socket.socket()
    try:
        await sock.bind((source, 0))
        await sock.connect((host, int(port)))
    except OSError:
        sock.close()
        raise
    async with trio.open_nursery() as nursery:
        ws = await wrap_client_stream(nursery, trio.SocketStream(sock), host, "/", max_message_size=BIG)
        try:
            yield ws
        finally:
            with trio.move_on_after(2):
                await ws.aclose()
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def connect(url: str, refusals: Counter | None = None, types: Counter | None = None,
                  source: str | None = None):
    """A ``Conn`` to ``url`` from ``source``, hello said; closed at the end of the block (a server too busy to
    answer the close in 2 s has the connection cut: an attacker does not wait)."""
    try:
        async with open_ws(url, source) as ws:
            conn = Conn(ws, refusals if refusals is not None else Counter(),
                        types if types is not None else Counter())
            async with trio.open_nursery() as nursery:
                nursery.start_soon(conn.read)
                await conn.request(Hello(protocol=PROTOCOL_VERSION, client="abuse-bench"))
                yield conn
                nursery.cancel_scope.cancel()
    except DisconnectionTimeout:
        pass


async def paced(rate: float, deadline: float, send: Callable[[int], Awaitable[None]]) -> int:
    """Call ``send(n)`` ``rate`` times a second on a fixed schedule until ``deadline`` (trio time); bounded by
    the count the schedule allows. A send that blocks (the server reads no more) is given up at the deadline.
    Returns the calls made."""
    start = trio.current_time()
    limit = int(rate * max(0.0, deadline - start)) + 1
    calls = 0
    with trio.move_on_at(deadline):
        while calls < limit:
            await trio.sleep_until(start + calls / rate)
            await send(calls)
            calls += 1
    return calls


# ------------------------------------------------------------------ the normal player (this process)


class Player:
    """One person playing both seats of a two-seat table (two connections, as two people at one table would
    be, so that nothing waits on a bot's pace), acting at ``rate`` actions a second in all and timing each
    action -> its answer; round trips, lost actions and probe times are kept per ``phase``."""

    def __init__(self, url: str, rate: float, seed: int = 29) -> None:
        self.url = url
        self.rate = rate
        self.rng = Rng(seed)
        self.phase = "setup"
        self.round_trips: dict[str, list[float]] = defaultdict(list)  # ms
        self.lost: dict[str, Counter] = defaultdict(Counter)  # phase -> what went wrong -> count
        self.connects: dict[str, list[float]] = defaultdict(list)  # ms
        self.connect_failures: dict[str, Counter] = defaultdict(Counter)
        self.tables: list[str] = []  # a new one when a game ends
        self._lock = trio.Lock()

    async def table(self, number: int, seat: "_Seat") -> str:
        """The player's ``number``-th table: the first seat to need it creates it."""
        async with self._lock:
            if len(self.tables) <= number:
                created = await seat.request(CreateTable(**PLAYER_GAME))
                if type(created) is not TableCreated:
                    raise ConnectionError(f"no table for the player: {getattr(created, 'code', created)}")
                self.tables.append(created.table.table)
        return self.tables[number]

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            for seat in range(2):
                await nursery.start(_Seat(self, seat, self.rng.fork()).run)
            task_status.started()

    async def probe(self) -> None:
        """Every PROBE_EVERY seconds, time a fresh connection: TCP, websocket handshake, hello -> welcome."""
        for _ in range(100_000):
            phase, begin = self.phase, time.perf_counter()
            try:
                with trio.fail_after(PROBE_TIMEOUT):
                    async with open_websocket_url(self.url, max_message_size=BIG, disconnect_timeout=2) as ws:
                        await ws.send_message(JSON.encode(Hello(id=0, protocol=PROTOCOL_VERSION, client="probe")))
                        await ws.get_message()
                self.connects[phase].append((time.perf_counter() - begin) * 1000)
            except Exception as error:  # noqa: BLE001 (any failure to connect counts, by kind)
                self.connect_failures[phase][type(single_error(error)).__name__] += 1
            await trio.sleep(PROBE_EVERY)


class _Seat:
    """One seat of the player's: its own connection, acting at half the player's rate when it has a legal list."""

    def __init__(self, player: Player, seat: int, rng: Rng) -> None:
        self.player = player
        self.seat = seat
        self.rng = rng
        self.interval = 2 / player.rate
        self._ws = None
        self._legal: list | None = None  # None: wait for a fresh list
        self._last_legal: list | None = None
        self._answer: Any = None
        self._ref = 0
        self._over = False
        self._game = 0
        self._token = ""
        self._last_seq = 0

    async def _take(self) -> None:
        """Read one frame: pings answered, the legal list and the game's end kept, an answer noted."""
        message = decode_server(await self._ws.get_message(), JSON)
        kind = type(message)
        if kind is Ping:
            await self._ws.send_message(JSON.encode(Pong(ping=message.ping)))
        elif kind is Update or kind is Snapshot:
            self._last_seq = max(self._last_seq, message.seq)
            if message.result is not None:
                self._over, self._legal = True, None
            elif message.legal is not None:
                self._legal = message.legal or None
                self._last_legal = self._legal
        elif getattr(message, "ref", None) == self._ref:
            self._answer = message
        elif kind is Closing:
            self.player.lost[self.player.phase][f"closing {message.code}"] += 1

    async def request(self, message: Any) -> Any:
        self._ref += 1
        self._answer = None
        await self._ws.send_message(JSON.encode(msgspec.structs.replace(message, id=self._ref)))
        with trio.fail_after(ANSWER_TIMEOUT):
            while self._answer is None:
                await self._take()
        return self._answer

    async def _sit(self, resume: bool) -> None:
        """Hello, then the seat: taken at the current table, or (``resume``) taken back with its token."""
        await self.request(Hello(protocol=PROTOCOL_VERSION, client="normal-player"))
        table = await self.player.table(self._game, self)
        if resume:
            answer = await self.request(Resume(table=table, token=self._token, last_seq=self._last_seq))
        else:
            self._over, self._legal, self._last_seq = False, None, 0
            answer = await self.request(TakeSeat(table=table, seat=self.seat, name=f"normal player {self.seat}"))
        if type(answer) is Error:
            raise ConnectionError(f"no seat for the player: {answer.code}")
        self._token = answer.token

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Play until cancelled; a dropped connection is reopened and the seat resumed (counted as lost), and
        after a game's end the seat moves to the player's next table."""
        started, resume = False, False
        for attempt in range(1000):  # bounded: reconnects and new tables
            try:
                async with open_websocket_url(self.player.url, max_message_size=BIG, disconnect_timeout=2) as ws:
                    self._ws = ws
                    await self._sit(resume)
                    if not started:
                        started = True
                        task_status.started()
                    await self._play()
                    self._game += 1  # the game is over: the next table
                    resume = False
            except (ConnectionClosed, OSError, trio.TooSlowError, ConnectionError, HandshakeError,
                    DisconnectionTimeout) as error:
                if not started:
                    raise
                what = type(error).__name__
                self.player.lost[self.player.phase][
                    f"no answer in {ANSWER_TIMEOUT:g} s" if what == "TooSlowError" else what] += 1
                resume = not self._over
                await trio.sleep(0.2)

    async def _play(self) -> None:
        table = self.player.tables[self._game]
        due = trio.current_time() + self.interval * self.seat / 2  # the two seats take turns
        while not self._over:
            with trio.move_on_at(due):  # read while waiting: a fresh legal list, pings
                while True:
                    await self._take()
            if self._legal is None:  # wait for a fresh list; after a second of silence, act on the last one
                with trio.move_on_after(1.0) as silence:  # (both seats refused at once would wait for ever)
                    await self._take()
                if silence.cancelled_caught:
                    self._legal = self._last_legal
                continue
            action = self.rng.choice(self._legal)
            phase = self.player.phase
            sent = time.perf_counter()
            answer = await self.request(Act(table=table, action=action, seen=self._last_seq))
            self.player.round_trips[phase].append((time.perf_counter() - sent) * 1000)
            if type(answer) is Error:
                self.player.lost[phase][answer.code] += 1
            # accepted: the seat's own update, right behind its answer, brings the next list; refused: another
            # seat's update made the list stale, and brings the fresh one
            self._legal = None
            due = max(due + self.interval, trio.current_time())

# ------------------------------------------------------------------ set-ups (this process, before the alone phase)


async def finished_game(url: str, races: int = 1, policy: str = "heuristic", limit: float = 60.0,
                        action_limit: int = 2000) -> dict:
    """A game of two server bots (no pause) played to its end; returns its table id and its entries."""
    async with connect(url) as conn:
        created = await conn.request(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                 bots=[BotSeat(0, policy), BotSeat(1, policy)],
                                                 options={"races": races, "extra_races": 0,
                                                          "action_limit": action_limit}))
        table = created.table.table
        with trio.move_on_after(limit):
            while True:
                info = next(t for t in (await conn.request(ListTables())).tables if t.table == table)
                if info.status == "over":
                    return {"table": table, "entries": info.seq}
                await trio.sleep(0.2)
        raise RuntimeError(f"the bot game {table} did not end within {limit:g} s ({info.seq} entries)")


async def setup_playback(url: str, opts: dict) -> dict:
    return {"finished": await finished_game(url)}


async def setup_long_log(url: str, opts: dict) -> dict:
    """The longest log within the time allowed: random bots run every race to its action limit."""
    return {"long": await finished_game(url, races=opts["long_races"], policy="random",
                                        limit=opts["long_seconds"])}


async def fill_lobby(url: str, opts: dict, connections: int = 8, most: int = 5000, per_address: int = 12) -> dict:
    """Tables until the server refuses more (``too_many_tables``): a busy LAN's lobby, each address (a
    machine, 127.0.x.y) making a few tables under its limits, ``connections`` of them at a time."""
    made, refused, addresses = [0], Counter(), iter(f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(10_000))

    async def creator() -> None:
        while made[0] + sum(refused.values()) < most and not refused["too_many_tables"]:
            async with connect(url, refused, source=next(addresses)) as conn:
                for _ in range(per_address):
                    answer = await conn.request(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                            name="filler"))
                    if type(answer) is TableCreated:
                        made[0] += 1
                    else:
                        break
                    await trio.sleep(1 / RATE)

    with trio.move_on_after(opts["fill_seconds"]):
        async with trio.open_nursery() as nursery:
            for _ in range(connections):
                nursery.start_soon(creator)
    return {"filled": made[0], "fill_refusals": dict(refused)}


# ------------------------------------------------------------------ attacks (the attacker's process)


@dataclass
class Arena:
    """What an attack gets: where, until when (trio time), the set-up's context and the options; it counts what
    the server answered (``refusals`` by code, ``types`` by message type) and may add ``notes``."""

    url: str
    deadline: float
    context: dict
    opts: dict
    refusals: Counter = field(default_factory=Counter)
    types: Counter = field(default_factory=Counter)
    notes: dict = field(default_factory=dict)

    def connect(self):
        return connect(self.url, self.refusals, self.types, ATTACKER)


async def flood_create_table(arena: Arena) -> None:
    """`create_table` as fast as allowed: ``flood_connections`` connections, each just under the rate limit."""
    sent = [0]

    async def one() -> None:
        async with arena.connect() as conn:
            async def send(n: int) -> None:
                await conn.send(CreateTable(id=n, game="flag_finish", mode="challenge", seats=2, name=f"flood {n}"))
            count = await paced(RATE, arena.deadline, send)
            sent[0] += count

    async with trio.open_nursery() as nursery:
        for _ in range(arena.opts["flood_connections"]):
            nursery.start_soon(one)
    answered = arena.types["table_created"] + sum(arena.refusals.values())
    arena.notes.update(sent=sent[0], created=arena.types["table_created"], unanswered=sent[0] - answered)


async def playback_loop(arena: Arena) -> None:
    """`open_playback` of a finished table's log in a loop (speed 1: each playback table lives as long as the game)."""
    log = arena.context["finished"]["table"]
    async with arena.connect() as conn:
        async def send(n: int) -> None:
            await conn.send(OpenPlayback(id=n, log=log, speed=1.0))
        arena.notes["sent"] = await paced(RATE, arena.deadline, send)
        arena.notes["playbacks opened"] = arena.types["table_created"]


async def seated(conn: Conn, bot_delay_ms: int) -> tuple[str, str]:
    """A table of the attacker's own, against a server bot, with its seat 0 taken: (table, token)."""
    created = await conn.request(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                             bots=[BotSeat(seat=1)], bot_delay_ms=bot_delay_ms))
    seat = await conn.request(TakeSeat(table=created.table.table, seat=0))
    return created.table.table, seat.token


async def junk_actions(arena: Arena) -> None:
    """60 KiB actions the rules refuse (`bad_action`), at RATE a second, from a seated connection."""
    pad = "x" * arena.opts["junk_bytes"]
    async with arena.connect() as conn:
        table, _ = await seated(conn, 60_000)

        async def send(n: int) -> None:
            await conn.send(Act(id=n, table=table, action={"type": "junk", "pad": pad}))
        arena.notes["sent"] = await paced(RATE, arena.deadline, send)
        arena.notes["table"] = table


async def many_cheap(arena: Arena) -> None:
    """``cheap_connections`` connections, each under the per-connection rate limit, sending a cheap request
    (`leave` of a table that does not exist: an `error`, nothing else)."""
    sent = [0]

    async def one() -> None:
        async with arena.connect() as conn:
            async def send(n: int) -> None:
                await conn.send(Leave(id=n, table="t999999999"))
            count = await paced(RATE, arena.deadline, send)
            sent[0] += count

    async with trio.open_nursery() as nursery:
        for _ in range(arena.opts["cheap_connections"]):
            nursery.start_soon(one)
    arena.notes.update(sent=sent[0], per_s=round(sent[0] / arena.opts["seconds"]))


async def list_tables_full(arena: Arena) -> None:
    """`list_tables` at RATE a second on a lobby filled to the server's table limit (the set-up)."""
    async with arena.connect() as conn:
        async def send(n: int) -> None:
            await conn.send(ListTables(id=n))
        arena.notes["sent"] = await paced(RATE, arena.deadline, send)
        arena.notes["answered"] = arena.types["tables"]
    arena.notes["lobby"] = arena.context.get("filled")


async def replay_long(arena: Arena) -> None:
    """`replay` of the last 200 frames of a long finished log at ``replay_rate`` a second, one connection."""
    long = arena.context["long"]
    start = max(0, long["entries"] - 200)
    async with arena.connect() as conn:
        async def send(n: int) -> None:
            await conn.send(Replay(id=n, log=long["table"], start=start, count=200))
        arena.notes["sent"] = await paced(arena.opts["replay_rate"], arena.deadline, send)
        arena.notes.update(answered=arena.types["replay_frames"], log_entries=long["entries"])


async def idle_connections(arena: Arena) -> None:
    """``idle`` connections (64 opening at a time), each says hello, then nothing until the deadline."""
    raise_nofile()
    opened, failed, opening = [0], Counter(), trio.Semaphore(64)
    began = trio.current_time()
    all_open = [None]

    async def one() -> None:
        await opening.acquire()
        holding = True
        try:
            async with arena.connect():
                opening.release()
                holding = False
                opened[0] += 1
                if opened[0] == arena.opts["idle"]:
                    all_open[0] = trio.current_time() - began
                await trio.sleep_until(arena.deadline)
        except Exception as error:  # noqa: BLE001 (every failure to connect counts, by kind)
            failed[type(single_error(error)).__name__] += 1
        finally:
            if holding:
                opening.release()

    with trio.move_on_at(arena.deadline + 5):
        async with trio.open_nursery() as nursery:
            for _ in range(arena.opts["idle"]):
                nursery.start_soon(one)
    arena.notes.update(opened=opened[0], failed=dict(failed),
                       seconds_to_open_all=None if all_open[0] is None else round(all_open[0], 1))


HALF_HEADER = b"\x81\xfe\x00\x80"  # 4 of the 8 bytes of a masked text frame's header (126: 16-bit length): no mask key


async def half_header(arena: Arena) -> None:
    """``half`` raw connections: websocket handshake and hello (by wsproto), then half a frame header, then
    silence. How many does the server close before the deadline?"""
    import wsproto
    from wsproto.events import AcceptConnection, Request
    from wsproto.events import TextMessage as WsText

    host, port = arena.url.removeprefix("ws://").split(":")
    closed, opened, failed = [], [0], Counter()
    began = trio.current_time()

    async def one() -> None:
        try:
            sock = trio.socket.socket()
            await sock.bind((ATTACKER, 0))
            await sock.connect((host, int(port)))
            stream = trio.SocketStream(sock)
        except OSError as error:
            failed[type(error).__name__] += 1
            return
        async with stream:
            ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
            await stream.send_all(ws.send(Request(host=f"{host}:{port}", target="/")))
            with trio.move_on_after(10):
                while not any(isinstance(e, AcceptConnection) for e in ws.events()):
                    data = await stream.receive_some()
                    if not data:
                        failed["closed before the upgrade"] += 1
                        return
                    ws.receive_data(data)
            await stream.send_all(ws.send(WsText(data=JSON.encode(Hello(id=0, protocol=PROTOCOL_VERSION, client="half")))))
            await stream.send_all(HALF_HEADER)
            opened[0] += 1
            with trio.move_on_at(arena.deadline):
                while await stream.receive_some():  # the welcome, then whatever the server sends: until EOF
                    pass
                closed.append(trio.current_time() - began)

    async with trio.open_nursery() as nursery:
        for _ in range(arena.opts["half"]):
            nursery.start_soon(one)
    arena.notes.update(opened=opened[0], closed_by_server=len(closed), still_open=opened[0] - len(closed),
                       failed=dict(failed),
                       first_closed_after_s=round(min(closed), 1) if closed else None)


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


async def deep_nesting(arena: Arena) -> None:
    """By turns, every 0.1 s from a seated connection, an `act` whose action is nested ``depth`` deep and a
    message nested as deep (a `list_tables` with an unknown field). A connection the server closes (within
    0.1 s of a send: that kind is counted) is reopened and the seat resumed. Then: does the table still play
    (a plain action accepted, the bot's seq moving), and did the connections survive?"""
    depth = arena.opts["depth"]
    texts = {"action": '{"type":"act","id":"deep","table":"%s","action":' + nested(depth) + "}",
             "message": '{"type":"list_tables","id":"deep","x":' + nested(depth) + "}"}
    table, token = None, None
    sent, closed, turn = Counter(), Counter(), 0
    for _ in range(1000):  # bounded: one connection per close
        if trio.current_time() >= arena.deadline:
            break
        async with arena.connect() as conn:
            if table is None:
                table, token = await seated(conn, 200)
            else:
                await conn.request(Resume(table=table, token=token))
            while trio.current_time() < arena.deadline and not conn.closed.is_set():
                kind = ("action", "message")[turn % 2]
                turn += 1
                try:
                    await conn.send_text(texts[kind] % table if kind == "action" else texts[kind])
                except ConnectionClosed:
                    break
                sent[kind] += 1
                with trio.move_on_after(0.1):
                    await conn.closed.wait()
                if conn.closed.is_set():
                    closed[f"{kind} (closed {conn.close_code})"] += 1
        await trio.sleep(0.1)  # about ten sends a second in all
    async with arena.connect() as conn:  # afterwards: the table, from a fresh connection and its seat
        await conn.request(Resume(table=table, token=token))
        before = next(t for t in (await conn.request(ListTables())).tables if t.table == table).seq
        answer = await conn.request(Act(table=table, action={"type": "draw"}))
        await trio.sleep(1.0)  # the bot acts every 0.1-0.3 s
        info = next(t for t in (await conn.request(ListTables())).tables if t.table == table)
    arena.notes.update(depth=depth, sent=dict(sent), connections_closed_by_server=dict(closed),
                       plain_act_after=type(answer).__name__ + (f" {answer.code}" if type(answer) is Rejected else ""),
                       table_seq_moved=info.seq - before, table_status=info.status)


@dataclass(frozen=True)
class Attack:
    name: str
    run: Callable[[Arena], Awaitable[None]]
    setup: Callable[[str, dict], Awaitable[dict]] | None = None


ATTACKS = [
    Attack("create_flood", flood_create_table),
    Attack("open_playback", playback_loop, setup_playback),
    Attack("junk_actions", junk_actions),
    Attack("cheap_40", many_cheap),
    Attack("list_tables", list_tables_full, fill_lobby),
    Attack("replay_long", replay_long, setup_long_log),
    Attack("idle_1100", idle_connections),
    Attack("half_header", half_header),
    Attack("deep_nesting", deep_nesting),
]
BY_NAME = {attack.name: attack for attack in ATTACKS}


def attacker_main(job: dict) -> None:
    """The attacker's process: say ``ready`` once imported, wait for ``go`` on stdin (so that starting Python
    is no part of the attack), run one attack, print what it saw as one JSON line."""
    attack = BY_NAME[job["attack"]]
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return

    async def main() -> dict:
        arena = Arena(job["url"], trio.current_time() + job["opts"]["seconds"], job["context"], job["opts"])
        began = time.perf_counter()
        error = None
        with trio.move_on_after(job["opts"]["seconds"] + 30):  # the attack's own hard bound
            try:
                await attack.run(arena)
            except Exception as exc:  # noqa: BLE001 (reported with the figures: an attack that broke says so)
                error = f"{type(exc).__name__}: {exc}"
        if time.perf_counter() - began > job["opts"]["seconds"] + 2:
            arena.notes["lasted_s"] = round(time.perf_counter() - began, 1)  # its connections' closes waited
        return {"refusals": dict(arena.refusals), "types": dict(arena.types), "notes": arena.notes,
                "error": error, "seconds": time.perf_counter() - began}

    print(json.dumps(trio.run(main), default=str), flush=True)


# ------------------------------------------------------------------ one attack, measured


def p(values: list[float], q: float) -> float:
    return percentile(values, q) if values else math.nan


@asynccontextmanager
async def attacker(name: str, url: str, opts: dict, context: dict):
    """The attacker's process, started and imported; yields ``go``: it starts the attack and returns what the
    attacker saw. Killed if it runs past its bound, and in any case at the end."""
    job = json.dumps({"attack": name, "url": url, "opts": opts, "context": context})
    process = await trio.lowlevel.open_process([sys.executable, "-m", "bench.abuse_bench", "--attacker", job],
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = bytearray()

    async def read_until(done: Callable[[], bool], seconds: float) -> None:
        with trio.move_on_after(seconds):
            while not done():
                chunk = await process.stdout.receive_some()
                if not chunk:
                    return
                out.extend(chunk)

    async def go() -> dict:
        await process.stdin.send_all(b"go\n")
        await read_until(lambda: False, opts["seconds"] + 60)  # to EOF, or the bound
        lines = out.decode().strip().splitlines()
        if lines and lines[-1].startswith("{"):
            return json.loads(lines[-1])
        return {"error": "the attacker gave no figures (it failed or ran out of time)", "refusals": {}, "notes": {}}

    try:
        await read_until(lambda: b"ready" in out, 30)
        yield go
    finally:
        with trio.CancelScope(shield=True):
            if process.poll() is None:
                process.kill()
            await process.wait()


async def measure(attack: Attack, opts: dict) -> dict:
    async with photofinish() as server:
        player = Player(server.url, opts["player_rate"])
        peak_fds: dict[str, int] = defaultdict(int)
        peak_rss: dict[str, int] = defaultdict(int)

        async def sample() -> None:
            for _ in range(1_000_000):
                peak_fds[player.phase] = max(peak_fds[player.phase], open_fds(server.pid))
                peak_rss[player.phase] = max(peak_rss[player.phase], rss_kib(server.pid))
                await trio.sleep(0.25)

        def reading() -> dict:
            return {"rss_mib": rss_kib(server.pid) / 1024, "fds": open_fds(server.pid),
                    "cpu_s": cpu_seconds(server.pid), "at": time.perf_counter(), "data_mib": folder_mib(server.data)}

        async with trio.open_nursery() as nursery:
            await nursery.start(player.run)
            nursery.start_soon(player.probe)
            nursery.start_soon(sample)
            setup_began = time.perf_counter()
            context = await attack.setup(server.url, opts) if attack.setup else {}
            setup_s = time.perf_counter() - setup_began
            async with attacker(attack.name, server.url, opts, context) as go:
                player.phase = "alone"
                await trio.sleep(opts["alone"])
                start = reading()
                player.phase = "attack"
                seen = await go()
                end = reading()
            player.phase = "settle"
            await trio.sleep(opts["settle"])
            settled = reading()
            nursery.cancel_scope.cancel()
        alone, during = player.round_trips["alone"], player.round_trips["attack"]
        row = {
            "attack": attack.name, "context": context, "setup_s": setup_s, **seen,
            "alone_p50_ms": p(alone, 0.5), "alone_p99_ms": p(alone, 0.99), "alone_n": len(alone),
            "attack_p50_ms": p(during, 0.5), "attack_p99_ms": p(during, 0.99), "attack_n": len(during),
            "settle_p99_ms": p(player.round_trips["settle"], 0.99),
            "player_lost": {phase: dict(c) for phase, c in player.lost.items() if c},
            "connect_alone_p50_ms": p(player.connects["alone"], 0.5),
            "connect_attack_p50_ms": p(player.connects["attack"], 0.5),
            "connect_attack_max_ms": max(player.connects["attack"], default=math.nan),
            "connect_attack_failures": dict(player.connect_failures["attack"]),
            "rss_start_mib": start["rss_mib"], "rss_end_mib": end["rss_mib"], "rss_settled_mib": settled["rss_mib"],
            "rss_peak_mib": peak_rss["attack"] / 1024,
            "fds_start": start["fds"], "fds_peak": peak_fds["attack"], "fds_end": end["fds"],
            "fds_settled": settled["fds"],
            "server_cpu_attack": (end["cpu_s"] - start["cpu_s"]) / (end["at"] - start["at"]),
            "data_mib_start": start["data_mib"], "data_mib_end": end["data_mib"],
            "server_tracebacks": server.tracebacks(), "server_nofile": nofile_limit(server.pid),
            "player_tables": len(player.tables), "load_average": os.getloadavg()[0],
        }
        row["p99_ratio"] = row["attack_p99_ms"] / row["alone_p99_ms"]
        row["verdict"] = verdict(row)
        return row


def verdict(row: dict) -> str:
    """PASS, or FAIL with the targets missed."""
    missed = []
    if not row["p99_ratio"] <= 2.0:
        missed.append("p99 > 2x alone")
    if row["player_lost"].get("attack") or row["connect_attack_failures"] or not row["attack_n"]:
        missed.append("player lost actions or connections")
    if not row["rss_settled_mib"] <= 1.1 * row["rss_start_mib"]:
        missed.append("RSS not back within 10%")
    return "PASS" if not missed else "FAIL (" + "; ".join(missed) + ")"


# ------------------------------------------------------------------ the run, the table


DEFAULTS = dict(seconds=8.0, alone=8.0, settle=30.0, player_rate=50.0, flood_connections=4, junk_bytes=60 * 1024,
                cheap_connections=40, replay_rate=150.0, idle=1100, half=50, depth=1000, long_races=12,
                long_seconds=60.0, fill_seconds=30.0)
QUICK = dict(seconds=3.0, alone=3.0, settle=3.0, long_races=4)


def run(quick: bool = False, only: list[str] | None = None, **changes) -> dict:
    opts = {**DEFAULTS, **(QUICK if quick else {}), **{k: v for k, v in changes.items() if v is not None}}
    raise_nofile()
    rows = []
    for attack in ATTACKS:
        if only and attack.name not in only:
            continue
        print(f"  {attack.name} ...", file=sys.stderr, flush=True)
        try:
            rows.append(trio.run(measure, attack, opts))
        except Exception as error:  # noqa: BLE001 (one attack's bench failing must not hide the others' figures)
            rows.append({"attack": attack.name, "failed": f"{type(error).__name__}: {error}"})
    return {"opts": opts, "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0], "attacks": rows}


def _codes(counts: dict) -> str:
    return ", ".join(f"{code} {n}" for code, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"


def print_table(figures: dict) -> None:
    o = figures["opts"]
    print(f"Abuse (issue 29): a normal player ({o['player_rate']:g} actions/s, two-seat table) alone for "
          f"{o['alone']:g} s, then during each attack ({o['seconds']:g} s, its own process, 127.0.0.1), then "
          f"{o['settle']:g} s to settle; a fresh server per attack (soft RLIMIT_NOFILE {figures['nofile']})")
    header = (f"{'attack':<14}{'alone p50/p99 ms':>18}{'attack p50/p99 ms':>19}{'p99 x':>7}{'connect p50/max':>16}"
              f"{'RSS MiB start/end/+settle':>27}{'fds start/peak/+settle':>24}{'srv cpu':>9}  result")
    print(header)
    print("-" * len(header))
    for r in figures["attacks"]:
        if "failed" in r:
            print(f"{r['attack']:<14}the bench itself failed: {r['failed']}")
            continue
        print(f"{r['attack']:<14}{r['alone_p50_ms']:>9.2f}/{r['alone_p99_ms']:<8.2f}"
              f"{r['attack_p50_ms']:>10.2f}/{r['attack_p99_ms']:<8.2f}{r['p99_ratio']:>7.1f}"
              f"{r['connect_attack_p50_ms']:>10.1f}/{r['connect_attack_max_ms']:<5.0f}"
              f"{r['rss_start_mib']:>10.1f}/{r['rss_end_mib']:.1f}/{r['rss_settled_mib']:<6.1f}"
              f"{r['fds_start']:>10}/{r['fds_peak']}/{r['fds_settled']:<6}{r['server_cpu_attack']:>8.0%}"
              f"  {r['verdict']}")
    loads = [r["load_average"] for r in figures["attacks"] if "load_average" in r]
    if loads:
        print(f"(the machine's 1-minute load average at the end of each: {min(loads):.1f}-{max(loads):.1f}; "
              f"{os.cpu_count()} cores; p99 x: during the attack over alone, target <= 2)")
    print("\nWhat each attacker saw (refusals by code; `closed N`: the socket closed with that code), and notes:")
    for r in figures["attacks"]:
        if "failed" in r:
            continue
        lost = r["player_lost"].get("attack")
        extras = [f"refusals: {_codes(r.get('refusals', {}))}"]
        notes = {**r.get("notes", {})}
        if r["context"]:
            notes["set-up"] = f"{json.dumps(r['context'])} in {r['setup_s']:.1f} s"
        extras.append("notes: " + (", ".join(f"{k} {v}" for k, v in notes.items()) or "none"))
        if lost:
            extras.append(f"the player lost: {_codes(lost)}")
        if r["player_lost"].get("settle"):
            extras.append(f"the player lost after it: {_codes(r['player_lost']['settle'])}")
        extras.append(f"player p99 while settling {r['settle_p99_ms']:.2f} ms")
        if r["connect_attack_failures"]:
            extras.append(f"probe connections failed: {_codes(r['connect_attack_failures'])}")
        if r.get("error"):
            extras.append(f"attack error: {r['error']}")
        if r["server_tracebacks"]:
            extras.append(f"server printed {r['server_tracebacks']} tracebacks")
        if r["data_mib_end"] - r["data_mib_start"] >= 1:
            extras.append(f"data folder {r['data_mib_start']:.1f} -> {r['data_mib_end']:.1f} MiB")
        print(f"  {r['attack']}: " + "; ".join(extras))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.abuse_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short phases, for development (about 2 minutes)")
    parser.add_argument("--only", nargs="+", choices=sorted(BY_NAME), metavar="NAME",
                        help=f"run only these attacks ({', '.join(BY_NAME)})")
    parser.add_argument("--seconds", type=float, metavar="SECONDS",
                        help=f"each attack's length (default {DEFAULTS['seconds']:g})")
    parser.add_argument("--alone", type=float, metavar="SECONDS",
                        help=f"the player alone before it (default {DEFAULTS['alone']:g})")
    parser.add_argument("--settle", type=float, metavar="SECONDS",
                        help=f"seconds after it before RSS is read (default {DEFAULTS['settle']:g})")
    parser.add_argument("--player-rate", type=float,
                        help=f"the player's actions/s (default {DEFAULTS['player_rate']:g})")
    parser.add_argument("--idle", type=int, help=f"idle connections (default {DEFAULTS['idle']})")
    parser.add_argument("--half", type=int, help=f"half-header connections (default {DEFAULTS['half']})")
    parser.add_argument("--depth", type=int, help=f"nesting depth (default {DEFAULTS['depth']})")
    parser.add_argument("--replay-rate", type=float, help=f"replays/s (default {DEFAULTS['replay_rate']:g})")
    parser.add_argument("--long-races", type=int,
                        help=f"races of the long log's random bots (default {DEFAULTS['long_races']})")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    parser.add_argument("--attacker", metavar="JOB", help=argparse.SUPPRESS)  # the attacker's process
    args = parser.parse_args(argv)
    if args.attacker:
        return attacker_main(json.loads(args.attacker))
    figures = run(args.quick, args.only, seconds=args.seconds, alone=args.alone, settle=args.settle,
                  player_rate=args.player_rate, idle=args.idle, half=args.half, depth=args.depth,
                  replay_rate=args.replay_rate, long_races=args.long_races)
    print_table(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
