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
