"""The bots are pure policies that play legal moves, and the heuristic one is clearly the stronger."""

import pytest

from clients.bots import get_policy
from clients.offline import play_game
from rules import RulesError, get_game, make_setup

FLAG_FINISH = get_game("flag_finish")


@pytest.mark.parametrize("mode", ["lockstep", "challenge"])
def test_heuristic_wins_at_least_90_percent_of_200_seeded_two_seat_races_against_random(mode):
    heuristic, random = get_policy("flag_finish", "heuristic"), get_policy("flag_finish", "random")
    setup = make_setup(FLAG_FINISH.info, 2, mode, {"races": 1, "extra_races": 0})
    wins = 0
    for seed in range(200):
        hero = seed % 2  # the heuristic bot takes each seat in turn
        policies = [heuristic, random] if hero == 0 else [random, heuristic]
        result = play_game(FLAG_FINISH, setup, seed, policies).result()
        wins += result.winners == (hero,)
    assert wins >= 180, f"the heuristic bot won only {wins} of 200 races"


def test_the_same_seed_plays_the_same_match():
    policies = [get_policy("flag_finish", "heuristic"), get_policy("flag_finish", "random")]
    setup = make_setup(FLAG_FINISH.info, 2, "challenge", {"races": 2})
    first = play_game(FLAG_FINISH, setup, 99, policies)
    second = play_game(FLAG_FINISH, setup, 99, policies)
    assert first.history == second.history and first.digest() == second.digest()


def test_an_unknown_policy_is_refused_by_name():
    with pytest.raises(RulesError) as caught:
        get_policy("flag_finish", "genius")
    assert caught.value.code == "unknown_policy" and "genius" in caught.value.message


def test_flush_heuristic_finishes_first_in_at_least_60_percent_of_200_seeded_four_seat_rounds():
    flush = get_game("flush")
    heuristic, random = get_policy("flush", "heuristic"), get_policy("flush", "random")
    setup = make_setup(flush.info, 4, "lockstep", {"rounds": 1})
    firsts = 0
    for seed in range(200):
        hero = seed % 4
        policies = [heuristic if seat == hero else random for seat in range(4)]
        session = play_game(flush, setup, seed, policies)
        firsts += session.result().winners == (hero,) and session.state.round_scores[0][hero] <= 0
    assert firsts >= 120, f"the heuristic bot went out first in only {firsts} of 200 rounds"


def test_race_to_the_finish_heuristic_wins_at_least_half_of_200_seeded_three_seat_games_against_two_random():
    game = get_game("race_to_the_finish")
    heuristic, random = get_policy(game.info.name, "heuristic"), get_policy(game.info.name, "random")
    setup = make_setup(game.info, 3, "lockstep")
    wins = 0
    for seed in range(200):
        hero = seed % 3
        policies = [heuristic if seat == hero else random for seat in range(3)]
        wins += play_game(game, setup, seed, policies).result().winners == (hero,)
    assert wins >= 100, f"the heuristic bot won only {wins} of 200 games"


def test_checkered_flag_heuristic_wins_at_least_75_percent_of_200_seeded_two_car_races_against_random():
    game = get_game("checkered_flag")
    heuristic, random = get_policy(game.info.name, "heuristic"), get_policy(game.info.name, "random")
    setup = make_setup(game.info, 2, "lockstep")
    wins = 0
    for seed in range(200):
        hero = seed % 2
        policies = [heuristic, random] if hero == 0 else [random, heuristic]
        wins += play_game(game, setup, seed, policies).result().winners == (hero,)
    assert wins >= 150, f"the heuristic car won only {wins} of 200 races"


def test_finish_line_heuristic_wins_at_least_75_percent_of_200_seeded_two_seat_games_against_random():
    game = get_game("finish_line")
    heuristic, random = get_policy(game.info.name, "heuristic"), get_policy(game.info.name, "random")
    setup = make_setup(game.info, 2, "lockstep")
    wins = 0
    for seed in range(200):
        hero = seed % 2
        policies = [heuristic, random] if hero == 0 else [random, heuristic]
        wins += play_game(game, setup, seed, policies).result().winners == (hero,)
    assert wins >= 150, f"the heuristic seat won only {wins} of 200 games"
