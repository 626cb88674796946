"""Flush, rule by rule: the deal and the Mimic, releasing, Flushes, Mimics, picking up, Super and Gold Flushes,
Blind cards, Skips, scoring with held Mimics and Bonus cards, both formats, declarations, timeouts and views.
Every example of the rule text has a test named after it."""

from __future__ import annotations

from collections import Counter

from rules import CHANCE, SYSTEM, Rng, make_setup
from rules.flush.deck import DECK, DECK_COUNT
from rules.flush.game import (
    INFO, BasePassed, Blind, BlindFlipped, Deal, Flushed, GoldDrawn, MatchEnded, PassBase, PickedUp, Play,
    Release, RoundDealt, RoundEnded, Skipped, Stop, Timeout, TurnStarted, apply, invariant, legal_actions,
    new_state, placings, redact, sample_chance, standing, to_act, view,
)
from tests.rules.checks import of, refused_by

refused = refused_by(apply)

NO_BASES = (None, None, None)


def position(hands, tops=None, blinds=None, pile=(), mimic="F", turn=0, previous=-1, **options):
    """A round in play: the given hands, Base tops and Blind cards, pile plays (seat, value, cards) and
    turned Mimic card ("F": no Mimic); every other card in the unused deck."""
    state = new_state(make_setup(INFO, len(hands), "lockstep", options))
    state.hands = [list(h) for h in hands]
    state.tops = [list(t) for t in (tops or [NO_BASES] * len(hands))]
    state.blinds = [list(b) for b in (blinds or [NO_BASES] * len(hands))]
    state.pile = [Play(seat=s, value=v, cards=list(c)) for s, v, c in pile]
    state.mimic_card = mimic
    used = Counter([mimic])
    for seat in range(len(hands)):
        used.update(state.hands[seat])
        used.update(c for c in state.tops[seat] + state.blinds[seat] if c is not None)
    for play in state.pile:
        used.update(play.cards)
    state.unused = sorted((DECK_COUNT - used).elements())
    state.phase, state.round, state.turn, state.turn_from, state.previous = "play", 1, turn, len(state.pile), previous
    assert invariant(state) == []
    return state


# ---------------------------------------------------------------- the deal


def test_the_deal_gives_three_blind_cards_three_tops_and_eight_in_hand_and_turns_the_mimic():
    state = new_state(make_setup(INFO, 6, "lockstep"))
    deal = sample_chance(state, Rng(3))
    events = apply(state, CHANCE, deal)
    for seat in range(6):
        assert len(state.hands[seat]) == 8 and len(state.tops[seat]) == 3 and len(state.blinds[seat]) == 3
    assert len(state.unused) == len(DECK) - 6 * 14 - 1
    dealt = of(events, RoundDealt)[0]
    assert dealt.mimic_card == state.mimic_card and dealt.leader == deal.first == state.turn
    assert invariant(state) == []


def test_a_flush_card_turned_means_no_mimic_this_round():
    state = position([["5", "9"], ["1"]], mimic="G", pile=[(1, "6", ["6"])])
    assert view(state, 0).mimic is None
    refused(state, 0, Release("6", ["5"]), "wrong_value")


def test_the_winner_of_a_round_leads_the_next():
    state = position([["3"], ["7", "8"]], pile=[(1, "9", ["9"])], rounds=3)
    apply(state, 0, Release("3", ["3"]))
    assert state.phase == "deal"
    apply(state, CHANCE, Deal(order=list(DECK), first=1))
    assert state.turn == 0


# ---------------------------------------------------------------- releasing


def test_equal_or_lower_releases_several_of_a_value_from_hand_and_bases_together():
    state = position([["4", "4", "9"], ["1"]], tops=[("4", None, None), NO_BASES], pile=[(1, "6", ["6"])])
    events = apply(state, 0, Release("4", ["4", "4"], [0]))
    assert state.pile[-1].cards == ["4", "4", "4"] and state.hands[0] == ["9"] and state.tops[0][0] is None
    assert of(events, TurnStarted)[-1].seat == 1


def test_any_card_starts_an_empty_pile():
    state = position([["10", "2"], ["1"]])
    apply(state, 0, Release("10", ["10"]))
    assert state.pile[-1].value == "10"


def test_cards_of_two_values_are_not_one_declaration():
    state = position([["4", "3"], ["1"]], pile=[(1, "6", ["6"])])
    refused(state, 0, Release("4", ["4", "3"]), "wrong_value")
    refused(state, 0, Release("4", ["4", "4"]), "card_not_in_hand")
    refused(state, 1, Release("1", ["1"]), "not_your_turn")


# ---------------------------------------------------------------- flushes and Mimics


def test_2x2s_then_2x2s_makes_a_flush_and_the_flusher_starts_the_new_pile():
    state = position([["2", "2", "9"], ["2", "2", "7"]], pile=[(1, "5", ["5"])])
    apply(state, 0, Release("2", ["2", "2"]))
    events = apply(state, 1, Release("2", ["2", "2"]))
    flushed = of(events, Flushed)
    assert flushed and flushed[0].seat == 1 and flushed[0].cards == 5
    assert state.pile == [] and state.turn == 1
    assert Release("7", ["7"]) in legal_actions(state, 1)


def test_use_a_5_to_mimic_a_6_turning_3x6s_into_4x6s():
    state = position([["9"], ["5", "8"]], pile=[(0, "6", ["6", "6", "6"])], mimic="5", turn=1)
    events = apply(state, 1, Release("6", ["5"]))
    assert of(events, Flushed)[0].cards == 4


def test_a_mimic_stays_at_its_declared_value_for_that_play():
    state = position([["7", "5", "2"], ["1"]], pile=[(1, "9", ["9"])], mimic="5")
    apply(state, 0, Release("7", ["7", "5"]))
    assert state.pile[-1].value == "7"
    refused(state, 1, Release("8", ["1"]), "wrong_value")


def test_a_mimic_alone_is_its_own_value_unless_it_joins_the_top_of_the_pile():
    state = position([["5", "2"], ["1"]], pile=[(1, "9", ["9"])], mimic="5")
    refused(state, 0, Release("8", ["5"]), "mimic_alone")
    assert Release("5", ["5"]) in legal_actions(state, 0)
    assert Release("9", ["5"]) in legal_actions(state, 0)


def test_a_mimic_can_mimic_a_flush_card_played_with_it():
    state = position([["F", "5", "2"], ["1"]], pile=[(1, "9", ["9"])], mimic="5")
    events = apply(state, 0, Release("F", ["F", "5"]))
    assert of(events, Flushed)


def test_a_single_flush_card_flushes_the_pile():
    state = position([["F", "3"], ["1"]], pile=[(1, "2", ["2"])])
    events = apply(state, 0, Release("F", ["F"]))
    assert of(events, Flushed)[0].cards == 2 and state.turn == 0 and state.pile == []


def test_a_flush_card_is_never_a_higher_card():
    state = position([["F", "3"], ["1"]], pile=[(1, "2", ["2"])])
    refused(state, 0, Release("9", ["F"]), "wrong_value")


def test_the_gold_flush_makes_every_opponent_take_a_card_from_the_unused_deck():
    state = position([["G", "3"], ["1"], ["2"]], pile=[(1, "2", ["2"])])
    unused = len(state.unused)
    events = apply(state, 0, Release("F", ["G"]))
    assert [e.seat for e in of(events, GoldDrawn)] == [1, 2]
    assert len(state.hands[1]) == 2 and len(state.hands[2]) == 2 and len(state.unused) == unused - 2
    assert redact(of(events, GoldDrawn)[0], 2).card is None and redact(of(events, GoldDrawn)[0], 1).card


# ---------------------------------------------------------------- picking up


def test_picking_up_plays_higher_then_takes_the_pile_then_skips_apply():
    state = position([["8S", "1"], ["2"], ["3"]], pile=[(1, "2", ["2"]), (2, "1", ["1"])])
    events = apply(state, 0, Release("8", ["8S"]))
    assert of(events, PickedUp)[0].cards == ["2", "1"]
    assert sorted(state.hands[0]) == ["1", "1", "2"] and state.pile[-1].cards == ["8S"]
    assert of(events, Skipped)[0].seats == [1] and state.turn == 2


def test_picking_up_with_four_of_a_value_flushes_the_new_pile_and_the_seat_starts_again():
    state = position([["9", "9", "9", "9", "1"], ["2"]], pile=[(1, "3", ["3"])])
    events = apply(state, 0, Release("9", ["9", "9", "9", "9"]))
    assert of(events, PickedUp) and of(events, Flushed)[0].cards == 4
    assert state.turn == 0 and state.pile == [] and sorted(state.hands[0]) == ["1", "3"]


# ---------------------------------------------------------------- Super Flush


def test_a_super_flush_passes_a_base_to_the_seat_that_played_the_previous_turn():
    state = position([["6", "6", "6", "1"], ["2"]], tops=[("9", None, None), NO_BASES],
                     blinds=[("4", None, None), NO_BASES], pile=[(1, "6", ["6", "6", "6"])], previous=1)
    state.previous = 1
    events = apply(state, 0, Release("6", ["6", "6", "6"]))
    assert of(events, Flushed)[0].super
    passed = of(events, BasePassed)[0]
    assert (passed.seat, passed.to, passed.top, passed.blind) == (0, 1, "9", True)
    assert state.tops[1][-1] == "9" and state.blinds[1][-1] == "4" and state.tops[0][0] is None
    assert state.turn == 0 and invariant(state) == []


def test_with_several_bases_the_super_flusher_chooses_which_to_pass():
    state = position([["6", "6", "6", "1"], ["2"]], tops=[("9", "8", None), NO_BASES],
                     pile=[(1, "6", ["6", "6", "6"])], previous=1)
    apply(state, 0, Release("6", ["6", "6", "6"]))
    assert legal_actions(state, 0) == [PassBase(0), PassBase(1)]
    refused(state, 0, Release("1", ["1"]), "must_pass_base")
    apply(state, 0, PassBase(1))
    assert state.tops[1] == [None, None, None, "8"] and state.turn == 0


# ---------------------------------------------------------------- Blind cards


def test_a_blind_card_must_be_free_of_its_top_card_and_played_first():
    state = position([["3", "5"], ["1"]], tops=[("9", None, None), NO_BASES], blinds=[("4", "5", None), NO_BASES],
                     pile=[(1, "6", ["6"])])
    refused(state, 0, Blind(0), "blind_covered")
    apply(state, 0, Blind(1))
    assert state.flipped
    refused(state, 0, Blind(1), "blind_not_first")


def test_a_flipped_blind_card_can_be_added_to_with_its_value_and_mimics():
    state = position([["5", "5", "2"], ["1"]], blinds=[("5", None, None), NO_BASES], tops=[NO_BASES, NO_BASES],
                     pile=[(1, "6", ["6"])], mimic="2")
    events = apply(state, 0, Blind(0))
    assert of(events, BlindFlipped)[0].card == "5"
    refused(state, 0, Release("3", ["2"]), "wrong_value")
    events = apply(state, 0, Release("5", ["5", "5", "2"]))
    assert of(events, Flushed)


def test_a_blind_card_higher_than_the_pile_picks_it_up_after_the_play():
    state = position([["9", "1"], ["1"]], blinds=[("9", None, None), NO_BASES], pile=[(1, "3", ["3"])])
    apply(state, 0, Blind(0))
    assert state.pickup and "3" not in state.hands[0]
    events = apply(state, 0, Stop())
    assert of(events, PickedUp)[0].cards == ["3"] and state.pile[-1].cards == ["9"] and state.turn == 1


def test_nobody_sees_a_blind_card_before_it_is_flipped_not_even_its_owner():
    state = position([["3"], ["1"]], blinds=[("4", None, None), NO_BASES])
    for seat in (0, 1, None):
        shown = view(state, seat)
        assert shown.blinds[0] == [True, False, False]
        assert "4" not in str(shown.blinds) and shown.hand_counts == [1, 1]


# ---------------------------------------------------------------- Skips


def test_two_skips_skip_two_seats():
    state = position([["3S", "7S", "8"], ["1"], ["1"], ["1"]], pile=[(3, "9", ["9"])], mimic="7")
    events = apply(state, 0, Release("3", ["3S", "7S"]))
    assert of(events, Skipped)[0].seats == [1, 2] and state.turn == 3


def test_a_skip_used_as_a_mimic_still_skips():
    state = position([["7", "5S", "8"], ["1"], ["1"]], pile=[(2, "9", ["9"])], mimic="5")
    events = apply(state, 0, Release("7", ["7", "5S"]))
    assert of(events, Skipped)[0].seats == [1] and state.turn == 2


def test_a_skip_inside_a_flush_does_nothing():
    state = position([["3S", "3", "8"], ["1"], ["1"]], pile=[(2, "3", ["3", "3"])])
    events = apply(state, 0, Release("3", ["3S", "3"]))
    assert of(events, Flushed) and not of(events, Skipped) and state.turn == 0


# ---------------------------------------------------------------- end of the round and scoring


def test_the_round_ends_when_a_seat_is_out_and_the_others_count_everything_they_hold_mimics_triple():
    state = position([["2"], ["7", "5"]], tops=[NO_BASES, ("F", None, None)], blinds=[NO_BASES, ("3", None, None)],
                     pile=[(1, "4", ["4"])], mimic="5", rounds=3)
    events = apply(state, 0, Release("2", ["2"]))
    ended = of(events, RoundEnded)[0]
    assert ended.winner == 0 and ended.scores == [0, 7 + 3 * 5 + 15 + 3]
    assert state.totals == [0, 40]


def test_2x4s_with_the_4_bonus_deducts_15():
    state = position([["4", "4B"], ["9"]], pile=[(1, "6", ["6"])], rounds=3)
    state.totals = [20, 0]
    events = apply(state, 0, Release("4", ["4", "4B"]))
    assert of(events, RoundEnded)[0].bonus == 1 and state.totals == [5, 9]


def test_a_bonus_never_takes_a_score_below_zero_and_a_mimic_bonus_counts():
    state = position([["7", "5B"], ["9"]], pile=[(1, "8", ["8"])], mimic="5", rounds=3)
    state.totals = [10, 0]
    apply(state, 0, Release("7", ["7", "5B"]))
    assert state.totals[0] == 0


def test_the_last_arena_round_is_double_bonuses_too():
    state = position([["4", "4B"], ["9"]], pile=[(1, "6", ["6"])], rounds=1)
    state.totals = [40, 0]
    events = apply(state, 0, Release("4", ["4", "4B"]))
    assert state.totals == [10, 18]
    assert of(events, MatchEnded)[0].winners == [0] and state.phase == "over"


def test_elimination_puts_out_a_seat_at_the_limit_and_the_last_seat_standing_wins():
    state = position([["2"], ["9"], ["8"]], pile=[(2, "4", ["4"])], format="elimination", limit=150)
    state.totals = [0, 145, 10]
    events = apply(state, 0, Release("2", ["2"]))
    assert of(events, RoundEnded)[0].eliminated == [1] and state.active == [0, 2] and state.phase == "deal"
    apply(state, CHANCE, Deal(order=list(DECK), first=0))
    assert state.hands[1] == [] and all(len(state.hands[s]) == 8 for s in (0, 2))


def test_arena_placings_go_by_total_lowest_first():
    state = position([["4", "4B"], ["9"], ["9"]], pile=[(1, "6", ["6"])], rounds=1, double_last=False)
    state.totals = [40, 0, 6]
    assert placings(state) is None
    apply(state, 0, Release("4", ["4", "4B"]))  # 25, 9, 15
    assert placings(state) == (3, 1, 2) == standing(state)


def test_elimination_placings_put_the_seats_still_in_first_then_the_last_out_ahead_of_the_first_out():
    state = position([["3"], [], ["9"]], pile=[(2, "4", ["4"])], format="elimination", limit=150)
    state.round, state.round_scores, state.totals, state.active = 2, [[0, 150, 145]], [0, 150, 145], [0, 2]
    assert invariant(state) == [] and standing(state) == (1, 3, 2)  # seat 1 went out in round 1
    apply(state, 0, Release("3", ["3"]))  # seat 0 is out of cards; seat 2 scores its 9 and goes out on 154
    assert to_act(state).over and state.totals == [0, 150, 154]
    assert placings(state) == (1, 3, 2) == standing(state)  # seat 2 outlasted seat 1, though its total is higher


def test_as_it_stands_a_round_under_way_counts_what_each_seat_holds():
    state = position([["9", "9"], ["1"]], pile=[(1, "6", ["6"])], rounds=2)
    state.totals = [0, 15]
    assert standing(state) == (2, 1)  # 0 + 18 against 15 + 1
    state.round = 2  # the last round, doubled: 36 against 17
    assert standing(state) == (2, 1)
    state.totals = [0, 35]
    assert standing(state) == (1, 2)  # 36 against 37


# ---------------------------------------------------------------- declarations, timeouts, turns


def test_a_declaration_that_cannot_be_fulfilled_is_refused_and_the_seat_declares_again():
    state = position([["4", "9"], ["1"]], pile=[(1, "6", ["6"])])
    error = refused(state, 0, Release("4", ["4", "4"]), "card_not_in_hand")
    assert "4" in error.message
    apply(state, 0, Release("4", ["4"]))
    assert state.pile[-1].seat == 0


def test_a_timeout_makes_the_least_harmful_play():
    state = position([["F", "5", "3", "9"], ["1"]], pile=[(1, "6", ["6"])], mimic="5")
    events = apply(state, SYSTEM, Timeout(seat=0))
    assert state.pile[-1].cards == ["3"] and state.turn == 1 and events[0].seat == 0
    state = position([["9", "8"], ["1"]], pile=[(1, "2", ["2"])])
    apply(state, SYSTEM, Timeout(seat=0))
    assert state.pile[-1].cards == ["8"] and "2" in state.hands[0]
    refused(state, SYSTEM, Timeout(seat=0), "not_to_act")


def test_only_the_seat_to_act_may_act_and_to_act_says_who():
    state = position([["4"], ["1"]], pile=[(1, "6", ["6"])])
    assert to_act(state).seats == (0,) and legal_actions(state, 1) == [] and legal_actions(state, SYSTEM) == []


def test_the_deal_is_dealt_to_each_seat_and_redacted_for_the_others():
    state = new_state(make_setup(INFO, 3, "lockstep"))
    dealt = of(apply(state, CHANCE, sample_chance(state, Rng(5))), RoundDealt)[0]
    shown = redact(dealt, 1)
    assert shown.hands[1] == state.hands[1] and shown.hands[0] is None and shown.hands[2] is None
    assert redact(dealt, None).hands == [None, None, None]
