"""Fair ordering under unequal latency: who wins a close race for a discard card, by arrival and by reaction.

A `photofinish serve` process (default durability) and a latency proxy in a process of its own (like a real
network path, it shares no event loop with either end): a small trio TCP relay on 127.0.0.1 that holds every
chunk a set delay (plus optional jitter, order kept) in each direction.
Each of ``TABLES`` Flag Finish Challenge tables has two scripted seats over the client library: the near
seat straight to the server, the far seat through the proxy (+20 ms each way). The newest card on the discard
pile is the prize: each seat asks for it after a reaction time drawn from the same distribution (5-60 ms,
counted from when its client got the update); the bench records each seat's actual reaction (from taking
the update in to sending the action, by its own clock: on a loaded machine its event loop adds to the drawn
time), so it knows who truly reacted first; the winner discards the card it has held longest, which is the
next prize (so a late take for an earlier prize never finds that card on the pile again). Over at least ``CONTESTS`` contested cards per run, with
``arrival`` and with ``fair`` ordering, without and with +-5 ms jitter: the far seat's share of wins, the
share won by the seat that truly reacted first, and each seat's take -> answer round trip (what the near seat
pays for fairness is the difference of its round trip between the two orderings).

`python -m bench.fairness_bench` runs it alone (about 30 s); `make bench` runs it with the rest.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from dataclasses import dataclass, field

import trio

from clients.client import ActionRejected, open_client
from rules.flag_finish.game import Discard, TakeDiscard
from server.protocol import Snapshot, Update

from .server_bench import free_port, photofinish_server, start_process, stop

TABLES = 4
CONTESTS = 400  # at least this many contested cards per run
FAR_MS = 20.0  # the far seat's extra delay, each way
REACTION_MS = (5.0, 60.0)


# ------------------------------------------------------------------ the latency proxy


async def _relay(source: trio.SocketStream, target: trio.SocketStream, delay: float, jitter: float,
                 rng: random.Random) -> None:
    """Copy ``source`` to ``target``, each chunk ``delay`` (+- ``jitter``) seconds late, in order; returns when
    either side closes or breaks."""
    send, receive = trio.open_memory_channel[tuple[float, bytes]](1000)
    gone = (trio.BrokenResourceError, trio.ClosedResourceError)

    async def writer() -> None:
        try:
            async for due, chunk in receive:
                await trio.sleep_until(due)
                await target.send_all(chunk)
        except gone:
            pass
        nursery.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer)
        last = 0.0
        try:
            while chunk := await source.receive_some(65536):
                last = max(last, trio.current_time() + delay + rng.uniform(-jitter, jitter))
                await send.send((last, chunk))
        except gone:
            nursery.cancel_scope.cancel()
        await send.aclose()


@dataclass
class Proxy:
    """Listens on 127.0.0.1 and relays each connection to ``port`` with the delay in each direction."""

    port: int
    delay: float
    jitter: float = 0.0
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    async def serve(self, port: int = 0, task_status=trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
        task_status.started(listeners[0].socket.getsockname()[1])
        await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, client: trio.SocketStream) -> None:
        async with client, await trio.open_tcp_stream("127.0.0.1", self.port) as server:
            async with trio.open_nursery() as nursery:
                async def both(source, target):
                    await _relay(source, target, self.delay, self.jitter, self.rng)
                    nursery.cancel_scope.cancel()  # one side closed: the connection is over
                nursery.start_soon(both, client, server)
                nursery.start_soon(both, server, client)


async def proxy_main(port: int, target: int, delay_ms: float, jitter_ms: float) -> None:
    """``python -m bench.fairness_bench --proxy PORT TARGET DELAY_MS JITTER_MS``: a proxy process."""
    proxy = Proxy(target, delay_ms / 1000, jitter_ms / 1000)
    async with trio.open_nursery() as nursery:
        await nursery.start(proxy.serve, port)
        print(f"proxy listening on {port}", flush=True)


# ------------------------------------------------------------------ the race


@dataclass
class Tally:
    reactions: dict = field(default_factory=dict)  # (table, seq) -> {seat: reaction s}
    winners: dict = field(default_factory=dict)  # (table, seq) -> seat
    round_trips: dict = field(default_factory=lambda: {0: [], 1: []})  # seat -> take -> answer seconds

    def done(self) -> int:
        return sum(1 for key in self.winners if len(self.reactions.get(key, {})) == 2)


async def racer(url: str, table: str, seat: int, tally: Tally, stop: trio.Event, rng: random.Random) -> None:
    """One scripted seat: race for the newest discard card after a drawn reaction; discard another if won."""
    async with open_client(url, name=f"seat {seat}") as client:
        await client.take_seat(table, seat=seat)
        raced: set[int] = set()
        held: list[str] = []  # this seat's hand, the card held longest first
        async with trio.open_nursery() as nursery:
            async def discard(card: str) -> None:
                try:
                    await client.act(table, Discard(card))
                except ActionRejected:
                    pass

            async def take(card: str, seq: int, reaction: float, got: float) -> None:
                await trio.sleep(reaction)
                sent = time.perf_counter()
                tally.reactions.setdefault((table, seq), {})[seat] = sent - got  # the actual reaction
                try:
                    await client.act(table, TakeDiscard(card), seen=seq)
                    tally.winners[(table, seq)] = seat
                except ActionRejected:
                    pass
                tally.round_trips[seat].append(time.perf_counter() - sent)

            async for message in client.messages:
                if stop.is_set():
                    break
                if type(message) not in (Update, Snapshot) or message.view is None:
                    continue
                view = message.view
                held = [c for c in held if c in view.hand] + [c for c in view.hand if c not in held]
                if view.drawn is not None:  # won: discard the card held longest, the next prize
                    other = next(c for c in held if c != view.drawn)
                    held.remove(other)
                    nursery.start_soon(discard, other)
                elif view.discard and not any(view.must_discard) and message.seq not in raced:
                    raced.add(message.seq)
                    reaction = rng.uniform(*REACTION_MS) / 1000
                    nursery.start_soon(take, view.discard[-1], message.seq, reaction, time.perf_counter())
            nursery.cancel_scope.cancel()


async def one_run(url: str, proxy_url: str, ordering: str, seed: int) -> dict:
    tally, stop = Tally(), trio.Event()
    rng = random.Random(seed)
    async with open_client(url) as admin:
        tables = [(await admin.create_table(game="flag_finish", mode="challenge", seats=2, ordering=ordering,
                                            options={"races": 1, "action_limit": 1_000_000})).table
                  for _ in range(TABLES)]
    begin = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for table in tables:
            nursery.start_soon(racer, url, table, 0, tally, stop, random.Random(rng.random()))
            nursery.start_soon(racer, proxy_url, table, 1, tally, stop, random.Random(rng.random()))
        with trio.fail_after(120):
            while tally.done() < CONTESTS:
                await trio.sleep(0.1)
        stop.set()
        await trio.sleep(0.3)
        nursery.cancel_scope.cancel()
    decided = [(tally.reactions[k], w) for k, w in tally.winners.items() if len(tally.reactions.get(k, {})) == 2]
    first = sum(1 for reactions, winner in decided if min(reactions, key=reactions.get) == winner)
    near_rt, far_rt = tally.round_trips[0], tally.round_trips[1]
    return {"ordering": ordering, "contests": len(decided), "seconds": time.perf_counter() - begin,
            "far_share": sum(w == 1 for _, w in decided) / len(decided), "first_share": first / len(decided),
            "near_rt_p50_ms": statistics.median(near_rt) * 1000, "far_rt_p50_ms": statistics.median(far_rt) * 1000}


async def main() -> list[dict]:
    rows = []
    async with photofinish_server() as (_, url):
        port = int(url.rsplit(":", 1)[1])
        for jitter in (0.0, 5.0):
            proxy_port = free_port()
            proxy = await start_process([sys.executable, "-m", "bench.fairness_bench", "--proxy", str(proxy_port),
                                         str(port), str(FAR_MS), str(jitter)])
            try:
                for index, ordering in enumerate(("arrival", "fair")):
                    row = await one_run(url, f"ws://127.0.0.1:{proxy_port}", ordering, seed=index)
                    rows.append({"jitter_ms": jitter, **row})
            finally:
                await stop(proxy)
    return rows


def run() -> list[dict]:
    return trio.run(main)


def print_table(rows: list[dict]) -> None:
    print(f"Fair ordering: two seats race for {TABLES} tables' discard cards, one {FAR_MS:g} ms farther each way; "
          f"reactions {REACTION_MS[0]:g}-{REACTION_MS[1]:g} ms")
    print(f"{'jitter':>7}{'ordering':>10}{'contests':>10}{'far wins':>10}{'first wins':>12}"
          f"{'near rt p50':>13}{'far rt p50':>12}{'near pays':>11}")
    arrival_rt = {}
    for row in rows:
        if row["ordering"] == "arrival":
            arrival_rt[row["jitter_ms"]] = row["near_rt_p50_ms"]
        pays = row["near_rt_p50_ms"] - arrival_rt.get(row["jitter_ms"], row["near_rt_p50_ms"])
        print(f"{'+-%g ms' % row['jitter_ms']:>7}{row['ordering']:>10}{row['contests']:>10}"
              f"{row['far_share']:>10.1%}{row['first_share']:>12.1%}{row['near_rt_p50_ms']:>10.1f} ms"
              f"{row['far_rt_p50_ms']:>9.1f} ms{pays:>8.1f} ms")
    print("targets with fair: far wins 50% +- 5, first wins >= 90%")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--proxy"]:
        trio.run(proxy_main, int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
    else:
        print_table(run())
