"""Text renderings of game views for the terminal clients (`watch`, `play`); one function per game."""

from __future__ import annotations

from typing import Any

import msgspec

from rules.words import game_words

from .moves import hand_order
from .words import ordinal, seat_list, seat_no


def seat_label(seat: int, view: Any, names: list[str] | None, width: int = 15) -> str:
    """'1 YOU ann' for the reader's own seat, '2 heuristic bot' for another: a seat's number (from 1, as a
    person counts them; the wire's ``seat`` is 0-based) and name."""
    name = names[seat] if names and seat < len(names) and names[seat] else ""
    you = getattr(view, "seat", None) == seat
    label = f"{seat_no(seat)} {'YOU ' if you else ''}{name}" if name else f"seat {seat_no(seat)}{' YOU' if you else ''}"
    return label[:width].ljust(width)


def wrap(label: str, words: list[str], width: int = 79, most: int = 3) -> list[str]:
    """``label`` then ``words`` over as many lines as they need (at most ``most``), indented under the label."""
    lines, line = [], label
    for word in words:
        if len(line) + 1 + len(word) > width and line.strip():
            lines.append(line)
            line = " " * len(label)
        line += " " + word
    lines.append(line)
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1][:width - 4] + " ..."
    return lines


def race_words(race: int, races: int) -> str:
    """Which Flag Finish race this is ("race 2 of 3"); past the last, a race the tied totals added (RULES.md:
    "race again until someone wins"), not "race 4 of 3". The browser's ``raceWords`` says the same."""
    return f"race {race}, a tiebreak after {races}" if race > races else f"race {race} of {races}"


def render_flag_finish(view: Any, names: list[str] | None = None) -> str:
    from rules.flag_finish.game import HAND_ORDER

    totals = "/".join(str(t) for t in view.totals) if view.totals else "-"
    phase = game_words("flag_finish")["names"]["phase"].get(view.phase, view.phase)  # "racing", as the browser
    race = race_words(view.race, view.races)
    head, tail = f"Flag Finish {'Challenge' if view.mode == 'challenge' else 'Warm-up'} - {race}, {phase}", \
        f"totals {totals}, lower wins"
    lines = [f"{head} - {tail}"] if len(head) + 3 + len(tail) < 80 else [head, f"   {tail}"]  # (an 80-column
    # terminal: "photo-finish window open" in a tiebreak race ran past it)
    for seat, row in enumerate(view.rows):
        mark = ">" if seat in view.to_act else " "
        rank = len(row)
        status = (" FINISHED" if seat in view.finishers else " must discard" if view.must_discard[seat]
                  else f" needs {'F' if rank == 11 else rank}" if rank < 12 else "")
        lines.append(f" {mark} {seat_label(seat, view, names)} {' '.join(row) or '-':<36} hand "
                     f"{view.hand_counts[seat]:>2}{status}")
    lines += wrap(f"   discard pile ({len(view.discard)}):",
                  sorted(view.discard, key=lambda c: HAND_ORDER.get(c, (99, c))) or ["-"])
    lines.append(f"   draw pile: {view.draw_count} cards   actions this race: {view.actions}/{view.action_limit}")
    if view.hand is not None:
        lines.append(f"   your hand: {' '.join(view.hand) or '-'}" + (f"   (new: {view.drawn})" if view.drawn else ""))
    if view.race_scores:
        lines += wrap("   races:", [f"#{i + 1} {'/'.join(map(str, s))}" for i, s in enumerate(view.race_scores)],
                      most=2)
    if view.winners:
        lines.append(f"   WINNER: {seat_list(view.winners)} with totals {totals}")
    return "\n".join(lines)


def render_flush(view: Any, names: list[str] | None = None) -> str:
    from rules.flush.deck import VALUE, sort_key

    format_ = "Arena" if view.format == "arena" else "Elimination"
    mimic = (f"Mimic {view.mimic}" + (f" (card {view.mimic_card})" if view.mimic_card != view.mimic else "")
             if view.mimic else "no Mimic")
    lines = [f"Flush, {format_} - round {view.round}" + (f" of {view.rounds}" if view.format == "arena" else "")
             + f", {view.phase}; {mimic}; turn {view.turns}/{view.turn_limit}"]
    for seat, tops in enumerate(view.tops):
        mark = ">" if seat == view.turn else " "
        bases = " ".join(f"[{top or '.'}{'+' if blind else ''}]" for top, blind in zip(tops, view.blinds[seat]))
        out = "" if seat in view.active else "  OUT"
        lines.append(f" {mark} {seat_label(seat, view, names)} hand {view.hand_counts[seat]:>2}  "
                     f"bases {bases or '-':<17} total {view.totals[seat]:>4}{out}")
    pile = " / ".join(f"{len(play.cards)}x{play.value}" for play in view.pile[-4:]) or "empty"
    more = f"{len(view.pile) - 4} more / " if len(view.pile) > 4 else ""
    lines.append(f"   pile: {more}{pile}" + (f" (top: {view.run} x {view.top_value})" if view.pile else "")
                 + f"   flushed {view.flushed}   unused {view.unused}")
    if view.hand is not None:
        groups: dict[str, list[str]] = {}
        for card in sorted(view.hand, key=sort_key):
            groups.setdefault(VALUE.get(card, card), []).append(card)
        lines += wrap("   your hand:", [" ".join(cards) + " |" for cards in groups.values()] or ["-"], most=2)
        lines[-1] = lines[-1].rstrip(" |")
    if view.seat is not None and view.seat < len(view.tops):
        tops, blinds = view.tops[view.seat], view.blinds[view.seat]
        bases = [f"b{i + 1} [{top or '.'}{'+' if blind else ''}]" for i, (top, blind) in enumerate(zip(tops, blinds))]
        line = "   your Bases: " + "  ".join(bases)
        for legend in ("   (. empty, + a Blind card under)", "   (+: Blind card under)"):  # whichever fits
            if len(line + legend) < 80:
                line += legend
                break
        lines.append(line)
    if view.passing:
        lines.append("   Super Flush: choose the Base to pass")
    if view.winners:
        lines.append(f"   WINNER: {seat_list(view.winners)} with totals {'/'.join(map(str, view.totals))}")
    return "\n".join(lines)


def render_race_to_the_finish(view: Any, names: list[str] | None = None) -> str:
    from rules.race_to_the_finish.game import FINISH, SUIT_NAMES

    trump = SUIT_NAMES.get(view.trump or "", "none")
    lines = [f"The Race to the Finish - deal {view.deals}, {view.phase}, trump {trump}, dealer seat {seat_no(view.dealer)}"]
    track = " ".join(view.track) + " FINISH"
    lines.append(f"   track: start {track}")
    for seat, pieces in enumerate(view.pieces):
        mark = ">" if seat in (view.turn, view.chooser) else " "
        who = seat_label(seat, view, names)
        where = ", ".join(("FINISH" if pos == FINISH else "start" if pos == 0 else f"card {pos}")
                          + (" sidetracked" if off else "") for pos, off in zip(pieces, view.sidetracked[seat]))
        lines.append(f" {mark} {who} {where:<34} hand {view.hand_counts[seat]:>2}  tricks {view.tricks_won[seat]}")
    trick = "  ".join(f"seat {seat_no(seat)} {card}" for seat, card in zip(view.trick_seats, view.trick)) or "-"
    lines.append(f"   trick: {trick}   sidetracked: {view.sidetracked_played}")
    if view.hand is not None:
        hand = sorted(view.hand, key=hand_order)
        lines.append(f"   your hand: {' '.join(hand) or '-'}")
    if view.phase == "move":
        lines.append(f"   seat {seat_no(view.chooser)} chooses which piece moves")
    if view.phase == "sidetrack":
        lines.append(f"   seat {seat_no(view.chooser)} chooses which of seat {seat_no(view.mover)}'s pieces is "
                     f"sidetracked")
    if view.winner is not None:
        lines.append(f"   WINNER: seat {seat_no(view.winner)}")
    return "\n".join(lines)


def render_checkered_flag(view: Any, names: list[str] | None = None) -> str:
    track = view.track
    gears = ("N", "1st", "2nd", "3rd")
    symbol = {"white": ".", "danger": "!", "narrow": "="}
    lines = [f"Checkered Flag on {track.name} ({track.spaces} spaces x {track.laps} lap(s)) - {view.phase}, "
             f"turn {view.turns}/{view.turn_limit}"]
    course = track.spaces * track.laps
    chunk = track.spaces if track.spaces <= 60 else 50
    label = len(f"{course}-{course}")
    chunks = sorted({(p - 1) // chunk for p in view.positions if 0 < p <= course} | {0})
    if len(chunks) > 4:  # a long course: the start and the chunks around the cars furthest ahead
        chunks = [0, *chunks[-3:]]
    for index in chunks:
        first, last = index * chunk + 1, min(course, (index + 1) * chunk)
        row = "".join(symbol[track.kinds[(s - 1) % track.spaces + 1]] for s in range(first, last + 1))
        marks = [" "] * (last - first + 1)
        for seat, position in enumerate(view.positions):
            if first <= position <= last:
                marks[position - first] = str(seat_no(seat))[-1]
        lap = f"lap {(first - 1) // track.spaces + 1}" if track.laps > 1 else ""
        lines.append(f"   {f'{first}-{last}':>{label}} |{row}|" + (" finish" if last == course else f" {lap}"))
        lines.append(f"   {'':>{label}} |{''.join(marks)}|")
    for seat, position in enumerate(view.positions):
        mark = ">" if seat == view.turn else " "
        who = seat_label(seat, view, names)
        crash = f"  CRASHED: {view.lost[seat]} turn(s) to wait" if view.lost[seat] else ""
        lines.append(f" {mark} {who} space {position:>3}  gear {gears[view.gears[seat]]:<3}{crash}")
    if view.plan is not None:
        lines.append(f"   spun {view.plan.move}: from {view.plan.start} to {view.plan.end}"
                     + (f"; may brake to stop on {', '.join(map(str, view.plan.stops))}" if view.plan.stops else ""))
    lines.append("   . white  ! danger zone  = narrow (no passing)")
    if view.winner is not None:
        lines.append(f"   WINNER: seat {seat_no(view.winner)}")
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
        lines.append(f"   (the path starts below the bottom row's right end; finish {view.board[FINISH]}, top right)")
    for seat, markers in enumerate(view.markers):
        mark = ">" if seat == view.turn else " "
        who = seat_label(seat, view, names)
        where = "  ".join("HOME" if p == FINISH else "start" if p == 0 else f"{p}:{view.board[p]}" for p in markers)
        lines.append(f" {mark} {who} {where}")
    if view.choice is not None:
        me = getattr(view, "seat", None)
        markers = [f"{'your' if seat == me else f'seat {seat_no(seat)}' + chr(39) + 's'} marker {marker + 1}"
                   for seat, marker in view.choice.candidates]
        lines.append(f"   activated {view.choice.kind}: choose {' or '.join(markers)}")
    if view.places:
        by_place: dict[int, list[int]] = {}
        for seat, place in enumerate(view.places):
            by_place.setdefault(place, []).append(seat)
        groups = [f"{ordinal(place) if place else 'still racing'}: {seat_list(seats)}"
                  for place, seats in sorted(by_place.items(), key=lambda item: item[0] or 99)]
        lines += wrap("   places:", [group + ";" for group in groups[:-1]] + groups[-1:], most=2)
    return "\n".join(lines)


RENDERERS = {"flag_finish": render_flag_finish, "flush": render_flush, "checkered_flag": render_checkered_flag,
             "finish_line": render_finish_line,
             "race_to_the_finish": render_race_to_the_finish}


def render(game: str, view: Any, names: list[str] | None = None) -> str:
    """The table as text: each seat with its number and name (the reader's own marked YOU)."""
    renderer = RENDERERS.get(game)
    if renderer is None:
        return msgspec.json.format(msgspec.json.encode(view).decode())
    return renderer(view, names)
