"""A load generator: N tables of S seats, each seat a connection of its own, bounded in time and in count.

Each seat sends an action from its legal list, waits for its own `accepted` (or `rejected`), and records the
round trip; it also notes when its `update` for every seq arrives, so the fan-out (first send to the last
seat's update) can be measured. Used by `photofinish load URL --tables N` and by `bench/`.

- Closed loop (the default): every seat acts again as soon as it has its answer and a legal list, so the
  figures are the server's capacity; the round trip then includes the queue the seats make themselves.
- Paced (``rate``): the seats together offer ``rate`` actions per second on a fixed schedule, and a round
  trip counts from when the action was due (or, if later, from when the seat had a legal list), so a
  server that falls behind its schedule shows it in the latency instead of hiding it.

A seat may speak as a bot that asks for the smallest updates: ``patches`` (updates carry what changed; a legal
list left out is the one last sent, a ``legal_patch`` is applied to the last non-empty one, as
``viewpatch.Views`` does for the client library), ``events`` False (with patches: no events, only updates with
a view or a result), ``encoding`` ``msgpack`` (binary frames) and ``rows`` (with both: ``update``, ``snapshot``
and ``accepted`` as arrays, read at the places ``server.protocol.rows`` gives; each legal action a row too,
made the action's map again when the seat sends it: ``server.protocol.legalrows``). ``Stats.received_bytes``
counts what the seats were sent (frame payloads), so a bench can put bytes per action next to the server's CPU.

A table whose game ends is replaced: its seats move on to a fresh table of the same kind, so a run lasts as
long as asked. Against a cluster, a create or a seat answered with a ``redirect`` is sent again to the node
named (a seat moves its connection there), as the client library does. Bounded: a run stops after ``seconds`` or after ``max_actions`` answers, whichever is first,
and traffic goes only to the URL given.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Union

import msgspec
import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, open_websocket_url

from clients.client import ServerError
from rules import Rng
from server.protocol import Code
from server.protocol.legalrows import from_rows
from server.protocol.rows import ROW_TAGS, ROW_TYPES
from server.protocol.viewpatch import PatchError, apply
from server.protocol.viewrows import ViewRowError


class _Seen(msgspec.Struct):
    """Only what a load seat needs of a server message (the rest of the frame is skipped, not built)."""

    type: str
    ref: Any = None
    seq: int = 0
    legal: msgspec.Raw = msgspec.Raw(b"null")  # decoded only when the seat acts on it
    view_patch: msgspec.Raw = msgspec.Raw(b"null")  # with patches: there on an update that has a view (not read)
    legal_patch: Any = None  # with patches: the legal list as a patch of the last non-empty one sent
    result: Any = None
    table: Any = None
    code: str | None = None
    message: str = ""
    url: str = ""  # a redirect's
    ping: int = 0  # a ping's number (answered at once with a pong, as the client library does)
    messages: "list[_Seen] | None" = None  # a batch frame


class _ActOut(msgspec.Struct, tag="act", tag_field="type"):
    id: int
    table: str
    action: Any  # one element of the legal list: sent on as the server wrote it (msgspec.Raw), as patched, or a row
    # made its map again (rows)


NULLS = (b"null", b"\xc0")  # an absent or null field, in JSON or msgpack (msgspec.Raw keeps the bytes)
EMPTIES = (b"[]", b"\x90")  # an empty list, in either


class _Codec:
    """A seat's frames in one encoding: ``json`` (text frames) or ``msgpack`` (binary frames)."""

    def __init__(self, encoding: str) -> None:
        module = msgspec.msgpack if encoding == "msgpack" else msgspec.json
        self.encoding = encoding
        self.text = encoding != "msgpack"
        self.decode_seen = module.Decoder(_Seen).decode
        self.decode_legal = module.Decoder(list[msgspec.Raw]).decode
        self.decode_any = module.Decoder().decode
        self.encode = module.Encoder().encode

    def action(self, game: str, chosen: Any) -> Any:
        """The action to send for ``chosen``, an element of the legal list: as the server wrote it."""
        return chosen


class _SeenRows(_Seen):
    """A frame of a rows connection read as far as a map: a batch's messages kept as bytes, each read in turn."""

    messages: "list[msgspec.Raw] | None" = None


class _RowsCodec(_Codec):
    """msgpack with ``rows``: a row (``update``, ``snapshot``, ``accepted``) read into a ``_Seen`` from the places
    of its fields in the protocol's row types, each field a seat reads decoded and the others skipped."""

    def __init__(self) -> None:
        super().__init__("msgpack")
        self._frame = msgspec.msgpack.Decoder(Union[_SeenRows, list[msgspec.Raw]]).decode
        self._int = msgspec.msgpack.Decoder(int).decode
        self._any = msgspec.msgpack.Decoder().decode
        raw = {info.name for info in msgspec.structs.fields(_Seen) if info.type is msgspec.Raw}
        self._places = {}  # a row's tag -> its message's type, and (place, name, kept as bytes) of each field read
        for kind, tag in ROW_TAGS.items():
            fields = enumerate(ROW_TYPES[kind].__struct_fields__, 1)
            read = [(place, name, name in raw) for place, name in fields if name in _Seen.__struct_fields__]
            self._places[tag] = (kind.__struct_config__.tag, read)
        self.decode_seen = self._seen

    def action(self, game: str, chosen: Any) -> Any:
        """A legal action's row (``legalrows.py``) as the action's map again: what a seat sends."""
        try:
            return from_rows(game, [chosen if type(chosen) is list else self._any(chosen)])[0]
        except ViewRowError as error:
            raise ConnectionError(f"the server sent a legal action that is no action row: {error}") from None

    def _seen(self, data: bytes | msgspec.Raw) -> _Seen:
        frame = self._frame(data)
        if type(frame) is list:
            return self._row(frame)
        if frame.messages is not None:
            frame.messages = [self._seen(part) for part in frame.messages]
        return frame

    def _row(self, parts: list[msgspec.Raw]) -> _Seen:
        kind, places = self._places[self._int(parts[0])]
        fields = {name: part if raw else self._any(part)
                  for place, name, raw in places if place < len(parts) for part in (parts[place],)}
        return _Seen(type=kind, **fields)


CODECS = {name: _Codec(name) for name in ("json", "msgpack")}
ROWS = _RowsCodec()
JSON = CODECS["json"]
ENCODINGS = tuple(CODECS)


@dataclass(frozen=True)
class Speech:
    """What a seat says in its hello: the updates it asks for and its frames' encoding (the defaults: as
    before patches, JSON)."""

    patches: bool = False
    events: bool = True  # False needs patches (the server sends no events only to a connection with patches)
    encoding: str = "json"
    rows: bool = False  # True needs patches and msgpack: updates, snapshots and ``accepted`` as arrays

    def __post_init__(self) -> None:
        if not self.events and not self.patches:
            raise ValueError("events off needs patches: a connection without patches is always sent events")
        if self.encoding not in CODECS:
            raise ValueError(f"no encoding {self.encoding!r} ({' or '.join(ENCODINGS)})")
        if self.rows and (self.encoding != "msgpack" or not self.patches):
            raise ValueError("rows need patches and the msgpack encoding")

    @property
    def codec(self) -> _Codec:
        return ROWS if self.rows else CODECS[self.encoding]

DRAIN_SECONDS = 10.0  # how long a run waits, after its end, for the answers to actions already sent
LIMITED_PAUSE = 0.01  # seconds a seat waits after the server's rate limit dropped its action
FLAG_FINISH_LOAD = ("flag_finish", "challenge", {"races": 50, "action_limit": 1_000_000, "extra_races": 0})


@dataclass
class Stats:
    round_trips_us: list[float] = field(default_factory=list)
    answered_at: list[float] = field(default_factory=list)  # when each of those answers arrived (perf_counter)
    accepted: int = 0
    rejected: int = 0
    per_table: dict[int, int] = field(default_factory=dict)  # table slot -> accepted actions
    limited: int = 0  # actions the server dropped for its per-connection rate limit (`serve --rate`)
    sent: int = 0  # actions sent; at the end every one has its answer unless the server lost some
    games: int = 0  # games that ran to their end during the run (their tables were replaced)
    elapsed: float = 0.0  # seconds from the start signal to the stop
    update_seen: dict[tuple[str, int], list[float]] = field(default_factory=dict)  # (table, seq) -> arrivals
    sent_at: dict[tuple[str, int], float] = field(default_factory=dict)  # (table, seq) -> when its action left
    received_bytes: int = 0  # what the seats were sent once the run started: frame payloads (text as UTF-8)
    counting: bool = False  # received_bytes counts (from the start signal on; the seating is not counted)

    @property
    def unanswered(self) -> int:
        """Actions sent with no answer yet (after a run: never answered)."""
        return self.sent - self.accepted - self.rejected - self.limited


@dataclass
class _Run:
    """What the seats of one run share: the start signal, the bound, and the stop signal."""

    seats: int
    max_actions: float
    interval: float  # seconds between one seat's actions when paced; 0 for a closed loop
    prepare: Callable[[WebSocketConnection], None] | None = None  # applied to each seat's connection once open
    speech: Speech = Speech()
    stats: Stats = field(default_factory=Stats)
    seated: int = 0
    all_seated: trio.Event = field(default_factory=trio.Event)
    start: trio.Event = field(default_factory=trio.Event)
    done: trio.Event = field(default_factory=trio.Event)  # no new actions from now on
    drained: trio.Event = field(default_factory=trio.Event)  # done, and every action sent has its answer

    def answered(self) -> None:
        if self.stats.accepted + self.stats.rejected >= self.max_actions:
            self.done.set()
        self.check_drained()

    def check_drained(self) -> None:
        if self.done.is_set() and not self.stats.unanswered:
            self.drained.set()


class _Slot:
    """One table position of the load: the tables it has played at, a fresh one each time a game ends."""

    def __init__(self, index: int, table: str, kind) -> None:
        self.index = index
        self.tables = [table]
        self.kind = kind
        self.lock = trio.Lock()

    async def table(self, game: int, link: "_Link") -> str:
        async with self.lock:  # the first seat to get here creates the table; the others find it
            if len(self.tables) <= game:
                self.tables.append(await _create(link, self.kind, len(self.tables)))
            return self.tables[game]


class _Link:
    """A seat's connection: frames in (batches unpacked), frames out, in the encoding of its hello."""

    def __init__(self, ws: WebSocketConnection, codec: _Codec = JSON, stats: Stats | None = None) -> None:
        self.ws = ws
        self.codec = codec
        self.stats = stats  # counts the bytes received, when given
        self.inbox: list[_Seen] = []

    async def send(self, message: dict | _ActOut) -> None:
        frame = self.codec.encode(message)
        await self.ws.send_message(frame.decode() if self.codec.text else frame)

    async def receive(self) -> _Seen:
        """The next message; a ``ping`` is answered with its ``pong`` at once and not handed on (so the server
        measures each seat's round trip, which fair ordering credits, as it does for any real client's)."""
        while True:
            while not self.inbox:
                data = await self.ws.get_message()
                if self.stats is not None and self.stats.counting:
                    self.stats.received_bytes += len(data.encode() if type(data) is str else data)
                frame = self.codec.decode_seen(data)
                self.inbox.extend(frame.messages if frame.type == "batch" else [frame])
            message = self.inbox.pop(0)
            if message.type != "ping":
                return message
            await self._pong(message)

    async def drain(self) -> list[_Seen]:
        """What was already read (the rest of the last frame), its pings answered as ``receive`` does."""
        rest = []
        while self.inbox:
            message = self.inbox.pop(0)
            if message.type == "ping":
                await self._pong(message)
            else:
                rest.append(message)
        return rest

    async def _pong(self, ping: _Seen) -> None:
        await self.send({"type": "pong", "ping": ping.ping})

    async def request(self, message: dict) -> _Seen:
        await self.send(message)
        while True:
            answer = await self.receive()
            if answer.ref == message["id"] and answer.type != "update":
                return answer


async def _hello(ws: WebSocketConnection, batch: bool, speech: Speech = Speech(), stats: Stats | None = None) -> _Link:
    link = _Link(ws, speech.codec, stats)
    hello = {"type": "hello", "protocol": 1, "id": "hello", "batch": batch}
    if speech != Speech():  # the defaults are not said, as before
        hello.update(patches=speech.patches, events=speech.events, encoding=speech.encoding)
    if speech.rows:
        hello["rows"] = True
    await link.request(hello)
    return link


async def _create(link: _Link, kind, n: int) -> str:
    game, mode, seats, options, *fields = kind
    request = {"type": "create_table", "id": f"create-{n}", "game": game, "mode": mode, "seats": seats,
               "options": options, **(fields[0] if fields else {})}
    answer = await link.request(request)
    if answer.type == "redirect":  # a cluster node sends the table to a less loaded one
        async with open_websocket_url(answer.url) as ws:
            answer = await (await _hello(ws, batch=False)).request({**request, "placed": True})
    if answer.type != "table_created":
        raise ServerError(answer.code or answer.type, f"no load table: {answer.message}")
    return answer.table["table"]


async def create_tables(url: str, count: int, seats: int = 3, table=FLAG_FINISH_LOAD) -> list[str]:
    """``count`` tables of ``table`` = (game, mode, options), or (game, mode, options, fields): ``fields`` more of
    the ``create_table``'s, such as ``{"ordering": "arrival"}``; with ``seats`` seats; returns their ids."""
    game, mode, options, *fields = table
    async with open_websocket_url(url) as ws:
        link = await _hello(ws, batch=False)
        return [await _create(link, (game, mode, seats, options, *fields), n) for n in range(count)]


async def _sit(link: _Link, table: str, seat: int) -> str | None:
    """Take the seat; returns None, or the URL of the cluster node the table lives on (a redirect)."""
    answer = await link.request({"type": "take_seat", "id": f"sit-{table}", "table": table, "seat": seat})
    if answer.type == "redirect":
        return answer.url
    if answer.type != "seated":
        raise ServerError(answer.code or answer.type, f"no seat {seat} at {table}: {answer.message}")


class _Table:
    """A seat's picture of its table: the newest legal list (still encoded, or decoded once patched) and whether
    the game is over. With patches it also keeps what ``viewpatch.Views`` keeps of a legal list: the last one
    sent (what a list left out stands for) and the last non-empty one (what a ``legal_patch`` applies to)."""

    def __init__(self, table: str, stats: Stats, codec: _Codec = JSON) -> None:
        self.id = table
        self.stats = stats
        self.codec = codec
        self.legal: msgspec.Raw | list | None = None  # None: nothing this seat may do now
        self.over = False
        self.sent: msgspec.Raw | list | None = None  # the last legal list sent (patches)
        self.base: msgspec.Raw | list | None = None  # the last non-empty one (patches)

    def take(self, message: _Seen) -> None:
        if message.type not in ("update", "snapshot") or message.table != self.id:
            return
        if message.type == "update":
            self.stats.update_seen.setdefault((self.id, message.seq), []).append(time.perf_counter())
        if message.result is not None:
            self.legal, self.over = None, True
            return
        if message.legal_patch is not None:
            if self.base is None:
                raise ConnectionError(f"the server sent a patch of a legal list at {self.id}, but no list before")
            base = self.base if type(self.base) is list else self.codec.decode_any(self.base)
            try:
                listed = self.base = apply(base, message.legal_patch)
            except PatchError as error:
                raise ConnectionError(f"the server sent a legal list's patch that does not fit: {error}") from None
        elif bytes(message.legal) not in NULLS:
            listed = message.legal
            if bytes(listed) not in EMPTIES:
                self.base = listed
        elif bytes(message.view_patch) not in NULLS:  # patched, its list left out: the one last sent
            listed = self.sent
        else:  # an update without a list leaves the last one standing
            return
        self.sent = listed
        self.legal = None if listed is None or _empty(listed) else listed

    def choices(self, legal: msgspec.Raw | list) -> list:
        return legal if type(legal) is list else self.codec.decode_legal(legal)


def _empty(legal: msgspec.Raw | list) -> bool:
    return not legal if type(legal) is list else bytes(legal) in EMPTIES


async def _answer(link: _Link, table: _Table, ref: int) -> tuple[_Seen, float]:
    """Read until the answer to the seat's action ``ref`` (or the rate limit's drop); returns it and when it
    arrived. What is read meanwhile updates ``table``, and so does the rest of the answer's frame: the seat's
    own update comes right after its answer, with the legal list after its action, which is newer than any
    list another seat's update brought while it waited (acting on that one refuses its own take-then-discard)."""
    while True:
        message = await link.receive()
        kind = message.type
        if kind == "error" and message.code == Code.RATE_LIMITED:
            return message, time.perf_counter()
        if kind in ("accepted", "rejected") and message.ref == ref and message.table == table.id:
            arrived = time.perf_counter()
            for rest in await link.drain():
                table.take(rest)
            return message, arrived
        table.take(message)


async def _seat(url: str, slot: _Slot, seat: int, run: _Run, rng: Rng) -> None:
    game = 0
    while url is not None:  # a cluster may send the seat to another node, once per table
        url, game = await _seat_on(url, slot, seat, run, rng, game)


async def _seat_on(url: str, slot: _Slot, seat: int, run: _Run, rng: Rng, game: int) -> tuple[str | None, int]:
    """Play the slot's tables from ``game`` on over one connection to ``url``; returns (None, _) at the end, or
    the node to move to (a redirect) and the game it is for."""
    stats = run.stats
    async with open_websocket_url(url) as ws:
        if run.prepare is not None:
            run.prepare(ws)
        link = await _hello(ws, batch=True, speech=run.speech, stats=stats)
        table = _Table(slot.tables[game], stats, link.codec)
        if (elsewhere := await _sit(link, table.id, seat)) is not None:
            return elsewhere, game
        if game == 0:
            run.seated += 1
            if run.seated == run.seats:
                run.all_seated.set()
        await run.start.wait()
        counter = 0
        ready = time.perf_counter()  # when the seat last had something to do after having nothing
        due = ready + run.interval * rng.below(1000) / 1000  # paced: when its next action is due (spread out)
        try:
            while True:
                if table.over:  # this game is over: every seat of the slot moves on to a fresh table
                    if seat == 0:
                        stats.games += 1
                    game += 1
                    table = _Table(await slot.table(game, link), stats, link.codec)
                    if (elsewhere := await _sit(link, table.id, seat)) is not None:
                        return elsewhere, game
                    continue
                if table.legal is None:
                    table.take(await link.receive())
                    ready = time.perf_counter()
                    continue
                if run.interval and time.perf_counter() < due:
                    with trio.move_on_after(due - time.perf_counter()):  # read on while waiting: fresh lists,
                        while not table.over:                           # and updates timed as they arrive
                            table.take(await link.receive())
                    continue
                if run.done.is_set():
                    await trio.sleep_forever()  # the run is over: wait to be cancelled
                counter += 1
                choices, table.legal = table.legal, None
                picked = link.codec.action(slot.kind[0], rng.choice(table.choices(choices)))  # (a row: its map)
                action = _ActOut(id=counter, table=table.id, action=picked)
                sent = time.perf_counter()  # the seat's own choice is not part of the round trip
                since = max(due, ready) if run.interval else sent  # paced: late sends count against the server
                due += run.interval
                stats.sent += 1
                await link.send(action)
                answer, arrived = await _answer(link, table, counter)
                if answer.type == "error":  # the server's rate limit dropped it unread: try again shortly
                    stats.limited += 1
                    run.answered()
                    table.legal = table.legal or choices
                    await trio.sleep(LIMITED_PAUSE)
                    continue
                stats.round_trips_us.append((arrived - since) * 1e6)
                stats.answered_at.append(arrived)
                if answer.type == "accepted":
                    stats.accepted += 1
                    stats.per_table[slot.index] = stats.per_table.get(slot.index, 0) + 1
                    stats.sent_at[(table.id, answer.seq)] = sent
                else:
                    stats.rejected += 1
                run.answered()
        except ConnectionClosed:
            pass
    return None, game


async def run_load(url: str, tables: int, seconds: float, seats: int = 3, seed: int = 1,
                   table=FLAG_FINISH_LOAD, rate: float = 0.0, max_actions: float = float("inf"),
                   prepare: Callable[[WebSocketConnection], None] | None = None, speech: Speech = Speech()) -> Stats:
    """Create ``tables`` tables, seat every seat, let them act for ``seconds`` (or until ``max_actions``
    answers); ``rate`` > 0 paces all seats together to that many actions per second. ``prepare``: applied to
    each seat's connection once open (the bench gives the seats the server's own send path, so that its
    figures measure the server, as before the clients stopped importing it). ``speech``: what each seat asks
    for in its hello (patches, events, encoding). Returns what was measured."""
    game, mode, options, *fields = table
    ids = await create_tables(url, tables, seats, table)
    run = _Run(seats=tables * seats, max_actions=max_actions, interval=tables * seats / rate if rate else 0.0,
               prepare=prepare, speech=speech)
    rng = Rng(seed)
    async with trio.open_nursery() as nursery:
        for index, table_id in enumerate(ids):
            slot = _Slot(index, table_id, (game, mode, seats, options, *fields))
            for seat in range(seats):
                nursery.start_soon(_seat, url, slot, seat, run, rng.fork())
        with trio.fail_after(60 + tables):
            await run.all_seated.wait()
        run.stats.counting = True
        run.start.set()
        began = trio.current_time()
        with trio.move_on_after(seconds):
            await run.done.wait()
        run.stats.elapsed = trio.current_time() - began
        run.done.set()
        run.check_drained()
        with trio.move_on_after(DRAIN_SECONDS):  # the answers still on their way
            await run.drained.wait()
        nursery.cancel_scope.cancel()
    return run.stats


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fanout_us(stats: Stats, seats: int) -> list[float]:
    """For each accepted action: from its send to the arrival of the last seat's update for it."""
    out = []
    for key, sent in stats.sent_at.items():
        seen = stats.update_seen.get(key, [])
        if len(seen) >= seats:
            out.append((max(seen) - sent) * 1e6)
    return out


def summarize(stats: Stats, tables: int, seats: int = 3, rate: float = 0.0) -> dict:
    seconds = max(stats.elapsed, 1e-9)
    rates = list(stats.per_table.values()) + [0] * (tables - len(stats.per_table))
    rts = stats.round_trips_us
    fan = fanout_us(stats, seats)
    return {
        "tables": tables, "rate": rate, "accepted_per_s": stats.accepted / seconds, "rejected_per_s": stats.rejected / seconds,
        "rt_p50_us": percentile(rts, 0.5), "rt_p99_us": percentile(rts, 0.99), "rt_p999_us": percentile(rts, 0.999),
        "fanout_p50_us": percentile(fan, 0.5), "fanout_p99_us": percentile(fan, 0.99),
        "table_rate_min": min(rates) / seconds if rates else 0, "table_rate_max": max(rates) / seconds if rates else 0,
        "table_rate_median": statistics.median(rates) / seconds if rates else 0,
        "answered": len(rts), "unanswered": stats.unanswered,
        "games_ended": stats.games, "rate_limited_per_s": stats.limited / seconds,
        "received_bytes_per_action": stats.received_bytes / max(1, stats.accepted + stats.rejected),
    }


def print_load(rows: list[dict]) -> None:
    """One line per run; ``offered`` is the pace (``max``: every seat as fast as it can)."""
    header = (f"{'tables':>6}{'offered':>9}{'accepted/s':>12}{'refused/s':>11}{'rt p50 us':>11}{'p99 us':>9}"
              f"{'p99.9 us':>10}{'fan-out p50':>13}{'p99':>8}{'per-table/s min..median..max':>32}")
    print(header)
    print("-" * len(header))
    for r in rows:
        offered = f"{r['rate']:.0f}/s" if r.get("rate") else "max"
        print(f"{r['tables']:>6}{offered:>9}{r['accepted_per_s']:>12.0f}{r['rejected_per_s']:>11.0f}"
              f"{r['rt_p50_us']:>11.0f}{r['rt_p99_us']:>9.0f}{r['rt_p999_us']:>10.0f}{r['fanout_p50_us']:>13.0f}"
              f"{r['fanout_p99_us']:>8.0f}"
              f"{r['table_rate_min']:>14.1f}..{r['table_rate_median']:.1f}..{r['table_rate_max']:.1f}")
    for r in rows:
        if r.get("rate_limited_per_s"):
            print(f"  {r['tables']} tables: {r['rate_limited_per_s']:.0f} actions/s were dropped by the server's "
                  "per-connection rate limit (`photofinish serve --rate`), so these figures show that limit")
        if r.get("unanswered"):
            print(f"  {r['tables']} tables: {r['unanswered']} actions were never answered")
