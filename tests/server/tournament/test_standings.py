"""Standings on hand-worked examples: the arithmetic of every points total and tiebreak is written out."""

from __future__ import annotations

from fractions import Fraction

import pytest

from server.protocol import Refusal
from server.tournament.model import Settings, Sizes, TableResult
from server.tournament.seeds import lots
from server.tournament.standings import apply_final, standings, table_points, table_shares

THREES = Settings(format="swiss", sizes=Sizes(3, 3, 3), rounds=2)  # 3/1/0, a bye worth 3


def t(table, players, places, scores, lower=True, stand_ins=()):
    return TableResult(table=table, players=tuple(players), places=tuple(places), scores=tuple(scores),
                       lower_is_better=lower, stand_ins=tuple(stand_ins))


ROUND_1 = [t("T1", "abc", (1, 2, 3), (10, 20, 30)), t("T2", "def", (1, 1, 3), (5, 5, 20))]  # g: a bye
ROUND_2 = [t("T3", "adg", (2, 3, 1), (10, 20, 0)), t("T4", "bef", (2, 3, 1), (8, 12, 4))]  # c dropped


def test_points_and_opponents_percentage_by_hand():
    rows = standings(list("abcdefg"), ROUND_1 + ROUND_2, ["g"], THREES, seed=1, dropped=["c"])
    by = {r.player: r for r in rows}
    # points: a 3 + 1 = 4; b 1 + 1 = 2; c 0; d (3 + 1) / 2 + 0 = 2; e 2 + 0 = 2; f 0 + 3 = 3; g bye 3 + 3 = 6
    assert {p: r.points for p, r in by.items()} == {"a": 4, "b": 2, "c": 0, "d": 2, "e": 2, "f": 3, "g": 6}
    # percentages over tables played (3 a table at most; the bye is not a table):
    # a 4/6 = 2/3, b 2/6 = 1/3, c 0/3 -> floor 1/3, d 2/6 = 1/3, e 2/6 = 1/3, f 3/6 = 1/2, g 3/3 = 1
    # opponents' average: a (b, c, d, g) = (1/3 + 1/3 + 1/3 + 1) / 4 = 1/2
    #                     b (a, c, e, f) = (2/3 + 1/3 + 1/3 + 1/2) / 4 = 11/24
    #                     d (e, f, a, g) = (1/3 + 1/2 + 2/3 + 1) / 4 = 5/8
    #                     e (d, f, b, f) = (1/3 + 1/2 + 1/3 + 1/2) / 4 = 5/12
    #                     f (d, e, b, e) = 4 * 1/3 / 4 = 1/3;  g (a, d) = (2/3 + 1/3) / 2 = 1/2
    #                     c (a, b) = (2/3 + 1/3) / 2 = 1/2: c dropped, and still counts for a and b
    assert by["a"].opponents == pytest.approx(1 / 2) and by["b"].opponents == pytest.approx(11 / 24)
    assert by["d"].opponents == pytest.approx(5 / 8) and by["e"].opponents == pytest.approx(5 / 12)
    assert by["f"].opponents == pytest.approx(1 / 3) and by["g"].opponents == pytest.approx(1 / 2)
    # g 6, a 4, f 3, then d, b, e on 2 points by opponents 5/8 > 11/24 > 5/12, then c
    assert [r.player for r in rows] == list("gafdbec")
    assert [r.rank for r in rows] == list(range(1, 8))
    assert by["c"].dropped and not by["a"].dropped
    assert (by["g"].tables, by["g"].byes) == (1, 1)


def test_share_of_game_points_then_the_seeded_lot():
    lower = t("T1", "abc", (1, 2, 3), (0, 10, 20))  # Flag Finish-like: fewer points is better
    higher = t("T2", "def", (1, 2, 3), (40, 10, 10), lower=False)
    rows = standings(list("abcdef"), [lower, higher], [], THREES, seed=9)
    by = {r.player: r for r in rows}
    # T1 (lower is better), S = 30: share = (S - s) / (2 S): a 30/60, b 20/60, c 10/60; times 3: 1.5, 1.0, 0.5
    # T2 (higher is better), S = 60: share = s / S: d 40/60, e 10/60, f 10/60; times 3: 2.0, 0.5, 0.5
    assert [by[p].share for p in "abcdef"] == pytest.approx([1.5, 1.0, 0.5, 2.0, 0.5, 0.5])
    # a and d: 3 points, opponents (1/3 + 1/3) / 2 = 1/3 each; d's share 2.0 beats a's 1.5
    # b and e: 1 point, opponents (1 + 1/3) / 2 = 2/3 each; b's 1.0 beats e's 0.5
    # c and f: 0 points, opponents 2/3 each, share 0.5 each: the lot decides
    lot = lots(list("abcdef"), 9)
    last = sorted("cf", key=lambda p: lot[p])
    assert [r.player for r in rows] == ["d", "a", "b", "e", *last]
    assert rows[4].lot < rows[5].lot


def test_ties_split_the_points_of_the_places_they_cover():
    fours = Settings(format="swiss", sizes=Sizes(2, 4, 4), rounds=1)
    # 5/3/1/0 at 4 seats: 1, 2, 2, 4 -> 5, (3 + 1) / 2, (3 + 1) / 2, 0
    assert table_points(t("T", "abcd", (1, 2, 2, 4), (1, 2, 2, 3)), fours) == [5, 2, 2, 0]
    # all four tied: (5 + 3 + 1 + 0) / 4 = 9/4 each
    assert table_points(t("T", "abcd", (1, 1, 1, 1), (0, 0, 0, 0)), fours) == [Fraction(9, 4)] * 4
    # the organiser's own points for 3 seats replace the default
    custom = Settings(format="swiss", sizes=Sizes(3, 3, 3), rounds=1, points={3: (4, 2, 0)})
    assert table_points(t("T", "abc", (1, 1, 3), (0, 0, 9)), custom) == [3, 3, 0]


def test_a_stand_in_seat_takes_the_last_place_whatever_the_bot_did():
    # a no-show's seat (a) was played by a stand-in that won; b and c move up, a scores as last
    result = t("T", "abc", (1, 2, 3), (0, 10, 20), stand_ins=(True, False, False))
    assert table_points(result, THREES) == [0, 3, 1]
    assert table_shares(result)[0] == 0
    rows = standings(list("abc"), [result], [], THREES, seed=2)
    assert [r.player for r in rows] == ["b", "c", "a"]


def test_negative_scores_are_shifted_before_sharing():
    # scores -5, 5, 10 (higher better) -> shifted 0, 10, 15, S = 25: 0, 2/5, 3/5
    assert table_shares(t("T", "abc", (3, 2, 1), (-5, 5, 10), lower=False)) == \
        [0, Fraction(2, 5), Fraction(3, 5)]
    # all equal: an even share each
    assert table_shares(t("T", "ab", (1, 1), (0, 0))) == [Fraction(1, 2)] * 2


def test_a_correction_replaces_the_result_and_bad_input_is_a_typed_error():
    fixed = t("T4", "bef", (1, 3, 2), (4, 12, 8))  # the organiser: b actually won T4
    rows = standings(list("abcdefg"), ROUND_1 + ROUND_2, ["g"], THREES, seed=1, corrections=[fixed])
    assert {r.player: r.points for r in rows}["b"] == 1 + 3
    with pytest.raises(Refusal) as error:
        standings(list("abc"), ROUND_1[:1], [], THREES, 1, corrections=[t("T9", "abc", (1, 2, 3), (0, 0, 0))])
    assert error.value.code == "unknown_table"
    with pytest.raises(Refusal) as error:
        standings(list("abc"), [t("T1", "abc", (1, 3, 3), (0, 0, 0))], [], THREES, 1)
    assert error.value.code == "bad_result"
    with pytest.raises(Refusal) as error:
        standings(list("ab"), ROUND_1[:1], [], THREES, 1)
    assert error.value.code == "unknown_player"


def test_a_finalist_who_came_last_in_the_final_still_ranks_above_everyone_not_in_it():
    """The final's points can drop its last below a non-finalist on the tiebreaks (here e's share falls under
    b's): the final still decides places 1..3, and this used to raise bad_final and stop the server."""
    round_1 = [t("T1", "abc", (1, 2, 3), (0, 5, 9)), t("T2", "def", (1, 2, 3), (0, 1, 9))]
    # seed 2: its lot puts a ahead of d (tied on points and tiebreaks), so the final's last is e, the case
    before = standings(list("abcdef"), round_1, [], THREES, seed=2)
    top = [r.player for r in before[:3]]
    final = t("F", top, (1, 2, 3), (0, 1, 20))
    rows = standings(list("abcdef"), round_1 + [final], [], THREES, seed=2)
    assert [r.player for r in rows[:3]] != top, "the case: a non-finalist is third on points and tiebreaks"
    after = apply_final(rows, final, before)
    assert [r.player for r in after[:3]] == top
    assert [r.player for r in after[3:]] == [r.player for r in rows if r.player not in top]
    assert [r.rank for r in after] == list(range(1, 7))


def test_a_final_decides_the_top_places():
    rows = standings(list("abcdefg"), ROUND_1 + ROUND_2, ["g"], THREES, seed=1)
    top = [r.player for r in rows[:3]]  # g, a, f
    final = t("F", top, (2, 1, 3), (5, 0, 9))
    after = apply_final(rows, final)
    assert [r.player for r in after] == [top[1], top[0], top[2], *[r.player for r in rows[3:]]]
    assert [r.rank for r in after] == list(range(1, 8))
