"""A ratings-seeded round 1 and reported tables, on the pure state and in a log: ``verify`` recomputes round 1
from the ratings the log holds, and every reported table's result from its reports and settlement."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from server.logs.logfile import seed_commitment
from server.protocol import Refusal
from server.tournament.model import Settings, Sizes
from server.tournament.rated import RatingsSeeded, round_one
from server.tournament.reporting import Reported, Settled, reported_ids
from server.tournament.state import Tournament
from server.tournament.tlog import Created, Ended, Registered, RoundSeated, SeatedTable, read_tournament_log
from server.tournament.verify import verify_tournament
from tests.server.tournament.test_tlog import write

SEED = 0xBEEF


@hsettings(max_examples=80, deadline=None)
@given(count=st.integers(2, 40), wanted=st.integers(2, 5), data=st.data())
def test_a_ratings_seeded_round_one_spreads_the_best_rated_over_the_tables(count, wanted, data):
    sizes = Sizes(2, max(wanted, 2) + 1, wanted)
    players = [f"p{i}" for i in range(count)]
    ratings = {p: data.draw(st.floats(-10, 60, allow_nan=False)) for p in players}
    seating = round_one(players, ratings, SEED, sizes)
    seated = seating.seated()
    assert sorted(seated + list(seating.byes)) == sorted(players)  # everyone once
    ranked = sorted(players, key=lambda p: (-ratings[p], players.index(p)))
    tables = len(seating.tables)
    at = {p: i for i, t in enumerate(seating.tables) for p in t}
    assert len({at[p] for p in ranked[:tables]}) == tables  # the T best rated at T different tables
    assert set(seating.byes) == set(ranked[len(ranked) - len(seating.byes):])  # byes to the lowest rated
    assert round_one(players, ratings, SEED, sizes) == seating  # a pure function of its inputs


def created(settings: Settings) -> Created:
    return Created(format=3, tournament="T9", name="Cards night", game="flush", options={}, settings=settings,
                   commitment=seed_commitment(SEED), started="2026-01-01T00:00:00Z")


def run(settings: Settings, count: int, ratings: dict | None = None, dispute: bool = True) -> list:
    """A whole event on the pure state: every table reported by its players (the first table of each round
    disputed and then settled by the organiser when ``dispute``). Returns its records."""
    state, records = Tournament(created=created(settings), seed=SEED), []

    def add(record):
        state.apply(record)
        records.append(record)

    for i in range(count):
        add(Registered(player=f"p{i}", name=f"Player {i}"))
    if ratings is not None:
        add(RatingsSeeded(ratings=ratings))
    while True:
        try:
            seating = state.next_seating()
        except Refusal:
            break
        r = state.round + 1
        add(RoundSeated(round=r, tables=tuple(SeatedTable(f"r{r}t{i}", t) for i, t in enumerate(seating.tables)),
                        byes=seating.byes))
        for n, table in enumerate(reported_ids(state, r)):
            players = state.tables[table][1]
            places = tuple(range(1, len(players) + 1))
            for k, player in enumerate(players):
                given = tuple(reversed(places)) if dispute and n == 0 and k == 0 else places
                add(Reported(table=table, player=player, places=given))
            if dispute and n == 0:
                assert table not in state.results  # they disagree: no result until settled
                add(Settled(table=table, places=places, reason="the judge saw the last hand"))
            assert state.results[table].places == places
    add(Ended(seed=SEED, standings=tuple(row.player for row in state.standings()), reason="no_more_rounds",
              note=f"the tournament has {settings.rounds} rounds"))
    return records


ALL_REPORTED = Settings(format="swiss", sizes=Sizes(2, 6, 3), rounds=3, reported_tables=1000)
SEEDED = msgspec.structs.replace(ALL_REPORTED, seeding="ratings")


def test_a_log_of_reported_tables_verifies_and_a_forged_report_is_caught(tmp_path):
    records = run(ALL_REPORTED, 9)
    write(tmp_path / "T9.log", [created(ALL_REPORTED), *records])
    report = verify_tournament(tmp_path / "T9.log", tmp_path)
    assert report.ok, report.problem
    assert report.rounds == 3 and report.results == 9
    # a forger drops the settlement: the table has no result, so the next round cannot follow
    forged = [r for r in records if type(r) is not Settled]
    write(tmp_path / "forged.log", [created(ALL_REPORTED), *forged])
    bad = verify_tournament(tmp_path / "forged.log")
    assert not bad.ok and "still has tables playing" in bad.problem
    # a forger makes one player's report agree with the others: the settlement then comes too late
    i = next(i for i, r in enumerate(records) if type(r) is Reported)
    agreed = [msgspec.structs.replace(r, places=tuple(sorted(r.places))) if j == i else r
              for j, r in enumerate(records)]
    write(tmp_path / "agreed.log", [created(ALL_REPORTED), *agreed])
    bad = verify_tournament(tmp_path / "agreed.log")
    assert not bad.ok and "stands already" in bad.problem


def test_round_one_seeded_by_ratings_is_recomputed_from_the_logged_ratings(tmp_path):
    ratings = {f"p{i}": float(10 * (i % 5) - i) for i in range(12)}
    records = run(SEEDED, 12, ratings, dispute=False)
    write(tmp_path / "T9.log", [created(SEEDED), *records])
    assert verify_tournament(tmp_path / "T9.log").ok
    # other ratings in the log: the logged round 1 is not the one they give
    forged = [RatingsSeeded(ratings={p: -v for p, v in ratings.items()}) if type(r) is RatingsSeeded else r
              for r in records]
    write(tmp_path / "forged.log", [created(SEEDED), *forged])
    bad = verify_tournament(tmp_path / "forged.log")
    assert not bad.ok and "round 1's seating is not the one" in bad.problem


def test_a_ratings_seeded_round_one_needs_its_ratings_logged_first():
    state = Tournament(created=created(SEEDED), seed=SEED)
    for i in range(6):
        state.apply(Registered(player=f"p{i}", name=f"P{i}"))
    with pytest.raises(Refusal) as refused:
        state.next_seating()
    assert "ratings logged first" in refused.value.message
    with pytest.raises(Refusal):
        state.apply(RatingsSeeded(ratings={"nobody": 3.0}))
    state.apply(RatingsSeeded(ratings={f"p{i}": float(i) for i in range(6)}))
    with pytest.raises(Refusal):  # once
        state.apply(RatingsSeeded(ratings={}))
    best = state.next_seating()  # 6 players, 2 tables of 3: the two best rated apart, then the next two
    at = {p: i for i, t in enumerate(best.tables) for p in t}
    assert at["p5"] != at["p4"] and at["p3"] != at["p2"] and at["p5"] == at["p2"]


@pytest.mark.parametrize("make, code", [
    (lambda r, s, mine, other: Reported(table="nowhere", player=mine[0], places=(1, 2, 3)), "unknown_table"),
    (lambda r, s, mine, other: Reported(table=r, player=other[0], places=(1, 2, 3)), "not_your_table"),
    (lambda r, s, mine, other: Reported(table=r, player=mine[0], places=(1, 1, 2)), "bad_places"),
    (lambda r, s, mine, other: Reported(table=r, player=mine[0], places=(1, 2)), "bad_places"),
    (lambda r, s, mine, other: Settled(table=r, places=(0, 1, 2)), "bad_places"),
    (lambda r, s, mine, other: Reported(table=s, player=other[0], places=(1, 2, 3)), "not_reported"),
    (lambda r, s, mine, other: Settled(table=s, places=(1, 2, 3)), "not_reported"),
])
def test_a_report_that_cannot_apply_is_refused_and_changes_nothing(make, code):
    one = msgspec.structs.replace(ALL_REPORTED, reported_tables=1)
    state = Tournament(created=created(one), seed=SEED)
    for i in range(6):
        state.apply(Registered(player=f"p{i}", name=f"P{i}"))
    seating = state.next_seating()
    state.apply(RoundSeated(round=1, tables=tuple(SeatedTable(f"r1t{i}", t) for i, t in enumerate(seating.tables))))
    (reported,) = reported_ids(state, 1)
    (server,) = [t for t in state.tables if t != reported]
    state.apply(Reported(table=reported, player=state.tables[reported][1][1], places=(1, 2, 3)))
    before = (dict(state.results), {t: dict(r) for t, r in state.reports.items()})
    with pytest.raises(Refusal) as refused:
        state.apply(make(reported, server, state.tables[reported][1], state.tables[server][1]))
    assert refused.value.code == code
    assert (dict(state.results), {t: dict(r) for t, r in state.reports.items()}) == before


def test_a_settled_table_takes_no_more_reports_and_a_player_may_change_their_report_before():
    state = Tournament(created=created(ALL_REPORTED), seed=SEED)
    for i in range(3):
        state.apply(Registered(player=f"p{i}", name=f"P{i}"))
    seating = state.next_seating()
    state.apply(RoundSeated(round=1, tables=(SeatedTable("a", seating.tables[0]),)))
    a, b, c = seating.tables[0]
    state.apply(Reported(table="a", player=a, places=(1, 2, 3)))
    state.apply(Reported(table="a", player=b, places=(1, 2, 3)))
    state.apply(Reported(table="a", player=c, places=(2, 1, 3)))
    assert "a" not in state.results
    state.apply(Reported(table="a", player=c, places=(1, 2, 3)))  # c changes their mind: all agree now
    assert state.results["a"].places == (1, 2, 3)
    for late in (Reported(table="a", player=a, places=(1, 2, 3)), Settled(table="a", places=(3, 2, 1))):
        with pytest.raises(Refusal) as refused:
            state.apply(late)
        assert refused.value.code == "already_settled"


def test_an_old_log_reads_with_none_of_the_new_settings(tmp_path):
    plain = Settings(format="swiss", sizes=Sizes(2, 6, 3), rounds=1)
    write(tmp_path / "old.log", [created(plain)])
    text = (tmp_path / "old.log").read_text()
    assert "tiebreaks" not in text and "reported_tables" not in text and "seeding" not in text
    assert read_tournament_log(tmp_path / "old.log").created.settings == plain


def test_the_organisers_count_of_reported_tables_applies_from_the_next_round_and_verifies(tmp_path):
    from server.tournament.reporting import ReportedCount

    plain = Settings(format="swiss", sizes=Sizes(2, 6, 3), rounds=2)
    state = Tournament(created=created(plain), seed=SEED)
    records = []

    def add(record):
        state.apply(record)
        records.append(record)

    for i in range(6):
        add(Registered(player=f"p{i}", name=f"P{i}"))
    with pytest.raises(Refusal) as refused:
        state.apply(ReportedCount(round=2, tables=1))  # not the next round seated
    assert refused.value.code == "bad_round"
    with pytest.raises(Refusal) as refused:
        state.apply(ReportedCount(round=1, tables=-1))
    assert refused.value.code == "bad_settings"
    add(ReportedCount(round=1, tables=1))
    for r in (1, 2):
        seating = state.next_seating()
        add(RoundSeated(round=r, tables=tuple(SeatedTable(f"r{r}t{i}", t) for i, t in enumerate(seating.tables))))
        assert reported_ids(state, r) == ([f"r{r}t1"] if r == 1 else [f"r{r}t0", f"r{r}t1"])
        for table in reported_ids(state, r):
            add(Settled(table=table, places=(1, 2, 3)))
        if r == 1:
            with pytest.raises(Refusal):  # a server table is not reported: its own end gives its result
                state.apply(Settled(table="r1t0", places=(1, 2, 3)))
            from tests.server.tournament.test_tlog import table_log
            from server.tournament.tlog import TableFinished

            players = state.tables["r1t0"][1]
            add(TableFinished(round=1, table="r1t0", players=players, places=(1, 2, 3), scores=(1, 2, 3),
                              log_hash=table_log(tmp_path, "r1t0", [1, 2, 3], [0])))
            add(ReportedCount(round=2, tables=5))
    add(Ended(seed=SEED, standings=tuple(row.player for row in state.standings()), reason="no_more_rounds",
              note="the tournament has 2 rounds"))
    write(tmp_path / "T9.log", [created(plain), *records])
    report = verify_tournament(tmp_path / "T9.log", tmp_path)
    assert report.ok, report.problem
    assert report.table_logs == 1 and report.results == 4


PLACINGS = [(1, 2, 3), (2, 1, 3), (1, 1, 3), (3, 2, 1), (1, 2, 2)]


@hsettings(max_examples=150, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(PLACINGS)), max_size=12))
def test_a_reported_result_stands_exactly_when_every_latest_report_agrees_or_the_organiser_settles(steps):
    state = Tournament(created=created(ALL_REPORTED), seed=SEED)
    for i in range(3):
        state.apply(Registered(player=f"p{i}", name=f"P{i}"))
    players = state.next_seating().tables[0]
    state.apply(RoundSeated(round=1, tables=(SeatedTable("a", players),)))
    latest: dict[str, tuple] = {}
    stood = None
    for who, places in steps:  # who 3: the organiser settles
        record = Settled(table="a", places=places) if who == 3 else Reported(table="a", player=players[who],
                                                                           places=places)
        if stood is not None:
            with pytest.raises(Refusal) as refused:
                state.apply(record)
            assert refused.value.code == "already_settled"
            continue
        state.apply(record)
        if who == 3:
            stood = places
        else:
            latest[players[who]] = places
            if len(latest) == 3 and len(set(latest.values())) == 1:
                stood = places
        assert (state.results["a"].places if "a" in state.results else None) == stood
