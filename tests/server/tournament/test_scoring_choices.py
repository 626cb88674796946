"""The organiser's scoring choices: points per table size, a chosen tiebreak order (checked, in the log, and
recomputed by verify) and the suggested number of Swiss rounds."""

from __future__ import annotations

from fractions import Fraction

import msgspec
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from server.protocol import CreateTournament, Refusal
from server.tournament.hub import TournamentHub
from server.tournament.model import Settings, Sizes, TableResult
from server.tournament.scoring import suggested_rounds
from server.tournament.standings import standings
from server.tournament.verify import verify_tournament
from tests.server.tournament.test_tlog import play

SEED = 7


@given(players=st.integers(1, 5000), seats=st.integers(2, 8))
def test_the_suggested_rounds_are_the_fewest_in_which_one_player_can_win_every_table(players, seats):
    rounds = suggested_rounds(players, seats)
    assert rounds >= 1 and seats ** rounds >= players
    assert rounds == 1 or seats ** (rounds - 1) < players


def test_forty_players_need_six_rounds_at_two_seats_four_at_three_three_at_four():
    assert [suggested_rounds(40, k) for k in (2, 3, 4, 6)] == [6, 4, 3, 3]


def test_points_per_table_size_pay_each_size_its_own_row():
    _, settings, _ = TournamentHub.settings_for(CreateTournament(game="flush", seats=4, rounds=1,
                                                                 points=[10, 6, 3, 0],
                                                                 points_by_size={3: [8, 4, 0], 2: [5, 0]}))
    assert settings.points == {4: (10, 6, 3, 0), 3: (8, 4, 0), 2: (5, 0)}
    four = TableResult(table="a", players=("p1", "p2", "p3", "p4"), places=(1, 2, 3, 4), scores=(0, 1, 2, 3))
    three = TableResult(table="b", players=("p5", "p6", "p7"), places=(3, 1, 1), scores=(5, 1, 1))
    rows = {r.player: r.points for r in standings([f"p{i}" for i in range(1, 8)], [four, three], [], settings, SEED)}
    assert (rows["p1"], rows["p4"]) == (10, 0)
    assert rows["p6"] == rows["p7"] == 6 and rows["p5"] == 0  # two tied 1st at 3 seats split 8 + 4


@pytest.mark.parametrize("fields, words", [
    ({"points_by_size": {7: [1] * 7}}, "seat"),  # flush seats 2..6
    ({"points_by_size": {3: [1, 2, 0]}}, "best first"),
    ({"points_by_size": {3: [3, 1]}}, "3 values"),
    ({"points": [4, 2, 1, 0], "points_by_size": {4: [5, 3, 1, 0]}}, "give them once"),
    ({"tiebreaks": ["lot"]}, "tiebreaks are among"),
    ({"tiebreaks": ["share", "share"]}, "twice"),
    ({"seeding": "elo"}, "seeding"),
    ({"seeding": "ratings", "format": "round_robin", "rounds": None}, "Swiss"),
    ({"reported_tables": 5000}, "reported tables"),
])
def test_choices_that_are_not_one_are_refused_with_bad_settings(fields, words):
    request = CreateTournament(**{"game": "flush", "seats": 4, **fields})
    with pytest.raises(Refusal) as refused:
        TournamentHub.settings_for(request)
    assert refused.value.code == "bad_settings" and words in refused.value.message


tables = st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=5)


@hsettings(max_examples=60, deadline=None)
@given(scores=tables, order=st.sampled_from([("opponents", "share"), ("share", "opponents"), ("share",),
                                             ("opponents",)]))
def test_the_standings_compare_the_tiebreaks_in_the_chosen_order_then_the_lot(scores, order):
    chosen = Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3, tiebreaks=order)
    players = [f"p{i}" for i in range(9)]
    results = []
    for i, row in enumerate(scores):
        seated = tuple(players[(i * 2 + j) % 9] for j in range(3))
        places = tuple(1 + sum(1 for o in row if o < s) for s in row)
        results.append(TableResult(table=f"t{i}", players=seated, places=places, scores=row))
    rows = standings(players, results, [], chosen, SEED)
    value = {"opponents": lambda r: r.opponents, "share": lambda r: r.share}
    keys = [(-r.points, *(-value[name](r) for name in order), r.lot) for r in rows]
    assert keys == sorted(keys)


@pytest.mark.parametrize("order", [("share",), ("share", "opponents"), ("opponents",)])
def test_a_tiebreak_order_is_in_the_log_and_verify_recomputes_the_standings_with_it(tmp_path, order):
    chosen = Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3, tiebreaks=order)
    records = play(tmp_path, chosen, 9, log_format=3)
    assert '"tiebreaks"' in (tmp_path / "t17.tournament.log").read_text().splitlines()[0]
    report = verify_tournament(tmp_path / "t17.tournament.log", tmp_path)
    assert report.ok, report.problem
    assert [r.player for r in report.standings] == list(records[-1].standings)
    value = {"opponents": lambda r: r.opponents, "share": lambda r: r.share}
    keys = [(-r.points, *(-value[name](r) for name in order), r.lot) for r in report.standings]
    assert keys == sorted(keys)


def test_a_log_whose_published_standings_follow_another_tiebreak_order_is_caught(tmp_path):
    from server.tournament.tlog import Ended

    chosen = Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3, tiebreaks=("share",))
    for seed_players in range(9, 16):  # a field where the two orders rank someone differently
        records = play(tmp_path, chosen, seed_players, log_format=3)
        report = verify_tournament(tmp_path / "t17.tournament.log", tmp_path)
        rows = report.standings
        other = sorted(rows, key=lambda r: (-r.points, -r.opponents, -r.share, r.lot))
        if [r.player for r in other] != [r.player for r in rows]:
            break
    else:
        pytest.skip("no field of 9..15 players where the orders differ")
    from server.tournament.tlog import read_tournament_log
    from tests.server.tournament.test_tlog import write

    read = read_tournament_log(tmp_path / "t17.tournament.log")
    forged = [msgspec.structs.replace(r, standings=tuple(row.player for row in other)) if type(r) is Ended else r
              for r in read.records]
    write(tmp_path / "forged.log", [read.created, *forged])
    bad = verify_tournament(tmp_path / "forged.log")
    assert not bad.ok and "final standings" in bad.problem
    assert records


def test_exact_points_of_a_size_row_are_the_decimals_written():
    chosen = Settings(format="swiss", sizes=Sizes(2, 4, 3), rounds=1, points={4: (2.5, 1, 0.1, 0)})
    assert chosen.exact_points(4) == (Fraction(5, 2), 1, Fraction(1, 10), 0)


rows = st.integers(2, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.integers(0, 50), min_size=n,
                                                                          max_size=n)))


@hsettings(max_examples=80, deadline=None)
@given(row=rows, scores=st.lists(st.integers(0, 9), min_size=6, max_size=6))
def test_a_table_of_any_size_pays_out_exactly_its_own_row_ties_split(row, scores):
    from server.tournament.standings import table_points

    size, values = row
    values = sorted(values, reverse=True)
    chosen = Settings(format="swiss", sizes=Sizes(2, 6, 3), rounds=1, points={size: tuple(values)})
    chosen.check_new()
    seat_scores = tuple(scores[:size])
    places = tuple(1 + sum(1 for o in seat_scores if o < s) for s in seat_scores)
    result = TableResult(table="t", players=tuple(f"p{i}" for i in range(size)), places=places, scores=seat_scores)
    assert sum(table_points(result, chosen)) == sum(values)
    other = 3 if size != 3 else 4  # a size with no row of its own keeps the default
    assert chosen.points_for(other) == {3: (3, 1, 0), 4: (5, 3, 1, 0)}[other]
