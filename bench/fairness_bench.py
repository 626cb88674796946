"""Fair ordering (issue 31): who wins a close race for a discard card, by arrival and by reaction, and what
a cheating client can gain.

A `photofinish serve` process (default durability) and latency proxies, each in a process of its own (like a
real network path, a proxy shares no event loop with either end): a small trio TCP relay on 127.0.0.1 that
holds every chunk a set delay (plus optional jitter, order kept) in each direction.
Each Flag Finish Challenge table has two (or three) scripted seats over the client library. The newest card
on the discard pile is the prize: each seat asks for it after a reaction time drawn from the same
distribution (bots 5-60 ms; humans 200-400 ms), counted from when its client took the update in; the bench
records each seat's actual reaction (to sending the action, by its own clock: on a loaded machine its event
loop adds to the drawn time), so it knows who truly reacted first; the winner discards the card it has held
longest, which is the next prize.

**Scenarios** (each with `arrival` and with `fair` ordering): both seats direct (`serve --kernel-rtt always`,
every bench connection being from loopback), and through proxies (`--kernel-rtt never --unverified-credit-ms
50`: the proxies stand for a longer path that a direct connection's kernel would measure, which this machine
cannot make on loopback; by default a path the kernel did not measure earns no credit, see the cheat table): +20 ms each way, +20 +-5 ms (with fresh connections, and after 9 s seated:
the ping estimate's 8 samples), three seats at 0/+10/+20 ms, +50 ms (beyond the 50 ms round-trip credit
`fair_ms` allows) and human reactions at +20 ms. Per row: the contests (cards
every seat asked for), each seat's share of wins, the share of the **clear races** (the two quickest
reactions more than 2 ms apart) won by the seat that truly reacted first, the near seat's take -> answer
(p50/p90) and its extra wait over the `arrival` run, and the wait on uncontested actions (discard -> answer).

**Cheats** (`bench/fairness_cheats.py`): a cheating seat against an honest one at the same distance.

A take refused ``too_early`` is sent again (``TOO_EARLY_RETRIES``) while its card is still the prize, as a
player clicks again. Every process started (server, proxies) is stopped on the way out, also on Ctrl-C.

`python -m bench.fairness_bench [--quick] [--no-cheats | --cheats-only | --proxied-cheats]` runs it alone
(about 2.5 minutes; `--quick` under one, noisier: for development; `--proxied-cheats`: only the pong cheats
through proxies); `make bench` runs it with the rest (``CONTESTS`` per run).
Compare runs at a load average under 2: the bench's clocks are its own event loop's. It prints the load
average before and after, each row's (the higher of its start and end), marks every row run over 2
(``LOAD_MOST``) and says how many were: their figures are not the targets'.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import trio

from clients.client import ServerError, open_client
from rules.flag_finish.game import Discard, Discarded, TakeDiscard
from server.protocol import Snapshot, Update

from .server_bench import free_port, photofinish_server, start_process, stop

TABLES = 4
EMULATED = ("--kernel-rtt", "never", "--unverified-credit-ms", "50")  # the proxies stand for a path the kernel would
# measure on a direct connection (this machine cannot delay loopback segments: no netem), so their pings are
# credited up to fair_ms, as a direct connection's kernel measure allows
CONTESTS = 300  # contested cards per run (make bench); --quick: QUICK_CONTESTS
QUICK_CONTESTS = 100
RUN_SECONDS = 90.0  # a run stops here even short of its contests (the row says how many it got)
BOTS = (5.0, 60.0)  # reaction ms
HUMANS = (200.0, 400.0)
FAIR_MS = 50.0  # the server's default round-trip credit cap
CLEAR_MS = 2.0  # a race is clear when the two quickest reactions are more than this apart
WARMUP = 9.0  # seconds: 8 pings a seat, the estimate's whole window (server/latency.py KEEP), before racing
TOO_EARLY_RETRIES = 3  # a take refused too_early is sent again this many times at most, after a new reaction
LOOP_MOST = 100_000  # every side loop of a seat stops after this many turns (and at the run's end)
LOAD_MOST = 2.0  # a row run at a higher 1-minute load average is marked: its figures are not the targets'


@dataclass(frozen=True)
class Scenario:
    name: str
    delays: tuple[float, ...]  # each seat's extra delay each way, ms (0: straight to the server)
    jitter: float = 0.0  # +- ms on each chunk through a proxy
    reactions: tuple[float, float] = BOTS
    tables: int = TABLES
    share: float = 1.0  # of the run's contests (the humans' races are slow)
    first_target: float | None = None  # truly-first share of clear races, fair ordering
    share_target: bool = True  # each seat's share 1/seats +- 5 points with fair ordering
    warmup: float = 0.0  # seconds seated before racing (the ping estimate's 8 samples)

    @property
    def direct(self) -> bool:
        return not any(self.delays)


SCENARIOS = [
    Scenario("equal distance", (0.0, 0.0), first_target=0.96),
    Scenario("+20 ms", (0.0, 20.0), first_target=0.92),
    Scenario("+20 +-5 ms", (0.0, 20.0), jitter=5.0),
    Scenario("+20 +-5 ms, warm", (0.0, 20.0), jitter=5.0, warmup=WARMUP),
    Scenario("3 seats 0/+10/+20", (0.0, 10.0, 20.0)),
    Scenario("+50 ms", (0.0, 50.0), share_target=False),
    Scenario("humans +20 ms", (0.0, 20.0), reactions=HUMANS, tables=16, share=0.5),
]


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


async def start_proxy(stack: AsyncExitStack, server_port: int, delay_ms: float, jitter_ms: float = 0.0) -> str:
    """A proxy process (stopped when ``stack`` closes) in front of the server: its URL."""
    port = free_port()
    process = await start_process([sys.executable, "-m", "bench.fairness_bench", "--proxy", str(port),
                                   str(server_port), str(delay_ms), str(jitter_ms)])
    stack.push_async_callback(stop, process)
    return f"ws://127.0.0.1:{port}"


# ------------------------------------------------------------------ the race


@dataclass
class Tally:
    seats: int
    reactions: dict = field(default_factory=dict)  # key (table, seq the card came on top) -> {seat: reaction s}
    winners: dict = field(default_factory=dict)  # key -> seat
    offers: dict = field(default_factory=dict)  # (table, card) -> key of its latest time on top
    takes: dict = field(default_factory=dict)  # seat -> [take -> answer s]
    others: dict = field(default_factory=dict)  # seat -> [discard -> answer s] (uncontested)
    codes: dict = field(default_factory=dict)  # seat -> Counter of refusal codes
    extra: Counter = field(default_factory=Counter)  # what the cheats did (pongs guessed, resumes, guesses)

    def __post_init__(self) -> None:
        for seat in range(self.seats):
            self.takes[seat], self.others[seat], self.codes[seat] = [], [], Counter()

    def decided(self) -> list[tuple[dict, int]]:
        """The contested cards: every seat asked for it, and one got it."""
        return [(self.reactions[key], winner) for key, winner in self.winners.items()
                if len(self.reactions.get(key, {})) == self.seats]

    def win(self, table: str, card: str, seat: int) -> None:
        key = self.offers.get((table, card))
        if key is not None:
            self.winners[key] = seat


@dataclass
class Seat:
    """One scripted seat: where it connects, and the cheat it plays (None: honest)."""

    url: str
    cheat: str | None = None


PONG_DELAYS = {"pong10": 0.010, "pong25": 0.025, "pong60": 0.060, "ping_guess": 0.025, "floor30": 0.030}
PONG_DELAYS["floor30all"] = 0.030
FLOOR_TAKE = {"floor30": 0.035, "floor30all": 0.035}  # the cheats that know the rules: takes never sooner than
DISCARD_DELAYS = {"floor30all": 0.030}  # their pongs + 5 ms; the other holds back its discards as its pongs


async def racer(spec: Seat, table: str, seat: int, tally: Tally, halt: trio.Event, rng: random.Random,
                reactions: tuple[float, float], hands: dict, go: trio.Event) -> None:
    """Race for the newest discard card after a drawn reaction; discard the card held longest if won.
    ``hands``: (table, seat) -> that seat's hand, the card held longest first (its next discard), for the
    guessing cheat. ``go``: race from when it is set (until then the seat only answers pings)."""
    from . import fairness_cheats  # the cheats' side tasks (that module imports this one)

    cheat = spec.cheat
    async with open_client(spec.url, name=f"seat {seat}", pong_delay=PONG_DELAYS.get(cheat, 0.0)) as client:
        await client.take_seat(table, seat=seat)
        held: list[str] = hands.setdefault((table, seat), [])
        mine = {"pile": None, "prev": None, "top": None}  # the pile as last seen; the previous prize (for the
        # bogus cheat); the prize now
        top: str | None = None
        settled = [0]  # the seq of this seat's last accepted discard: a view from before it is old
        discarding = [False]
        async with trio.open_nursery() as nursery:
            uncounted = [not go.is_set()]  # the first race after a warm-up: the card was sent before it
            if not go.is_set():  # a warm-up: then a snapshot (resuming its own seat) to race the card on top
                async def start() -> None:
                    await go.wait()
                    await client.resume(table, client.seats[table].token, client.last_seq.get(table, 0))
                nursery.start_soon(start)
            if cheat in fairness_cheats.SIDE_TASKS:
                nursery.start_soon(fairness_cheats.SIDE_TASKS[cheat], client, table, seat, tally, halt, hands, mine)

            async def discard(card: str) -> None:
                await trio.sleep(DISCARD_DELAYS.get(cheat, 0.0))
                sent = time.perf_counter()
                try:
                    accepted = await client.act(table, Discard(card))
                    settled[0] = accepted.seq
                except ServerError as error:
                    tally.codes[seat]["discard " + error.code] += 1
                tally.others[seat].append(time.perf_counter() - sent)
                discarding[0] = False

            async def take(card: str, key: tuple, seq: int, reaction: float, got: float, count: bool) -> None:
                await trio.sleep(max(reaction, FLOOR_TAKE.get(cheat, 0.0)))
                sent = time.perf_counter()
                if count:
                    tally.reactions.setdefault(key, {})[seat] = sent - got  # the actual reaction
                seen = {"no_seen": None, "future_seen": seq + 1000}.get(cheat, seq)
                if cheat == "bogus" and mine["prev"] is not None:  # a take of a card just gone, at once with it
                    nursery.start_soon(fairness_cheats.bogus_take, client, table, mine["prev"], seq, tally, seat)
                    await trio.sleep(0)
                for attempt in range(1 + TOO_EARLY_RETRIES):
                    try:
                        await client.act(table, TakeDiscard(card), seen=seen)
                        tally.winners[key] = seat
                    except ServerError as error:
                        tally.codes[seat][error.code] += 1
                        if error.code == "too_early" and attempt < TOO_EARLY_RETRIES:  # as a player clicks again
                            await trio.sleep(rng.uniform(*reactions) / 1000)  # (else nobody may take the card:
                            if mine["top"] == card:  # no update follows a refusal, and the table would stall),
                                if cheat not in ("no_seen", "future_seen"):  # on the view it has now
                                    seen = client.last_seq.get(table, seq)
                                continue
                    break
                tally.takes[seat].append(time.perf_counter() - sent)

            fresh = True  # a card came on top since the last race (six flags share one name: not by name)
            async for message in client.messages:
                if halt.is_set():
                    break
                if type(message) is Update and any(type(event) is Discarded for event in message.events):
                    fresh = True
                if type(message) not in (Update, Snapshot) or message.view is None:
                    continue
                view = message.view
                held[:] = [c for c in held if c in view.hand] + [c for c in view.hand if c not in held]
                mine["pile"] = view.discard
                if view.drawn is not None:  # won: discard the card held longest, the next prize
                    if not discarding[0] and message.seq > settled[0]:
                        discarding[0] = True
                        nursery.start_soon(discard, next(c for c in held if c != view.drawn))
                    continue
                if not view.discard or any(view.must_discard) or not fresh or not go.is_set():
                    continue
                fresh = False
                if top is not None and top != view.discard[-1]:
                    mine["prev"] = top
                top = mine["top"] = view.discard[-1]
                key = tally.offers[(table, top)] = (table, message.seq)  # every seat sees it come on top there
                reaction = rng.uniform(*reactions) / 1000
                nursery.start_soon(take, top, key, message.seq, reaction, time.perf_counter(), not uncounted[0])
                uncounted[0] = False
            nursery.cancel_scope.cancel()


def percentiles(samples: list[float]) -> list[float] | None:
    """p50 and p90 in ms."""
    if not samples:
        return None
    ordered = sorted(samples)
    return [ordered[int(q * (len(ordered) - 1))] * 1000 for q in (0.5, 0.9)]


async def one_run(admin_url: str, seats: list[Seat], ordering: str, seed: int, contests: int,
                  reactions: tuple[float, float] = BOTS, tables: int = TABLES, warmup: float = 0.0) -> dict:
    """``tables`` tables of ``len(seats)`` seats racing until ``contests`` contested cards (or RUN_SECONDS),
    after ``warmup`` seconds seated (pings only: a game past its first seconds has 8 ping samples a seat)."""
    n = len(seats)
    tally, stop_event, hands, go = Tally(n), trio.Event(), {}, trio.Event()
    rng = random.Random(seed)
    load = os.getloadavg()[0]
    begin = time.perf_counter()
    async with open_client(admin_url) as admin:
        ids = [(await admin.create_table(game="flag_finish", mode="challenge", seats=n, ordering=ordering,
                                         options={"races": 1, "action_limit": 1_000_000})).table
               for _ in range(tables)]
        async with trio.open_nursery() as nursery:
            for table in ids:
                for seat, spec in enumerate(seats):
                    nursery.start_soon(racer, spec, table, seat, tally, stop_event, random.Random(rng.random()),
                                       reactions, hands, go)
            await trio.sleep(warmup)
            go.set()
            with trio.move_on_after(RUN_SECONDS):
                while len(tally.decided()) < contests:
                    await trio.sleep(0.1)
            stop_event.set()
            infos = [info for info in await admin.list_tables() if info.table in ids]
            await trio.sleep(0.3)
            nursery.cancel_scope.cancel()
    decided = tally.decided()
    clear = []
    for reacted, winner in decided:
        quickest = sorted(reacted.values())
        if quickest[1] - quickest[0] > CLEAR_MS / 1000:
            clear.append(min(reacted, key=reacted.get) == winner)
    pings = [[s.ping_ms for info in infos for s in info.seats if s.seat == seat and s.ping_ms is not None]
             for seat in range(n)]
    return {"ordering": ordering, "contests": len(decided), "seconds": round(time.perf_counter() - begin, 1),
            "load": round(max(load, os.getloadavg()[0]), 2),
            "shares": [sum(w == seat for _, w in decided) / max(1, len(decided)) for seat in range(n)],
            "clear": len(clear), "first_share": sum(clear) / max(1, len(clear)),
            "reaction_ms": [statistics.fmean(r[seat] for r, _ in decided) * 1000 if decided else None
                            for seat in range(n)],  # each seat's mean actual reaction (drawn + its event loop)
            "take_ms": [percentiles(tally.takes[seat]) for seat in range(n)],
            "other_ms": [percentiles(tally.others[seat]) for seat in range(n)],
            "guesses": [sum(s.guesses for info in infos for s in info.seats if s.seat == seat) for seat in range(n)],
            "ping_ms": [statistics.median(p) if p else None for p in pings],
            "codes": [dict(tally.codes[seat]) for seat in range(n)], "extra": dict(tally.extra)}


async def scenario_rows(contests: int) -> list[dict]:
    rows = []
    for scenario in SCENARIOS:
        if not scenario.direct:
            continue
        async with photofinish_server(extra=("--kernel-rtt", "always")) as (_, url):
            for index, ordering in enumerate(("arrival", "fair")):
                row = await one_run(url, [Seat(url) for _ in scenario.delays], ordering, index,
                                    int(contests * scenario.share), scenario.reactions, scenario.tables,
                                    scenario.warmup)
                rows.append({"scenario": scenario.name, **row})
    async with photofinish_server(extra=EMULATED) as (_, url), AsyncExitStack() as stack:
        port = int(url.rsplit(":", 1)[1])
        proxies: dict[tuple[float, float], str] = {}
        for scenario in SCENARIOS:
            if scenario.direct:
                continue
            urls = []
            for delay in scenario.delays:
                if not delay:
                    urls.append(url)
                    continue
                if (delay, scenario.jitter) not in proxies:
                    proxies[(delay, scenario.jitter)] = await start_proxy(stack, port, delay, scenario.jitter)
                urls.append(proxies[(delay, scenario.jitter)])
            for index, ordering in enumerate(("arrival", "fair")):
                row = await one_run(url, [Seat(u) for u in urls], ordering, index, int(contests * scenario.share),
                                    scenario.reactions, scenario.tables, scenario.warmup)
                rows.append({"scenario": scenario.name, **row})
    return rows


async def main(contests: int = CONTESTS, cheats: bool = True, scenarios: bool = True, direct: bool = True) -> dict:
    from . import fairness_cheats

    result = {"contests": contests, "scenarios": [], "cheats": []}
    if scenarios:
        result["scenarios"] = await scenario_rows(contests)
    if cheats:
        result["cheats"] = await fairness_cheats.cheat_rows(contests, direct)
    return result


def run(contests: int = CONTESTS, cheats: bool = True, scenarios: bool = True, direct: bool = True) -> dict:
    return trio.run(main, contests, cheats, scenarios, direct)


# ------------------------------------------------------------------ the tables


def _pair(values: list[float] | None) -> str:
    return "-" if values is None else f"{values[0]:.1f}/{values[1]:.1f}"


def print_scenarios(rows: list[dict]) -> None:
    print(f"Fair ordering: {TABLES} tables (humans: 16), seats race for each newest discard card; reactions "
          f"{BOTS[0]:g}-{BOTS[1]:g} ms (humans {HUMANS[0]:g}-{HUMANS[1]:g}); +N ms: N ms farther each way "
          f"through a proxy process (serve --kernel-rtt never --unverified-credit-ms 50: the kernel's measure emulated), equal distance: both direct (--kernel-rtt always)")
    print(f"{'scenario':<19}{'ordering':<9}{'contests':>8}  {'shares (far / each seat)':<28}{'clear':>6}"
          f"{'first':>7}{' (target)':<10}{'near take':>11}{'extra':>12}{' (target)':<11}{'uncontested':>13}"
          f"{'extra':>7}{'guesses':>9}{'load':>6}  ok")
    print(f"{'':<19}{'':<9}{'':>8}  {'':<28}{'':>6}{'':>7}{'':<10}{'p50/p90 ms':>11}{'p50/p90 ms':>12}{'':<11}"
          f"{'p50/p90 ms':>13}{'p50':>7}{'by seat':>9}")
    scenarios = {s.name: s for s in SCENARIOS}
    arrival: dict[str, dict] = {}
    for row in rows:
        scenario = scenarios[row["scenario"]]
        n = len(scenario.delays)
        fair = row["ordering"] == "fair"
        if not fair:
            arrival[row["scenario"]] = row
        base = arrival.get(row["scenario"])
        misses = []
        margin = 196 * (0.25 / max(1, row["contests"])) ** 0.5  # a fair coin's 95% interval, in points
        if n == 2:
            share = f"far {row['shares'][1]:.1%} +-{margin:.0f}"
            share += " (50+-5)" if fair and scenario.share_target else (" (no target)" if fair else "")
            if fair and scenario.share_target and abs(row["shares"][1] - 0.5) > 0.05:
                misses.append("share")
        else:
            share = " ".join(f"{s:.0%}" for s in row["shares"]) + (" (33+-5)" if fair else "")
            if fair and any(abs(s - 1 / n) > 0.05 for s in row["shares"]):
                misses.append("share")
        first_target = ""
        if fair and scenario.first_target is not None:
            first_target = f" (>={scenario.first_target:.0%})"
            if row["first_share"] < scenario.first_target:
                misses.append("first")
        extra, wait_target, uncontested = "-", "", "-"
        if fair and base is not None and row["take_ms"][0] and base["take_ms"][0]:
            diff = [a - b for a, b in zip(row["take_ms"][0], base["take_ms"][0])]
            extra = _pair(diff)
            bound = min(2 * (max(scenario.delays) - scenario.delays[0]), FAIR_MS) + 5
            wait_target = f" (<={bound:g})"
            if diff[0] > bound:
                misses.append("wait")
            if row["other_ms"][0] and base["other_ms"][0]:
                gap = row["other_ms"][0][0] - base["other_ms"][0][0]
                uncontested = f"{gap:+.1f}"
                if gap > 1.0:
                    misses.append("uncontested")
        ok = ("FAIL " + ",".join(misses)) if misses else ("PASS" if fair else "")
        ok += loaded(row)
        print(f"{row['scenario']:<19}{row['ordering']:<9}{row['contests']:>8}  {share:<28}{row['clear']:>6}"
              f"{row['first_share']:>7.1%}{first_target:<10}{_pair(row['take_ms'][0]):>11}{extra:>12}"
              f"{wait_target:<11}{_pair(row['other_ms'][0]):>13}{uncontested:>7}{'/'.join(map(str, row['guesses'])):>9}{row['load']:>6.2f}  {ok}")
    print("shares' +-: a fair coin's 95% interval over that many contests; +50 ms: a 100 ms round trip, beyond the "
          "50 ms of credit fair_ms gives, so no share target")
    print("first: the share of clear races (two quickest reactions > 2 ms apart) won by the seat that truly "
          "reacted first; extra: the near seat's take -> answer over the arrival run's; uncontested: a discard "
          "-> answer (target 0, PASS within 1 ms at p50); guesses: list_tables' SeatInfo.guesses (honest seats: "
          "0 expected); load: 1-min load average at the run")
    say_load(rows)


def loaded(row: dict) -> str:
    """A row's mark when it ran at a load average over ``LOAD_MOST``."""
    return f" (load {row['load']:.1f} > {LOAD_MOST:g})" if row["load"] > LOAD_MOST else ""


def say_load(rows: list[dict]) -> None:
    busy = [row for row in rows if row["load"] > LOAD_MOST]
    if busy:
        print(f"LOAD: {len(busy)} of {len(rows)} rows ran at a 1-minute load average over {LOAD_MOST:g} (up to "
              f"{max(r['load'] for r in busy):.1f}): their figures are not the targets' (the bench's clocks are its "
              "own event loop's, starved on a busy machine); compare runs at a load under 2")
    else:
        print(f"load: every row ran at a 1-minute load average under {LOAD_MOST:g}")


def print_table(result: dict) -> None:
    from . import fairness_cheats

    if result.get("scenarios"):
        print_scenarios(result["scenarios"])
    if result.get("cheats"):
        if result.get("scenarios"):
            print()
        fairness_cheats.print_cheats(result["cheats"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--proxy"]:
        trio.run(proxy_main, int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
    else:
        arguments = sys.argv[1:]
        unknown = [a for a in arguments if a not in ("--quick", "--no-cheats", "--cheats-only", "--proxied-cheats")]
        if unknown:
            sys.exit(f"usage: python -m bench.fairness_bench [--quick] [--no-cheats] [--cheats-only] "
                     f"[--proxied-cheats]; not {unknown}")
        proxied = "--proxied-cheats" in arguments  # only the pong cheats through proxies (the decisive rows)
        print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load average", open("/proc/loadavg").read().strip())
        print_table(run(QUICK_CONTESTS if "--quick" in arguments else CONTESTS, "--no-cheats" not in arguments,
                        "--cheats-only" not in arguments and not proxied, not proxied))
        print("load average after:", open("/proc/loadavg").read().strip())
