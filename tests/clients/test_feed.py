"""The event feed: every event of every game has a sentence a person can read, and the result is said plainly."""

import typing

import pytest

from clients.feed import COMMON, SENTENCES, _tag, describe_event, describe_result, feed_lines
from rules import GAMES, Rng, Session, get_game, make_setup
from rules.bots import get_policy

FAST = {"flag_finish": {"races": 2}, "flush": {"rounds": 2, "turn_limit": 60}}


def _event_tags(game) -> set[str]:
    return {member.__struct_config__.tag for member in typing.get_args(game.event_type)}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_type_of_every_game_has_its_own_sentence(name):
    missing = _event_tags(GAMES[name]) - set(SENTENCES[name]) - set(COMMON)
    assert not missing, f"{name}: no sentence for {sorted(missing)}"


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
            sentence = (SENTENCES[name].get(_tag(seen)) or COMMON[_tag(seen)])(seen, me)  # no fallback here
            assert sentence and "\n" not in sentence and "None" not in sentence, (seen, sentence)
            seat = getattr(seen, "seat", None)
            if seat == 0 and me == 0:
                assert "you" in sentence.lower(), sentence
            if seat is not None and me is None:
                assert f"seat {seat}" in sentence, sentence


def test_sentences_say_who_did_what():
    from rules.flag_finish.game import RaceEnded, Took
    from rules.flush.game import Flushed

    assert describe_event("flag_finish", Took(seat=1, card="G5"), me=0) == "seat 1 took G5 from the discard pile"
    assert describe_event("flag_finish", Took(seat=0, card="G5"), me=0).startswith("you took G5")
    assert describe_event("flush", Flushed(seat=2, cards=12, super=False, gold=False), me=2) == \
        "you flushed: 12 cards leave the game"
    ended = RaceEnded(race=2, reason="finished", finishers=[1], winners=[1], scores=[12, 0, 11], totals=[3, 12, 20])
    assert describe_event("flag_finish", ended, me=0) == "race 2: seat 1 finished first, scores 12/0/11, totals 3/12/20"


def test_an_event_nobody_wrote_a_sentence_for_still_reads():
    assert describe_event("flag_finish", {"type": "comet", "seat": 2, "size": 3}, me=2) == "you: comet (size 3)"
    from rules.flag_finish.game import Took

    assert describe_event("no_such_game", Took(seat=1, card="G5")) == "seat 1: took (card G5)"


def test_the_feed_leaves_out_whose_turn_it_is():
    from rules.contract import TurnStarted
    from rules.flag_finish.game import Played

    assert feed_lines("flag_finish", [TurnStarted(seat=1), Played(seat=1, card="G0")], me=0) == ["seat 1 played G0"]


def test_the_result_says_who_won_and_which_way_scores_count():
    assert describe_result({"scores": [0, 12, 11], "winners": [0], "lower_is_better": True}, 0) == \
        "Game over. You win! Final scores 0/12/11 (lower is better)."
    assert "Seat 1 wins" in describe_result({"scores": [3, 9], "winners": [1], "lower_is_better": False}, 0)
    assert "higher is better" in describe_result({"scores": [3, 9], "winners": [1], "lower_is_better": False}, None)
    assert "You share the win with seat 1" in describe_result({"scores": [0, 0, 5], "winners": [0, 1]}, 0)
