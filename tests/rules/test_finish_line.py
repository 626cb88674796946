"""Finish Line, rule by rule with forced dice: the deal, stop values (the text's six-and-two, two-fours and
exact-finish examples), each special card, attacks, winning and playing on."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rules import CHANCE, SYSTEM, Rng, make_setup
from rules.finish_line.game import (
    DECK, FINISH, INFO, JOKERS, NOT_ON_WINGS, WINGS, Activation, Attack, Deal, GameEnded, MarkerMoved, MoveMarker,
    NoMove, Pick, Roll, Timeout, apply, deal_board, invariant, legal_actions, new_state, placings, rank, standing,
    to_act, view,
)
from tests.rules.checks import of, refused_by

refused = refused_by(apply)

FILL_ORDER = ("3", "4", "5", "6", "10", "9", "8", "7", "2", "A", "J", "Q", "K")


def game_at(cards, markers, turn=0, **options):
    """A game whose board has ``cards`` ({path index: card}) and fillers elsewhere (jokers and low cards
    first, so they stop nothing the tests use), markers where given; ``turn`` is about to roll."""
    state = new_state(make_setup(INFO, len(markers), "lockstep", options))
    board = [None] * (FINISH + 1)
    for index, card in cards.items():
        board[index] = card
    left = [c for c in DECK if c not in cards.values()]
    order = sorted(left, key=lambda c: (c not in JOKERS, FILL_ORDER.index(rank(c)) if rank(c) else 0, c))
    for wing in WINGS:
        if board[wing] is None:
            card = next(c for c in order if c not in JOKERS and rank(c) not in NOT_ON_WINGS)
            order.remove(card)
            board[wing] = card
    for index in range(1, FINISH + 1):
        if board[index] is None:
            board[index] = order.pop(0)
    state.board = board
    state.markers = [list(m) for m in markers]
    state.phase, state.turn = "roll", turn
    assert invariant(state) == []
    return state


def do(state, *items):
    """Apply each item: a Roll by chance, anything else by the seat whose turn it is."""
    events = []
    for item in items:
        events += apply(state, CHANCE if type(item) is Roll else state.turn, item)
    return events


SAMPLE = {1: "7S", 2: "AH", 3: "3C", 4: "8D", 5: "4C", 6: "5C"}


# ---------------------------------------------------------------- the deal


def test_the_wings_are_dealt_first_and_never_hold_a_face_card_ace_two_or_joker():
    for seed in range(30):
        order = list(DECK)
        Rng(seed).shuffle(order)
        board, reinserted = deal_board(order)
        assert sorted(c for c in board if c) == sorted(DECK) and board[0] is None
        assert all(board[w] not in JOKERS and rank(board[w]) not in NOT_ON_WINGS for w in WINGS)
        assert all(c in JOKERS or rank(c) in NOT_ON_WINGS for c in reinserted)


def test_a_barred_wing_card_goes_back_into_the_middle_of_the_deck():
    order = [c for c in DECK if c not in ("5S", "KH")] + ["5S", "KH"]  # the king comes up first
    board, reinserted = deal_board(order)
    assert reinserted[0] == "KH" and board[WINGS[0]] == "5S" and "KH" in board


def test_chance_deals_the_board_once_and_the_first_seat_rolls():
    state = new_state(make_setup(INFO, 2, "lockstep"))
    apply(state, CHANCE, Deal(order=list(DECK)))
    assert state.phase == "roll" and to_act(state).chance and invariant(state) == []
    refused(state, CHANCE, Deal(order=list(DECK)), "not_dealing")


# ---------------------------------------------------------------- stage 1: stop values


def test_six_and_two_one_marker_to_the_ace_of_hearts_the_other_stops_on_the_eight_of_diamonds():
    state = game_at(SAMPLE, [[0, 0, 0], [0, 0, 0]])
    events = do(state, Roll(6, 2), MoveMarker(0, "black"), MoveMarker(1, "red"))
    assert [e.end for e in of(events, MarkerMoved)] == [2, 4] and view(state, 1).stop == 8


def test_two_fours_the_second_four_cannot_move_a_marker_halted_on_the_eight():
    state = game_at(SAMPLE, [[0, 0, 0], [0, 0, 0]])
    do(state, Roll(4, 4), MoveMarker(0, "red"))
    assert state.markers[0][0] == 4
    assert MoveMarker(0, "black") not in legal_actions(state, 0) and MoveMarker(1, "black") in legal_actions(state, 0)
    refused(state, 0, MoveMarker(0, "black"), "cannot_move")


def test_a_marker_that_starts_on_a_stop_card_may_move_beyond_it():
    state = game_at(SAMPLE, [[4, 0, 0], [0, 0, 0]])
    do(state, Roll(4, 4), MoveMarker(0, "red"))
    assert state.markers[0][0] == 8


def test_the_finish_needs_an_exact_count_but_the_stop_value_can_halt_a_marker_on_it():
    cards = {51: "10S", 52: "3C", 53: "4C", FINISH: "7H"}
    state = game_at(cards, [[51, 0, 0], [0, 0, 0]])
    do(state, Roll(6, 6))
    assert all(a.marker != 0 for a in legal_actions(state, 0))  # double sixes: that marker cannot move at all
    state = game_at(cards, [[51, 0, 0], [0, 0, 0]])
    do(state, Roll(3, 4))
    assert {MoveMarker(0, "red"), MoveMarker(0, "black")} <= set(legal_actions(state, 0))
    do(state, MoveMarker(0, "black"))  # four would overshoot, but the 7 of hearts stops it there
    assert state.markers[0][0] == FINISH


def test_a_die_no_marker_can_use_is_announced_and_play_moves_on():
    state = game_at({51: "10S", 52: "3C", 53: "4C", FINISH: "9H"}, [[51, FINISH, FINISH], [0, 0, 0]])
    events = do(state, Roll(6, 5))
    assert [e.die for e in of(events, NoMove)] == ["red", "black"] and to_act(state).chance and state.turn == 1


# ---------------------------------------------------------------- stage 2: special cards


def landing(card, index=3, extra=None, markers=None, die=(3, 1)):
    """Seat 0 rolls ``die`` (red, black) and moves marker 0 from 0 by the red die onto ``card`` at ``index``,
    marker 1 by the black die to 1."""
    cards = {index: card, **(extra or {})}
    state = game_at(cards, markers or [[0, 0, 0], [30, 30, 30]])
    do(state, Roll(*die), MoveMarker(0, "red"), MoveMarker(1, "black"))
    return state


def test_an_ace_activated_moves_the_marker_to_the_next_wing_card():
    state = landing("AH")
    events = do(state, Roll(5, 2))  # hearts: the red die must be higher
    assert of(events, Activation)[0].activated and state.markers[0][0] == WINGS[0]


def test_a_card_is_not_activated_when_its_suits_die_is_the_same_or_lower():
    state = landing("AH")
    events = do(state, Roll(3, 3))
    assert not of(events, Activation)[0].activated and state.markers[0][0] == 3


def test_an_ace_before_the_last_wing_does_not_send_a_marker_to_the_finish_line():
    state = game_at({47: "AS"}, [[44, 0, 0], [30, 30, 30]])
    events = do(state, Roll(3, 2), MoveMarker(0, "red"), MoveMarker(1, "black"), Roll(1, 6))
    assert of(events, Activation)[0].activated and state.markers[0][0] == 47


def test_a_two_activated_moves_the_marker_two_cards_on():
    state = landing("2C")
    do(state, Roll(1, 4))  # clubs: the black die
    assert state.markers[0][0] == 5


def test_a_king_activated_moves_the_marker_to_the_next_king():
    state = landing("KD", extra={20: "KS"})
    do(state, Roll(6, 1))
    assert state.markers[0][0] == 20


def test_a_queen_activated_brings_one_of_your_markers_from_behind_and_you_choose_which():
    state = landing("QH", markers=[[0, 0, 0], [30, 30, 30]], die=(3, 1))
    do(state, Roll(6, 1))
    assert legal_actions(state, 0) == [Pick(0, 1), Pick(0, 2)]
    do(state, Pick(0, 2))
    assert state.markers[0] == [3, 1, 3]


def test_a_jack_activated_pulls_the_nearest_opposing_marker_ahead_and_off_a_safety_back_to_it():
    state = landing("JS", markers=[[0, 0, 0], [6, WINGS[0], 30]])
    events = do(state, Roll(1, 5))  # the wing marker is safe; the one on 6 is pulled to 3
    assert state.markers[1][0] == 3 and of(events, MarkerMoved)[-1].how == "jack"
    events = do(state, Roll(4, 2))  # then marker 0 attacks it on the jack
    assert of(events, Attack)[0].hit and state.markers[1][0] == 0


def test_only_markers_moved_by_dice_roll_to_activate_not_markers_moved_by_activations():
    state = landing("QH", extra={1: "2C"}, markers=[[0, 0, 5], [30, 30, 30]], die=(3, 1))
    # marker 0 on the queen (3), marker 1 on the two of clubs (1), marker 2 never moved (5)
    events = do(state, Roll(6, 1))  # queen activated: marker 1 (behind, on 1) is the only other behind it
    assert state.markers[0] == [3, 3, 5]
    assert [e.card for e in of(events, Activation)] == ["QH"]  # marker 1 now on the queen does not roll
    assert state.turn == 1 and state.phase == "roll"


# ---------------------------------------------------------------- stage 3: attacks


def test_an_attack_sends_every_opposing_marker_back_by_the_higher_die_and_doubles_miss():
    state = game_at(SAMPLE, [[0, 0, 0], [4, 4, 30]])
    do(state, Roll(5, 4), MoveMarker(0, "black"), MoveMarker(1, "red"))  # stop 9: 0 -> 4, 1 -> 5
    assert state.markers[0][:2] == [4, 5]
    events = do(state, Roll(2, 2))
    assert not of(events, Attack)[0].hit and state.markers[1] == [4, 4, 30]
    state = game_at(SAMPLE, [[0, 0, 0], [4, 4, 30]])
    do(state, Roll(5, 4), MoveMarker(0, "black"), MoveMarker(1, "red"), Roll(3, 2))
    assert state.markers[1] == [1, 1, 30]


def test_two_own_markers_on_one_card_attack_twice_and_no_attack_on_a_safety():
    state = game_at(SAMPLE, [[0, 0, 0], [4, 30, 30]])
    do(state, Roll(4, 4), MoveMarker(0, "red"), MoveMarker(1, "black"))  # both onto the 8 of diamonds
    events = do(state, Roll(6, 6), Roll(3, 1))
    assert [a.hit for a in of(events, Attack)] == [False, True] and state.markers[1][0] == 1
    state = game_at({}, [[WINGS[0] - 2, 0, 0], [WINGS[0], 30, 30]])
    events = do(state, Roll(2, 1), MoveMarker(0, "red"), MoveMarker(1, "black"))
    assert state.markers[0][0] == WINGS[0] and not of(events, Attack) and state.turn == 1


def test_a_marker_knocked_back_onto_its_own_teams_card_is_not_attacked_again():
    state = game_at(SAMPLE, [[0, 0, 3], [4, 1, 30]])
    do(state, Roll(4, 1), MoveMarker(0, "red"), MoveMarker(1, "black"))  # onto 4 and onto 1
    do(state, Roll(3, 1))  # the attacker on 4 knocks seat 1's marker back 3, onto 1 with its own
    assert state.markers[1][:2] == [1, 1] and state.phase == "attack"
    do(state, Roll(5, 2))  # the attacker on 1 attacks only the marker that was there after stage 2
    assert state.markers[1][:2] == [1, 0] and state.turn == 1


# ---------------------------------------------------------------- winning


def test_the_first_seat_with_all_three_markers_home_wins():
    state = game_at({FINISH - 1: "3C", FINISH: "9H"}, [[FINISH - 1, FINISH - 1, FINISH], [0, 0, 0]])
    events = do(state, Roll(1, 1), MoveMarker(0, "red"), MoveMarker(1, "black"))
    assert of(events, GameEnded)[0].places == [1, 2] and to_act(state).over


def test_playing_on_ranks_the_others_and_skips_the_seats_home():
    state = game_at({FINISH - 1: "3C", FINISH: "9H"}, [[FINISH - 1, FINISH - 1, FINISH], [0, 0, 0], [0, 0, 0]],
                    play_on=True)
    do(state, Roll(1, 1), MoveMarker(0, "red"), MoveMarker(1, "black"))
    assert not to_act(state).over and state.finished == [0] and state.turn == 1


def test_placings_are_the_places_the_game_ended_with_and_everyone_else_shares_second():
    state = game_at({FINISH - 1: "3C", FINISH: "9H"}, [[FINISH - 1, FINISH - 1, FINISH], [5, 0, 0], [9, 9, 0]])
    assert placings(state) is None
    do(state, Roll(1, 1), MoveMarker(0, "red"), MoveMarker(1, "black"))
    assert placings(state) == (1, 2, 2) == standing(state)


def test_as_it_stands_seats_home_keep_their_order_then_markers_home_then_distance_and_ties_share():
    state = game_at({}, [[FINISH] * 3, [FINISH, 10, 0], [20, 20, 20], [30, 30, 0], [FINISH, 0, 10]], play_on=True)
    state.finished = [0]
    assert standing(state) == (1, 2, 4, 4, 2)  # seat 0 home; seats 1 and 4 one home; 60 spaces each for 2 and 3


def test_a_timeout_makes_the_first_legal_move():
    state = game_at(SAMPLE, [[0, 0, 0], [0, 0, 0]])
    do(state, Roll(6, 2))
    events = apply(state, SYSTEM, Timeout(seat=0))
    assert of(events, MarkerMoved) and state.used.count(True) == 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), seats=st.integers(2, 6), play_on=st.booleans())
def test_random_play_never_changes_the_board_keeps_every_marker_and_ends_with_exactly_one_winner(seed, seats,
                                                                                               play_on):
    from rules import Session, get_game

    session = Session(get_game("finish_line"), make_setup(INFO, seats, "lockstep", {"play_on": play_on}), seed)
    session.run_chance()
    board = list(session.state.board)
    rng = Rng(seed)
    while not session.to_act().over:
        seat = session.to_act().seats[0]
        session.act(seat, rng.choice(legal_actions(session.state, seat)))
        assert session.state.board == board
        assert [len(m) for m in session.state.markers] == [3] * seats
    assert len(session.result().winners) == 1
