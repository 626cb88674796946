"""The tournament's shared values: table-size bounds, a round's seating, a finished table's result, the
tournament's settings (how the tournament's seed is split into independent seeds is
``seeds.py``).

Frozen msgspec Structs, so the tournament log (``tlog.py``) and, later, the protocol carry them unchanged.
Nothing here does I/O, reads a clock or draws at random.
"""

from __future__ import annotations

import math
from fractions import Fraction

import msgspec

from ..protocol import Code, Refusal
from .scoring import check_choices

FORMATS = ("swiss", "round_robin", "arena")

# Placement points by table size when the settings give none: index 0 is 1st place. 3/1/0 and 5/3/1/0 are
# the issue's; 5 and 6 seats follow the same shape (two apart down to 1, then 0), so first place at a bigger
# table is worth a little more, as beating more players should be.
DEFAULT_POINTS: dict[int, tuple[int, ...]] = {
    2: (3, 0),
    3: (3, 1, 0),
    4: (5, 3, 1, 0),
    5: (7, 5, 3, 1, 0),
    6: (9, 7, 5, 3, 1, 0),
}


class Sizes(msgspec.Struct, frozen=True):
    """How many players a table takes: the game's bounds and the size the organiser wants."""

    min: int
    max: int
    wanted: int

    def __post_init__(self) -> None:
        if not 2 <= self.min <= self.wanted <= self.max:
            raise Refusal(Code.BAD_SIZES, f"need 2 <= min <= wanted <= max seats, not {self.min}, "
                                          f"{self.wanted}, {self.max}")


class Seating(msgspec.Struct, frozen=True):
    """One round's seating: each table's players in seat order (seat 0 acts first), and who has a bye.
    For an arena seating, ``waiting`` are the waiting players not seated this time."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()
    note: str = ""  # what the log says of it: a top-N final shrunk to the players that remain

    def seated(self) -> list[str]:
        return [p for table in self.tables for p in table]


class TableResult(msgspec.Struct, frozen=True, omit_defaults=True):
    """A finished table: its players in seat order, their places (1 = first; tied players share the best
    place of their group, as 1, 1, 3), their game scores, whether the game counts lower scores as better
    (``rules.Result.lower_is_better``) and which seats a stand-in bot played for a no-show."""

    table: str
    players: tuple[str, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]
    lower_is_better: bool = True
    stand_ins: tuple[bool, ...] = ()

    def check(self) -> None:
        """Raise ``Refusal`` if the result does not describe one table's finish."""
        n = len(self.players)
        if n < 2 or len(set(self.players)) != n:
            raise Refusal(Code.BAD_RESULT, f"table {self.table}: needs two or more different players")
        if len(self.places) != n or len(self.scores) != n or (self.stand_ins and len(self.stand_ins) != n):
            raise Refusal(Code.BAD_RESULT, f"table {self.table}: one place and one score per player")
        for place in self.places:  # standard competition ranking: a place is 1 + how many finished ahead
            if place != 1 + sum(1 for other in self.places if other < place):
                raise Refusal(Code.BAD_RESULT, f"table {self.table}: places {list(self.places)} are "
                                               "not 1..n with ties sharing their best place")


class Settings(msgspec.Struct, frozen=True, omit_defaults=True):
    """A tournament's rules, fixed at creation and written in its log's first record.

    ``points`` maps a table size to the points of 1st, 2nd, ... place (missing sizes take
    ``DEFAULT_POINTS``); ``bye_points`` is what a bye is worth (None: 1st place at the wanted size);
    ``top_n`` > 0 adds a final table of the top N after the Swiss rounds. Points may be fractions: a point
    value is read as the decimal it is written as (``exact``: 2.5 is 5/2, 0.1 is 1/10), never truncated."""

    format: str
    sizes: Sizes
    rounds: int = 0  # Swiss rounds; round robin computes its own; arena ignores it
    points: dict[int, tuple[int | float, ...]] = {}
    bye_points: float | None = None
    check_in: bool = False  # only checked-in players are seated in round 1
    late_until: int = 0  # registration stays open until this round is seated (0: until round 1)
    top_n: int = 0
    max_players: int = 0  # players holding a place at most; later registrations wait (0: no cap)
    # -- scoring and seeding choices (``scoring.py``, ``rated.py``, ``reporting.py``); absent in older logs
    seeding: str = ""  # "ratings": Swiss round 1 seated from the players' ratings (``rated.py``); "": by lot
    tiebreaks: tuple[str, ...] = ()  # the chosen order of ``scoring.TIEBREAKS`` (the lot stays last); (): default
    reported_tables: int = 0  # each round, this many tables play off the server and report (``reporting.py``)
    # -- the organiser's actions (``actions.py``, ``fixes.py``)
    pairings_first: bool = False  # each round's pairings are published first; its tables open when begun
    reentry: bool = False  # a dropped player may enter again, as a new entry from 0 points

    def check(self) -> None:
        if self.format not in FORMATS:
            raise Refusal(Code.BAD_SETTINGS, f"format is one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.format == "swiss" and self.rounds < 1:
            raise Refusal(Code.BAD_SETTINGS, "a Swiss tournament needs one round or more")
        if self.top_n and not self.sizes.min <= self.top_n <= self.sizes.max:
            raise Refusal(Code.BAD_SETTINGS, f"a final table seats {self.sizes.min}..{self.sizes.max}")
        for size, row in self.points.items():
            if len(row) != size or list(row) != sorted(row, reverse=True):
                raise Refusal(Code.BAD_SETTINGS, f"points at {size} seats: {size} values, best first")
        check_choices(self)  # seeding, tiebreak order, reported tables (``scoring.py``)

    def check_new(self) -> None:
        """The checks a new tournament's settings pass on top of ``check`` (a log written before them still
        folds): points and bye points are numbers of 0 or more (finite, at most ``POINTS_MOST``), and every
        setting given applies to the format (``bad_settings`` says which does not, and why)."""
        values = [v for row in self.points.values() for v in row]
        for value in values + ([self.bye_points] if self.bye_points is not None else []):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not 0 <= value <= POINTS_MOST:
                raise Refusal(Code.BAD_SETTINGS, f"points are numbers from 0 to {POINTS_MOST}, not {value!r}")
        self.check()
        if self.top_n and self.format != "swiss":
            raise Refusal(Code.BAD_SETTINGS, f"a top-N final follows Swiss rounds; a {_words(self.format)} "
                                             "has none: leave top at 0")
        if self.rounds and self.format != "swiss":
            raise Refusal(Code.BAD_SETTINGS, f"rounds are set for Swiss only; a {_words(self.format)} "
                                             + ("computes its own" if self.format == "round_robin"
                                                else "runs for its time (arena_ms)"))
        if self.max_players and not self.sizes.min <= self.max_players <= PLAYERS_MOST:
            raise Refusal(Code.BAD_SETTINGS, f"a cap of players is {self.sizes.min}..{PLAYERS_MOST} (a table "
                                             f"seats {self.sizes.min} or more), or 0 for none, not "
                                             f"{self.max_players}")
        if (self.pairings_first or self.reentry) and self.format != "swiss":
            raise Refusal(Code.BAD_SETTINGS, f"pairings first and re-entry are Swiss settings; a "
                                             f"{_words(self.format)} seats by its own schedule")
        if self.late_until and self.format == "round_robin":
            raise Refusal(Code.BAD_SETTINGS, "a round robin's schedule is fixed at round 1: late entries "
                                             "cannot join it (late_entry_rounds is 0)")
        for size in self.points:
            if not self.sizes.min <= size <= self.sizes.max:
                raise Refusal(Code.BAD_SETTINGS, f"points at {size} seats: this game's tables seat "
                                                 f"{self.sizes.min}..{self.sizes.max}")
        if self.seeding and self.format != "swiss":
            raise Refusal(Code.BAD_SETTINGS, f"seeding by ratings seats a Swiss round 1; a {_words(self.format)} "
                                             "has its own first round: leave it off")

    def exact_points(self, size: int) -> tuple[Fraction, ...]:
        return tuple(exact(v) for v in self.points_for(size))

    def exact_bye(self) -> Fraction:
        return exact(self.bye_value())

    def points_for(self, size: int) -> tuple[int | float, ...]:
        row = self.points.get(size) or DEFAULT_POINTS.get(size)
        if row is None:
            raise Refusal(Code.BAD_SETTINGS, f"no placement points for tables of {size}")
        return row

    def bye_value(self) -> float:
        return self.bye_points if self.bye_points is not None else self.points_for(self.sizes.wanted)[0]


POINTS_MOST = 1_000_000
PLAYERS_MOST = 100_000  # the highest player cap


def _words(format: str) -> str:
    return format.replace("_", " ")


def exact(value: int | float) -> Fraction:
    """A point value as the exact number it is written as: an int as itself, a float as its shortest decimal
    (``repr``), so 2.5 is 5/2 and 0.1 is 1/10 (not the binary float's neighbour)."""
    return Fraction(value) if isinstance(value, int) else Fraction(repr(float(value)))
