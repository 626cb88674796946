"""A load generator: N tables of 3 seats, each seat a connection acting as fast as it can, bounded in time.

Each seat sends an action from its legal list, waits for its own `accepted` (or `rejected`), and records the
round trip; it also notes when its `update` for every seq arrives, so the fan-out (first send to the last
seat's update) can be measured. Used by `photofinish load URL --tables N` and by `bench/`.
Bounded: every run stops after ``seconds``, and traffic goes only to the URL given.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from rules import Rng

class _Seen(msgspec.Struct):
    """Only what a load seat needs of a server message (the rest of the frame is skipped, not built)."""

    type: str
    ref: Any = None
    seq: int = 0
    legal: list | None = None
    result: Any = None
    table: Any = None
    code: str | None = None
    messages: "list[_Seen] | None" = None  # a batch frame


_decode_seen = msgspec.json.Decoder(_Seen).decode
_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


@dataclass
class Stats:
    round_trips_us: list[float] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    per_table: dict[str, int] = field(default_factory=dict)
    update_seen: dict[tuple[str, int], list[float]] = field(default_factory=dict)  # (table, seq) -> arrivals
    sent_at: dict[tuple[str, int], float] = field(default_factory=dict)  # (table, seq) -> when its action left


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _request(ws, message: dict) -> dict:
    await ws.send_message(_encode(message).decode())
    while True:
        answer = _decode(await ws.get_message())
        if answer.get("ref") == message.get("id"):
            return answer


FLAG_FINISH_LOAD = ("flag_finish", "challenge", {"races": 50, "action_limit": 1_000_000, "extra_races": 0})


async def create_tables(url: str, count: int, seats: int = 3, table=FLAG_FINISH_LOAD) -> list[str]:
    """``count`` tables of ``table`` = (game, mode, options), long enough to outlast a run."""
    game, mode, options = table
    tables = []
    async with open_websocket_url(url) as ws:
        await _request(ws, {"type": "hello", "protocol": 1, "id": 0})
        for n in range(count):
            answer = await _request(ws, {"type": "create_table", "id": n + 1, "game": game, "mode": mode,
                                         "seats": seats, "options": options})
            if answer["type"] != "table_created":
                raise RuntimeError(f"the server refused a table: {answer}")
            tables.append(answer["table"]["table"])
    return tables


async def _seat(url: str, table: str, seat: int, stats: Stats, start_at: trio.Event, deadline: list[float],
                seated: list[int], rng: Rng) -> None:
    async with open_websocket_url(url) as ws:
        await _request(ws, {"type": "hello", "protocol": 1, "id": 0, "batch": True})
        inbox: list[_Seen] = []

        async def receive() -> _Seen:
            while not inbox:
                frame = _decode_seen(await ws.get_message())
                inbox.extend(frame.messages if frame.type == "batch" else [frame])
            return inbox.pop(0)

        await ws.send_message(_encode({"type": "take_seat", "id": 1, "table": table, "seat": seat}).decode())
        legal: list = []
        while True:
            answer = await receive()
            if answer.type == "seated":
                break
            if answer.type == "error":
                raise RuntimeError(f"no seat at {table}: {answer.code}")
            legal = _take(answer, table, stats) or legal
        seated[0] += 1
        await start_at.wait()
        counter = 2
        try:
            while trio.current_time() < deadline[0]:
                if not legal:
                    message = await receive()
                    legal = _take(message, table, stats) or legal
                    continue
                counter += 1
                sent = time.perf_counter()
                await ws.send_message(_encode({"type": "act", "id": counter, "table": table,
                                               "action": rng.choice(legal)}).decode())
                legal = []
                while True:
                    message = await receive()
                    kind = message.type
                    if kind in ("accepted", "rejected") and message.ref == counter:
                        stats.round_trips_us.append((time.perf_counter() - sent) * 1e6)
                        if kind == "accepted":
                            stats.accepted += 1
                            stats.per_table[table] = stats.per_table.get(table, 0) + 1
                            stats.sent_at[(table, message.seq)] = sent
                        else:
                            stats.rejected += 1
                        break
                    legal = _take(message, table, stats) or legal
        except ConnectionClosed:
            pass


def _take(message: _Seen, table: str, stats: Stats) -> list | None:
    if message.type in ("update", "snapshot"):
        if message.type == "update":
            stats.update_seen.setdefault((table, message.seq), []).append(time.perf_counter())
        if message.result is not None:
            return None
        return message.legal
    return None


async def run_load(url: str, tables: int, seconds: float, seats: int = 3, seed: int = 1,
                   table=FLAG_FINISH_LOAD) -> Stats:
    """Create ``tables`` tables, seat every seat, let them act for ``seconds``; returns what was measured."""
    stats = Stats()
    ids = await create_tables(url, tables, seats, table)
    start_at = trio.Event()
    deadline = [float("inf")]
    seated = [0]
    rng = Rng(seed)
    async with trio.open_nursery() as nursery:
        for table in ids:
            for seat in range(seats):
                nursery.start_soon(_seat, url, table, seat, stats, start_at, deadline, seated, rng.fork())
        with trio.fail_after(60 + tables):
            while seated[0] < tables * seats:
                await trio.sleep(0.01)
        deadline[0] = trio.current_time() + seconds
        start_at.set()
        await trio.sleep(seconds + 0.5)
        nursery.cancel_scope.cancel()
    return stats


def fanout_us(stats: Stats, seats: int) -> list[float]:
    """For each accepted action: from its send to the arrival of the last seat's update for it."""
    out = []
    for key, sent in stats.sent_at.items():
        seen = stats.update_seen.get(key, [])
        if len(seen) >= seats:
            out.append((max(seen) - sent) * 1e6)
    return out


def summarize(stats: Stats, tables: int, seconds: float, seats: int = 3) -> dict:
    rates = list(stats.per_table.values()) + [0] * (tables - len(stats.per_table))
    rts = stats.round_trips_us
    fan = fanout_us(stats, seats)
    return {
        "tables": tables, "accepted_per_s": stats.accepted / seconds, "rejected_per_s": stats.rejected / seconds,
        "rt_p50_us": percentile(rts, 0.5), "rt_p99_us": percentile(rts, 0.99), "rt_p999_us": percentile(rts, 0.999),
        "fanout_p50_us": percentile(fan, 0.5), "fanout_p99_us": percentile(fan, 0.99),
        "table_rate_min": min(rates) / seconds if rates else 0, "table_rate_max": max(rates) / seconds if rates else 0,
        "table_rate_median": statistics.median(rates) / seconds if rates else 0,
        "answered": len(rts),
    }


def print_load(rows: list[dict]) -> None:
    header = (f"{'tables':>6}{'accepted/s':>12}{'refused/s':>11}{'rt p50 us':>11}{'p99 us':>9}{'p99.9 us':>10}{'fan-out p50':>13}"
              f"{'p99':>8}{'per-table/s min..median..max':>32}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['tables']:>6}{r['accepted_per_s']:>12.0f}{r['rejected_per_s']:>11.0f}{r['rt_p50_us']:>11.0f}{r['rt_p99_us']:>9.0f}"
              f"{r['rt_p999_us']:>10.0f}{r['fanout_p50_us']:>13.0f}{r['fanout_p99_us']:>8.0f}"
              f"{r['table_rate_min']:>14.1f}..{r['table_rate_median']:.1f}..{r['table_rate_max']:.1f}")
