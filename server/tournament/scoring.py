"""The organiser's scoring choices, checked and explained: the tiebreak order, the seeding of round 1, how
many tables report their result, and how many Swiss rounds a field needs. Pure.

**Tiebreak order** (``Settings.tiebreaks``): after points, the standings compare the tiebreaks of
``TIEBREAKS`` (``standings.py`` says what each one is) in the order the organiser chose, each at most once;
some may be left out. The seeded lot always comes last, so every order is total. Empty: the default
order, ``opponents`` then ``share``. The order is in the log's ``created`` record, so ``verify`` recomputes
the standings with it.

**Suggested Swiss rounds** (``suggested_rounds``): a table of k players has one winner, so after r rounds at
most ceil(n / k**r) of n players can have won every table they sat at; the suggestion is the fewest rounds r
(at least 1) with k**r >= n, that is ceil(log_k(n)), k the table size wanted. At two seats it is the chess
Swiss's ceil(log2(n)): 40 players need 6 rounds at 2 seats, 4 at 3 seats, 3 at 4 to 6 seats.
"""

from __future__ import annotations

from typing import Any

from ..protocol import Code, Refusal

TIEBREAKS = ("opponents", "share")  # what ``standings.py`` computes; the lot is always last
DEFAULT_TIEBREAKS = ("opponents", "share")
SEEDINGS = ("", "ratings")
REPORTED_MOST = 1000  # the most tables a round may report


def tiebreak_order(settings: Any) -> tuple[str, ...]:
    """The tiebreaks the standings compare after points, in order (the lot follows them)."""
    return tuple(settings.tiebreaks) or DEFAULT_TIEBREAKS


def check_choices(settings: Any) -> None:
    """Refuse (``bad_settings``) a seeding, tiebreak order or reported-table count that is not one."""
    if settings.seeding not in SEEDINGS:
        raise Refusal(Code.BAD_SETTINGS, f"seeding is 'ratings' or none, not {settings.seeding!r}")
    unknown = [t for t in settings.tiebreaks if t not in TIEBREAKS]
    if unknown:
        raise Refusal(Code.BAD_SETTINGS, f"tiebreaks are among {', '.join(TIEBREAKS)} (the lot is always last), "
                                         f"not {', '.join(map(repr, unknown))}")
    if len(set(settings.tiebreaks)) != len(settings.tiebreaks):
        raise Refusal(Code.BAD_SETTINGS, f"a tiebreak is named twice in {', '.join(settings.tiebreaks)}")
    if not 0 <= settings.reported_tables <= REPORTED_MOST:
        raise Refusal(Code.BAD_SETTINGS, f"reported tables are 0..{REPORTED_MOST} a round, not "
                                         f"{settings.reported_tables}")


def suggested_rounds(players: int, seats: int) -> int:
    """The Swiss rounds ``players`` need at tables of ``seats``: the fewest r >= 1 with seats**r >= players."""
    if seats < 2:
        raise ValueError("a table seats two or more")
    rounds, reach = 1, seats
    while reach < players:
        rounds, reach = rounds + 1, reach * seats
    return rounds


def shown(settings: Any, players: int, reported_tables: int) -> dict[str, Any]:
    """The choices a tournament's info line shows (``TournamentInfo``'s fields), and for a Swiss event the
    rounds its ``players`` need; ``reported_tables``: the count for the next round seated."""
    suggested = suggested_rounds(players, settings.sizes.wanted) if settings.format == "swiss" else 0
    return {"suggested_rounds": suggested, "tiebreaks": list(tiebreak_order(settings)), "seeding": settings.seeding,
            "reported_tables": reported_tables}
