"""Fair ordering of contested actions by reaction time: the arithmetic and the order, pure.

The arbiter (``server/table/fair.py``), ``photofinish replay`` and ``verify`` (``server/logs/replay.py``) all decide
through these functions, so a log's every ordering decision can be recomputed from what it records.

- A seat's **reaction** to an update is ``arrival - sent - credit``: when its action reached the server,
  less when the server first sent it the update that offered the action, less its round trip as credited
  (``credited``: the median of its recent pings, bounded by its own takes and the kernel's measure), capped
  at ``fair_ms``.
- An action is **held** at most ``fair_ms - credit`` after its arrival (``hold_bound``): by then any action
  with a quicker reaction from a seat with a credit under the cap has arrived.
- The held actions released together (a **group**) go in order of reaction; reactions within ``EPSILON`` of
  the first of a run are a tie, ordered by lots drawn from the table's seed (``lot_rng``), then by arrival.
"""

from __future__ import annotations

import hashlib
import statistics
from typing import Callable, Sequence

from rules import Rng

EPSILON = 0.001  # seconds: reactions closer than this are a tie (our clocks measure no finer on a LAN)
LOT_RANGE = 2**32  # lots are drawn in [0, 2**32): below() never redraws (2**64 is a multiple)
EARLY_MARGIN = 0.001  # seconds: jitter allowed below a seat's round trip before an action counts as too early
EARLY_SHARE = 0.25  # ... or this share of the round trip, if more
GUESS_REACTION = 3600.0  # seconds: a guess's reaction, so that it goes after every real one of its group
ALL = object()  # every contested item (a release that is not of one item)


KERNEL_SLACK = 0.001  # seconds the application's round trip may exceed the kernel's (both ends' event loops)
QUICKEST_REACTION = 0.005  # seconds: no hand (nor our bots) reacts quicker; a take's arrival - send less this
# is still at least the seat's round trip, and a client that holds its pongs back gets no more than that
CAUGHT_MARGIN = 0.005  # seconds under half its quickest ping a take must arrive for the seat to count as caught


def typical(pings: list[float]) -> float:
    """The round trip an update and the action answering it typically take together: the median of the
    seat's recent ping samples. Not their minimum (NTP's rule, the path with no queueing): on a jittery path
    every action crosses the path as it is, and a minimum of 8 samples of +-5 ms each way runs about 6 ms
    under the average, which cost a far seat 7 points of its share. The median, not the mean: one sample
    slowed by a busy moment moves it by at most the next sample."""
    return statistics.median(pings)


def credited(pings: list[float] | None, path: float | None, kernel: float | None = None,
             estimate: Callable[[list[float]], float] = typical, unverified: float | None = None) -> float | None:
    """The round trip a seat is credited with: its ping estimate (``typical``: the median of its recent
    samples), never more than the quickest of its recent takes' arrival - first send less
    ``QUICKEST_REACTION`` (no reaction is quicker, so its round trip can be no longer), nor than the
    kernel's own smallest round trip of the connection plus ``KERNEL_SLACK`` (which a client cannot delay
    without delaying everything it sends). So answering pings late buys nothing on a direct connection, and
    no more than its own takes show behind a proxy. None: not measured. ``estimate=min``: the rule of logs
    written before 2026-11-28 (the smallest sample), which ``photofinish verify`` still accepts.
    ``unverified``: the most a seat is credited when the kernel's measure is not there (``kernel`` None: a
    connection through a proxy, or one the server was told not to read), the table's ``unverified_credit_ms``:
    a client chooses every timing such a seat shows, so a client that knows these rules can look as far as it
    likes (``server/PROTOCOL.md``, "Threat model"); None (tables before 2026-11-29): no such bound."""
    if not pings:
        return None
    credit = estimate(pings)
    takes = None if path is None else max(0.0, path - QUICKEST_REACTION)
    vouched = kernel + KERNEL_SLACK if kernel is not None else unverified
    for bound in (takes, vouched):
        if bound is not None and bound < credit:
            credit = bound
    return credit


def early_floor(rtt: float | None) -> float:
    """An action arriving sooner than this after its card was first sent to the seat could not have been a
    reaction to it: the update and the action each cross the path, so the seat's quickest round trip
    (``credited`` with ``estimate=min``: the least of its ping samples, never more than the kernel's measure
    on a direct connection, so pings slowed by a busy moment do not make an honest take look early, nor does
    a path jittering under its typical round trip), less a margin for jitter."""
    if not rtt:
        return 0.0
    return max(0.0, rtt - max(EARLY_MARGIN, EARLY_SHARE * rtt))


def held_back(since_sent: float, pings: list[float]) -> bool:
    """A take that arrived ``since_sent`` after its card left for the seat, though every one of its recent
    pings took more than twice that (plus ``CAUGHT_MARGIN``): its pongs say its path is far longer than this
    take crossed, by more than jitter or a busy machine explains, so it answers them late (a cheat). Its pings
    are then set aside for a while (``server/table/fair.py``). Not its ``too_early`` floor (three quarters of
    its quickest ping): on a machine at a load of 10, an honest far seat's pings ran so late that its quick
    takes fell under that floor, and setting its pings aside cost it its share (3.6% at +20 +-5 ms). An honest
    seat (reactions of 5 ms or more) whose pings each took at most twice its round trip + 20 ms is never caught."""
    return bool(pings) and since_sent < min(pings) / 2 - CAUGHT_MARGIN


def credit(rtt: float | None, cap: float) -> float:
    """The seat's round trip, capped at ``cap``; 0 before it was measured."""
    return min(rtt, cap) if rtt is not None and rtt > 0 else 0.0


def reaction(arrival: float, sent: float, rtt: float | None, cap: float) -> float:
    """Seconds from the update reaching the seat to its action leaving it, as the server can tell."""
    return arrival - sent - credit(rtt, cap)


def hold_bound(arrival: float, rtt: float | None, cap: float) -> float:
    """The latest an action may be held to: its arrival plus the cap, less its seat's credit."""
    return arrival + cap - credit(rtt, cap)


def lot_rng(seed: int) -> Rng:
    """The generator of a table's tie-break lots: seeded from a hash of the table's seed, so the lots, which
    are logged as they are drawn, give nothing away about the seed (and the deals) before the end reveals it."""
    digest = hashlib.sha256(b"photofinish fair lots" + seed.to_bytes(8, "big")).digest()
    return Rng(int.from_bytes(digest[:8], "big"))


Draw = Callable[[list[int]], list[int]]


def fair_order(reactions: Sequence[float], epsilon: float, draw: Draw) -> tuple[list[int], dict[int, int]]:
    """The order in which to apply a group of held actions, given their reactions in arrival order (index 0
    arrived first). Returns the indices in order and the lot of each index that was in a tie.

    Sorted by reaction (then arrival); a run of reactions each within ``epsilon`` of the run's first is a tie:
    ``draw(indices)`` gives one lot per index (the indices in arrival order), and the run goes by lot, then
    arrival. The server draws from ``lot_rng``; a replay passes the logged lots back."""
    ranked = sorted(range(len(reactions)), key=lambda i: (reactions[i], i))
    order: list[int] = []
    lots: dict[int, int] = {}
    start = 0
    while start < len(ranked):
        end = start + 1
        while end < len(ranked) and reactions[ranked[end]] - reactions[ranked[start]] <= epsilon:
            end += 1
        run = ranked[start:end]
        if len(run) > 1:
            by_arrival = sorted(run)
            drawn = dict(zip(by_arrival, draw(by_arrival)))
            lots.update(drawn)
            run = sorted(run, key=lambda i: (drawn[i], i))
        order += run
        start = end
    return order, lots


def draw_from(rng: Rng) -> Draw:
    """The server's ``draw``: one lot per index from the table's lot generator."""
    return lambda indices: [rng.below(LOT_RANGE) for _ in indices]
