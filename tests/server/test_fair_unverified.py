"""Fair ordering where the kernel does not vouch for a seat's path (a connection through a local proxy, or a
server told not to read the kernel): the credit is bounded by the table's ``unverified_credit_ms``
(`serve --unverified-credit-ms`, default 0), so the informed cheat that looks farther than it is (pongs held
back X, takes never sooner than X + 5 ms, replies held back X: every timing the server sees is one it chose)
buys nothing; and `verify` recomputes the bounded credit from the log's header."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
import trio
from hypothesis import given, strategies as st

from server.config import ServeConfig
from server.fairness import KERNEL_SLACK, credited
from server.gateway.config import Limits
from server.lobby import Lobby
from server.protocol import CreateTable, TakeSeat
from server.logs.replay import check_log
from server.table import intents

from .helpers import end_by_time_limit, settle
from .test_fairness import Seat, contest_g5, fair_table, race, rewrite, winner

HOLD = 0.030  # the informed cheat's pongs held back: it looks 15 ms farther each way
DISTANCE = 0.010  # both seats 10 ms from the server each way, as behind the bench's proxies


@given(pings=st.lists(st.integers(1, 200), min_size=1, max_size=8), path=st.none() | st.integers(5, 400),
       kernel=st.none() | st.integers(0, 100), unverified=st.integers(0, 50))
def test_without_the_kernels_measure_the_credit_is_at_most_the_tables_unverified_bound(pings, path, kernel,
                                                                                        unverified):
    samples, takes = [p / 1000 for p in pings], None if path is None else path / 1000
    vouched = None if kernel is None else kernel / 1000
    bounded = credited(samples, takes, vouched, unverified=unverified / 1000)
    if vouched is None:
        assert bounded <= unverified / 1000, "no more than the operator allows where the kernel did not measure"
    else:
        assert bounded == credited(samples, takes, vouched), "the kernel's measure is the bound where it is read"
        assert bounded <= vouched + KERNEL_SLACK


async def informed_cheat_wins(nursery, unverified_ms: int | None, contests: int = 40) -> tuple[int, int]:
    """The informed cheat (seat 1) against an honest seat (0) at the same distance, reactions 5-60 ms drawn
    alike: (the cheat's wins, the races its take truly reached the server first)."""
    honest, cheat = Seat(DISTANCE), Seat(DISTANCE, pong_delay=HOLD)
    table = await fair_table(nursery, [honest, cheat], unverified_credit_ms=unverified_ms)
    rng = random.Random(7)
    wins = first = 0
    for _ in range(contests):
        reactions = [rng.uniform(0.005, 0.060), rng.uniform(0.005, 0.060)]
        reactions[1] = max(reactions[1], HOLD + 0.005)  # never a take quicker than its pongs allow: never caught
        contest_g5(table)
        await race(table, [honest, cheat], reactions)
        wins += winner(table) == 1
        first += reactions[1] < reactions[0]
    await table.stop()
    return wins, first


async def test_the_informed_cheat_buys_no_card_where_the_kernel_did_not_measure_its_path(nursery, autojump_clock):
    """With the default bound (0) the cheat wins only the races its take truly won; the same script against a
    table that believes its pings (no bound: the rule before) wins many more: what the bound closes."""
    wins, first = await informed_cheat_wins(nursery, unverified_ms=0)
    assert wins <= first, "no card beyond the ones its hand truly won"
    believed, _ = await informed_cheat_wins(nursery, unverified_ms=None)
    assert believed >= first + 8, "without the bound its made-up distance wins cards"


async def test_an_honest_far_seat_is_credited_its_round_trip_where_the_kernel_measured_it(nursery, autojump_clock):
    """The bound is only for paths the kernel did not measure: a far seat on a direct connection (the kernel
    read) keeps its credit and wins the card it truly reacted to first."""
    near, far = Seat(0.001), Seat(0.021)
    near.latency.kernel, far.latency.kernel = (lambda: 0.002), (lambda: 0.042)
    table = await fair_table(nursery, [near, far], unverified_credit_ms=0)
    contest_g5(table)
    await race(table, [near, far], [0.030, 0.010])
    assert winner(table) == 1
    entry = next(e for e in table.log.entries if e.fair is not None and e.actor == 1)
    assert entry.fair.kernel == 0.042 and abs(entry.fair.rtt - 0.042) < 1e-9
    await table.stop()


def play_unverified(folder, bound: int) -> object:
    """A logged fair table made by a lobby with ``bound`` (as `serve --unverified-credit-ms`), a near seat
    and a far one with no kernel measure racing for cards; the log's path."""
    async def run():
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, folder, "never", unverified_credit_ms=bound)
            table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                   options={"races": 1}))
            seats = [Seat(0.004), Seat(0.021)]  # round trips 8 and 42 ms, neither measured by the kernel
            for index, seat in enumerate(seats):
                await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
            await settle()
            card = table.session.state.discard[-1]  # the far seat reacts first, but is credited 5 ms, not 42
            await race(table, seats, [0.030, 0.010], action={"type": "take", "card": card})
            assert table.session.state.drawn[0] is not None, "the near seat's take arrived first and won"
            await end_by_time_limit(table)
            nursery.cancel_scope.cancel()
            return table.store.path

    return trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


def test_the_bound_is_in_the_log_and_verify_recomputes_the_credit_with_it(tmp_path):
    path = play_unverified(tmp_path, bound=5)
    report = check_log(path)
    assert report.ok, report.problem  # the 5 ms credited is recomputed from the header's bound
    lines = path.read_text().splitlines()
    assert '"unverified_credit_ms":5' in lines[0]
    assert '"rtt":0.005' in next(line for line in lines if '"fair":{' in line), "8 ms of pings, credited 5"

    def believe_the_pings(record):  # a log claiming the seat's pings were credited in full
        fair = record.get("fair")
        if fair and fair.get("pings"):
            fair["rtt"] = max(fair["pings"])
        return record

    rewrite(path, believe_the_pings)
    assert "not what its logged ping samples" in (check_log(path).problem or "")


def test_serve_holds_the_bound_to_0_1000_ms_and_defaults_to_0():
    assert Limits().unverified_credit_ms == 0
    assert ServeConfig().limits.unverified_credit_ms == 0
    from server.config import ConfigError

    with pytest.raises(ConfigError, match="unverified-credit-ms"):
        ServeConfig(limits=Limits(unverified_credit_ms=1001))


async def test_a_held_take_is_released_at_its_timers_own_deadline_whatever_the_rounding(nursery, autojump_clock):
    """The table's timer wakes at ``t0 + until`` on the trio clock; at that instant the take must be due.
    Judged in table time (``clock - t0``), rounding left some deadlines a hair short: the timer fired again
    at once, for ever under a clock that only moves when every task waits (found by a 40-race test above,
    whose second table started 43 s into the clock)."""
    import msgspec

    from server.table import fair
    from .test_fairness import hold_a_take

    autojump_clock.jump(43.017)  # a table started a while into the clock, as every table but a test's first is
    table, near, _ = await hold_a_take(nursery)
    held = table.held[0]
    until = held.fair.until
    while (table.t0 + until) - table.t0 >= until:  # a deadline whose table time rounds below it
        until = math.nextafter(until, math.inf)
    table.held[0] = dataclasses.replace(held, fair=msgspec.structs.replace(held.fair, until=until))
    autojump_clock.jump(table.t0 + until - trio.current_time())
    assert trio.current_time() == table.t0 + until, "the timer's own deadline"
    fair.release_due(table)
    assert not table.held, "due at its deadline"
    await table.stop()
