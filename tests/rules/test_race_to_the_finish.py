"""The Race to the Finish, rule by rule: the deck and track, the cut, the deal, following suit, trump, each
lettered Suit Yourself and Sidetracked rule, moving (the X passing Y and Z example), getting sidetracked and
back, trump from the lead piece, the Finish, new deals, and the two-player rules 1-6."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import CHANCE, SYSTEM, make_setup
from rules.race_to_the_finish.game import (
    FINISH, FULL_DECK, INFO, SHORT_DECK, TRACK, CardPlayed, Cut, CutMade, Deal, Dealt, GameEnded, MovePiece,
    PieceMoved, PlayCard, SidetrackPiece, Timeout, TrickWon, TrumpChanged, apply, deck_for, invariant,
    legal_actions, new_state, placings, redact, standing, to_act, view,
)
from tests.rules.checks import of, refused_by

refused = refused_by(apply)


def position(hands, trick=(), pieces=None, off=None, trump="R", leader=0, dealer=None):
    """A deal in play: the given hands, the trick so far as (seat, card) pairs from ``leader``, pieces and
    sidetracked flags; every other card of the deck counts as played in earlier tricks."""
    n = len(hands)
    state = new_state(make_setup(INFO, n, "lockstep"))
    state.hands = [list(h) for h in hands]
    state.trick = [card for _, card in trick]
    assert [seat for seat, _ in trick] == [(leader + i) % n for i in range(len(trick))], "a trick goes round"
    if pieces is not None:
        state.pieces = [list(p) for p in pieces]
        state.off = [list(o) for o in (off or [[False] * len(p) for p in pieces])]
    used = Counter(state.trick)
    for hand in state.hands:
        used.update(hand)
    state.taken = sorted((Counter(deck_for(n)) - used).elements())
    state.trump, state.leader, state.phase, state.deals = trump, leader, "play", 1
    state.dealer = (leader - 1) % n if dealer is None else dealer
    state.turn = (leader + len(state.trick)) % n
    assert invariant(state) == []
    return state


def finish_trick(state, cards):
    """Play the given cards in turn; the events of the last one."""
    events = []
    for card in cards:
        events = apply(state, state.turn, PlayCard(card))
    return events


def won(events):
    return of(events, TrickWon)[0].seat


# ---------------------------------------------------------------- equipment, cut and deal


def test_the_deck_is_56_suit_cards_2_suit_yourself_4_sidetracked_and_the_track_repeats_its_colours():
    assert len(FULL_DECK) + len(TRACK) + 1 == 75
    assert Counter(FULL_DECK)["SY"] == 2 and Counter(FULL_DECK)["ST"] == 4
    assert TRACK == ("R", "B", "O", "G") * 3 and FINISH == 13


def test_the_highest_cut_deals_and_its_colour_is_the_first_trump():
    state = new_state(make_setup(INFO, 3, "lockstep"))
    events = apply(state, CHANCE, Cut(["B7", "G9", "R2"]))
    assert of(events, CutMade)[0].dealer == 1 and state.trump == "G" and state.phase == "deal"


def test_a_tie_cuts_again_for_everyone_and_a_special_card_cuts_again_for_its_seat():
    state = new_state(make_setup(INFO, 3, "lockstep"))
    apply(state, CHANCE, Cut(["B9", "G9", "R2"]))
    assert state.cuts == [None, None, None] and state.phase == "cut"
    apply(state, CHANCE, Cut(["B3", "SY", "R2"]))
    assert state.cuts == ["B3", None, "R2"]
    refused(state, CHANCE, Cut(["B1", "B2"]), "bad_cut")
    apply(state, CHANCE, Cut(["O8"]))
    assert state.dealer == 1 and state.trump == "O"


@pytest.mark.parametrize("seats", [2, 3])
def test_with_two_or_three_seats_the_cut_is_made_before_11_to_14_come_out_so_a_12_can_win_it(seats):
    # "Each player cuts the cards ..." (set-up 3) comes before "remove cards 11-14 in each suit" (set-up 4).
    state = new_state(make_setup(INFO, seats, "lockstep"))
    events = apply(state, CHANCE, Cut(["G9", "B12", "R14"][:seats]))
    winner = 1 if seats == 2 else 2
    assert of(events, CutMade)[0].dealer == winner and state.trump == ("B" if seats == 2 else "R")
    refused(new_state(make_setup(INFO, seats, "lockstep")), CHANCE, Cut(["R15", "G9", "B2"][:seats]), "bad_cut")


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_cut_is_drawn_from_the_whole_deck_at_every_table_size(seats):
    from rules import Rng
    from rules.race_to_the_finish.game import number, sample_chance

    cut = set()
    for seed in range(100):
        cut.update(sample_chance(new_state(make_setup(INFO, seats, "lockstep")), Rng(seed)).cards)
    assert cut == set(FULL_DECK)  # 11-14, Suit Yourself and Sidetracked included
    assert max(number(card) for card in cut) == 14


@pytest.mark.parametrize("seats, size, out", [(4, 15, 2), (3, 15, 1), (2, 16, 14)])
def test_all_cards_are_dealt_with_11_to_14_out_for_two_and_three_and_the_dealers_left_leads(seats, size, out):
    state = new_state(make_setup(INFO, seats, "lockstep"))
    state.phase, state.dealer, state.trump = "deal", seats - 1, "R"
    deck = list(deck_for(seats))
    events = apply(state, CHANCE, Deal(deck))
    assert [len(h) for h in state.hands] == [size] * seats and len(state.out_of_play) == out
    assert of(events, Dealt)[0].leader == 0 == state.turn
    if seats < 4:
        assert deck_for(seats) == SHORT_DECK and not any(c[1:] in ("11", "12", "13", "14") for c in deck)


def test_a_deal_shows_each_seat_only_its_own_hand():
    state = new_state(make_setup(INFO, 3, "lockstep"))
    state.phase, state.dealer, state.trump = "deal", 0, "R"
    dealt = of(apply(state, CHANCE, Deal(list(SHORT_DECK))), Dealt)[0]
    assert redact(dealt, 2).hands[2] == state.hands[2] and redact(dealt, 2).hands[0] is None
    assert view(state, None).hand is None and view(state, 1).hand == sorted(state.hands[1])


# ---------------------------------------------------------------- following suit


def test_following_suit_is_required_unless_you_have_none_or_play_a_special_card():
    state = position([["B1", "B4", "O1"], ["G2", "B9", "SY", "ST"], ["B3", "R4", "O2", "O3"]], trick=[(0, "G5")],
                     leader=0)
    assert sorted(a.card for a in legal_actions(state, 1)) == ["G2", "ST", "SY"]
    error = refused(state, 1, PlayCard("B9"), "must_follow")
    assert "green" in error.message
    apply(state, 1, PlayCard("G2"))
    assert sorted(a.card for a in legal_actions(state, 2)) == ["B3", "O2", "O3", "R4"]  # a) no green: anything


def test_the_highest_card_of_the_suit_led_wins_and_a_throwaway_never_does():
    state = position([["G5"], ["G9"], ["B10"]], trick=[], trump="R")
    assert won(finish_trick(state, ["G5", "G9", "B10"])) == 1


# ---------------------------------------------------------------- trump


def test_trump_a_the_highest_trump_beats_every_other_trump():
    state = position([["G5"], ["R10"], ["R3"]], trump="R")
    assert won(finish_trick(state, ["G5", "R10", "R3"])) == 1


def test_trump_b_the_lowest_trump_beats_the_highest_card_of_another_suit():
    state = position([["G10"], ["R1"], ["G9"]], trump="R")
    assert won(finish_trick(state, ["G10", "R1", "G9"])) == 1


def test_trump_c_suit_yourself_beats_the_highest_trump():
    state = position([["R10"], ["SY"], ["R1"]], trump="R")
    assert won(finish_trick(state, ["R10", "SY", "R1"])) == 1


# ---------------------------------------------------------------- Suit Yourself a-d


def test_suit_yourself_a_b_beats_any_trump_and_any_card_of_the_suit_led():
    state = position([["B10"], ["R10"], ["SY"]], trump="R")
    assert won(finish_trick(state, ["B10", "R10", "SY"])) == 2


def test_suit_yourself_c_led_it_demands_trump_from_those_who_have_it():
    state = position([["B1", "B4"], ["R2", "B9", "ST"], ["B3", "G4", "O5"]], trick=[(0, "SY")], trump="R")
    assert sorted(a.card for a in legal_actions(state, 1)) == ["R2", "ST"]
    apply(state, 1, PlayCard("R2"))
    assert sorted(a.card for a in legal_actions(state, 2)) == ["B3", "G4", "O5"]


def test_suit_yourself_d_the_first_one_played_wins_the_trick():
    state = position([["B5"], ["SY"], ["SY"]], trump="R")
    assert won(finish_trick(state, ["B5", "SY", "SY"])) == 1


# ---------------------------------------------------------------- Sidetracked a-e


def test_sidetracked_a_any_trump_beats_it():
    state = position([["ST"], ["R1"], ["B10"]], trump="R", pieces=[[0], [3], [0]])
    events = finish_trick(state, ["ST", "R1", "B10"])
    assert won(events) == 1 and of(events, TrickWon)[0].sidetracked and state.off[1] == [True]


def test_sidetracked_b_any_card_of_the_suit_led_beats_it():
    state = position([["B2"], ["ST"], ["G10"]], trump="R")
    assert won(finish_trick(state, ["B2", "ST", "G10"])) == 0


def test_sidetracked_c_led_it_demands_trump_and_the_highest_trump_wins():
    state = position([["B1"], ["R3", "B9"], ["R8", "G2"]], trick=[(0, "ST")], trump="R")
    assert [a.card for a in legal_actions(state, 1)] == ["R3"]
    assert won(finish_trick(state, ["R3", "R8"])) == 2


def test_sidetracked_d_led_and_not_beaten_its_leader_wins_and_moves_off_the_track():
    state = position([["ST"], ["B9"], ["ST"]], trump="R", pieces=[[4], [0], [0]])
    events = finish_trick(state, ["ST", "B9", "ST"])
    assert won(events) == 0 and state.off[0] == [True]
    assert of(events, PieceMoved)[0].how == "sidetracked"


def test_sidetracked_e_suit_yourself_on_a_led_sidetracked_wins_and_moves_off_the_track():
    state = position([["ST"], ["SY"], ["R9"]], trump="R", pieces=[[0], [2], [0]])
    events = finish_trick(state, ["ST", "SY", "R9"])
    assert won(events) == 1 and state.off[1] == [True]


# ---------------------------------------------------------------- moving


def test_a_won_trick_moves_the_winner_to_the_next_track_card():
    state = position([["R9"], ["R2"], ["R3"]], trump="R", pieces=[[0], [0], [0]])
    events = finish_trick(state, ["R9", "R2", "R3"])
    assert of(events, PieceMoved)[0].end == 1 and state.leader == 0 == state.turn


def test_x_wins_and_moves_three_cards_ahead_right_past_y_and_z():
    state = position([["R9"], ["R2"], ["R3"]], trump="R", pieces=[[1], [2], [3]])
    events = finish_trick(state, ["R9", "R2", "R3"])
    moved = of(events, PieceMoved)[0]
    assert (moved.start, moved.end) == (1, 4)


def test_a_clean_win_brings_a_sidetracked_piece_back_to_its_card_or_the_next_empty_one():
    state = position([["R9"], ["R2"]], trump="R", pieces=[[3, 0], [0, 0]], off=[[True, False], [False, False]])
    state.phase = "play"
    events = finish_trick(state, ["R9", "R2"])
    assert state.phase == "move"
    events = apply(state, 0, MovePiece(0))
    assert of(events, PieceMoved)[0].how == "return" and state.pieces[0][0] == 3 and state.off[0] == [False, False]
    state = position([["R9"], ["R2"], ["R3"]], trump="R", pieces=[[3], [3], [4]],
                     off=[[True], [False], [False]])
    finish_trick(state, ["R9", "R2", "R3"])
    assert state.pieces[0] == [5] and state.off[0] == [False]


def test_a_sidetracked_winner_of_another_sidetracked_trick_stays_where_it_is():
    state = position([["R9"], ["ST"], ["R3"]], trump="R", pieces=[[5], [0], [0]], off=[[True], [False], [False]])
    events = finish_trick(state, ["R9", "ST", "R3"])
    assert of(events, PieceMoved)[0].how == "stays" and state.pieces[0] == [5] and state.off[0] == [True]


# ---------------------------------------------------------------- trump from the track


def test_trump_is_the_colour_under_the_lead_piece_and_changes_when_it_moves_to_a_new_colour():
    state = position([["R9"], ["R2"], ["R3"]], trump="R", pieces=[[1], [0], [0]])
    events = finish_trick(state, ["R9", "R2", "R3"])
    assert state.pieces[0] == [2] and of(events, TrumpChanged)[0].trump == TRACK[1] == "B" == state.trump


def test_a_sidetracked_piece_never_counts_as_the_lead_piece_and_everyone_sidetracked_keeps_the_last_trump():
    state = position([["ST"], ["B1"], ["G2"]], trump="O", pieces=[[3], [0], [0]])
    events = finish_trick(state, ["ST", "B1", "G2"])
    assert state.off[0] == [True] and state.trump == "O" and not of(events, TrumpChanged)
    state = position([["ST"], ["B1"], ["G2"]], trump="O", pieces=[[3], [1], [0]])
    finish_trick(state, ["ST", "B1", "G2"])
    assert state.trump == TRACK[0] == "R"  # the lead piece is now the one on card 1


# ---------------------------------------------------------------- the end of a deal and of the game


def test_a_move_past_the_last_track_card_reaches_the_finish_and_ends_the_game():
    state = position([["R9", "B1"], ["R2", "B2"], ["R3", "B3"]], trump="R", pieces=[[12], [11], [0]])
    events = finish_trick(state, ["R9", "R2", "R3"])
    assert of(events, GameEnded)[0].winner == 0 and state.pieces[0] == [FINISH] and to_act(state).over
    assert legal_actions(state, 0) == [] and refused(state, 1, PlayCard("B2"), "game_over")


def test_when_the_hands_run_out_the_next_dealer_deals_and_the_seat_to_its_left_leads():
    state = position([["R9"], ["R2"], ["R3"]], trump="R", pieces=[[0], [0], [0]], leader=1, dealer=0)
    finish_trick(state, ["R2", "R3", "R9"])
    assert state.phase == "deal" and state.dealer == 1
    apply(state, CHANCE, Deal(list(SHORT_DECK)))
    assert state.turn == 2 and len(state.out_of_play) == 1 and sum(map(len, state.hands)) == 45


# ---------------------------------------------------------------- the two-player game


def test_two_players_1_2_3_cards_11_to_14_out_sixteen_each_two_pieces_each():
    state = new_state(make_setup(INFO, 2, "lockstep"))
    assert state.pieces == [[0, 0], [0, 0]]
    state.phase, state.dealer, state.trump = "deal", 0, "R"
    apply(state, CHANCE, Deal(list(SHORT_DECK)))
    assert [len(h) for h in state.hands] == [16, 16] and len(state.out_of_play) == len(SHORT_DECK) - 32


def test_two_players_4_the_winner_chooses_which_piece_moves():
    state = position([["R9"], ["R2"]], trump="R", pieces=[[2, 0], [0, 0]])
    finish_trick(state, ["R9", "R2"])
    assert to_act(state).seats == (0,) and legal_actions(state, 0) == [MovePiece(0), MovePiece(1)]
    refused(state, 1, MovePiece(0), "not_your_choice")
    apply(state, 0, MovePiece(1))
    assert state.pieces[0] == [2, 1]


def test_two_players_5_the_opponent_chooses_which_piece_is_sidetracked():
    state = position([["ST"], ["R2"]], trump="R", pieces=[[0, 0], [4, 1]])
    finish_trick(state, ["ST", "R2"])
    assert to_act(state).seats == (0,) and legal_actions(state, 0) == [SidetrackPiece(0), SidetrackPiece(1)]
    apply(state, 0, SidetrackPiece(0))
    assert state.off[1] == [True, False]


def test_two_players_6_both_pieces_must_reach_the_finish():
    state = position([["R9", "B1"], ["R2", "B2"]], trump="R", pieces=[[12, FINISH], [0, 0]])
    events = finish_trick(state, ["R9", "R2"])
    assert of(events, GameEnded)[0].winner == 0
    state = position([["R9", "B1"], ["R2", "B2"]], trump="R", pieces=[[12, 3], [0, 0]])
    finish_trick(state, ["R9", "R2"])
    apply(state, 0, MovePiece(0))
    assert state.pieces[0] == [FINISH, 3] and not to_act(state).over


# ---------------------------------------------------------------- time


def test_a_timeout_plays_the_least_valuable_legal_card():
    state = position([["R9", "B2", "SY"], ["G2", "G5", "G6"], ["G3", "G7", "G8"]], trump="R")
    events = apply(state, SYSTEM, Timeout(seat=0))
    assert of(events, CardPlayed)[0].card == "B2"
    refused(state, SYSTEM, Timeout(seat=0), "not_to_act")


def test_the_cut_and_the_deal_follow_from_the_seed():
    from rules import Session, get_game

    def dealt(seed):
        session = Session(get_game("race_to_the_finish"), make_setup(INFO, 3, "lockstep"), seed)
        session.run_chance()
        assert session.state.phase == "play" and invariant(session.state) == []
        return session.state.hands, session.state.dealer, session.state.trump

    assert dealt(4) == dealt(4) and dealt(4) != dealt(5)


# ---------------------------------------------------------------- places


def test_as_it_stands_seats_are_placed_by_how_far_their_pieces_have_come_sidetracked_or_not():
    state = position([["R1"], ["R2"], ["R3"]], pieces=[[3], [5], [5]], off=[[False], [True], [False]])
    assert standing(state) == (3, 1, 1) and placings(state) is None
    state = position([["R1"], ["R2"]], pieces=[[1, 9], [4, 5]])
    assert standing(state) == (1, 2)  # two seats: both pieces count, 10 against 9


def test_placings_put_the_winner_first_then_the_others_by_distance():
    state = position([["G9"], ["R2"], ["R3"]], pieces=[[12], [4], [6]], trump="G")
    apply(state, 0, PlayCard("G9"))
    apply(state, 1, PlayCard("R2"))
    apply(state, 2, PlayCard("R3"))
    assert to_act(state).over and placings(state) == (1, 3, 2) == standing(state)
