"""Ratings move the right way: winners up, losers down, ties level, stand-ins ignored, leaderboard order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from server.protocol import Refusal
from server.tournament.model import TableResult
from server.tournament.ratings import Rating, leaderboard, rate_table, rate_tables


def table(players, places, stand_ins=()):
    return TableResult(table="t", players=tuple(players), places=tuple(places), scores=(0,) * len(players),
                       stand_ins=tuple(stand_ins))


def test_the_winner_goes_up_and_the_last_goes_down_and_everyone_grows_surer():
    new = rate_table({}, "flush", table("abc", (1, 2, 3)))
    start = Rating(player="x", game="flush")
    assert new["a"].mu > start.mu > new["c"].mu
    assert new["a"].mu > new["b"].mu > new["c"].mu
    assert all(r.sigma < start.sigma and r.tables == 1 for r in new.values())


def test_a_tie_moves_tied_players_alike_and_beating_a_stronger_player_is_worth_more():
    tied = rate_table({}, "flush", table("ab", (1, 1)))
    assert tied["a"].mu == pytest.approx(tied["b"].mu) == pytest.approx(25.0)
    strong = Rating(player="s", game="flush", mu=35.0, sigma=3.0, tables=20)
    beat_strong = rate_table({"s": strong}, "flush", table(["u", "s"], (1, 2)))["u"]
    beat_new = rate_table({}, "flush", table(["u", "n"], (1, 2)))["u"]
    assert beat_strong.mu > beat_new.mu


def test_a_stand_in_seat_is_not_rated():
    new = rate_table({}, "flush", table("abc", (1, 2, 3), stand_ins=(True, False, False)))
    assert set(new) == {"b", "c"} and new["b"].mu > new["c"].mu
    assert rate_table({}, "flush", table("ab", (1, 2), stand_ins=(True, False))) == {}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.permutations([1, 2, 3]), min_size=1, max_size=8))
def test_same_tables_same_ratings_and_a_player_who_always_wins_leads(rounds):
    results = [table(["champ", "b", "c"], (1, *sorted(p for p in order if p != 1))) for order in rounds]
    first, again = rate_tables("flag_finish", results), rate_tables("flag_finish", list(results))
    assert first == again
    board = leaderboard(first.values(), "flag_finish")
    assert board[0].player == "champ" and [row.rank for row in board] == [1, 2, 3]
    assert board[0].ordinal == pytest.approx(first["champ"].mu - 3 * first["champ"].sigma)


def test_leaderboard_is_per_game_and_a_rating_of_another_game_is_refused():
    ratings = [Rating("a", "flush", mu=30.0), Rating("b", "flush", mu=20.0), Rating("c", "flag_finish", mu=40.0)]
    assert [row.player for row in leaderboard(ratings, "flush")] == ["a", "b"]
    assert [row.player for row in leaderboard(ratings, "flush", limit=1)] == ["a"]
    with pytest.raises(Refusal):
        rate_table({"a": Rating("a", "flag_finish")}, "flush",
                   table("ab", (1, 2)))
