"""Checkered Flag: cars, gears, two spinners, danger zones, narrow track and braking, on a track read from data.

Owns the whole game: options, actions, events, state, views and rules. Rule text (a fan's rules):
``shared/seeds/001_a5e9fbd2169adbf7.txt``; the track format is in ``track.py``; every decision in
``RULES.md``. Pure and deterministic: every spin is a chance action (``StartSpins``, ``Spin``) in the log.

A turn: the seat picks its gear (``Shift``); chance spins; where the move would enter a danger zone the
seat may brake before it (``Brake``) or go on (``Go``); chance spins once per crash check. Nothing is hidden.
"""

from __future__ import annotations

from typing import Union

import msgspec

from ..contract import (CHANCE, SYSTEM, Action, Event, GameInfo, OptionSpec, Result, RulesError, Setup, TimedOut,
                        Timeout, ToAct, TurnStarted, copy_unchanged, game_from, places, result_places,
                        show_everything)
from ..rng import Rng
from .track import DANGER, DEFAULT_TRACK, NARROW, Track, track_for

SPINNER = 6  # each spinner shows 1..6
TOP_GEAR = 3
CRASH_ON = {2: 1, 3: 2}  # gear -> the highest wheel-B number that crashes in a danger zone

INFO = GameInfo(
    name="checkered_flag",
    title="Checkered Flag",
    rules_version="2",
    min_seats=2,
    max_seats=4,
    modes=("lockstep",),
    options=(
        OptionSpec("track", DEFAULT_TRACK, "a built-in track's name or a whole track file's text"),
        OptionSpec("turn_limit", 1000, "turns after which the car furthest ahead wins", minimum=10,
                   maximum=100_000),
    ),
    hidden_information=False,
)

# ---------------------------------------------------------------- actions


class Shift(Action, tag="shift"):
    """Choose this turn's gear: 0 (Neutral) to 3, at most one away from the current gear."""

    gear: int  # the gear, 0 (Neutral) to 3: at most one away from the current one


class Go(Action, tag="go"):
    """After the spin: make the move (forced braking still applies)."""


class Brake(Action, tag="brake"):
    """After the spin: brake voluntarily, stopping on ``stop``, the space before a danger zone."""

    stop: int  # where to stop: one of the view's `plan.stops`


class StartSpins(Action, tag="start_spins"):
    """Chance: spinners A and B for each seat still spinning for the start order, in seat order."""

    a: list[int]
    b: list[int]


class Spin(Action, tag="spin"):
    """Chance: one spin of spinners A and B."""

    a: int
    b: int


ActionType = Union[Shift, Go, Brake, Timeout, StartSpins, Spin]

# ---------------------------------------------------------------- events


class StartSpun(Event, tag="start_spun"):
    seats: list[int]
    totals: list[int]
    order: list[int] | None  # None: some tied and spin again


class Shifted(Event, tag="shifted"):
    seat: int
    gear: int


class Spun(Event, tag="spun"):
    seat: int
    a: int
    b: int
    move: int


class Braking(Event, tag="braking"):
    seat: int
    stop: int
    spaces: int
    forced: bool


class CrashCheck(Event, tag="crash_check"):
    seat: int
    reason: str  # "danger" or "braking"
    b: int
    crashed: bool


class Moved(Event, tag="moved"):
    seat: int
    start: int
    end: int


class Crashed(Event, tag="crashed"):
    seat: int
    at: int
    turns_lost: int


class TurnLost(Event, tag="turn_lost"):
    seat: int
    remaining: int


class RaceWon(Event, tag="race_won"):
    seat: int
    reason: str  # "finish" or "turn_limit"


EventType = Union[StartSpun, Shifted, Spun, Braking, CrashCheck, Moved, Crashed, TurnLost, TimedOut,
                  TurnStarted, RaceWon]

# ---------------------------------------------------------------- state


class Check(msgspec.Struct, frozen=True):
    """A crash check still to spin: crash when wheel B shows ``crash_on`` or less; then the car goes to ``at``."""

    reason: str  # "danger" (entering a danger zone too fast for the gear) or "braking" (a hard brake)
    crash_on: int  # the car crashes when spinner B shows this or less
    at: int  # where the car goes if it crashes


class Plan(msgspec.Struct, frozen=True):
    """The move a spin gave: from ``start`` by ``move``; ``end``, where going on really stops (after forced
    braking, never on another car); the voluntary stops, each a free space; ``forced``: a car on narrow
    track makes it brake."""

    start: int  # the car's position before the move
    move: int  # spaces the spin gave
    end: int  # where going on really stops (after forced braking, never on another car)
    stops: list[int]  # the spaces where the car may brake voluntarily (`brake` with `stop`), each free
    forced: bool = False  # a car on narrow track ahead makes it brake


class State(msgspec.Struct):
    seats: int
    options: dict[str, int | bool | str]  # the track is the option "track" (see track_of)
    phase: str = "start"  # start -> gear -> spin [-> brake] [-> check] -> gear ... -> over
    spinning: list[int] = msgspec.field(default_factory=list)  # seats spinning for the start order
    start_keys: list[list[int]] = msgspec.field(default_factory=list)
    order: list[int] = msgspec.field(default_factory=list)
    turn: int = 0  # index into order
    positions: list[int] = msgspec.field(default_factory=list)  # 0: the start line
    gears: list[int] = msgspec.field(default_factory=list)
    lost: list[int] = msgspec.field(default_factory=list)  # turns still lost to a crash
    crashes: list[int] = msgspec.field(default_factory=list)
    plan: Plan | None = None
    checks: list[Check] = msgspec.field(default_factory=list)
    destination: int = 0  # where the move ends if no check crashes
    turns: int = 0
    winner: int = -1


def new_state(setup: Setup) -> State:
    n = setup.seats
    track_for(setup.options["track"])  # a bad track is refused here, before the game exists
    return State(seats=n, options=dict(setup.options),
                 spinning=list(range(n)), start_keys=[[] for _ in range(n)], positions=[0] * n, gears=[0] * n,
                 lost=[0] * n, crashes=[0] * n)


def track_of(state: State) -> Track:
    """The track of the table's ``track`` option (parsed once per distinct option, then cached)."""
    return track_for(state.options["track"])


def seat_to_act(state: State) -> int:
    return state.order[state.turn]


def to_act(state: State) -> ToAct:
    if state.phase in ("start", "spin", "check"):
        return ToAct(chance=True)
    if state.phase == "over":
        return ToAct(over=True)
    return ToAct(seats=(seat_to_act(state),))


# ---------------------------------------------------------------- movement, pure


def move_for(gear: int, a: int, b: int) -> int:
    """1st: the lesser number; 2nd: the greater; 3rd: the sum."""
    return {1: min(a, b), 2: max(a, b), 3: a + b}[gear]


def plan_move(track: Track, positions: list[int], seat: int, move: int) -> Plan:
    """Where a move of ``move`` spaces from the seat's position may end: forced braking behind a car on
    narrow track, and the spaces before each danger zone it would enter (voluntary stops). Every stop is
    where the car really ends: a car standing there sends it to the nearest free space behind."""
    start = positions[seat]
    others = {p for s, p in enumerate(positions) if s != seat and 0 < p <= track.finish}
    end, forced = start + move, False
    for space in range(start + 1, start + move + 1):
        if space in others and track.kind(space) == NARROW:
            end, forced = space - 1, True
            break
    end = free_behind(track, positions, seat, end)
    stops: list[int] = []
    previous = track.kind(start)
    for space in range(start + 1, end + 1):
        kind = track.kind(space)
        if kind == DANGER and previous != DANGER:
            stop = free_behind(track, positions, seat, space - 1)
            if stop not in stops:
                stops.append(stop)
        previous = kind
    return Plan(start=start, move=move, end=end, stops=stops, forced=forced)


def braked_spaces(plan: Plan, stop: int, voluntary: bool) -> int:
    """Spaces braked when the move of ``plan`` stops on ``stop``: counted from the spun move to where the car
    really stops. None when it goes on unforced (stopping behind a car off narrow track is not braking)."""
    return plan.start + plan.move - stop if voluntary or plan.forced else 0


def danger_checks(track: Track, start: int, end: int, gear: int) -> list[Check]:
    """One check per run of contiguous danger spaces moved through, one per curve in a multi-curve zone;
    none in 1st gear. A crash puts the car on the last space of that section it reached. Zones that touch
    across a lap line are one run: the next lap's first curve goes on from the last curve before the line."""
    if gear not in CRASH_ON:
        return []
    checks: list[Check] = []
    key = None
    for space in range(start + 1, end + 1):
        if track.kind(space) != DANGER:
            key = None
            continue
        section = track.section(space)
        if section != key and not (key is not None and track.lap_space(space) == 1):
            checks.append(Check(reason="danger", crash_on=CRASH_ON[gear], at=space))
        else:
            checks[-1] = msgspec.structs.replace(checks[-1], at=space)
        key = section
    return checks


def free_behind(track: Track, positions: list[int], seat: int, space: int) -> int:
    """``space``, or the nearest free space behind it when another car is there (never behind the start)."""
    others = {p for s, p in enumerate(positions) if s != seat}
    floor = positions[seat]
    while space > floor and 0 < space <= track.finish and space in others:
        space -= 1
    return space


# ---------------------------------------------------------------- legal actions


def legal_actions(state: State, actor: int) -> list[Action]:
    if actor < 0 or state.phase not in ("gear", "brake") or actor != seat_to_act(state):
        return []
    if state.phase == "gear":
        gear = state.gears[actor]
        return [Shift(g) for g in range(max(0, gear - 1), min(TOP_GEAR, gear + 1) + 1)]
    return [Go(), *(Brake(stop) for stop in state.plan.stops)]


# ---------------------------------------------------------------- apply


def apply(state: State, actor: int, action: Action) -> list[Event]:
    kind = type(action)
    if kind in (StartSpins, Spin):
        if actor != CHANCE:
            raise RulesError("chance_only", "only chance spins the wheels")
        _check_spin_values(action)
        if kind is StartSpins:
            return _start_spins(state, action)
        if state.phase == "spin":
            return _movement_spin(state, action)
        if state.phase == "check":
            return _check_spin(state, action)
        raise RulesError("no_spin_due", "no spin is due now")
    if state.phase == "over":
        raise RulesError("game_over", "the race is over")
    if state.phase in ("start", "spin", "check"):
        raise RulesError("wait_for_spin", "the spinners decide what happens next")
    seat = seat_to_act(state)
    if kind is Timeout:
        if actor != SYSTEM:
            raise RulesError("system_only", "only the arbiter times a seat out")
        if action.seat != seat:
            raise RulesError("not_to_act", f"seat {action.seat} is not the one to act")
        return [TimedOut(seat=seat), *apply(state, seat, least_harmful(state))]
    if actor != seat:
        raise RulesError("not_your_turn", f"it is seat {seat}'s turn")
    if kind is Shift:
        if state.phase != "gear":
            raise RulesError("gear_chosen", "you chose your gear already this turn: go or brake")
        gear = state.gears[seat]
        if not 0 <= action.gear <= TOP_GEAR or abs(action.gear - gear) > 1:
            raise RulesError("bad_shift", f"from {_gear_name(gear)} you may shift to "
                             f"{' or '.join(_gear_name(g.gear) for g in legal_actions(state, seat))}")
        state.gears[seat] = action.gear
        events: list[Event] = [Shifted(seat=seat, gear=action.gear)]
        if action.gear == 0:
            return events + _end_turn(state)
        state.phase = "spin"
        return events
    if kind in (Go, Brake):
        if state.phase != "brake":
            raise RulesError("not_moving", "choose your gear first")
        plan = state.plan
        if kind is Go:
            return _move(state, seat, plan.end, voluntary=False)
        if action.stop not in plan.stops:
            raise RulesError("bad_brake", f"you may brake only to stop before a danger zone: "
                             f"{', '.join(str(s) for s in plan.stops)}")
        return _move(state, seat, action.stop, voluntary=True)
    raise RulesError("unknown_action", f"Checkered Flag has no action {kind.__name__}")


def _gear_name(gear: int) -> str:
    return ("Neutral", "1st", "2nd", "3rd")[gear]


def _check_spin_values(action: Action) -> None:
    values = list(action.a) + list(action.b) if type(action) is StartSpins else [action.a, action.b]
    if not all(1 <= v <= SPINNER for v in values):
        raise RulesError("bad_spin", f"a spinner shows 1..{SPINNER}")


def _start_spins(state: State, action: StartSpins) -> list[Event]:
    if state.phase != "start":
        raise RulesError("no_spin_due", "the start order is settled")
    if len(action.a) != len(state.spinning) or len(action.b) != len(state.spinning):
        raise RulesError("bad_spin", f"{len(state.spinning)} seats spin for the start")
    totals = [a + b for a, b in zip(action.a, action.b)]
    seats = list(state.spinning)
    for seat, total in zip(seats, totals):
        state.start_keys[seat].append(total)
    ranked = sorted(range(state.seats), key=lambda s: [-k for k in state.start_keys[s]])
    tied = [s for s in ranked if sum(state.start_keys[s] == state.start_keys[o] for o in ranked) > 1]
    if tied:
        state.spinning = tied
        return [StartSpun(seats=seats, totals=totals, order=None)]
    state.order = ranked
    state.spinning = []
    state.phase = "gear"
    state.turn = 0
    return [StartSpun(seats=seats, totals=totals, order=ranked), TurnStarted(seat=ranked[0])]


def _movement_spin(state: State, action: Spin) -> list[Event]:
    seat = seat_to_act(state)
    move = move_for(state.gears[seat], action.a, action.b)
    plan = plan_move(track_of(state), state.positions, seat, move)
    state.plan = plan
    events: list[Event] = [Spun(seat=seat, a=action.a, b=action.b, move=move)]
    if plan.stops:
        state.phase = "brake"
        return events
    return events + _move(state, seat, plan.end, voluntary=False)


def _move(state: State, seat: int, stop: int, voluntary: bool) -> list[Event]:
    """Move to ``stop``, a free space of the plan (its end or a voluntary stop): the braking event, the
    crash checks and the car's new space all count to that one space."""
    gear = state.gears[seat]
    start = state.positions[seat]
    braked = braked_spaces(state.plan, stop, voluntary)
    events: list[Event] = []
    if braked:
        events.append(Braking(seat=seat, stop=stop, spaces=braked, forced=not voluntary))
    checks = danger_checks(track_of(state), start, stop, gear)
    if braked and gear in CRASH_ON:
        checks.append(Check(reason="braking", crash_on=braked, at=stop))
    state.destination = stop
    state.checks = checks
    if checks:
        state.phase = "check"
        return events
    return events + _arrive(state, seat)


def _check_spin(state: State, action: Spin) -> list[Event]:
    seat = seat_to_act(state)
    check = state.checks.pop(0)
    crashed = action.b <= check.crash_on
    events: list[Event] = [CrashCheck(seat=seat, reason=check.reason, b=action.b, crashed=crashed)]
    if crashed:
        start = state.positions[seat]
        at = free_behind(track_of(state), state.positions, seat, check.at)
        state.positions[seat] = at
        lost = state.gears[seat] - 1
        state.lost[seat] = lost
        state.gears[seat] = 0
        state.crashes[seat] += 1
        state.checks = []
        events += [Moved(seat=seat, start=start, end=at), Crashed(seat=seat, at=at, turns_lost=lost)]
        return events + _end_turn(state)
    if state.checks:
        return events
    return events + _arrive(state, seat)


def _arrive(state: State, seat: int) -> list[Event]:
    start = state.positions[seat]
    state.positions[seat] = state.destination
    events: list[Event] = [Moved(seat=seat, start=start, end=state.destination)]
    if state.destination > track_of(state).finish:
        state.phase = "over"
        state.winner = seat
        return events + [RaceWon(seat=seat, reason="finish")]
    return events + _end_turn(state)


def _end_turn(state: State) -> list[Event]:
    state.plan = None
    state.checks = []
    events: list[Event] = []
    while True:
        state.turns += 1
        if state.turns >= state.options["turn_limit"]:
            best = max(state.positions)
            state.winner = next(s for s in state.order if state.positions[s] == best)
            state.phase = "over"
            return events + [RaceWon(seat=state.winner, reason="turn_limit")]
        state.turn = (state.turn + 1) % state.seats
        seat = seat_to_act(state)
        if state.lost[seat] == 0:
            state.phase = "gear"
            return events + [TurnStarted(seat=seat)]
        state.lost[seat] -= 1
        events.append(TurnLost(seat=seat, remaining=state.lost[seat]))


# ---------------------------------------------------------------- chance, result, time


def sample_chance(state: State, rng: Rng) -> Action:
    if state.phase == "start":
        count = len(state.spinning)
        return StartSpins(a=[rng.below(SPINNER) + 1 for _ in range(count)],
                          b=[rng.below(SPINNER) + 1 for _ in range(count)])
    return Spin(a=rng.below(SPINNER) + 1, b=rng.below(SPINNER) + 1)


def result(state: State) -> Result | None:
    if state.phase != "over":
        return None
    return Result(scores=tuple(state.positions), winners=(state.winner,), lower_is_better=False)


def placings(state: State) -> tuple[int, ...] | None:
    """The winner first, then the other cars by the space they reached (equal spaces share a place)."""
    final = result(state)
    return None if final is None else result_places(final)


def standing(state: State) -> tuple[int, ...]:
    """The race as it stands: cars by the space they stand on, furthest first (cars on one space: only the
    start line, sharing a place)."""
    return placings(state) or places([-position for position in state.positions])


def least_harmful(state: State) -> Action:
    """A timed-out seat shifts towards 1st (where nothing crashes), then goes on without braking."""
    if state.phase == "brake":
        return Go()
    gear = state.gears[seat_to_act(state)]
    return Shift(1 if gear <= 1 else gear - 1)


def timeout_action(state: State, seat: int) -> Action:
    return Timeout(seat=seat)


# ---------------------------------------------------------------- views


class View(msgspec.Struct, frozen=True):
    """Everything: Checkered Flag hides nothing."""

    seat: int | None  # your seat (null: a spectator)
    phase: str  # "start" (spins for the start order), "gear", "spin", "brake", "check" (crash checks), or "over"
    track: Track  # the track raced on
    order: list[int]  # the seats in turn order (from the start spins)
    turn: int | None  # the seat to act (null while chance acts, and at the end)
    positions: list[int]  # each car's position: 0 the start line, then spaces counted over every lap (space `(p - 1)
    # % spaces + 1` of a lap); past `spaces * laps` it has finished
    gears: list[int]  # each car's gear, 0 (Neutral) to 3
    lost: list[int]  # turns each car still loses to a crash
    crashes: list[int]  # crashes each car has had
    plan: Plan | None  # the brake phase: the move the spin gave (null otherwise)
    checks: list[Check]  # crash checks still to spin for this move
    turns: int  # turns so far
    turn_limit: int  # after this many turns the car furthest ahead wins
    winner: int | None  # the winning seat, once the race is over (null before)


def view(state: State, seat: int | None) -> View:
    return View(seat=seat, phase=state.phase, track=track_of(state), order=list(state.order),
                turn=seat_to_act(state) if state.phase in ("gear", "spin", "brake", "check") else None,
                positions=list(state.positions), gears=list(state.gears), lost=list(state.lost),
                crashes=list(state.crashes), plan=state.plan, checks=list(state.checks), turns=state.turns,
                turn_limit=state.options["turn_limit"], winner=state.winner if state.phase == "over" else None)


redact = show_everything  # nothing is hidden
scramble = copy_unchanged


def invariant(state: State) -> list[str]:
    problems = []
    track = track_of(state)
    on_track = [p for p in state.positions if 0 < p <= track.finish]
    if len(on_track) != len(set(on_track)):
        problems.append(f"two cars on one space: {state.positions}")
    if any(p < 0 or p > track.finish + 2 * SPINNER for p in state.positions):
        problems.append(f"a car off the track: {state.positions}")
    if any(not 0 <= g <= TOP_GEAR for g in state.gears):
        problems.append(f"a bad gear: {state.gears}")
    if any(not 0 <= n < TOP_GEAR for n in state.lost):
        problems.append(f"a bad crash counter: {state.lost}")
    if any(n and g for n, g in zip(state.lost, state.gears)):
        problems.append("a crashed car is in gear")
    finished = [s for s, p in enumerate(state.positions) if p > track.finish]
    if len(finished) > 1:
        problems.append(f"more than one car crossed the finish line: {finished}")
    if state.phase == "over" and not 0 <= state.winner < state.seats:
        problems.append("the race is over without a winner")
    if state.phase != "over" and (finished or state.winner != -1):
        problems.append("a winner while the race goes on")
    return problems


def describe(state: State) -> str:
    lines = [f"Checkered Flag on {track_of(state).name}, {state.phase}, turn {state.turns}"]
    for seat in range(state.seats):
        crash = f" | crashed, {state.lost[seat]} turns to wait" if state.lost[seat] else ""
        lines.append(f"  seat {seat}: space {state.positions[seat]} | {_gear_name(state.gears[seat])}{crash}")
    return "\n".join(lines)


GAME = game_from(globals())
