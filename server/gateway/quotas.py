"""What all the connections of one gateway share, per address: the request budget, the message rate, the
tournament and registration rates, the replay worker and the cached list of tables."""

from __future__ import annotations

import math

from ..limits import Buckets
from ..protocol import (Code, CreateTournament, Leaderboard, ListTables, ListTournaments, OpenPlayback, Refusal,
                        Register, Replay, TournamentLog)
from .config import Limits
from .listing import TablesCache
from .replays import ReplayWorker

COSTS = {ListTables: 1, ListTournaments: 1, Leaderboard: 2, Replay: 8, OpenPlayback: 8,
         TournamentLog: 8}  # request-cost units
EXPLAINED_RATE, EXPLAINED_BURST = 2.0, 16  # refused connections an address is told why, a second and at once
UNIT_BYTES = 16 * 1024  # a list_tables answer costs one unit more for each this many bytes


def retry_ms(retry: float) -> int:
    """When a request refused for a rate or a budget would be taken (``Refusal.retry_ms``)."""
    return max(1, math.ceil(retry * 1000))


class Quotas:
    """What one gateway's connections share: the per-address request budget, the tournament and registration
    rates per address, and the cached list of tables."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.budget = Buckets(limits.budget_rate, limits.budget_burst)
        self.messages = Buckets(limits.address_rate, limits.address_burst)
        self.explained = Buckets(EXPLAINED_RATE, EXPLAINED_BURST)  # refusals told in words, per address
        self.turns: dict[str, list] = {}  # address -> [its lock, connections waiting] while it is over its rate
        self.replays = ReplayWorker()
        self.created = Buckets(limits.tournaments_per_minute / 60, limits.tournaments_per_minute)
        self.registered = Buckets(limits.registrations_per_minute / 60, limits.registrations_per_minute)
        self.tables = TablesCache(limits.tables_cache)

    def spend(self, peer: str, cost: float, now: float) -> None:
        """Take ``cost`` from the address's budget, or refuse the request (``over_budget``, nothing done)."""
        cost = min(cost, self.budget.burst)  # a request dearer than the burst is still possible, when it is full
        retry = self.budget.take(peer, cost, now)
        if retry:
            limits = self.limits
            raise Refusal(Code.OVER_BUDGET, f"this address asks for more than {limits.budget_rate:g} request units a "
                                            f"second (at once {limits.budget_burst:g}), the most serve --budget-rate "
                                            f"allows; this request costs {cost:g}: nothing was done, retry in "
                                            f"{math.ceil(retry * 1000)} ms", retry_ms(retry))

    def count(self, kind: type, peer: str, now: float) -> None:
        """A tournament created or a registration made from ``peer``, or its refusal (``rate_limited``)."""
        if kind is CreateTournament:
            buckets, what, flag = self.created, "tournaments", "--tournaments-per-minute"
        elif kind is Register:
            buckets, what, flag = self.registered, "registrations", "--registrations-per-minute"
        else:
            return
        retry = buckets.take(peer, 1, now)
        if retry:
            raise Refusal(Code.RATE_LIMITED, f"this address makes more than {buckets.burst:g} {what} a minute, the "
                                             f"most serve {flag} allows: nothing was done, retry in "
                                             f"{math.ceil(retry * 1000)} ms", retry_ms(retry))
