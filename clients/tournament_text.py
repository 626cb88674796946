"""A tournament's state in words, as `photofinish tournament standings` prints it and `play --tournament` shows
it between rounds: the header, the standings table, and each table of the round with every player's place."""

from __future__ import annotations

import math

from server.protocol.tournament import scoring_places


def round_words(info) -> str:
    """``round 2 of 3``; an arena (no fixed number of rounds): ``round 151``."""
    return f"round {info.round}" + (f" of {info.rounds}" if info.rounds else "")


def state_text(state) -> str:
    """The tournament's header, its standings and the current round's tables, as `standings` prints them."""
    info = state.tournament
    lines = [f"{info.name} ({info.tournament}): {info.game} {info.mode}, {info.format}, {round_words(info)}, "
             f"{info.status}, {count_of(info.players, 'player')}" + _suggested(info), standings_text(state)]
    if state.seatings:
        names = {p.player: p.name for p in state.players}
        stand_ins = any(seating.stand_ins for seating in state.seatings)
        lines.append(f"\nround {info.round}, each player's place at their table"
                     + (" (a seat a stand-in played is placed last):" if stand_ins else ":"))
        waiting = info.waiting_round == info.round  # pairings first: published, not begun
        if waiting:
            lines[-1] = f"\nround {info.round}, seated and waiting for the organiser to begin it:"
        for seating in state.seatings:
            lines.append(f"  {seating.table}: " + (", ".join(names.get(p, p) for p in seating.players) if waiting
                                                   else ", ".join(_seat_text(seating, names))))
        if state.byes:
            lines.append(f"  byes: {', '.join(names.get(p, p) for p in state.byes)}")
    if state.waitlist:
        names = {p.player: p.name for p in state.players}
        lines.append(f"\nwaitlist ({info.max_players} places): "
                     + ", ".join(f"{i}. {names.get(p, p)}" for i, p in enumerate(state.waitlist, 1)))
    return "\n".join(lines)


def _seat_text(seating, names: dict[str, str]) -> list[str]:
    """Each player of a table: their name, and once it is over the place that scores (stand-ins last), with
    the game's own place where that differs."""
    if not seating.places:
        if getattr(seating, "reported", False):  # played with real cards: who has reported so far
            return [", ".join(names.get(p, p) for p in seating.players)
                    + f"  (real cards: {len(seating.reports)} of {len(seating.players)} reported"
                    + (", they disagree: the organiser settles it)" if len({tuple(v) for v in seating.reports.values()})
                       > 1 else ")")]
        return [", ".join(names.get(p, p) for p in seating.players) + "  (playing)"]
    n = len(seating.players)
    stand_ins = tuple(i in seating.stand_ins for i in range(n))
    scoring = scoring_places(tuple(seating.places), stand_ins)
    out = []
    for i, (player, game_place, place) in enumerate(zip(seating.players, seating.places, scoring)):
        tied = "tied " if scoring.count(place) > 1 else ""
        text = f"{names.get(player, player)} {tied}{_ordinal(place)}"
        if game_place != place:
            text += f" ({_ordinal(game_place)} in the game)"
        out.append(text + (" [stand-in]" if stand_ins[i] else ""))
    return out


def _suggested(info) -> str:
    """A Swiss event's suggested rounds for its field, when they differ from the rounds planned."""
    suggested = getattr(info, "suggested_rounds", 0)
    if info.format != "swiss" or not suggested or suggested == info.rounds or not info.players:
        return ""
    return f" (suggested for {count_of(info.players, 'player')}: {count_of(suggested, 'round')})"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def count_of(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def standings_text(state) -> str:
    lines = [" rank  player                    points  opp%   share  tables byes"]
    out = {p.player for p in state.players if p.disqualified}
    for row in state.standings:
        dropped = "  (disqualified)" if row.player in out else "  (dropped)" if row.dropped else ""
        lines.append(f" {row.rank:>4}  {row.name:<24} {points_text(row.points):>6}  "
                     f"{fixed(row.opponents_pct * 100, 0):>4}  {fixed(row.game_share, 2):>5}  {row.tables:>6} "
                     f"{row.byes:>4}{dropped}")
    return "\n".join(lines)


# The page says these numbers with the same arithmetic (clients/web/js/figures.js): half up on the double itself,
# floor(x * 10**digits + 0.5), which both languages compute alike (a share of 1.125 is 1.13 in both).
def fixed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, rounded half up: ``fixed(1.125, 2) == "1.13"``."""
    n = math.floor(x * 10 ** digits + 0.5)
    text = str(abs(n)).rjust(digits + 1, "0")
    sign = "-" if n < 0 else ""
    return f"{sign}{text[:-digits]}.{text[-digits:]}" if digits else f"{sign}{text}"


def points_text(x: float) -> str:
    """Points with two decimals at most and no trailing zeros: 3, 2.5, 1.33."""
    text = fixed(x, 2)
    return text.rstrip("0").rstrip(".") if "." in text else text
