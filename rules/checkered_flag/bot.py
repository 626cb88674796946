"""The Checkered Flag heuristic: for each gear it may pick, the expected progress over all 36 spins, with
every crash check's odds and the turns a crash costs; it brakes before a danger zone when going on is
worth less. So it shifts up on straights and down before danger zones, by the numbers.

A pure, deterministic policy over the seat's view (the whole race: nothing is hidden).
"""

from __future__ import annotations

from typing import Any

from rules import Rng
from rules.checkered_flag.game import (SPINNER, Brake, Go, Shift, braked_spaces, danger_checks, free_behind,
                                       move_for, plan_move)

SPACES_PER_LOST_TURN = 5.0  # what a lost turn costs, about one average move
GEAR_BONUS = 0.6  # a higher gear now is a faster move next turn


def choose(view: Any, legal: list, rng: Rng) -> Any:
    if type(legal[0]) is Shift:
        return max(legal, key=lambda action: _gear_value(view, action.gear))
    plan = view.plan
    options = [(Go(), plan.end, False), *((Brake(stop), stop, True) for stop in plan.stops)]
    gear = view.gears[view.seat]
    return max(options, key=lambda option: _outcome(view, gear, option[1],
                                                    braked_spaces(plan, option[1], option[2])))[0]


def _gear_value(view: Any, gear: int) -> float:
    if gear == 0:
        return -10.0
    seat = view.seat
    total = 0.0
    for a in range(1, SPINNER + 1):
        for b in range(1, SPINNER + 1):
            plan = plan_move(view.track, view.positions, seat, move_for(gear, a, b))
            best = _outcome(view, gear, plan.end, braked_spaces(plan, plan.end, False))
            for stop in plan.stops:
                best = max(best, _outcome(view, gear, stop, braked_spaces(plan, stop, True)))
            total += best
    return total / SPINNER**2 + GEAR_BONUS * gear


def _outcome(view: Any, gear: int, stop: int, braked: int) -> float:
    """Expected spaces gained by moving to ``stop`` after braking ``braked`` spaces, crashes counted."""
    track, seat = view.track, view.seat
    start = view.positions[seat]
    checks = danger_checks(track, start, stop, gear)
    odds = [(check.crash_on / SPINNER, check.at) for check in checks]
    if braked and gear >= 2:
        odds.append((min(braked, SPINNER) / SPINNER, stop))
    survive, value = 1.0, 0.0
    for chance, at in odds:
        crash = survive * chance
        value += crash * (free_behind(track, view.positions, seat, at) - start - SPACES_PER_LOST_TURN * gear)
        survive -= crash
    destination = free_behind(track, view.positions, seat, stop)
    finish_bonus = 100.0 if destination > track.finish else 0.0
    return value + survive * (destination - start + finish_bonus)
