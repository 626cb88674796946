"""A tournament's round history in words and in rows: every round's tables (seats, places, the places that count
after corrections and game losses), its byes, and every organiser decision with its reason, as
`photofinish tournament rounds` and `standings` print them and `export --rounds` writes them (CSV)."""

from __future__ import annotations

from .tournament_text import _ordinal, _seat_text

HEADER = ["round", "table", "seat", "player", "name", "place", "score", "counted_place", "stand_in", "bye"]


def rounds_text(state, earlier_only: bool = False) -> str:
    """Each round (``earlier_only``: all but the current one), then the organiser's decisions."""
    names = {p.player: p.name for p in state.players}
    lines = []
    shown = state.rounds[:-1] if earlier_only else state.rounds
    for history in shown:
        status = "" if history.begun else " (waiting to begin)"
        status += " (ended early by the organiser)" if history.ended_early else ""
        lines.append(f"round {history.round}{status}:")
        for table in history.tables:
            if not history.begun:
                lines.append(f"  {table.table}: " + ", ".join(names.get(p, p) for p in table.players))
                continue
            lines.append(f"  {table.table}: " + ", ".join(_seat_text(table, names)))
            if table.counted:
                lines.append("      counted: " + ", ".join(f"{names.get(p, p)} {_ordinal(place)}"
                                                           for p, place in zip(table.players, table.counted)))
        if history.byes:
            lines.append(f"  byes: {', '.join(names.get(p, p) for p in history.byes)}")
    if state.actions and not earlier_only:
        lines.append("the organiser's decisions:")
        lines += [f"  {action_text(action, names)}" for action in state.actions]
    return "\n".join(lines)


def action_text(action, names: dict[str, str]) -> str:
    """One decision: ``round 2: penalised Cy 2 points off: late to the table``."""
    who = " and ".join(names.get(p, p) for p in action.players)
    what = {
        "swapped": f"swapped {who}",
        "repaired": "re-paired the round" + (f", keeping apart {who}" if who else ""),
        "round_begun": "began the round",
        "round_ended": "ended the round now",
        "penalised": (f"penalised {who} {action.points:g} point{'' if action.points == 1 else 's'} off"
                      if action.points else f"gave {who} a game loss at {action.table}"),
        "disqualified": f"disqualified {who}",
        "dropped": f"dropped {who}",
        "undropped": f"undid the drop of {who}",
        "reentered": f"re-entered {who.replace(' and ', ' as ', 1)}",
        "corrected": f"corrected table {action.table}",
        "cancelled": "cancelled the event",
    }.get(action.kind, action.kind)
    return f"round {action.round}: {what}" + (f": {action.reason}" if action.reason else "")


def rounds_rows(state) -> list[list]:
    """One CSV row per seat of every round's tables, and one per bye (``HEADER``'s columns)."""
    names = {p.player: p.name for p in state.players}
    rows = []
    for history in state.rounds:
        for table in history.tables:
            for seat, player in enumerate(table.players):
                rows.append([history.round, table.table, seat, player, names.get(player, player),
                             table.places[seat] if table.places else "",
                             table.scores[seat] if table.scores else "",
                             (table.counted or table.places or [""] * len(table.players))[seat],
                             seat in table.stand_ins, False])
        rows += [[history.round, "", "", p, names.get(p, p), "", "", "", False, True] for p in history.byes]
    return rows
