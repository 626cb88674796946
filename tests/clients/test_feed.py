"""The event feed: every event of every game has a sentence a person can read, and the result is said plainly."""

import typing

import msgspec
import pytest

from clients.feed import _tag, describe_contest, describe_event, describe_result, feed_lines, sentence_of
from clients.sentences import Reader, say
from rules import GAMES, Rng, Session, get_game, make_setup
from rules.bots import get_policy
from rules.words import COMMON, all_words, game_words

FAST = {"flag_finish": {"races": 2}, "flush": {"rounds": 2, "turn_limit": 60}}


def _event_tags(game) -> set[str]:
    return {member.__struct_config__.tag for member in typing.get_args(game.event_type)}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_type_of_every_game_has_its_own_sentence(name):
    missing = {tag for tag in _event_tags(GAMES[name]) if sentence_of(name, tag) is None}
    assert not missing, f"{name}: no sentence for {sorted(missing)}"
    assert set(game_words(name)["events"]) <= _event_tags(GAMES[name]), "a sentence for an event the game has not"


def _played_events(name: str, seed: int):
    """Every event of a seeded game of heuristic seats, with the seat whose turn made it."""
    game = get_game(name)
    setup = make_setup(game.info, game.info.max_seats if name != "flag_finish" else 3, game.info.modes[-1],
                       FAST.get(name, {}))
    session = Session(game, setup, seed)
    rng = Rng(seed)
    policy = get_policy(name, "heuristic")
    events = []
    for _ in range(5000):
        turn = session.to_act()
        if turn.over:
            break
        if turn.chance:
            steps = session.run_chance()
        elif turn.system and not turn.seats:
            steps = session.act(-1, game.legal_actions(session.state, -1)[0])
        else:
            seat = turn.seats[0]
            steps = session.act(seat, policy(game.view(session.state, seat), game.legal_actions(session.state, seat),
                                             rng))
        steps = steps if isinstance(steps, list) else [steps]
        events += [event for step in steps for event in step.events]
    return game, events


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_events_of_a_whole_game_read_as_sentences_for_a_seat_and_a_spectator(name):
    game, events = _played_events(name, 3)
    assert events
    for event in events:
        for me in (0, None):
            seen = game.redact(event, me)
            fields = {"me": me, "seats": 4, **msgspec.structs.asdict(seen)}
            sentence = say(sentence_of(name, _tag(seen)), fields, game_words(name), Reader(me=me))  # no fallback
            assert sentence and "\n" not in sentence and "None" not in sentence, (seen, sentence)
            seat = getattr(seen, "seat", None)
            if seat == 0 and me == 0:
                assert "you" in sentence.lower(), sentence
            if seat is not None and me is None:
                assert f"seat {seat + 1}" in sentence, sentence  # seats are numbered from 1 for a person


def test_sentences_say_who_did_what():
    from rules.flag_finish.game import RaceEnded, Took
    from rules.flush.game import Flushed

    assert describe_event("flag_finish", Took(seat=1, card="G5"), me=0) == "seat 2 took green 5 from the discard pile"
    assert describe_event("flag_finish", Took(seat=0, card="G5"), me=0).startswith("you took green 5")
    assert describe_event("flush", Flushed(seat=2, cards=12, super=False, gold=False), me=2) == \
        "you flushed: 12 cards leave the game"
    ended = RaceEnded(race=2, reason="finished", finishers=[1], winners=[1], scores=[12, 0, 11], totals=[3, 12, 20])
    assert describe_event("flag_finish", ended, me=0) == \
        "race 2: seat 2 finished first. Scores you: 12, seat 2: 0, seat 3: 11"


def test_an_event_nobody_wrote_a_sentence_for_still_reads():
    assert describe_event("flag_finish", {"type": "comet", "seat": 2, "size": 3}, me=2) == "you: comet (size 3)"
    from rules.flag_finish.game import Took

    assert describe_event("no_such_game", Took(seat=1, card="G5")) == "seat 2: took (card G5)"
    assert describe_event("flag_finish", {"type": "took", "seat": 1}) == "seat 2: took"  # fields missing


def test_the_feed_leaves_out_whose_turn_it_is():
    from rules.contract import TurnStarted
    from rules.flag_finish.game import Played

    assert feed_lines("flag_finish", [TurnStarted(seat=1), Played(seat=1, card="G0")], me=0) == ["seat 2 played green 0"]


def test_the_result_says_who_won_and_which_way_scores_count():
    assert describe_result({"scores": [0, 12, 11], "winners": [0], "lower_is_better": True}, 0) == \
        "Game over. You won! Final scores: you: 0, seat 2: 12, seat 3: 11 (lower is better)."
    assert "Seat 2 won" in describe_result({"scores": [3, 9], "winners": [1], "lower_is_better": False}, 0)
    assert "higher is better" in describe_result({"scores": [3, 9], "winners": [1], "lower_is_better": False}, None)
    assert "You share the win with seat 2" in describe_result({"scores": [0, 0, 5], "winners": [0, 1]}, 0)
    assert describe_result({"scores": [2, 1, 3], "winners": [1], "lower_is_better": True}, 0, "finish_line") == \
        "Game over. Seat 2 won! Places: you: 2nd, seat 2: 1st, seat 3: 3rd."  # places, never "scores"


def test_words_agree_with_their_numbers_and_name_cards_not_counts():
    from rules.finish_line.game import MarkerMoved
    from rules.flush.game import Flushed, GoldDrawn

    assert describe_event("flush", Flushed(seat=1, cards=1, super=False, gold=False), me=0) == \
        "seat 2 flushed: 1 card leaves the game"
    assert describe_event("flush", GoldDrawn(seat=0, card="4B"), me=0) == "the Gold Flush makes you draw a card: 4 Bonus"
    moved = MarkerMoved(seat=1, marker=0, start=3, end=9, how="ace")
    assert describe_event("finish_line", moved, me=None) == "seat 2's marker 1 moved from square 3 to square 9 by an ace"
    assert describe_event("finish_line", msgspec.structs.replace(moved, how="king"), me=None).endswith("by a king")


def test_lists_are_said_in_words_and_seats_counted_from_1():
    from clients.words import a_or_an, and_list, ordinal, seat_list

    assert and_list([9, 55, 70]) == "9, 55 and 70" and and_list([1]) == "1" and and_list([]) == "nothing"
    assert seat_list([0]) == "seat 1" and seat_list([2, 0]) == "seats 1 and 3"
    assert [a_or_an(w) for w in ("ace", "king", "8", "5", "11")] == ["an ace", "a king", "an 8", "a 5", "an 11"]
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]


def test_a_piece_is_numbered_only_when_a_seat_has_more_than_one():
    from rules.race_to_the_finish.game import PieceMoved

    moved = PieceMoved(seat=2, piece=0, start=0, end=3, how="move")
    one = msgspec.defstruct("V", [("pieces", list)])(pieces=[[0], [0], [0]])
    two = msgspec.defstruct("V", [("pieces", list)])(pieces=[[0, 0], [0, 0]])
    assert describe_event("race_to_the_finish", moved, None, one) == "seat 3's piece moved from the start to track card 3"
    assert describe_event("race_to_the_finish", moved, None, two).startswith("seat 3's piece 1 moved")


def test_a_lost_contest_is_said_by_the_client_with_seats_from_1():
    from server.protocol import Contest

    assert describe_contest(Contest(winner=1, rule="reaction"), me=0) == "seat 2 took it first (it reacted first)"
    assert describe_contest(Contest(winner=2, rule="lot", lot=True), me=0) == \
        "seat 3 took it first (your reactions tied; a seeded lot decided)"


def test_the_words_are_plain_data_the_server_can_send_as_json():
    """The browser renders the same data (served as /words.json): nothing in it but JSON's values."""
    words = all_words()
    assert msgspec.json.decode(msgspec.json.encode(words)) == words
    assert set(words["games"]) == set(GAMES) and all(words["games"][name]["events"] for name in GAMES)
