"""Flag Finish, rule by rule: set-up, both modes, drawing and discarding, playing, every scoring case,
simultaneous finishes and the green tiebreak, the action limit, the match, timeouts and redaction."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import CHANCE, SYSTEM, RulesError, digest, make_setup
from tests.positions import place, plain
from rules.flag_finish.game import (
    DECK, GREEN, INFO, CloseWindow, Deal, Discard, Discarded, DrawPile, Drew, Finished, MatchEnded, Misdealt,
    Play, RaceDealt, RaceEnded, TakeDiscard, Timeout, apply, invariant, legal_actions, new_state, placings, redact,
    standing, to_act, view,
)

SEQ = ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10"]


def dealt(hands, rows=None, discard=("P10",), mode="lockstep", turn=0, **options):
    """A race in play with the given hands, rows and discard pile; every other card in the draw pile."""
    state = new_state(make_setup(INFO, len(hands), mode, options))
    place(state, hands, rows, discard, turn)
    return state


filler = plain


def refused(state, actor, action, code):
    before = digest(state)
    with pytest.raises(RulesError) as caught:
        apply(state, actor, action)
    assert caught.value.code == code
    assert digest(state) == before, "a refused action changed the state"
    return caught.value


def ended(events):
    return next(e for e in events if type(e) is RaceEnded)


# ------------------------------------------------------------------ set-up


def deck_order(hands_top, flips):
    """A full deck order: the draw pile's top is the end of the list, so reverse what is taken first."""
    taken = [c for hand in hands_top for c in hand] + flips
    rest = sorted((Counter(DECK) - Counter(taken)).elements())
    return rest + list(reversed(taken))


def test_set_up_deals_hands_then_flips_in_turn_until_a_green_card():
    hand0 = filler(12)
    hand1 = filler(12, avoid=hand0)
    flips = ["F", "Y9", "G4"]
    state = new_state(make_setup(INFO, 2, "lockstep", {}))
    events = apply(state, CHANCE, Deal(order=deck_order([hand0, hand1], flips), first=1))
    dealt_event = events[0]
    assert type(dealt_event) is RaceDealt
    assert sorted(state.hands[0]) == sorted(hand0) and sorted(state.hands[1]) == sorted(hand1)
    assert dealt_event.flips == flips and state.discard == flips
    assert dealt_event.flippers == [1, 0, 1]
    assert dealt_event.starter == 1 and to_act(state).seats == (1,)
    assert len(state.draw) == 72 - 24 - 3 and invariant(state) == []


def test_a_deal_with_no_green_left_to_flip_is_dealt_again():
    greens = sorted(GREEN)
    hand0 = greens + filler(1)
    hand1 = filler(12, avoid=hand0)
    state = new_state(make_setup(INFO, 2, "challenge", {}))
    events = apply(state, CHANCE, Deal(order=deck_order([hand0, hand1], []), first=0))
    assert [type(e) for e in events] == [Misdealt]
    assert to_act(state).chance and state.race == 0


def test_only_chance_deals_and_only_a_whole_deck():
    state = new_state(make_setup(INFO, 2, "lockstep", {}))
    refused(state, 0, Deal(order=list(DECK), first=0), "chance_only")
    refused(state, CHANCE, Deal(order=list(DECK[:-1]) + ["G0"], first=0), "bad_deal")
    refused(state, CHANCE, Deal(order=list(DECK), first=2), "bad_deal")
    refused(state, 0, DrawPile(), "not_dealt")


def test_challenge_mode_lets_every_seat_act_from_the_green_card():
    state = dealt([filler(12), filler(12, avoid=filler(12))], mode="challenge")
    assert to_act(state).seats == (0, 1)


# ------------------------------------------------------------------ actions


def test_warm_up_accepts_only_the_seat_whose_turn_it_is():
    state = dealt([filler(12), filler(12, avoid=filler(12))], turn=0)
    error = refused(state, 1, DrawPile(), "not_your_turn")
    assert "seat 0" in error.message


def test_a_draw_must_be_followed_by_a_discard_then_the_turn_passes():
    hand0 = ["R0"] + filler(11, avoid=["R0"])
    state = dealt([hand0, filler(12, avoid=hand0)], turn=0)
    top = state.draw[-1]
    events = apply(state, 0, DrawPile())
    assert events == [Drew(seat=0, card=top)] and state.drawn[0] == top
    refused(state, 0, Play("R0"), "must_discard")
    refused(state, 0, DrawPile(), "must_discard")
    refused(state, 0, TakeDiscard("P10"), "must_discard")
    assert {type(a) for a in legal_actions(state, 0)} == {Discard}
    events = apply(state, 0, Discard(top))
    assert events[0] == Discarded(seat=0, card=top) and state.discard[-1] == top
    assert to_act(state).seats == (1,) and len(state.hands[0]) == 12


def test_any_card_can_be_taken_from_the_discard_pile_by_name():
    piles = ["B7", "G5", "Y1"]
    hand0 = filler(12, avoid=piles)
    state = dealt([hand0, filler(12, avoid=hand0 + piles)], discard=piles)
    apply(state, 0, TakeDiscard("G5"))
    assert "G5" in state.hands[0] and state.discard == ["B7", "Y1"]
    refused(state, 0, Discard("G9"), "card_not_in_hand")


def test_discarding_without_drawing_is_refused():
    hand0 = filler(12)
    state = dealt([hand0, filler(12, avoid=hand0)])
    refused(state, 0, Discard(hand0[0]), "nothing_to_discard")


def test_the_row_is_built_0_to_10_then_the_flag():
    hand0 = ["R0", "B1", "F"] + filler(9, avoid=["R0", "B1"])
    state = dealt([hand0, filler(12, avoid=hand0)])
    refused(state, 0, Play("B1"), "out_of_sequence")
    refused(state, 0, Play("F"), "out_of_sequence")
    refused(state, 0, Play("Y0"), "card_not_in_hand")
    refused(state, 0, Play("X3"), "bad_card")
    apply(state, 0, Play("R0"))
    assert state.rows[0] == ["R0"] and to_act(state).seats == (1,)


def test_an_empty_draw_pile_is_not_refilled():
    hand0 = filler(12)
    state = dealt([hand0, filler(12, avoid=hand0)])
    state.discard += state.draw
    state.draw = []
    refused(state, 0, DrawPile(), "draw_pile_empty")
    assert DrawPile() not in legal_actions(state, 0)


# ------------------------------------------------------------------ scoring


def test_a_finisher_with_an_empty_hand_scores_0_and_the_others_1_per_card():
    state = dealt([["F"], filler(12, avoid=SEQ)], rows=[SEQ, []])
    events = apply(state, 0, Play("F"))
    race = ended(events)
    assert race.scores == [0, 12] and race.winners == [0] and race.reason == "finished"
    assert state.totals == [0, 12]


def test_a_finisher_with_cards_left_scores_2_per_card():
    spare = filler(2, avoid=SEQ)
    other = filler(14, avoid=SEQ + spare)
    state = dealt([["F"] + spare, other], rows=[SEQ, []], hand_size=14)
    race = ended(apply(state, 0, Play("F")))
    assert race.scores == [4, 14] and race.winners == [0]


def test_all_players_stop_at_once_and_a_pending_draw_is_put_back():
    other = filler(12, avoid=SEQ)
    state = dealt([["F"], other], rows=[SEQ, []], mode="challenge", window_ms=0)
    apply(state, 1, DrawPile())
    assert len(state.hands[1]) == 13
    events = apply(state, 0, Play("F"))
    assert ended(events).scores == [0, 12]
    assert invariant(state) == []


def test_warm_up_ends_the_race_at_the_first_finish_even_with_a_window_option():
    state = dealt([["F"], filler(12, avoid=SEQ)], rows=[SEQ, []], window_ms=500)
    events = apply(state, 0, Play("F"))
    assert Finished(seat=0, cards_left=0, greens=0, window_open=False) in events
    assert ended(events).winners == [0] and not to_act(state).system


def _two_finishers(greens0, greens1, **options):
    row0 = [f"G{i}" if i < greens0 else f"R{i}" for i in range(11)]
    row1 = [f"G{i}" if i >= 11 - greens1 else f"B{i}" for i in range(11)]
    assert not set(row0) & set(row1)
    third = filler(12, avoid=row0 + row1)
    return dealt([["F"], ["F"], third], rows=[row0, row1, []], mode="challenge", **options)


def test_finishes_inside_the_window_are_simultaneous_and_most_greens_wins():
    state = _two_finishers(3, 1)
    events = apply(state, 1, Play("F"))
    assert Finished(seat=1, cards_left=0, greens=1, window_open=True) in events
    assert to_act(state).system == ("close_window",) and to_act(state).seats == (0, 2)
    refused(state, 1, DrawPile(), "finished")
    apply(state, 0, Play("F"))
    race = ended(apply(state, SYSTEM, CloseWindow()))
    assert race.finishers == [1, 0] and race.winners == [0]
    assert race.scores == [0, 1, 12]  # the tiebreak loser scores as if its flag were still in hand


def test_equal_greens_in_a_photo_finish_both_score_0_and_both_win():
    state = _two_finishers(2, 2)
    apply(state, 0, Play("F"))
    apply(state, 1, Play("F"))
    race = ended(apply(state, SYSTEM, CloseWindow()))
    assert race.winners == [0, 1] and race.scores == [0, 0, 12]


def test_a_finish_after_the_window_closed_is_not_simultaneous():
    state = _two_finishers(0, 3, races=2)
    apply(state, 0, Play("F"))
    race = ended(apply(state, SYSTEM, CloseWindow()))
    assert race.finishers == [0] and race.winners == [0] and race.scores == [0, 1, 12]
    refused(state, 1, Play("F"), "not_dealt")


def test_a_zero_window_means_strict_log_order():
    state = _two_finishers(0, 3, window_ms=0)
    race = ended(apply(state, 0, Play("F")))
    assert race.winners == [0] and race.finishers == [0]


def test_only_the_system_closes_the_window():
    state = _two_finishers(1, 1)
    refused(state, SYSTEM, CloseWindow(), "no_window")
    apply(state, 0, Play("F"))
    refused(state, 2, CloseWindow(), "system_only")


def test_the_action_limit_ends_a_race_with_no_finisher():
    hand0 = filler(12)
    state = dealt([hand0, filler(12, avoid=hand0)], mode="challenge", action_limit=10, races=2)
    for _ in range(5):
        apply(state, 0, DrawPile())
        apply(state, 0, Discard(state.drawn[0]))
    assert state.phase == "deal"
    assert state.race_scores == [[12, 12]] and state.race_winners == [[]]


# ------------------------------------------------------------------ the match


def test_a_tie_after_the_last_race_adds_a_race():
    hand0 = filler(12)
    state = dealt([hand0, filler(12, avoid=hand0)], races=1, action_limit=10)
    for _ in range(5):
        apply(state, state.turn, DrawPile())
        apply(state, state.turn, Discard(state.drawn[state.turn]))
    assert state.totals == [12, 12] and state.phase == "deal"


def test_the_lowest_total_wins_the_match():
    state = dealt([["F"], filler(12, avoid=SEQ)], rows=[SEQ, []], races=1)
    events = apply(state, 0, Play("F"))
    assert MatchEnded(winners=[0], totals=[0, 12]) in events
    assert to_act(state).over and state.winners == [0]
    refused(state, 1, DrawPile(), "game_over")


def test_a_tie_still_there_after_the_extra_races_is_shared():
    hand0 = filler(12)
    state = dealt([hand0, filler(12, avoid=hand0)], races=1, extra_races=0, action_limit=10)
    for _ in range(5):
        apply(state, state.turn, DrawPile())
        apply(state, state.turn, Discard(state.drawn[state.turn]))
    assert state.phase == "over" and state.winners == [0, 1]


def test_placings_go_by_total_lowest_first_and_a_shared_win_shares_first_place():
    hand1 = filler(12, avoid=SEQ)
    state = dealt([["F"], hand1, filler(12, avoid=SEQ + hand1)], rows=[SEQ, [], []], races=1, extra_races=0)
    state.totals = [20, 0, 0]
    assert placings(state) is None
    apply(state, 0, Play("F"))  # totals 20, 12, 12, and no race is added to break the tie
    assert placings(state) == (3, 1, 1) == standing(state) and state.winners == [1, 2]


def test_as_it_stands_the_race_under_way_is_scored_as_if_it_ended_now_and_added_to_the_totals():
    hand0 = filler(12, avoid=SEQ)
    state = dealt([hand0, filler(3, avoid=SEQ + hand0)], rows=[[], SEQ[:9]], races=3)
    state.totals = [0, 9]
    assert standing(state) == (1, 1)  # 0 + 12 cards in hand and 9 + 3
    apply(state, 0, DrawPile())
    assert standing(state) == (1, 1)  # a pending draw goes back: it is always made up for
    state.totals = [0, 10]
    assert standing(state) == (1, 2)


def test_as_it_stands_a_finisher_in_the_photo_finish_window_scores_as_the_window_would():
    state = dealt([["F"], filler(12, avoid=SEQ)], rows=[SEQ, []], mode="challenge", races=2)
    state.totals = [10, 0]
    apply(state, 0, Play("F"))
    assert state.phase == "window" and standing(state) == (1, 2)  # 10 + 0 against 0 + 12


# ------------------------------------------------------------------ timeouts and redaction


def test_a_timeout_discards_the_drawn_card_or_passes_the_turn():
    hand0 = filler(12)
    state = dealt([hand0, filler(12, avoid=hand0)])
    refused(state, 0, Timeout(seat=0), "system_only")
    refused(state, SYSTEM, Timeout(seat=1), "not_to_act")
    apply(state, SYSTEM, Timeout(seat=0))
    assert to_act(state).seats == (1,) and len(state.hands[0]) == 12
    apply(state, 1, DrawPile())
    drawn = state.drawn[1]
    apply(state, SYSTEM, Timeout(seat=1))
    assert state.discard[-1] == drawn and state.drawn[1] is None and to_act(state).seats == (0,)


def test_a_blind_draw_is_seen_only_by_the_drawer():
    event = Drew(seat=0, card="G3")
    assert redact(event, 0) == event
    assert redact(event, 1).card is None and redact(event, None).card is None


def test_a_deal_shows_each_seat_only_its_own_hand():
    event = RaceDealt(race=1, hands=[["G1"], ["R2"]], flips=["G0"], flippers=[0], starter=0, draw_count=5)
    assert redact(event, 1).hands == [None, ["R2"]]
    assert redact(event, None).hands == [None, None]


def test_a_view_holds_its_own_hand_and_never_another():
    hand0 = filler(12)
    hand1 = filler(12, avoid=hand0)
    state = dealt([hand0, hand1])
    mine = view(state, 0)
    assert sorted(mine.hand) == sorted(hand0) and mine.hand_counts == [12, 12]
    assert view(state, None).hand is None
    assert not set(view(state, 1).hand) & (set(hand0) - set(hand1))


def test_challenge_two_seats_taking_the_same_discard_card_the_second_is_refused_unchanged():
    piles = ["G5", "Y1"]
    hand0 = filler(12, avoid=piles)
    hand1 = filler(12, avoid=hand0 + piles)
    state = dealt([hand0, hand1], discard=piles, mode="challenge")
    apply(state, 1, TakeDiscard("G5"))
    before = list(state.hands[0])
    refused(state, 0, TakeDiscard("G5"), "card_not_in_discard")
    assert state.hands[0] == before and "G5" in state.hands[1]
