"""Text renderings of game views for the terminal clients (`watch`, `play`); one function per game."""

from __future__ import annotations

from typing import Any

import msgspec


def render_flag_finish(view: Any, names: list[str] | None = None) -> str:
    from rules.flag_finish.game import card_name

    lines = [f"Flag Finish, {'Challenge' if view.mode == 'challenge' else 'Warm-up'} Mode - "
             f"race {view.race} of {view.races}, {view.phase}"]
    for seat, row in enumerate(view.rows):
        mark = ">" if seat in view.to_act else " "
        who = names[seat] if names and seat < len(names) else f"seat {seat}"
        flag = " FINISHED" if seat in view.finishers else ""
        drawn = " (must discard)" if view.must_discard[seat] else ""
        total = view.totals[seat] if view.totals else 0
        lines.append(f" {mark} {who:<16} row: {' '.join(row) or '-':<40} hand {view.hand_counts[seat]:>2}"
                     f"  total {total:>3}{flag}{drawn}")
    lines.append(f"   discard pile ({len(view.discard)}): {' '.join(view.discard) or '-'}")
    lines.append(f"   draw pile: {view.draw_count} cards   actions this race: {view.actions}/{view.action_limit}")
    if view.hand is not None:
        lines.append(f"   your hand: {' '.join(view.hand)}" + (f"   (drew {card_name(view.drawn)})" if view.drawn else ""))
    if view.race_scores:
        lines.append("   races: " + "  ".join(f"#{i + 1} {s}" for i, s in enumerate(view.race_scores)))
    if view.winners:
        lines.append(f"   WINNER: {', '.join(f'seat {w}' for w in view.winners)} with totals {view.totals}")
    return "\n".join(lines)


RENDERERS = {"flag_finish": render_flag_finish}


def render(game: str, view: Any) -> str:
    renderer = RENDERERS.get(game)
    if renderer is None:
        return msgspec.json.format(msgspec.json.encode(view).decode())
    return renderer(view)


def describe_action(action: Any) -> str:
    """'play G0', 'draw', 'take R5': a short text for one action, also what `play` accepts back."""
    fields = msgspec.structs.asdict(action)
    tag = type(action).__struct_config__.tag
    return " ".join([tag, *(str(v) for v in fields.values())])
