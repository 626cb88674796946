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
        self.by_address: dict[str, set] = {}  # address -> its connections open (``check_seats`` counts their seats)

    def check_seats(self, conn) -> None:
        """Refuse another seat (``too_many_seats``) to a connection, or an address, that holds its share at tables
        not over: a table someone sits at and never plays (a lockstep game waits for its turn for ever) held one
        of the server's tables counted nowhere, and one address filled all 2,000 in seconds. A seat at a finished
        table, or one left, counts no more."""
        mine = seats_held(conn)
        limits = self.limits
        if limits.seats_per_connection and mine >= limits.seats_per_connection:
            raise Refusal(Code.TOO_MANY_SEATS, f"this connection holds {mine} seats at tables still playing, the "
                                               f"most serve --seats-per-connection allows: leave one, or finish it")
        if limits.seats_per_address:
            address = mine + sum(seats_held(other) for other in self.by_address.get(conn.peer, ()) if other is not conn)
            if address >= limits.seats_per_address:
                raise Refusal(Code.TOO_MANY_SEATS, f"this address holds {address} seats at tables still playing, "
                                                   "the most serve --seats-per-address allows")

    def spend(self, peer: str, cost: float, now: float) -> None:
        """Take ``cost`` from the address's budget, or refuse the request (``over_budget``, nothing done)."""
        # a request dearer than the burst is still possible, when the bucket is full, and leaves it owing the rest:
        # capped at the burst, a playback of a 30 MB log cost 120 units for 1.1 s of CPU (red team 8)
        retry = self.budget.take(peer, min(cost, self.budget.burst), now)
        if not retry and cost > self.budget.burst:
            self.budget.buckets[peer].tokens -= cost - self.budget.burst
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


def seats_held(conn) -> int:
    """The seats ``conn`` holds at tables whose game is not over (of the tables it sat at or watched)."""
    return sum(1 for table in conn.tables if getattr(table, "slots", None) is not None and not table.is_over()
               and any(slot.receiver is conn for slot in table.slots))
