"""`python -m bench.timeline`: where one table's action round trip goes, from stamps taken in both processes.

One Flag Finish Challenge table of 3 load seats, as in the bench's one-table row. The server stamps each action
it reads (`Connection._dispatch`), each arbiter batch (`Table._take_batch`) and each frame it hands to
trio-websocket (`send_message`); the load stamps each action it sends and each answer it gets. An action is
known on both sides by its seat's port (the client's local port, the server's remote one) and its id. Both use
``time.perf_counter`` (CLOCK_MONOTONIC on Linux, shared by every process), so each accepted action's round
trip splits into phases: to the server, queued for the arbiter, the arbiter's batch, the server's writers, to
the load. The medians are printed, with what a seat does between its answer and its next send. Stamping
slows both sides a little: these figures show where the time goes, not the targets.
"""

from __future__ import annotations

import atexit
import statistics
import sys
import tempfile
import time
from bisect import bisect_left
from pathlib import Path

import msgspec
import trio

from server.wire.sendpath import send_promptly

from .server_bench import NO_ADDRESS_LIMITS, free_port, start_process, stop


def peer_port(ws) -> int:
    """The client's port of a server-side websocket (its stream replays the HTTP head: see server/http.py)."""
    return ws._stream.socket.getpeername()[1]


def _serve_stamped(out: str, argv: list[str]) -> int:
    """The server process: `photofinish serve` with stamps, written to ``out`` when it exits."""
    import trio_websocket

    from server import table
    from server.gateway import connection as gateway
    from clients.cli import main
    from server.protocol import Act

    stamps: list[tuple] = []
    dispatch, send_message, take_batch = (gateway.Connection._dispatch, trio_websocket.WebSocketConnection.send_message,
                                          table.Table._take_batch)

    async def stamped_dispatch(self, lobby, directory, message, now):
        if type(message) is Act:
            stamps.append((time.perf_counter(), "read", peer_port(self.ws), message.id))
        return await dispatch(self, lobby, directory, message, now)

    async def stamped_send(self, message):
        stamps.append((time.perf_counter(), "sending", peer_port(self), None))
        return await send_message(self, message)

    def stamped_batch(self, intent):
        stamps.append((time.perf_counter(), "batch start", None, None))
        try:
            return take_batch(self, intent)
        finally:
            stamps.append((time.perf_counter(), "batch end", None, None))

    gateway.Connection._dispatch = stamped_dispatch
    trio_websocket.WebSocketConnection.send_message = stamped_send
    table.Table._take_batch = stamped_batch
    atexit.register(lambda: Path(out).write_bytes(msgspec.msgpack.encode(stamps)))
    return main(argv)


async def _stamped_load(seconds: float) -> tuple[list[tuple], list[tuple]]:
    """Run one table under load against a stamped server; returns (server stamps, load stamps)."""
    from clients import load

    stamps: list[tuple] = []
    send, answer = load._Link.send, load._answer

    async def stamped_send(self, message):
        await send(self, message)
        if isinstance(message, load._ActOut):
            stamps.append((time.perf_counter(), "sent", self.ws.local.port, message.id))

    async def stamped_answer(link, table, ref):
        message, arrived = await answer(link, table, ref)
        if message.type == "accepted":
            stamps.append((arrived, "answered", link.ws.local.port, ref))
        return message, arrived

    load._Link.send, load._answer = stamped_send, stamped_answer
    try:
        with tempfile.TemporaryDirectory() as data:
            out = Path(data) / "stamps"
            port = free_port()
            server = await start_process([sys.executable, "-m", "bench.timeline", "--serve", str(out), "serve",
                                          "--workers", "1", "--port", str(port), "--data", data, "--durability", "never",
                                          "--rate", "1000000", *NO_ADDRESS_LIMITS])
            try:
                await load.run_load(f"ws://127.0.0.1:{port}", 1, seconds, prepare=send_promptly)
            finally:
                await stop(server)
            if not out.exists():
                raise SystemExit("bench.timeline: the stamped server did not exit cleanly, so it wrote no stamps")
            return [tuple(s) for s in msgspec.msgpack.decode(out.read_bytes())], stamps
    finally:
        load._Link.send, load._answer = send, answer


PHASES = (
    ("to the server", "from the load's send to the server's reader having the action (wake-up, both readers)"),
    ("queued", "from there to the start of the arbiter batch that takes it"),
    ("arbiter batch", "that batch: its actions applied and logged, every seat's views and legal lists built"),
    ("server writes", "from the batch's end until the server hands this seat's frame to trio-websocket"),
    ("to the load", "from there until the load has the answer decoded (framing, send, wake-up, both readers)"),
)


def journeys(server: list[tuple], load: list[tuple]) -> list[dict[str, float]]:
    """Each accepted action's round trip and its phases, in microseconds (actions whose stamps are
    incomplete or out of order are left out); ``turnaround`` is the seat's time from its previous answer
    to this send (choosing, and the other seats' turns in the load process)."""
    reads = {(port, ref): t for t, kind, port, ref in server if kind == "read"}
    starts = sorted(t for t, kind, _, _ in server if kind == "batch start")
    ends = sorted(t for t, kind, _, _ in server if kind == "batch end")
    sending: dict[int, list[float]] = {}
    for t, kind, port, _ in server:
        if kind == "sending":
            sending.setdefault(port, []).append(t)
    for times in sending.values():
        times.sort()
    sent = {(port, ref): t for t, kind, port, ref in load if kind == "sent"}
    answers = sorted((t, port, ref) for t, kind, port, ref in load if kind == "answered")
    previous: dict[int, float] = {}
    out = []
    for answered, port, ref in answers:
        last, previous[port] = previous.get(port), answered
        key = (port, ref)
        if key not in sent or key not in reads:
            continue
        read = reads[key]
        i = bisect_left(starts, read)
        if i >= len(starts) or i >= len(ends) or ends[i] < starts[i]:
            continue
        start, end = starts[i], ends[i]
        times = sending.get(port, [])
        j = bisect_left(times, end)
        if j >= len(times) or not sent[key] <= read <= start <= end <= times[j] <= answered:
            continue
        journey = {"to the server": read - sent[key], "queued": start - read, "arbiter batch": end - start,
                   "server writes": times[j] - end, "to the load": answered - times[j],
                   "round trip": answered - sent[key]}
        if last is not None and last < sent[key]:
            journey["turnaround"] = sent[key] - last
        out.append({k: v * 1e6 for k, v in journey.items()})
    return out


def print_journeys(found: list[dict[str, float]]) -> None:
    if not found:
        print("no accepted action was stamped end to end")
        return
    median = {name: statistics.median(j[name] for j in found) for name, _ in PHASES}
    trip = statistics.median(j["round trip"] for j in found)
    turns = [j["turnaround"] for j in found if "turnaround" in j]
    print(f"One table of 3 seats: {len(found)} accepted actions followed; round trip median {trip:.0f} us "
          "(the medians of the phases need not add up to it exactly)")
    for name, what in PHASES:
        print(f"  {name:<14}{median[name]:>7.0f} us {100 * median[name] / trip:>4.0f}%  {what}")
    if turns:
        print(f"  {'(turnaround)':<14}{statistics.median(turns):>7.0f} us        not in the round trip: from a "
              "seat's answer to its next send (its choice, the other seats' turns in the load)")


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        sys.exit(_serve_stamped(sys.argv[2], sys.argv[3:]))
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    print_journeys(journeys(*trio.run(_stamped_load, seconds)))


if __name__ == "__main__":
    main()
