"""`python -m bench.timeline`: where one table's round goes, from stamps taken in both processes.

One Flag Finish Challenge table of 3 load seats, as in the bench's one-table row. The server runs in its own
process with stamps around its reader (`Connection._dispatch`), each arbiter batch (`Table._take_batch`) and
each frame it sends (trio-websocket's `send_message`); the load stamps each frame it decodes and each action
it sends. Both use ``time.perf_counter`` (CLOCK_MONOTONIC on Linux, shared by every process), so the stamps
merge into one timeline. Each arbiter batch opens a round; the medians of each phase over the rounds are
printed. Stamping slows both sides a little: these figures show where the time goes, not the targets.
"""

from __future__ import annotations

import atexit
import statistics
import sys
import tempfile
import time
from bisect import bisect_left, bisect_right
from pathlib import Path

import msgspec
import trio

from .server_bench import free_port, start_process, stop

Stamp = tuple[float, str]


def _wrap_async(owner, name: str, stamps: list[Stamp], *, before: str | None = None, after: str | None = None):
    """Stamp ``before`` a call of ``owner.name`` (a coroutine method) begins and/or ``after`` it returns;
    returns the original."""
    original = getattr(owner, name)

    async def wrapped(*args, **kwargs):
        if before:
            stamps.append((time.perf_counter(), before))
        result = await original(*args, **kwargs)
        if after:
            stamps.append((time.perf_counter(), after))
        return result

    setattr(owner, name, wrapped)
    return original


def _serve_stamped(out: str, argv: list[str]) -> int:
    """The server process: `photofinish serve` with stamps, written to ``out`` when it exits."""
    import trio_websocket

    from server import gateway, table
    from server.cli import main

    stamps: list[Stamp] = []
    _wrap_async(gateway.Connection, "_dispatch", stamps, before="server read")
    _wrap_async(trio_websocket.WebSocketConnection, "send_message", stamps, after="server sent")
    take_batch = table.Table._take_batch

    def stamped_batch(self, intent):
        stamps.append((time.perf_counter(), "batch start"))
        try:
            return take_batch(self, intent)
        finally:
            stamps.append((time.perf_counter(), "batch end"))

    table.Table._take_batch = stamped_batch
    atexit.register(lambda: Path(out).write_bytes(msgspec.msgpack.encode(stamps)))
    return main(argv)


async def _stamped_load(seconds: float) -> tuple[list[Stamp], list[Stamp]]:
    """Run one table under load against a stamped server; returns (server stamps, load stamps)."""
    from clients import load

    stamps: list[Stamp] = []
    send = _wrap_async(load._Link, "send", stamps, after="load sent")
    decode = load._decode_seen

    def stamped_decode(frame):
        stamps.append((time.perf_counter(), "load frame"))
        return decode(frame)

    load._decode_seen = stamped_decode
    try:
        with tempfile.TemporaryDirectory() as data:
            out = Path(data) / "stamps"
            port = free_port()
            server = await start_process([sys.executable, "-m", "bench.timeline", "--serve", str(out), "serve",
                                          "--port", str(port), "--data", data, "--durability", "never",
                                          "--rate", "1000000"])
            try:
                await load.run_load(f"ws://127.0.0.1:{port}", 1, seconds)
            finally:
                await stop(server)
            if not out.exists():
                raise SystemExit("bench.timeline: the stamped server did not exit cleanly, so it wrote no stamps")
            return [tuple(s) for s in msgspec.msgpack.decode(out.read_bytes())], stamps
    finally:
        load._decode_seen, load._Link.send = decode, send


PHASES = (
    ("arbiter batch", "the arbiter applies and logs the batch, then builds each seat's views and legal lists"),
    ("server writes", "the writers encode and send one frame per seat (batch end to the last frame sent)"),
    ("to the load", "from the server's first frame sent to the load decoding its first frame"),
    ("load", "the load decodes the frames, each seat chooses, until its last action is sent"),
    ("to the server", "from the load's last action sent to the server reading the first of the next round"),
    ("server reads", "from that first read to the arbiter's next batch"),
)


def rounds(server: list[Stamp], load: list[Stamp]) -> list[dict[str, float]]:
    """Each complete round's phases in microseconds (rounds whose events are out of the usual order are skipped)."""
    def times(stamps: list[Stamp], kind: str) -> list[float]:
        return sorted(t for t, k in stamps if k == kind)

    starts, ends = times(server, "batch start"), times(server, "batch end")
    reads, sent = times(server, "server read"), times(server, "server sent")
    frames, load_sent = times(load, "load frame"), times(load, "load sent")

    def first(values: list[float], after: float, before: float) -> float | None:
        i = bisect_right(values, after)
        return values[i] if i < len(values) and values[i] <= before else None

    def last(values: list[float], after: float, before: float) -> float | None:
        i = bisect_left(values, before) - 1
        return values[i] if i >= 0 and values[i] > after else None

    out = []
    for start, end, next_start in zip(starts, ends, starts[1:]):
        next_read = first(reads, end, next_start)
        if next_read is None:
            continue
        first_sent, last_sent = first(sent, end, next_read), last(sent, end, next_read)
        first_frame, last_load_sent = first(frames, end, next_read), last(load_sent, end, next_read)
        if None in (first_sent, last_sent, first_frame, last_load_sent) or not first_frame < last_load_sent:
            continue
        out.append({"arbiter batch": end - start, "server writes": last_sent - end,
                    "to the load": first_frame - first_sent, "load": last_load_sent - first_frame,
                    "to the server": next_read - last_load_sent, "server reads": next_start - next_read,
                    "round": next_start - start})
    return [{k: v * 1e6 for k, v in r.items()} for r in out]


def print_rounds(found: list[dict[str, float]]) -> None:
    if not found:
        print("no complete round was stamped")
        return
    median = {name: statistics.median(r[name] for r in found) for name in found[0]}
    print(f"One table of 3 seats: {len(found)} rounds stamped; round median {median['round']:.0f} us "
          "(the phases overlap a little, so their sum differs)")
    for name, what in PHASES:
        print(f"  {name:<14}{median[name]:>7.0f} us {100 * median[name] / median['round']:>4.0f}%  {what}")


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        sys.exit(_serve_stamped(sys.argv[2], sys.argv[3:]))
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    print_rounds(rounds(*trio.run(_stamped_load, seconds)))


if __name__ == "__main__":
    main()
