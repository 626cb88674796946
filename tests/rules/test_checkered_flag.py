"""Checkered Flag, rule by rule with forced spins on the Travel Oval (1-8 white, 9-12 danger, 13-18 white,
19-21 narrow, 22-27 white, 28-35 danger in two curves, 36-41 white, 42-46 danger, 47-50 narrow, 51-53
white, 54-59 danger in two curves, 60 white), and the track file format with its malformed cases."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

import pytest

from rules import CHANCE, SYSTEM, RulesError, make_setup
from rules.checkered_flag.game import (
    INFO, Brake, Braking, CrashCheck, Crashed, Go, Moved, RaceWon, Shift, Spin, Spun, StartSpins, StartSpun,
    Timeout, TurnLost, apply, invariant, legal_actions, new_state, placings, standing, to_act, track_of, view,
)
from tests.rules.checks import of, refused_by

refused = refused_by(apply)
from rules.checkered_flag.track import BUILTIN_TRACKS, parse_track


def race(positions, gears=None, turn=0, **options):
    """A race under way: cars at these spaces in these gears, seat ``turn`` to choose its gear."""
    state = new_state(make_setup(INFO, len(positions), "lockstep", options))
    state.positions = list(positions)
    state.gears = list(gears or [0] * len(positions))
    state.order = list(range(len(positions)))
    state.phase, state.turn, state.spinning = "gear", turn, []
    assert invariant(state) == []
    return state


def turn(state, gear, a, b, *choices_and_spins):
    """Shift to ``gear``, spin (a, b), then each further item: an action of the seat or a chance Spin."""
    seat = state.order[state.turn]
    events = apply(state, seat, Shift(gear)) + apply(state, CHANCE, Spin(a, b))
    for item in choices_and_spins:
        events += apply(state, CHANCE if type(item) is Spin else seat, item)
    return events


# ---------------------------------------------------------------- start and gears


def test_the_highest_spin_goes_first_and_ties_spin_again():
    state = new_state(make_setup(INFO, 3, "lockstep"))
    events = apply(state, CHANCE, StartSpins(a=[3, 6, 5], b=[4, 1, 2]))
    assert of(events, StartSpun)[0].order is None and state.spinning == [0, 1, 2]  # 7, 7, 7
    apply(state, CHANCE, StartSpins(a=[1, 6, 6], b=[1, 6, 5]))
    assert state.order == [1, 2, 0] and to_act(state).seats == (1,)


def test_only_the_tied_seats_spin_again():
    state = new_state(make_setup(INFO, 3, "lockstep"))
    apply(state, CHANCE, StartSpins(a=[6, 6, 1], b=[6, 6, 1]))
    assert state.spinning == [0, 1]
    refused(state, CHANCE, StartSpins(a=[1, 2, 3], b=[1, 2, 3]), "bad_spin")
    apply(state, CHANCE, StartSpins(a=[2, 5], b=[2, 5]))
    assert state.order == [1, 0, 2]


@pytest.mark.parametrize("gear, allowed", [(0, [0, 1]), (1, [0, 1, 2]), (2, [1, 2, 3]), (3, [2, 3])])
def test_a_car_shifts_at_most_one_gear_a_turn_and_may_stay(gear, allowed):
    state = race([0, 0], gears=[gear, 0])
    assert [a.gear for a in legal_actions(state, 0)] == allowed
    if gear == 0:
        refused(state, 0, Shift(2), "bad_shift")


def test_cars_start_on_the_start_line_in_neutral():
    state = new_state(make_setup(INFO, 2, "lockstep"))
    assert state.positions == [0, 0] and state.gears == [0, 0]


@pytest.mark.parametrize("gear, a, b, spaces", [(1, 5, 2, 2), (1, 3, 3, 3), (2, 5, 2, 5), (2, 4, 4, 4),
                                                (3, 5, 2, 7)])
def test_first_moves_the_lesser_second_the_greater_third_the_sum(gear, a, b, spaces):
    state = race([13, 0], gears=[gear, 0])
    turn(state, gear, a, b)
    assert state.positions[0] == 13 + spaces


def test_neutral_does_not_move_and_the_turn_passes():
    state = race([5, 0], gears=[1, 0])
    apply(state, 0, Shift(0))
    assert state.positions[0] == 5 and to_act(state).seats == (1,)


# ---------------------------------------------------------------- one car per space


def test_a_move_ending_on_another_car_stops_on_the_nearest_free_space_behind_it():
    state = race([1, 4, 3], gears=[3, 0, 0])
    turn(state, 3, 1, 2)  # 1 + 3 = 4: taken, 3 taken, so 2
    assert state.positions[0] == 2


def test_passing_is_allowed_on_white_spaces():
    state = race([1, 3], gears=[3, 0])
    turn(state, 3, 2, 2)
    assert state.positions[0] == 5


# ---------------------------------------------------------------- danger zones


def test_entering_a_danger_zone_in_2nd_crashes_on_a_1_on_wheel_b():
    state = race([6, 0], gears=[2, 0])
    events = turn(state, 2, 4, 1, Go(), Spin(3, 2))  # to 10; B = 2: safe
    assert of(events, CrashCheck)[0].crashed is False and state.positions[0] == 10
    state = race([6, 0], gears=[2, 0])
    events = turn(state, 2, 4, 1, Go(), Spin(3, 1))
    assert of(events, Crashed)[0].at == 10 and state.positions[0] == 10


def test_in_3rd_a_1_or_2_on_wheel_b_crashes():
    state = race([4, 0], gears=[3, 0])
    events = turn(state, 3, 3, 3, Go(), Spin(6, 2))  # to 10
    assert of(events, CrashCheck)[0].crashed and state.lost[0] == 2


def test_first_gear_never_checks():
    state = race([8, 0], gears=[1, 0])
    events = turn(state, 1, 3, 4, Go())
    assert not of(events, CrashCheck) and state.positions[0] == 11 and state.phase == "gear"


def test_a_zone_of_two_curves_checks_once_per_curve():
    state = race([26, 0], gears=[3, 0])
    events = turn(state, 3, 5, 4, Go(), Spin(1, 3), Spin(1, 3))  # 27 -> 35: curves 28-31 and 32-35
    assert len(of(events, CrashCheck)) == 2 and state.positions[0] == 35


def test_a_crash_in_the_second_curve_puts_the_car_on_the_last_space_of_that_curve_it_could_reach():
    state = race([26, 0], gears=[3, 0])
    events = turn(state, 3, 4, 4, Go(), Spin(1, 3), Spin(1, 1))  # planned 34
    assert of(events, Crashed)[0].at == 34


def test_contiguous_danger_spaces_of_a_one_curve_zone_need_one_check():
    state = race([41, 0], gears=[2, 0])
    events = turn(state, 2, 5, 1, Go(), Spin(4, 4))  # 42-46
    assert len(of(events, CrashCheck)) == 1 and state.positions[0] == 46


def test_leaving_a_danger_zone_onto_white_needs_no_check_but_a_new_zone_does():
    state = race([12, 0], gears=[2, 0])
    events = turn(state, 2, 6, 1)  # 13-18 white
    assert not of(events, CrashCheck) and state.positions[0] == 18
    state = race([46, 0], gears=[3, 0])
    events = turn(state, 3, 6, 3, Go(), Spin(1, 6))  # 47-50 narrow, 51-53 white, 54-55 danger
    assert len(of(events, CrashCheck)) == 1 and state.positions[0] == 55


def test_a_crash_in_2nd_loses_one_turn_and_in_3rd_two_then_the_car_restarts_from_neutral():
    state = race([6, 0], gears=[2, 1])
    turn(state, 2, 4, 1, Go(), Spin(3, 1))
    assert state.lost[0] == 1 and state.gears[0] == 0
    turn(state, 1, 1, 1)  # seat 1 moves
    assert to_act(state).seats == (1,)  # seat 0's turn was lost
    turn(state, 1, 1, 1)
    assert to_act(state).seats == (0,) and [a.gear for a in legal_actions(state, 0)] == [0, 1]
    state = race([4, 0], gears=[3, 1])
    events = turn(state, 3, 3, 3, Go(), Spin(6, 2))
    events += turn(state, 1, 1, 1)
    lost = of(events, TurnLost)
    assert lost and lost[0].remaining == 1 and to_act(state).seats == (1,)


# ---------------------------------------------------------------- narrow track and braking


def test_no_passing_on_narrow_track_braking_is_forced_and_checked_by_the_spaces_braked():
    state = race([16, 20], gears=[2, 0])
    events = turn(state, 2, 6, 1, Spin(1, 3))  # 16 + 6 would pass the car on 20: stop on 19, braked 3
    braking = of(events, Braking)[0]
    assert (braking.stop, braking.spaces, braking.forced) == (19, 3, True)
    assert of(events, CrashCheck)[0].crashed and state.positions[0] == 19 and state.lost[0] == 1
    state = race([16, 20], gears=[2, 0])
    events = turn(state, 2, 6, 1, Spin(1, 4))
    assert not of(events, CrashCheck)[0].crashed and state.positions[0] == 19


def test_a_forced_brake_behind_a_car_standing_behind_another_counts_every_space_braked():
    # Three cars: 14 in 2nd spins 6 (to 20); a car on 19 (narrow) forces a stop before it, and a car on 18
    # (white) stands right behind that one, so the car stops on 17: it moved 3 of its 6 and braked 3.
    state = race([14, 18, 19], gears=[2, 0, 0])
    events = turn(state, 2, 6, 1, Spin(1, 3))
    braking = of(events, Braking)[0]
    assert (braking.stop, braking.spaces, braking.forced) == (17, 3, True)
    assert of(events, CrashCheck)[0].crashed  # B = 3 is within the 3 spaces braked
    assert of(events, Moved)[0].end == 17 and state.positions == [17, 18, 19]
    state = race([14, 18, 19], gears=[2, 0, 0])
    events = turn(state, 2, 6, 1, Spin(1, 4))
    assert not of(events, CrashCheck)[0].crashed
    assert of(events, Moved)[0].end == of(events, Braking)[0].stop == state.positions[0] == 17


def test_a_voluntary_brake_before_a_zone_whose_last_space_is_taken_stops_behind_it_and_counts_that():
    # 5 in 3rd spins 7 (to 12, into the 9-12 zone); a car stands on 8, the space before the zone, so
    # braking before the zone stops on 7: 5 spaces braked, and the event, check and position agree.
    state = race([5, 8], gears=[3, 0])
    apply(state, 0, Shift(3))
    apply(state, CHANCE, Spin(4, 3))
    assert legal_actions(state, 0) == [Go(), Brake(7)]
    events = apply(state, 0, Brake(7)) + apply(state, CHANCE, Spin(2, 5))
    assert (of(events, Braking)[0].stop, of(events, Braking)[0].spaces) == (7, 5)
    assert of(events, CrashCheck)[0].crashed and state.positions[0] == 7


def test_braking_in_1st_is_always_safe():
    state = race([17, 19], gears=[1, 0])
    events = turn(state, 1, 5, 6)
    assert of(events, Braking)[0].spaces == 4 and not of(events, CrashCheck) and state.positions[0] == 18


def test_a_car_may_brake_before_a_danger_zone_and_checks_for_the_braking():
    state = race([5, 0], gears=[3, 0])
    apply(state, 0, Shift(3))
    apply(state, CHANCE, Spin(4, 3))  # 5 + 7 = 12, into the 9-12 zone
    assert legal_actions(state, 0) == [Go(), Brake(8)]
    refused(state, 0, Brake(7), "bad_brake")
    events = apply(state, 0, Brake(8)) + apply(state, CHANCE, Spin(2, 5))
    assert of(events, Braking)[0].spaces == 4 and of(events, CrashCheck)[0].reason == "braking"
    assert not of(events, CrashCheck)[0].crashed and state.positions[0] == 8


def test_no_ramming_a_car_never_ends_on_another():
    state = race([18, 19], gears=[1, 0])
    events = turn(state, 1, 3, 3)
    assert of(events, Moved)[0].end == 18 and state.positions == [18, 19]


# ---------------------------------------------------------------- victory, views, time


def test_the_first_car_across_the_finish_line_wins():
    state = race([58, 40], gears=[1, 0])
    events = turn(state, 1, 3, 4)
    assert of(events, RaceWon)[0].seat == 0 and to_act(state).over and state.positions[0] == 61


def test_every_seat_sees_the_whole_race():
    state = race([5, 9], gears=[2, 1])
    views = [view(state, seat) for seat in (None, 0, 1)]
    assert all(v.positions == [5, 9] and v.gears == [2, 1] and v.track.name == "Travel Oval" for v in views)


def test_a_timeout_shifts_towards_first_gear():
    state = race([13, 0], gears=[3, 0])
    apply(state, SYSTEM, Timeout(seat=0))
    assert state.gears[0] == 2
    refused(state, SYSTEM, Timeout(seat=0), "wait_for_spin")


def test_a_race_at_the_turn_limit_goes_to_the_car_furthest_ahead():
    state = race([30, 31], gears=[1, 1], turn_limit=10)
    state.turns = 9
    events = apply(state, 0, Shift(0))
    assert of(events, RaceWon)[0].seat == 1 and of(events, RaceWon)[0].reason == "turn_limit"


def test_as_it_stands_cars_are_placed_by_distance_and_at_the_end_the_winner_first():
    state = race([30, 41, 0, 0], gears=[1, 1, 0, 0], turn_limit=10)
    assert standing(state) == (2, 1, 3, 3) and placings(state) is None  # two cars still on the start line
    state.turns = 9
    apply(state, 0, Shift(0))
    assert placings(state) == (2, 1, 3, 3) == standing(state)
    state = race([58, 40, 20], gears=[1, 0, 0])
    turn(state, 1, 3, 4)
    assert placings(state) == (1, 2, 3)


# ---------------------------------------------------------------- tracks as data


def test_the_travel_oval_is_a_track_file_with_the_notes_layout():
    track = parse_track(BUILTIN_TRACKS["travel_oval"])
    assert track.spaces == 60 and track.laps == 1 and track.finish == 60
    assert [track.kind(s) for s in (8, 9, 12, 19, 28, 35, 47, 54, 60)] == [
        "white", "danger", "danger", "narrow", "danger", "danger", "narrow", "danger", "white"]
    assert track.danger[1] == [[28, 31], [32, 35]] and track.narrow == [[19, 21], [47, 50]]


def test_a_user_track_given_as_the_track_option_is_raced_on_with_laps():
    text = "name: Tiny\nspaces: 10\nlaps: 2\ndanger: 4-5\nnarrow: 8-9\n"
    state = race([9, 0], gears=[1, 0], track=text)
    track = track_of(state)
    assert track.name == "Tiny" and track.finish == 20 and track.kind(14) == "danger"
    assert view(state, 0).track == track


SEAM = "name: Seam\nspaces: 10\nlaps: 2\ndanger: 9-10\ndanger: 1-2\n"


def test_danger_zones_that_touch_across_the_lap_line_are_one_zone_checked_once():
    # 9-10 ends lap 1 and 1-2 starts lap 2 (spaces 11-12): 8 -> 12 runs through four contiguous danger spaces.
    state = race([8, 0], gears=[3, 0], track=SEAM)
    events = turn(state, 3, 2, 2, Go(), Spin(1, 3))
    assert len(of(events, CrashCheck)) == 1 and state.positions[0] == 12
    state = race([8, 0], gears=[3, 0], track=SEAM)
    events = turn(state, 3, 2, 2, Go(), Spin(1, 2))
    assert of(events, Crashed)[0].at == 12  # the last space of that one zone the move reached


def test_across_the_lap_line_the_other_curves_of_a_zone_still_check_each():
    track = "name: Seam\nspaces: 10\nlaps: 2\ndanger: 9-10\ndanger: 1-2, 3-4\n"
    state = race([8, 0], gears=[3, 0], track=track)
    events = turn(state, 3, 3, 3, Go(), Spin(1, 3), Spin(1, 3))  # 9-12 one run, then the curve 13-14
    assert len(of(events, CrashCheck)) == 2 and state.positions[0] == 14


@pytest.mark.parametrize("text, problem", [
    ("spaces: 10\n", "no name"),
    ("name: X\n", "no spaces"),
    ("name: X\nspaces: ten\n", "line 2: spaces must be a whole number"),
    ("name: X\nspaces: 1\n", "line 2: spaces is 2..1000"),
    ("name: X\nspaces: 10\nlaps: 0\n", "line 3: laps is 1..20"),
    ("name: X\nspaces: 10\ncurve: 3-4\n", "line 3: unknown key 'curve'"),
    ("name: X\nspaces: 10\ndanger 3-4\n", "line 3: expected 'key: value'"),
    ("name: X\nspaces: 10\ndanger: 3-14\n", "line 3: range 3-14 is not within spaces 1-10"),
    ("name: X\nspaces: 10\ndanger: 5-3\n", "line 3: range 5-3"),
    ("name: X\nspaces: 10\ndanger: a-b\n", "line 3: 'a-b' is not a range"),
    ("name: X\nspaces: 10\ndanger: 2-4\nnarrow: 4-5\n", "line 4: space 4 is already in a danger section"),
    ("name: X\nspaces: 10\ndanger: 2-3, 5-6\n", "line 3: the curves 2-3 and 5-6 of one zone must follow"),
    ("name: X\nspaces: 10\nnarrow: 2-3, 4-5\n", "line 3: a narrow section is one range"),
    ("name: X\nspaces: 10\ndanger: 2-3\ndanger: 4-5\n", "danger zones touch at spaces 3 and 4"),
    ("name: X\nname: Y\nspaces: 10\n", "line 2: name is given twice"),
])
def test_a_malformed_track_is_refused_naming_the_line_and_the_problem(text, problem):
    with pytest.raises(RulesError) as caught:
        parse_track(text)
    assert caught.value.code == "bad_track" and problem in caught.value.message


def test_a_table_naming_no_such_track_is_refused_with_the_tracks_there_are():
    with pytest.raises(RulesError) as caught:
        new_state(make_setup(INFO, 2, "lockstep", {"track": "monaco"}))
    assert caught.value.code == "bad_track" and "travel_oval" in caught.value.message


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), cars=st.integers(2, 4))
def test_random_races_keep_positions_gears_and_crash_counters_valid_and_end_with_exactly_one_winner(seed, cars):
    from rules import Rng, Session, get_game

    session = Session(get_game("checkered_flag"), make_setup(INFO, cars, "lockstep"), seed)
    session.run_chance()
    rng = Rng(seed)
    braking, spun, positions = None, None, [0] * cars
    while not session.to_act().over:
        seat = session.to_act().seats[0]
        for step in session.act(seat, rng.choice(legal_actions(session.state, seat))):
            for event in step.events:
                if type(event) is Spun:
                    spun = positions[event.seat] + event.move
                elif type(event) is Braking:
                    braking = event
                    assert event.spaces == spun - event.stop  # counted from the spun move to the real stop
                elif type(event) is CrashCheck and event.reason == "braking":
                    assert event.crashed == (event.b <= braking.spaces)
                elif type(event) is Moved and braking is not None:
                    # a braking car ends where it braked to, or (crashed) on a check's space behind it
                    assert event.end <= braking.stop and (event.end == braking.stop or of(step.events, Crashed))
                    braking = None
                if type(event) is Moved:
                    positions[event.seat] = event.end
        assert invariant(session.state) == []
    result = session.result()
    assert len(result.winners) == 1 and result.scores[result.winners[0]] == max(result.scores)
