"""Seating: hypothesis properties of every format (everyone seated once or a bye, byes only when no seating
exists, sizes within bounds, repeats no more than an exhaustive search finds, up to 12 players the fewest
repeats and then the least point spread of every possible seating, determinism, seat-first rotation), and
the round robin's guarantees."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Iterator

import pytest
from hypothesis import given, settings, strategies as st

from server.protocol import Refusal
from server.tournament.model import Seating, Sizes
from server.tournament.swiss_search import meetings
from server.tournament.seating import (arena, bye_counts, final_table, first_seats, round_robin, swiss,
                                       table_sizes)

BOUNDS = [(2, 2), (2, 3), (2, 4), (2, 6), (3, 4), (3, 6), (4, 6)]


@st.composite
def rounds(draw, max_players: int = 10, max_past: int = 4):
    """Active players in standings order, their points, earlier seatings among them, a seed, sizes."""
    low, high = draw(st.sampled_from(BOUNDS))
    sizes = Sizes(low, high, draw(st.integers(low, high)))
    count = draw(st.integers(0, max_players))
    players = [f"p{i}" for i in range(count)]
    points = {p: draw(st.integers(0, 9)) for p in players}
    players.sort(key=lambda p: -points[p])
    past = []
    for _ in range(draw(st.integers(0, max_past))):
        shuffled = draw(st.permutations(players))
        cut = draw(st.lists(st.integers(2, high), min_size=1, max_size=max(1, count)))
        tables, i = [], 0
        for size in cut:
            if i + size <= len(shuffled):
                tables.append(tuple(shuffled[i:i + size]))
                i += size
        past.append(Seating(tables=tuple(tables), byes=tuple(shuffled[i:i + 1])))
    return players, points, past, draw(st.integers(0, 2**64 - 1)), sizes


def repeats(seating: Seating, past: list[Seating]) -> int:
    met = meetings(past)
    return sum(met.get(a, {}).get(b, 0) for table in seating.tables for a, b in combinations(table, 2))


def seatable(count: int, sizes: Sizes, upper: int) -> bool:
    """Some number of tables of min..upper seats holds exactly ``count`` players."""
    return any(t * sizes.min <= count <= t * upper for t in range(1, count + 1))


def fewest_repeats(players: list[str], table_sizes_: list[int], past: list[Seating]) -> int:
    """Exhaustive: every way to cut ``players`` into tables of these sizes; the fewest repeat meetings."""
    met = meetings(past)

    def cost(table):
        return sum(met.get(a, {}).get(b, 0) for a, b in combinations(table, 2))

    def search(left: list[str], sizes_left: Counter) -> int:
        if not left:
            return 0
        best = None
        for size in [s for s in sizes_left if sizes_left[s]]:
            sizes_left[size] -= 1
            for others in combinations(left[1:], size - 1):
                rest = [p for p in left[1:] if p not in others]
                value = cost((left[0], *others)) + search(rest, sizes_left)
                best = value if best is None else min(best, value)
            sizes_left[size] += 1
        return best

    return search(players, Counter(table_sizes_))


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_every_active_player_is_seated_once_or_has_a_bye(case):
    players, points, past, seed, sizes = case
    result = swiss(players, points, past, seed, len(past) + 1, sizes)
    everyone = result.seated() + list(result.byes)
    assert sorted(everyone) == sorted(players)
    assert all(sizes.min <= len(t) <= sizes.max for t in result.tables)


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_a_bye_only_when_no_seating_exists_and_to_the_lowest_without_one(case):
    players, points, past, seed, sizes = case
    result = swiss(players, points, past, seed, len(past) + 1, sizes)
    byes = len(result.byes)
    for fewer in range(byes):  # with any fewer byes, no set of tables fits the rest
        assert not seatable(len(players) - fewer, sizes, sizes.max)
    if seatable(len(result.seated()), sizes, sizes.wanted):  # and tables stay at the wanted size when they can
        assert all(len(t) <= sizes.wanted for t in result.tables)
    had = bye_counts(past)
    for taker in result.byes:  # nobody seated had fewer byes, or as many and a lower rank
        for other in result.seated():
            assert (had.get(other, 0), -players.index(other)) > (had.get(taker, 0), -players.index(taker))


@settings(max_examples=200, deadline=None)
@given(rounds(max_players=8))
def test_repeat_meetings_no_more_than_an_exhaustive_search_finds(case):
    players, points, past, seed, sizes = case
    result = swiss(players, points, past, seed, len(past) + 1, sizes)
    seated = [p for p in players if p not in result.byes]
    assert repeats(result, past) == fewest_repeats(seated, [len(t) for t in result.tables], past)


@st.composite
def up_to_twelve(draw):
    """2..12 players at tables of 2..4 seats, whole points or thirds (as split points are), standings order,
    and 0..5 random earlier rounds: each a random cut of the players into tables, one left over on a bye."""
    low, high = draw(st.sampled_from([(2, 2), (2, 3), (2, 4), (3, 3), (3, 4), (4, 4)]))
    sizes = Sizes(low, high, draw(st.integers(low, high)))
    players = [f"p{i}" for i in range(draw(st.integers(2, 12)))]
    thirds = draw(st.booleans())
    points = {p: draw(st.integers(0, 27)) / 3 if thirds else draw(st.integers(0, 9)) for p in players}
    players.sort(key=lambda p: -points[p])
    past = []
    for _ in range(draw(st.integers(0, 5))):
        shuffled = draw(st.permutations(players))
        tables, i = [], 0
        for size in draw(st.lists(st.integers(2, high), min_size=1, max_size=len(players))):
            if i + size <= len(shuffled):
                tables.append(tuple(shuffled[i:i + size]))
                i += size
        past.append(Seating(tables=tuple(tables), byes=tuple(shuffled[i:i + 1])))
    return players, points, past, draw(st.integers(0, 2**64 - 1)), sizes


def every_cut(players: list[str], sizes: list[int]) -> Iterator[list[tuple[str, ...]]]:
    """Every way to seat ``players`` at tables of ``sizes``, each once (the first player's table first)."""
    if not players:
        yield []
        return
    for size in sorted(set(sizes)):
        rest_sizes = list(sizes)
        rest_sizes.remove(size)
        for others in combinations(players[1:], size - 1):
            rest = [p for p in players[1:] if p not in others]
            for cut in every_cut(rest, rest_sizes):
                yield [(players[0], *others), *cut]


def spread(tables, points) -> float:
    return sum(max(points[p] for p in t) - min(points[p] for p in t) for t in tables)


@settings(max_examples=60, deadline=None)
@given(up_to_twelve())
def test_up_to_twelve_players_the_fewest_repeats_then_the_least_point_spread_of_every_seating(case):
    players, points, past, seed, sizes = case
    result = swiss(players, points, past, seed, len(past) + 1, sizes)
    sizes_list, byes = table_sizes(len(players), sizes)
    assert sorted(map(len, result.tables), reverse=True) == sizes_list and len(result.byes) == byes
    met = meetings(past)
    best_repeats, best_spread = None, None
    for cut in every_cut(result.seated(), sizes_list):  # brute force: every seating of the same players
        value = (sum(met.get(a, {}).get(b, 0) for t in cut for a, b in combinations(t, 2)), spread(cut, points))
        if best_repeats is None or value < (best_repeats, best_spread):
            best_repeats, best_spread = value
    assert repeats(result, past) == best_repeats
    # The search is exact, so the spread is the least (the issue asks within 1st place's points of it).
    assert spread(result.tables, points) <= best_spread + 1e-9
    assert result == swiss(list(players), dict(points), list(past), seed, len(past) + 1, sizes)


def test_twelve_players_take_no_repeat_where_pair_swaps_took_one():
    """Found by the organiser's check: 12 players at 3 seats after three rounds. The pair swaps (all the
    seating was above 10 players) sat p2 with p3, who met in round 3; seatings without a repeat exist."""
    players = ["p1", "p9", "p6", "p7", "p11", "p10", "p2", "p8", "p5", "p0", "p3", "p4"]
    points = dict(zip(players, [8, 8, 6, 6, 6, 5, 4, 4, 3, 2, 1, 0]))
    past = [Seating(tables=(("p3", "p0", "p8"), ("p2", "p11", "p10"), ("p9", "p7", "p4"), ("p1", "p5", "p6"))),
            Seating(tables=(("p8", "p10", "p6"), ("p0", "p7", "p5"), ("p1", "p2", "p11"), ("p9", "p3", "p4"))),
            Seating(tables=(("p7", "p4", "p9"), ("p8", "p6", "p0"), ("p11", "p3", "p2"), ("p1", "p10", "p5")))]
    result = swiss(players, points, past, 1, 4, Sizes(2, 4, 3))
    assert repeats(result, past) == 0
    assert sorted(map(sorted, result.tables)) == [["p0", "p10", "p4"], ["p1", "p3", "p7"], ["p11", "p6", "p9"],
                                                  ["p2", "p5", "p8"]]


@settings(max_examples=30, deadline=None)
@given(rounds(max_players=30, max_past=6))
def test_bigger_rounds_give_the_same_seating_for_the_same_inputs_and_seed(case):
    players, points, past, seed, sizes = case
    first = swiss(players, points, past, seed, len(past) + 1, sizes)
    assert first == swiss(list(players), dict(points), list(past), seed, len(past) + 1, sizes)


@settings(max_examples=60, deadline=None)
@given(rounds(max_players=40, max_past=6))
def test_bigger_rounds_never_repeat_more_than_the_standings_cut_into_tables(case):
    players, points, past, seed, sizes = case
    result = swiss(players, points, past, seed, len(past) + 1, sizes)
    seated = [p for p in players if p not in result.byes]
    cut, i = [], 0
    for table in result.tables:
        cut.append(tuple(seated[i:i + len(table)]))
        i += len(table)
    assert repeats(result, past) <= repeats(Seating(tables=tuple(cut)), past)


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_same_inputs_and_seed_give_the_same_seating(case):
    players, points, past, seed, sizes = case
    first = swiss(players, points, past, seed, len(past) + 1, sizes)
    again = swiss(list(players), dict(points), list(past), seed, len(past) + 1, sizes)
    assert first == again


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_seat_zero_goes_to_who_sat_first_least(case):
    players, points, past, seed, sizes = case
    result = swiss(players, points, past, seed, len(past) + 1, sizes)
    firsts = first_seats(past)
    for table in result.tables:
        assert firsts.get(table[0], 0) == min(firsts.get(p, 0) for p in table)


def test_similar_points_sit_together_in_round_one():
    players = [f"p{i}" for i in range(9)]
    points = {p: 9 - i for i, p in enumerate(players)}
    result = swiss(players, points, [], seed=3, round_no=1, sizes=Sizes(2, 3, 3))
    assert [sorted(t) for t in result.tables] == [["p0", "p1", "p2"], ["p3", "p4", "p5"], ["p6", "p7", "p8"]]


def test_ten_players_at_four_seats_sit_at_4_3_3_and_an_odd_two_seat_count_gives_one_bye():
    assert table_sizes(10, Sizes(2, 6, 4)) == ([4, 3, 3], 0)
    assert table_sizes(11, Sizes(2, 2, 2)) == ([2] * 5, 1)
    assert table_sizes(5, Sizes(3, 6, 4)) == ([5], 0)  # no bye while a table of up to max seats holds them
    assert table_sizes(2, Sizes(3, 4, 3)) == ([], 2)


def test_a_swiss_round_avoids_a_rematch_that_the_standings_would_give():
    players = ["a", "b", "c", "d"]
    past = [Seating(tables=(("a", "b"), ("c", "d")))]
    result = swiss(players, {"a": 3, "b": 0, "c": 3, "d": 0}, past, 1, 2, Sizes(2, 2, 2))
    assert sorted(map(sorted, result.tables)) == [["a", "c"], ["b", "d"]]


def test_bad_input_is_a_typed_error():
    with pytest.raises(Refusal) as error:
        swiss(["a", "a"], {}, [], 1, 1, Sizes(2, 2, 2))
    assert error.value.code == "bad_players"
    with pytest.raises(Refusal):
        Sizes(3, 6, 2)


@pytest.mark.parametrize("count", range(2, 15))
def test_two_seat_round_robin_everyone_meets_everyone_once_with_balanced_first_seats(count):
    players = [f"p{i}" for i in range(count)]
    schedule = round_robin(players, seed=5, sizes=Sizes(2, 2, 2))
    assert len(schedule) == (count - 1 if count % 2 == 0 else count)
    pairs = Counter(frozenset(t) for s in schedule for t in s.tables)
    assert set(pairs) == {frozenset(c) for c in combinations(players, 2)} and set(pairs.values()) == {1}
    for s in schedule:
        assert sorted(s.seated() + list(s.byes)) == sorted(players)
    firsts, games = first_seats(schedule), Counter(p for s in schedule for p in s.seated())
    assert all(abs(2 * firsts.get(p, 0) - games[p]) <= 1 for p in players)
    assert Counter(p for s in schedule for p in s.byes) == (Counter(players) if count % 2 else Counter())


def test_nine_players_in_threes_meet_everyone_exactly_once_in_four_rounds():
    players = [f"p{i}" for i in range(9)]
    schedule = round_robin(players, seed=11, sizes=Sizes(3, 3, 3))
    assert len(schedule) == 4
    pairs = Counter(frozenset(c) for s in schedule for t in s.tables for c in combinations(t, 2))
    assert len(pairs) == 36 and set(pairs.values()) == {1}


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 10), st.sampled_from([(2, 4, 3), (3, 4, 4), (2, 6, 4)]), st.integers(0, 2**64 - 1))
def test_pod_round_robin_rounds_each_repeat_no_more_than_needed(count, bounds, seed):
    sizes = Sizes(bounds[0], bounds[1], bounds[2])
    players = [f"p{i}" for i in range(count)]
    schedule = round_robin(players, seed, sizes)
    assert len(schedule) == max(1, -(-(count - 1) // (sizes.wanted - 1)))
    for r, s in enumerate(schedule):
        seated = [p for p in players if p not in s.byes]
        assert repeats(s, schedule[:r]) == fewest_repeats(seated, [len(t) for t in s.tables], schedule[:r])


@settings(max_examples=150, deadline=None)
@given(rounds(max_players=14), st.data())
def test_arena_seats_whole_tables_of_the_earliest_waiting_players(case, data):
    players, points, past, seed, sizes = case
    waiting = data.draw(st.permutations(players))
    result = arena(waiting, players, points, past, seed, len(past) + 1, sizes)
    tables = len(waiting) // sizes.wanted
    assert [len(t) for t in result.tables] == [sizes.wanted] * tables
    assert sorted(result.seated()) == sorted(waiting[:tables * sizes.wanted])
    assert list(result.waiting) == list(waiting[tables * sizes.wanted:])
    assert result == arena(list(waiting), players, points, past, seed, len(past) + 1, sizes)


def test_arena_groups_players_close_in_score():
    standings = ["a", "b", "c", "d", "e", "f"]
    points = {"a": 10, "b": 9, "c": 8, "d": 1, "e": 0, "f": 0}
    result = arena(["f", "a", "d", "b", "e", "c"], standings, points, [], 1, 1, Sizes(3, 3, 3))
    assert [sorted(t) for t in result.tables] == [["a", "b", "c"], ["d", "e", "f"]]
    assert arena(["a", "b"], standings, points, [], 1, 2, Sizes(3, 3, 3)).tables == ()


def test_final_table_seats_the_top_n_leader_first():
    assert final_table(["a", "b", "c", "d", "e"], 4, Sizes(2, 4, 4)).tables == (("a", "b", "c", "d"),)
    with pytest.raises(Refusal):
        final_table(["a", "b"], 3, Sizes(2, 4, 4))
