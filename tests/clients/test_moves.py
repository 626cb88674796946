"""What a person types in `play`: Flag Finish by card, Flush declarations in any order, numbers elsewhere."""

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.moves import NotAMove, action_words, describe_action, menu, parse_action, read_move
from rules import Rng, Session, get_game, make_setup
from rules.flag_finish.game import Discard, DrawPile, Play, TakeDiscard

FLAG_FINISH = get_game("flag_finish")
FLUSH = get_game("flush")


def _flag_finish_view(**changes):
    session = Session(FLAG_FINISH, make_setup(FLAG_FINISH.info, 2, "challenge"), 5)
    session.run_chance()
    return msgspec.structs.replace(FLAG_FINISH.view(session.state, 0), **changes)


def test_flag_finish_moves_are_typed_by_card_and_never_by_a_number_that_could_shift():
    view = _flag_finish_view(rows=[["R0", "B1", "G2"], []], hand=["G3", "Y7", "F"], discard=["R5", "F"])
    legal = [Play("G3"), DrawPile(), TakeDiscard("R5"), TakeDiscard("F")]
    assert read_move("flag_finish", "r5", legal, view) == TakeDiscard("R5")
    assert read_move("flag_finish", "take R5", legal, view) == TakeDiscard("R5")
    assert read_move("flag_finish", " G3 ", legal, view) == Play("G3")
    assert read_move("flag_finish", "play", legal, view) == Play("G3")
    assert read_move("flag_finish", "draw", legal, view) == DrawPile()
    assert read_move("flag_finish", "d", legal, view) == DrawPile()
    assert isinstance(read_move("flag_finish", "2", legal, view), NotAMove)
    assert "your row needs a 3" in read_move("flag_finish", "Y7", legal, view).reason
    assert "neither in your hand nor in the discard pile" in read_move("flag_finish", "B9", legal, view).reason
    assert "'take' which card" not in read_move("flag_finish", "take", legal, view).reason


def test_a_flag_in_the_hand_and_one_in_the_pile_typed_bare_is_played():
    view = _flag_finish_view(rows=[[f"G{n}" if n % 2 else f"R{n}" for n in range(11)], []], hand=["F"],
                             discard=["F"])
    legal = [Play("F"), DrawPile(), TakeDiscard("F")]
    assert read_move("flag_finish", "F", legal, view) == Play("F")
    assert read_move("flag_finish", "take f", legal, view) == TakeDiscard("F")


def test_after_a_draw_the_card_typed_is_the_discard_and_the_screen_says_so():
    view = _flag_finish_view(hand=["G3", "Y7"], drawn="Y7")
    legal = [Discard("G3"), Discard("Y7")]
    assert read_move("flag_finish", "y7", legal, view) == Discard("Y7")
    assert "you drew a card" in read_move("flag_finish", "draw", legal, view).reason
    assert "Y7 is new in your hand: now discard a card" in "\n".join(menu("flag_finish", view, legal))


def _flush_turns(seats: int, seed: int, steps: int):
    """Flush states along a seeded random game, with the seat to act and its legal moves."""
    session = Session(FLUSH, make_setup(FLUSH.info, seats, "lockstep", {"rounds": 1}), seed)
    session.run_chance()
    rng = Rng(seed)
    for _ in range(steps):
        turn = session.to_act()
        if turn.over:
            return
        seat = turn.seats[0]
        legal = FLUSH.legal_actions(session.state, seat)
        yield FLUSH.view(session.state, seat), legal
        session.act(seat, rng.choice(legal))


def _typed(action, rng) -> str:
    words = [*action.hand, *(f"b{b + 1}" for b in action.bases)]  # Bases typed from 1, as a person numbers them
    rng.shuffle(words)
    return " ".join(words)


@settings(max_examples=30, deadline=None)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**32), steps=st.integers(1, 40))
def test_a_flush_declaration_is_understood_in_any_card_order(seats, seed, steps):
    rng = Rng(seed)
    for view, legal in _flush_turns(seats, seed, steps):
        for action in legal:
            if type(action).__struct_config__.tag != "release":
                assert read_move("flush", describe_action(action), legal, view) == action
                continue
            cards = _typed(action, rng)
            assert read_move("flush", f"{cards} as {action.value}", legal, view) == action
            shuffled = msgspec.structs.replace(action, hand=sorted(action.hand, reverse=True),
                                               bases=sorted(action.bases, reverse=True))
            assert read_move("flush", describe_action(shuffled), legal, view) == action
            bare = read_move("flush", cards, legal, view)
            assert bare == action or isinstance(bare, NotAMove) or (
                sorted(bare.hand) == sorted(action.hand) and sorted(bare.bases) == sorted(action.bases))


def test_a_flush_move_typed_wrong_gets_a_flush_hint():
    view, legal = next(_flush_turns(3, 11, 1))
    reason = read_move("flush", "take G5", legal, view).reason
    assert reason.startswith("'take' is not a Flush card") and "e.g. '" in reason
    reason = read_move("flush", "5 6", legal, view).reason
    assert reason.startswith("you hold no 5 6") and "e.g. '" in reason and "draw" not in reason


def test_values_that_pick_up_the_pile_are_marked():
    from rules.flush.game import is_pickup

    for view, legal in _flush_turns(2, 4, 60):
        lines = "\n".join(menu("flush", view, legal))
        values = {a.value for a in legal if type(a).__struct_config__.tag == "release"}
        for value in values:
            marked = f" {value}^" in lines
            assert marked == is_pickup(view.top_value, value), (value, view.top_value, lines)
        if any(is_pickup(view.top_value, v) for v in values):
            assert "(^ is higher: picks up the pile)" in lines
            assert all(len(line) < 80 for line in lines.split("\n")), "the legend fits on its line"
            return
    raise AssertionError("no pick-up came up in 60 moves")


def test_the_other_games_take_a_number_or_the_words():
    game = get_game("checkered_flag")
    session = Session(game, make_setup(game.info, 2, "lockstep"), 1)
    session.run_chance()
    seat = session.to_act().seats[0]
    legal = game.legal_actions(session.state, seat)
    view = game.view(session.state, seat)
    assert read_move("checkered_flag", "1", legal, view) == legal[0]
    assert read_move("checkered_flag", describe_action(legal[-1]), legal, view) == legal[-1]
    assert "numbered 1 to" in read_move("checkered_flag", "99", legal, view).reason
    assert any(action_words("checkered_flag", legal[0], view) in line for line in menu("checkered_flag", view, legal))


def test_the_other_games_menus_say_moves_in_words_with_pieces_and_gears_named():
    from rules.checkered_flag.game import Shift
    from rules.race_to_the_finish.game import MovePiece, PlayCard

    view = msgspec.defstruct("V", [("seat", int), ("gears", list)])(seat=0, gears=[2, 0])
    legal = [Shift(1), Shift(2), Shift(3)]
    text = "\n".join(menu("checkered_flag", view, legal))
    assert "shift to 1st" in text and "stay in 2nd" in text and "shift to 3rd" in text and "shift 2" not in text
    assert read_move("checkered_flag", "stay in 2nd", legal, view) == Shift(2)
    assert menu("checkered_flag", view, [Shift(0)])[1].endswith("shift to Neutral")
    plays = [PlayCard("S10"), PlayCard("H2"), PlayCard("S3")]
    assert "1 play H2" in menu("race_to_the_finish", None, plays)[1]  # the hand's order: suit, then number
    assert read_move("race_to_the_finish", "2", plays, None) == PlayCard("S3")
    assert "move piece 2" in "\n".join(menu("race_to_the_finish", None, [MovePiece(0), MovePiece(1)]))


def test_parse_action_guesses_the_game_from_the_moves():
    assert parse_action(" PLAY g0 ", [Play("G0"), DrawPile()]) == Play("G0")
    assert parse_action("play G1", [Play("G0"), DrawPile()]) is None


def test_flag_finish_lines_with_more_than_a_move_are_refused_plainly_never_read_as_something_else():
    view = _flag_finish_view(rows=[["R0"], []], hand=["G3", "R0", "B1"], discard=["R5"], draw_count=36)
    legal = [Play("B1"), DrawPile(), TakeDiscard("R5")]
    for line in ("draw please", "draw 3", "d d"):
        reason = read_move("flag_finish", line, legal, view).reason
        assert "takes nothing after it" in reason and "empty" not in reason, (line, reason)
    reason = read_move("flag_finish", "take R5 now", legal, view).reason
    assert "'now' is more than a move says" in reason
    assert "one verb and then a card" in read_move("flag_finish", "take play", legal, view).reason


def test_take_of_a_card_in_your_hand_says_where_it_is_and_how_to_play_it():
    view = _flag_finish_view(rows=[["R0"], []], hand=["G3", "R0", "B1"], discard=["R5"])
    legal = [Play("B1"), DrawPile(), TakeDiscard("R5")]
    assert read_move("flag_finish", "take R0", legal, view).reason == "R0 is in your hand, not in the discard pile"
    assert read_move("flag_finish", "take b1", legal, view).reason == (
        "b1 is in your hand, not in the discard pile: 'b1' plays it")
    assert "not in your hand: 'take R5' takes it" in read_move("flag_finish", "play R5", legal, view).reason


def test_a_bare_take_or_discard_acts_when_there_is_one_choice_and_asks_which_otherwise():
    view = _flag_finish_view(rows=[["R0"], []], hand=["G3", "B1"], discard=["R5"])
    assert read_move("flag_finish", "take", [DrawPile(), TakeDiscard("R5")], view) == TakeDiscard("R5")
    assert read_move("flag_finish", "discard", [Discard("G3")], view) == Discard("G3")
    reason = read_move("flag_finish", "discard", [Discard("G3"), Discard("B1")], view).reason
    assert reason == "discard which card? G3 B1 (e.g. 'discard G3')"
    assert "nothing to take" in read_move("flag_finish", "take", [DrawPile()], view).reason


def test_flush_bases_are_typed_and_shown_from_1_as_the_feed_says_them():
    from rules.flush.game import Blind, PassBase

    assert read_move("flush", "b1", [Blind(base=0), Blind(base=2)], None) == Blind(base=0)
    assert read_move("flush", "b3", [PassBase(base=1), PassBase(base=2)], None) == PassBase(base=2)
    assert "b1 flips the Blind card of Base 1" in "\n".join(menu("flush", None, [Blind(base=0)]))
