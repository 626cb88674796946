"""A tournament's state in words, as `photofinish tournament standings` prints it and `play --tournament` shows
it between rounds: the header, the standings table, and each table of the round with every player's place."""

from __future__ import annotations

from server.protocol.tournament import scoring_places


def round_words(info) -> str:
    """``round 2 of 3``; an arena (no fixed number of rounds): ``round 151``."""
    return f"round {info.round}" + (f" of {info.rounds}" if info.rounds else "")


def state_text(state) -> str:
    """The tournament's header, its standings and the current round's tables, as `standings` prints them."""
    info = state.tournament
    lines = [f"{info.name} ({info.tournament}): {info.game} {info.mode}, {info.format}, {round_words(info)}, "
             f"{info.status}, {count_of(info.players, 'player')}", standings_text(state)]
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
        lines.append(f" {row.rank:>4}  {row.name:<24} {row.points:>6g}  {row.opponents_pct * 100:>4.0f}  "
                     f"{row.game_share:>5.2f}  {row.tables:>6} {row.byes:>4}{dropped}")
    return "\n".join(lines)
