"""A tournament's state folded from its log records, and the next seating it calls for. Pure.

``Tournament.apply(record)`` takes the records of ``tlog`` in log order and raises ``Refusal``, having
changed nothing, for a record that does not follow from the ones before: a second registration, a result
for a table nobody was seated at, a seating that is not what ``seating`` computes from the log's own
earlier records and the seed. The director computes each round with ``next_seating`` and logs it, and
``verify.verify_tournament`` folds a whole log with the revealed seed: one code path, so a verified log is
one the director could have written.

What is seated when (``next_seating``):
- ``swiss``: rounds 1..``rounds`` by ``seating.swiss`` over the active players in standings order, then,
  with ``top_n``, a final (``seating.final_table``) of the top of the active players' standings;
- ``round_robin``: the schedule ``seating.round_robin`` computes when round 1 is seated, over the players
  active then in standings order (which is the seeded lot); later rounds drop the dropped players, and a
  table left below the game's minimum gives its players byes; late entries wait for the next event;
- ``arena``: ``seating.arena`` over the players waiting (given by the director, logged in the record), who
  must be active and at no unfinished table.
A new Swiss or round-robin round needs every table of the round before it finished, and seats a table or is
not seated at all: when it would seat none (too few active players) the event is over (``no_table``). A
top-N final seats the top of the active players, fewer than N if fewer remain (its ``note`` says so), and is
skipped when fewer than a table's minimum remain. ``end_reason`` says why a Swiss or round-robin event is over,
and an ``ended`` record that gives a reason must give that one, in the same words. Nothing follows ``ended``
(``tournament_over``). A Swiss round 1 seeded by ratings is seated from the ratings logged before it (``rated.py``); a table played
off the server takes its result from its players' reports or the organiser's settlement (``reporting.py``):
each module folds its own records. Active players are the registered ones (checked in, when the settings ask for
check-in) who have not dropped and are not on the waitlist.

**Player cap and waitlist** (``Settings.max_players``, 0: no cap): a registration past the cap, or made while
anyone is waiting, goes on the waitlist (its ``registered`` record says ``waitlisted``, and must: the fold
recomputes it); before round 1 is seated, a player holding a place who drops gives it to the first player
waiting. So before the start the players holding places are always the first ``max_players`` of those who have
not dropped, in registration order, and the waitlist the rest, in that order. A waitlisted player is never
seated and has no row in the standings (nor has one who left the waitlist); their lot is still drawn in
registration order, so nobody's lot depends on who waits.

**The organiser's actions** (``actions.py``: re-pair, swap, begin and end a round, penalties, disqualification,
undo a drop, re-entry) are folded by ``fixes.py`` (``self.org``); its docstring says when each applies. Under
``pairings_first`` a round seated waits (``org.held``) until ``round_begun``; its tables count as unfinished.
``ended`` with reason ``cancelled`` is the organiser's cancellation: the standings as they stand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import msgspec

from ..protocol import Code, Refusal
from . import fixes, rated, reporting, seating, seating_v1, seeds
from .actions import ACTIONS
from .model import Seating, Settings, TableResult
from .standings import Standing, apply_final, standings
from .tlog import CheckedIn, Corrected, Created, Dropped, Ended, Registered, RoundSeated, TableFinished


@dataclass
class Tournament:
    """The fold of a tournament's records; ``seed`` is the tournament's seed (the director's secret, or the
    one ``ended`` revealed)."""

    created: Created
    seed: int
    players: list[str] = field(default_factory=list)  # registration order
    names: dict[str, str] = field(default_factory=dict)
    checked_in: set[str] = field(default_factory=set)
    dropped: list[str] = field(default_factory=list)
    seatings: list[Seating] = field(default_factory=list)
    tables: dict[str, tuple[int, tuple[str, ...]]] = field(default_factory=dict)  # id -> (round, players)
    results: dict[str, TableResult] = field(default_factory=dict)
    corrections: list[TableResult] = field(default_factory=list)
    byes: list[str] = field(default_factory=list)
    waitlist: list[str] = field(default_factory=list)  # waiting for a place, in registration order
    left_waitlist: set[str] = field(default_factory=set)  # dropped while waiting: never held a place
    schedule: list[Seating] | None = None  # round robin
    ended: Ended | None = None
    _old_empty_round: bool = field(default=False, repr=False)  # folding a round of byes alone from an old log
    # the organiser's settings' records (``rated.py``, ``reporting.py``)
    seed_ratings: dict[str, float] | None = None  # the ratings round 1 was seeded from (``ratings_seeded``)
    reports: dict[str, dict[str, tuple[int, ...]]] = field(default_factory=dict)  # reported table -> player -> places
    report_counts: list[tuple[int, int]] = field(default_factory=list)  # (from round, tables): the organiser's
    org: fixes.OrgState = field(default_factory=fixes.OrgState)  # the organiser's actions (``fixes.py``)

    def __post_init__(self) -> None:
        self.settings.check()

    @property
    def settings(self) -> Settings:
        return self.created.settings

    @property
    def _seater(self):
        """The seating module this log was made with (format 1: ``seating_v1``, kept so old logs verify)."""
        return seating_v1 if self.created.format < 2 else seating

    @property
    def _derive(self) -> seeds.Derive:
        """How this log splits its seed (format 3 on: by hashing; before: the frozen XOR mix)."""
        return seeds.for_format(self.created.format)

    @property
    def _seat_kw(self) -> dict:
        return {} if self._seater is seating_v1 else {"derive": self._derive}

    @property
    def round(self) -> int:
        """Rounds seated so far."""
        return len(self.seatings)

    def active(self) -> list[str]:
        gone = set(self.dropped) | set(self.waitlist)
        return [p for p in self.players if p not in gone
                and (not self.settings.check_in or p in self.checked_in)]

    def entered(self) -> list[str]:
        """The players holding a place (not waiting, never dropped from the waitlist), registration order."""
        outside = set(self.waitlist) | self.left_waitlist
        return [p for p in self.players if p not in outside]

    def full(self) -> bool:
        """Whether a registration now goes on the waitlist: the cap is reached, or players are waiting."""
        cap = self.settings.max_players
        holding = len(set(self.entered()) - set(self.dropped))
        return bool(cap) and (holding >= cap or bool(self.waitlist))

    def unfinished(self) -> list[str]:
        return [t for t in self.tables if t not in self.results]

    def standings(self) -> list[Standing]:
        rows = fixes.adjust(self, standings(self.players, list(self.results.values()), self.byes, self.settings,
                                            self.seed, self.dropped, self.corrections, self._derive))
        if self.waitlist or self.left_waitlist:  # rows of players holding a place only (lots drawn over all)
            shown = set(self.entered())
            rows = [msgspec.structs.replace(row, rank=rank) for rank, row in
                    enumerate((row for row in rows if row.player in shown), 1)]
        final = self._final_table()
        if final is not None and final in self.results:
            fixed = {c.table: c for c in self.corrections}
            before = fixes.adjust(self, standings(self.players, [r for r in self.results.values()
                                                                  if r.table != final], self.byes,
                                                  self.settings, self.seed, self.dropped,
                                                  [c for c in self.corrections if c.table != final], self._derive))
            rows = apply_final(rows, fixed.get(final, self.results[final]), before)
        return rows

    def _final_table(self) -> str | None:
        s = self.settings
        if s.format != "swiss" or not s.top_n or self.round <= s.rounds:
            return None
        return next(t for t, (r, _) in self.tables.items() if r == s.rounds + 1)

    # -- what comes next -------------------------------------------------------------------------------

    def next_seating(self, waiting: Sequence[str] = ()) -> Seating:
        """The seating of round ``self.round + 1`` (for an arena: of the players ``waiting``)."""
        if self.ended is not None:
            raise Refusal(Code.TOURNAMENT_OVER, "the tournament is over")
        s, r = self.settings, self.round + 1
        rows = self.standings()
        points = {row.player: row.points for row in rows}
        active = set(self.active())
        order = [row.player for row in rows if row.player in active]
        if s.format == "arena":
            busy = {p for t in self.unfinished() for p in self.tables[t][1]}
            wrong = [p for p in waiting if p not in active or p in busy]
            if wrong:
                raise Refusal(Code.NOT_WAITING, f"{wrong} cannot be waiting: dropped, not active or "
                                                "still at a table")
            return self._seater.arena(list(waiting), [row.player for row in rows], points, self.seatings, self.seed, r,
                                      s.sizes, **self._seat_kw)
        if self.unfinished():
            raise Refusal(Code.ROUND_NOT_OVER, f"round {self.round} still has tables playing")
        if s.format == "swiss":
            if r == 1 and s.seeding == "ratings":  # seeded by the ratings logged before it (``rated.py``)
                if self.seed_ratings is None:
                    raise Refusal(Code.WRONG_SEATING, "round 1 of an event seeded by ratings needs its "
                                                      "ratings logged first")
                return self._some_table(rated.round_one(order, self.seed_ratings, self.seed, s.sizes,
                                                        self._derive), r)
            if r <= s.rounds:
                return self._some_table(self._seater.swiss(order, points, self.seatings, self.seed, r, s.sizes,
                                                          **self._seat_kw), r)
            if s.top_n and r == s.rounds + 1:
                return self._final(order)
            raise Refusal(Code.NO_MORE_ROUNDS, f"the tournament has {s.rounds} rounds"
                                               + (" and its final" if s.top_n else ""))
        schedule = self.schedule if self.schedule is not None else self._seater.round_robin(order, self.seed, s.sizes,
                                                                                          **self._seat_kw)
        if r > len(schedule):
            raise Refusal(Code.NO_MORE_ROUNDS, f"the round robin has {len(schedule)} rounds")
        planned = schedule[r - 1]
        tables, byes = [], [p for p in planned.byes if p in active]
        for table in planned.tables:
            present = tuple(p for p in table if p in active)
            if len(present) >= s.sizes.min:
                tables.append(present)
            else:
                byes.extend(present)
        return self._some_table(Seating(tables=tuple(tables), byes=tuple(byes)), r)

    def _some_table(self, seating: Seating, r: int) -> Seating:
        """A Swiss or round-robin round seats a table or ends the event (``no_table``): a round of byes alone
        would leave the event running with nothing to play."""
        if not seating.tables and not self._old_empty_round:
            raise Refusal(Code.NO_TABLE, f"round {r} would seat no table ({len(self.active())} active "
                                         f"player(s); a table seats {self.settings.sizes.min} or more)")
        return seating

    def _final(self, order: list[str]) -> Seating:
        """The top-N final of the active players: shrunk to those that remain (said in its ``note``), skipped
        (``no_more_rounds``) when fewer than a table's minimum remain."""
        s = self.settings
        n = min(s.top_n, len(order))
        if n < max(2, s.sizes.min):
            raise Refusal(Code.NO_MORE_ROUNDS, f"the final of the top {s.top_n} is skipped: {len(order)} "
                                               f"active player(s) remain, a table seats {s.sizes.min} or more")
        seating = self._seater.final_table(order, n, s.sizes)
        if n < s.top_n:
            seating = Seating(tables=seating.tables, byes=seating.byes,
                              note=f"a final of {n}: the top {s.top_n} was asked, {n} active players remain")
        return seating

    def end_reason(self) -> tuple[str, str] | None:
        """Why a Swiss or round-robin event is over now (``no_more_rounds`` or ``no_table``, and the words), or
        None when it can seat another round or has tables playing. What ``ended`` must say (``verify``)."""
        if self.settings.format == "arena" or not self.round or self.unfinished() or self.ended is not None:
            return None
        try:
            self.next_seating()
        except Refusal as error:
            if error.code in (Code.NO_MORE_ROUNDS, Code.NO_TABLE):
                return error.code, error.message
            raise
        return None

    # -- folding records -------------------------------------------------------------------------------

    def apply(self, record: Any) -> None:
        """Fold one record in; raise ``Refusal`` (and change nothing) if it does not follow. Nothing
        follows ``ended``: any record after it is refused with ``tournament_over``."""
        if self.ended is not None:
            raise Refusal(Code.TOURNAMENT_OVER, "the tournament is over: nothing is accepted after its end")
        self._apply(record)
        fixes.noted(self, record)

    def _apply(self, record: Any) -> None:
        match record:
            case Registered(player=player, name=name, waitlisted=waitlisted):
                if player in self.names:
                    raise Refusal(Code.ALREADY_REGISTERED, f"{player!r} is registered already")
                if self.round >= max(1, self.settings.late_until) or self.settings.format == "round_robin" \
                        and self.round:
                    raise Refusal(Code.REGISTRATION_CLOSED, "registration is closed")
                if waitlisted != self.full():
                    raise Refusal(Code.WRONG_WAITLIST, f"{player!r} is logged as "
                                                       f"{'waitlisted' if waitlisted else 'holding a place'}; "
                                                       f"the cap of {self.settings.max_players} and the players "
                                                       "before them say otherwise")
                self.players.append(player)
                self.names[player] = name
                if waitlisted:
                    self.waitlist.append(player)
            case CheckedIn(player=player):
                self._known(player)
                self.checked_in.add(player)
            case Dropped(player=player):
                self._known(player)
                if player in self.dropped:
                    raise Refusal(Code.ALREADY_DROPPED, f"{player!r} has dropped already")
                self.dropped.append(player)
                if player in self.waitlist:  # left the waitlist: never held a place
                    self.waitlist.remove(player)
                    self.left_waitlist.add(player)
                elif self.waitlist and not self.round:  # a place freed before the start: the first waiting takes it
                    self.waitlist.pop(0)
            case RoundSeated():
                self._seat(record)
            case TableFinished():
                self._finish(record)
            case Corrected(table=table, places=places, scores=scores):
                if table not in self.results:
                    raise Refusal(Code.UNKNOWN_TABLE, f"table {table} has no result to correct")
                base = self.results[table]
                fix = TableResult(table=table, players=base.players, places=places, scores=scores,
                                  lower_is_better=base.lower_is_better, stand_ins=base.stand_ins)
                fix.check()
                self.corrections.append(fix)
            case Ended(seed=seed, standings=order, reason=reason, note=note):
                if seed != self.seed:
                    raise Refusal(Code.WRONG_SEED, "the revealed seed is not the tournament's seed")
                if reason in ("no_more_rounds", "no_table"):
                    why = self.end_reason()
                    if why != (reason, note):
                        raise Refusal(Code.WRONG_END, f"the log ends it for {reason!r} ({note}); the records "
                                                      f"give {why[0] + ' (' + why[1] + ')' if why else 'none'}")
                elif reason == "time_up" and self.settings.format != "arena":
                    raise Refusal(Code.WRONG_END, "only an arena ends when its time is up")
                elif reason not in ("", "time_up", "stopped", "cancelled"):  # cancelled: the organiser's
                    raise Refusal(Code.WRONG_END, f"no tournament ends for {reason!r}")
                computed = tuple(row.player for row in self.standings())
                if tuple(order) != computed:
                    raise Refusal(Code.WRONG_STANDINGS, f"the final standings {list(order)} are not "
                                                        f"the ones the results give: {list(computed)}")
                self.ended = record
            case rated.RatingsSeeded():
                rated.fold(self, record)
            case reporting.Reported() | reporting.Settled() | reporting.ReportedCount():
                reporting.fold(self, record)
            case _ if type(record) in ACTIONS:  # the organiser's actions: ``fixes.py``
                fixes.apply(self, record)
            case _:
                raise Refusal(Code.BAD_RECORD, f"not a record that follows 'created': {record!r}")

    def _known(self, player: str) -> None:
        if player not in self.names:
            raise Refusal(Code.UNKNOWN_PLAYER, f"{player!r} is not registered")

    def _seat(self, record: RoundSeated) -> None:
        if record.round != self.round + 1:
            raise Refusal(Code.BAD_ROUND, f"round {record.round} seated after round {self.round}")
        ids = [t.table for t in record.tables]
        if len(set(ids)) != len(ids) or set(ids) & set(self.tables):
            raise Refusal(Code.BAD_TABLE, "a table id is used twice")
        # A log written before rounds of byes alone ended the event may hold one: it folds if it is the seating
        # those rules gave (so an old tournament still reopens, and then ends); the director writes none now.
        self._old_empty_round = not record.tables
        try:
            expected = self.next_seating(record.waiting)
        finally:
            self._old_empty_round = False
        got = record.seating()
        if (got.tables, got.byes, got.note) != (expected.tables, expected.byes, expected.note):
            raise Refusal(Code.WRONG_SEATING, f"round {record.round}'s seating is not the one the "
                                              f"standings, history and seed give: expected "
                                              f"{[list(t) for t in expected.tables]} byes "
                                              f"{list(expected.byes)}"
                                              + (f" ({expected.note})" if expected.note else ""))
        if self.settings.format == "round_robin" and self.schedule is None:
            order = [row.player for row in self.standings() if row.player in set(self.active())]
            self.schedule = self._seater.round_robin(order, self.seed, self.settings.sizes, **self._seat_kw)
        self.seatings.append(expected)
        self.byes.extend(expected.byes)
        for t in record.tables:
            self.tables[t.table] = (record.round, t.players)
        fixes.after_seat(self, record.round)

    def _finish(self, record: TableFinished) -> None:
        if record.table not in self.tables:
            raise Refusal(Code.UNKNOWN_TABLE, f"table {record.table} was never seated")
        if record.table in self.results:
            raise Refusal(Code.ALREADY_FINISHED, f"table {record.table} has a result already")
        round_no, players = self.tables[record.table]
        if record.round != round_no or record.players != players:
            raise Refusal(Code.BAD_RESULT, f"table {record.table}'s result names other players or another "
                                           "round than its seating")
        result = record.result()
        result.check()
        self.results[record.table] = result


def fold(created: Created, seed: int, records: Sequence[Any]) -> Tournament:
    """The state after ``records`` (raises ``Refusal`` at the first that does not follow)."""
    state = Tournament(created=created, seed=seed)
    for record in records:
        state.apply(record)
    return state
