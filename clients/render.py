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


def render_flush(view: Any, names: list[str] | None = None) -> str:
    format_ = "Arena" if view.format == "arena" else "Elimination"
    lines = [f"Flush, {format_} - round {view.round}" + (f" of {view.rounds}" if view.format == "arena" else "")
             + f", {view.phase}, Mimic: {view.mimic or 'none'}, turn {view.turns}/{view.turn_limit}"]
    for seat, tops in enumerate(view.tops):
        mark = ">" if seat == view.turn else " "
        who = names[seat] if names and seat < len(names) else f"seat {seat}"
        bases = " ".join(f"[{top or '.'}{'+' if blind else ''}]" for top, blind in zip(tops, view.blinds[seat]))
        out = "" if seat in view.active else "  OUT"
        lines.append(f" {mark} {who:<16} hand {view.hand_counts[seat]:>2}  bases {bases or '-':<24} "
                     f"total {view.totals[seat]:>4}{out}")
    pile = " / ".join(f"{len(play.cards)}x{play.value}" for play in view.pile[-6:]) or "empty"
    lines.append(f"   pile: {pile}   (top run {view.run})   flushed {view.flushed}   unused {view.unused}")
    if view.hand is not None:
        lines.append(f"   your hand: {' '.join(view.hand) or '-'}   ([top+] = a Blind card under it)")
    if view.passing:
        lines.append("   Super Flush: choose the Base to pass")
    if view.winners:
        lines.append(f"   WINNER: {', '.join(f'seat {w}' for w in view.winners)} with totals {view.totals}")
    return "\n".join(lines)


def render_race_to_the_finish(view: Any, names: list[str] | None = None) -> str:
    from rules.race_to_the_finish.game import FINISH, SUIT_NAMES

    trump = SUIT_NAMES.get(view.trump or "", "none")
    lines = [f"The Race to the Finish - deal {view.deals}, {view.phase}, trump {trump}, dealer seat {view.dealer}"]
    track = " ".join(view.track) + " FINISH"
    lines.append(f"   track: start {track}")
    for seat, pieces in enumerate(view.pieces):
        mark = ">" if seat in (view.turn, view.chooser) else " "
        who = names[seat] if names and seat < len(names) else f"seat {seat}"
        where = ", ".join(("FINISH" if pos == FINISH else "start" if pos == 0 else f"card {pos}")
                          + (" (sidetracked)" if off else "") for pos, off in zip(pieces, view.sidetracked[seat]))
        lines.append(f" {mark} {who:<16} {where:<34} hand {view.hand_counts[seat]:>2}  tricks {view.tricks_won[seat]}")
    trick = "  ".join(f"{seat}:{card}" for seat, card in zip(view.trick_seats, view.trick)) or "-"
    lines.append(f"   trick: {trick}   Sidetracked cards played this deal: {view.sidetracked_played}")
    if view.hand is not None:
        lines.append(f"   your hand: {' '.join(view.hand) or '-'}")
    if view.phase == "move":
        lines.append(f"   seat {view.chooser} chooses which piece moves")
    if view.phase == "sidetrack":
        lines.append(f"   seat {view.chooser} chooses which of seat {view.mover}'s pieces is sidetracked")
    if view.winner is not None:
        lines.append(f"   WINNER: seat {view.winner}")
    return "\n".join(lines)


def render_checkered_flag(view: Any, names: list[str] | None = None) -> str:
    track = view.track
    gears = ("N", "1st", "2nd", "3rd")
    symbol = {"white": ".", "danger": "!", "narrow": "="}
    lines = [f"Checkered Flag on {track.name} ({track.spaces} spaces x {track.laps} lap(s)) - {view.phase}, "
             f"turn {view.turns}/{view.turn_limit}"]
    for lap in range(track.laps):
        row = "".join(symbol[track.kinds[s]] for s in range(1, track.spaces + 1))
        marks = [" "] * track.spaces
        for seat, position in enumerate(view.positions):
            if lap * track.spaces < position <= (lap + 1) * track.spaces:
                marks[position - lap * track.spaces - 1] = str(seat)
        lines.append(f"   lap {lap + 1}: |{row}| finish")
        lines.append(f"          |{''.join(marks)}|")
    for seat, position in enumerate(view.positions):
        mark = ">" if seat == view.turn else " "
        who = names[seat] if names and seat < len(names) else f"seat {seat}"
        crash = f"  CRASHED: {view.lost[seat]} turn(s) to wait" if view.lost[seat] else ""
        lines.append(f" {mark} {who:<16} space {position:>3}  gear {gears[view.gears[seat]]:<3}{crash}")
    if view.plan is not None:
        lines.append(f"   spun {view.plan.move}: from {view.plan.start} to {view.plan.end}"
                     + (f"; may brake to stop on {', '.join(map(str, view.plan.stops))}" if view.plan.stops else ""))
    lines.append("   . white  ! danger zone  = narrow (no passing)")
    if view.winner is not None:
        lines.append(f"   WINNER: seat {view.winner}")
    return "\n".join(lines)


def render_finish_line(view: Any, names: list[str] | None = None) -> str:
    from rules.finish_line.game import FINISH

    lines = [f"Finish Line - turn {view.turns}, {view.phase}"
             + (f", dice red {view.dice[0]} black {view.dice[1]}, stop value {view.stop}" if view.dice else "")]
    if view.board:
        rows = []
        for row in range(6):  # top row first; the path zigzags upwards from the bottom right
            first = row * 9 + 1
            cards = [f"{view.board[i]:>3}" for i in range(first, first + 8)]
            cells = cards[::-1] if row % 2 == 0 else cards
            wing = view.board[first + 8]
            left, right = (f"{wing:>3}", "   ") if row % 2 == 0 else ("   ", f"{wing:>3}")
            rows.append(f"   {left} |{' '.join(cells)}| {right}")
        lines.extend(reversed(rows))
        lines.append(f"   (path: from the start below the bottom row's right end; finish = {view.board[FINISH]}, "
                     "top right)")
    for seat, markers in enumerate(view.markers):
        mark = ">" if seat == view.turn else " "
        who = names[seat] if names and seat < len(names) else f"seat {seat}"
        where = "  ".join("HOME" if p == FINISH else "start" if p == 0 else f"{p}:{view.board[p]}" for p in markers)
        lines.append(f" {mark} {who:<16} {where}")
    if view.choice is not None:
        lines.append(f"   activated {view.choice.kind}: choose one of {view.choice.candidates} ([seat, marker])")
    if view.places:
        lines.append(f"   places: {view.places}")
    return "\n".join(lines)


RENDERERS = {"flag_finish": render_flag_finish, "flush": render_flush, "checkered_flag": render_checkered_flag,
             "finish_line": render_finish_line,
             "race_to_the_finish": render_race_to_the_finish}


def render(game: str, view: Any) -> str:
    renderer = RENDERERS.get(game)
    if renderer is None:
        return msgspec.json.format(msgspec.json.encode(view).decode())
    return renderer(view)


def describe_action(action: Any) -> str:
    """'play G0', 'draw', 'release 4 hand=4,4B bases=0': a short text for one action, also what `play`
    accepts back. Lists are written name=a,b and left out when empty."""
    words = [type(action).__struct_config__.tag]
    for name, value in msgspec.structs.asdict(action).items():
        if isinstance(value, list):
            if value:
                words.append(f"{name}={','.join(str(v) for v in value)}")
        else:
            words.append(str(value))
    return " ".join(words)
