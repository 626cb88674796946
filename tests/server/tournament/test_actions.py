"""The organiser's actions folded (``server/tournament/fixes.py``), pure: each one applied and each refusal,
typed and changing nothing; hypothesis over any sequence of actions (the log alone folds to the same standings,
and ``verify`` passes), and over excluded pairs (a re-pair never seats an excluded pair when some seating of
the same tables avoids them all)."""

from __future__ import annotations

import copy
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from rules.rng import Rng
from server.logs.logfile import seed_commitment
from server.logs.logstore import FileLog
from server.protocol import Refusal
from server.tournament import fixes
from server.tournament.actions import (ActionTable, Disqualified, Penalised, Reentered, Repaired, RoundBegun,
                                       RoundEnded, Swapped, Undropped)
from server.tournament.model import Settings, Sizes
from server.tournament.seating import table_sizes
from server.tournament.state import Tournament, fold
from server.tournament.tlog import Created, Dropped, Ended, Registered
from server.tournament.verify import verify_tournament

from .test_rules import SEED, finish_round, seat_round


def created(settings: Settings) -> Created:
    return Created(format=3, tournament="T9", name="evening", game="flush", options={}, settings=settings,
                   commitment=seed_commitment(SEED), started="2026-01-01T00:00:00Z")


def swiss(**fields) -> Settings:
    return Settings(**{"format": "swiss", "sizes": Sizes(2, 4, 3), "rounds": 3, "pairings_first": True, **fields})


def entered(settings: Settings, count: int) -> tuple[Tournament, list]:
    state = Tournament(created=created(settings), seed=SEED)
    records = []
    for i in range(count):
        records.append(Registered(player=f"p{i}", name=f"P{i}", waitlisted=state.full()))
        state.apply(records[-1])
    return state, records


def refused(state: Tournament, record, code: str) -> None:
    """``record`` is refused with ``code`` and the state is as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(Refusal) as error:
        state.apply(record)
    assert error.value.code == code, error.value.message
    assert state == before


def test_a_round_seated_first_waits_and_nothing_plays_until_it_begins():
    state, _ = entered(swiss(), 9)
    seat_round(state)
    assert state.org.held == 1 and len(state.unfinished()) == 3
    refused(state, RoundBegun(round=2), "no_round_waiting")
    refused(state, RoundEnded(round=1, tables=tuple(state.unfinished())), "no_round_playing")
    state.apply(RoundBegun(round=1))
    assert state.org.held == 0
    refused(state, RoundBegun(round=1), "round_begun")
    refused(state, Swapped(round=1, players=("p0", "p1"), reason="late"), "round_begun")


def test_without_pairings_first_a_round_cannot_be_re_paired_or_swapped():
    state, _ = entered(swiss(pairings_first=False), 9)
    seat_round(state)
    refused(state, Swapped(round=1, players=("p0", "p1"), reason="x"), "round_begun")
    refused(state, RoundBegun(round=1), "round_begun")
    fresh, _ = entered(swiss(pairings_first=False), 9)
    refused(fresh, Swapped(round=1, players=("p0", "p1"), reason="x"), "no_round_waiting")


def test_a_swap_exchanges_two_seats_and_refuses_what_is_no_swap():
    state, _ = entered(swiss(), 10)  # 10 at tables of 3: 4, 3, 3
    seated = seat_round(state)
    first, second = seated.tables[0].players, seated.tables[1].players
    state.apply(Swapped(round=1, players=(first[1], second[0]), reason="friends at one table"))
    assert state.tables[seated.tables[0].table][1][1] == second[0]
    assert state.tables[seated.tables[1].table][1][0] == first[1]
    assert state.seatings[-1].tables[0][1] == second[0]
    refused(state, Swapped(round=1, players=(first[0], first[2]), reason="x"), "same_table")
    refused(state, Swapped(round=1, players=(first[0], first[0]), reason="x"), "same_table")
    refused(state, Swapped(round=1, players=(first[0], "nobody"), reason="x"), "not_in_round")


def test_a_re_pair_keeps_an_excluded_pair_apart_and_drops_a_dropped_player():
    state, _ = entered(swiss(), 9)
    seated = seat_round(state)
    a, b = seated.tables[0].players[:2]
    gone = seated.tables[1].players[0]
    state.apply(Dropped(player=gone))
    plan = fixes.repair_seating(state, [(a, b)])
    assert not any(a in t and b in t for t in plan.tables)
    assert gone not in {p for t in plan.tables for p in t} | set(plan.byes)
    ids = [t.table for t in seated.tables]
    record = Repaired(round=1, tables=tuple(ActionTable(table=i, players=t) for i, t in zip(ids, plan.tables)),
                      byes=plan.byes, exclude=((a, b),), reason="siblings")
    forged = Repaired(round=1, tables=tuple(ActionTable(table=i, players=tuple(reversed(t)))
                                            for i, t in zip(ids, plan.tables)), byes=plan.byes, reason="x")
    refused(state, forged, "wrong_seating")
    refused(state, Repaired(round=1, tables=record.tables, exclude=((a, a),), reason="x"), "bad_exclude")
    state.apply(record)
    assert [t for t in state.seatings[-1].tables] == list(plan.tables)
    state.apply(RoundBegun(round=1))
    refused(state, record, "round_begun")


def test_a_final_is_not_re_paired_but_may_be_swapped():
    state, _ = entered(swiss(rounds=1, top_n=3), 6)
    seat_round(state)
    state.apply(RoundBegun(round=1))
    finish_round(state, Rng(3))
    seat_round(state)  # the final of 3
    with pytest.raises(Refusal) as error:
        fixes.repair_seating(state)
    assert error.value.code == "cannot_repair"


def test_ending_a_round_names_exactly_the_tables_still_playing():
    state, _ = entered(swiss(pairings_first=False), 6)
    seated = seat_round(state)
    tables = tuple(t.table for t in seated.tables)
    refused(state, RoundEnded(round=1, tables=tables[:1]), "no_round_playing")
    refused(state, RoundEnded(round=2, tables=tables), "no_round_playing")
    state.apply(RoundEnded(round=1, tables=tables, reason="the venue closes"))
    finish_round(state, Rng(1))
    refused(state, RoundEnded(round=1, tables=()), "no_round_playing")


def test_points_off_lower_the_total_and_a_game_loss_places_the_player_last():
    state, _ = entered(swiss(pairings_first=False), 6)
    seat_round(state)
    finish_round(state, Rng(5))
    leader = state.standings()[0]
    state.apply(Penalised(player=leader.player, points=2.5, reason="late to the table"))
    row = next(r for r in state.standings() if r.player == leader.player)
    assert row.points == leader.points - 2.5
    table = next(t for t, (_, players) in state.tables.items() if leader.player in players)
    state.apply(Penalised(player=leader.player, table=table, reason="marked cards"))
    fix = state.corrections[-1]
    assert fix.places[fix.players.index(leader.player)] == len(fix.players)
    assert sorted(fix.places) == list(range(1, len(fix.players) + 1)) or fix.places.count(1) > 1
    refused(state, Penalised(player=leader.player, reason="x"), "bad_penalty")
    refused(state, Penalised(player=leader.player, points=1, table=table, reason="x"), "bad_penalty")
    refused(state, Penalised(player=leader.player, points=-1, reason="x"), "bad_penalty")
    refused(state, Penalised(player=leader.player, points=float("nan"), reason="x"), "bad_penalty")
    refused(state, Penalised(player=leader.player, table="t999", reason="x"), "unknown_table")
    other = next(p for p in state.players if p not in state.tables[table][1])
    refused(state, Penalised(player=other, table=table, reason="x"), "bad_penalty")
    refused(state, Penalised(player="nobody", points=1, reason="x"), "unknown_player")


def test_a_disqualified_player_is_ranked_last_seated_no_more_and_cannot_come_back():
    state, _ = entered(swiss(pairings_first=False, reentry=True), 6)
    seat_round(state)
    finish_round(state, Rng(5))
    leader = state.standings()[0].player
    state.apply(Disqualified(player=leader, reason="abuse"))
    rows = state.standings()
    assert rows[-1].player == leader and rows[-1].dropped and leader not in state.active()
    refused(state, Disqualified(player=leader, reason="again"), "disqualified")
    refused(state, Undropped(player=leader, reason="sorry"), "disqualified")
    refused(state, Reentered(player="p99", entry=leader, name="P0 #2", reason="x"), "disqualified")


def test_a_drop_is_undone_and_a_re_entry_starts_a_new_entry_from_zero():
    state, _ = entered(swiss(pairings_first=False, reentry=True), 6)
    refused(state, Undropped(player="p1", reason="x"), "not_dropped")
    seat_round(state)
    finish_round(state, Rng(5))
    state.apply(Dropped(player="p1"))
    state.apply(Undropped(player="p1", reason="dropped by mistake"))
    assert "p1" in state.active()
    state.apply(Dropped(player="p2"))
    state.apply(Reentered(player="p7", entry="p2", name="P2 #2", reason="paid again"))
    assert "p7" in state.active() and "p2" not in state.active()
    assert next(r for r in state.standings() if r.player == "p7").points == 0
    refused(state, Reentered(player="p8", entry="p2", name="P2 #3", reason="x"), "no_reentry")
    refused(state, Undropped(player="p2", reason="x"), "no_reentry")
    refused(state, Reentered(player="p8", entry="p3", name="P3 #2", reason="x"), "not_dropped")
    off, _ = entered(swiss(pairings_first=False), 6)
    seat_round(off)
    off.apply(Dropped(player="p1"))
    refused(off, Reentered(player="p9", entry="p1", name="P1 #2", reason="x"), "no_reentry")


def test_before_the_start_a_drop_is_undone_only_into_a_free_place():
    state, _ = entered(swiss(max_players=3), 4)  # p3 waits
    state.apply(Dropped(player="p0"))  # p3 takes the place
    refused(state, Undropped(player="p0", reason="x"), "no_place")
    state.apply(Dropped(player="p1"))
    state.apply(Undropped(player="p1", reason="came back"))
    assert "p1" in state.active()


def test_a_cancellation_ends_with_the_standings_as_they_are():
    state, _ = entered(swiss(pairings_first=False), 6)
    seat_round(state)
    finish_round(state, Rng(2))
    seat_round(state)  # round 2 playing
    order = tuple(r.player for r in state.standings())
    state.apply(Ended(seed=SEED, standings=order, reason="cancelled", note="the hall's power is out"))
    assert state.ended is not None


# -- hypothesis: any sequence of the organiser's actions -------------------------------------------------------

step = st.tuples(st.sampled_from(["swap", "repair", "points", "loss", "dq", "drop", "undrop", "reenter", "end",
                                  "play"]), st.integers(0, 50), st.integers(0, 50))


def attempt(state: Tournament, kind: str, i: int, j: int):
    """The record of one organiser action chosen by ``kind`` and two numbers (it may well be refused)."""
    players = state.players
    a, b = players[i % len(players)], players[j % len(players)]
    r = state.round
    if kind == "swap":
        return Swapped(round=r, players=(a, b), reason="swap")
    if kind == "repair":
        try:
            plan = fixes.repair_seating(state, [(a, b)] if a != b else [])
        except Refusal:
            return Repaired(round=r, tables=(), reason="x")
        ids = [t for t, (n, _) in state.tables.items() if n == r]
        ids += [f"r{r}x{k}" for k in range(len(plan.tables) - len(ids))]
        return Repaired(round=r, tables=tuple(ActionTable(table=t, players=p) for t, p in zip(ids, plan.tables)),
                        byes=plan.byes, exclude=((a, b),) if a != b else (), reason="re-pair")
    if kind == "points":
        return Penalised(player=a, points=(j % 4) + 0.5, reason="late")
    if kind == "loss":
        tables = list(state.results)
        return Penalised(player=a, table=tables[j % len(tables)] if tables else "t0", reason="loss")
    if kind == "dq":
        return Disqualified(player=a, reason="dq")
    if kind == "drop":
        return Dropped(player=a)
    if kind == "undrop":
        return Undropped(player=a, reason="undo")
    if kind == "reenter":
        return Reentered(player=f"p{len(players)}", entry=a, name=f"{state.names[a]} #2", reason="again")
    if kind == "end":
        return RoundEnded(round=r, tables=tuple(t for t in state.unfinished() if state.tables[t][0] == r))
    return None


def advance(state: Tournament, rng: Rng) -> list:
    """What the director does next: begin a waiting round, finish a playing one, seat the next, or end."""
    if state.org.held:
        record = RoundBegun(round=state.org.held)
        state.apply(record)
        return [record]
    if state.unfinished():
        return finish_round(state, rng)
    why = state.end_reason()
    if not state.round and len(state.active()) < state.settings.sizes.min:  # it cannot start: cancelled
        why = ("cancelled", "too few players came")
    if why is not None:
        record = Ended(seed=SEED, standings=tuple(r.player for r in state.standings()), reason=why[0], note=why[1])
        state.apply(record)
        return [record]
    return [seat_round(state)]


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(4, 9), st.lists(step, max_size=30), st.booleans(), st.integers(0, 1000))
def test_any_sequence_of_actions_folds_again_to_the_same_standings_and_verifies(tmp_path_factory, count, script,
                                                                                  first, seed):
    settings = swiss(pairings_first=first, reentry=True)
    state, records = entered(settings, count)
    rng = Rng(seed)
    for kind, i, j in script:
        if state.ended is not None:
            break
        if kind == "play":
            records += advance(state, rng)
            continue
        record = attempt(state, kind, i, j)
        before = copy.deepcopy(state)
        try:
            state.apply(record)
        except Refusal:
            assert state == before  # a refused action changes nothing
            continue
        records.append(record)
    for _ in range(100):
        if state.ended is not None:
            break
        records += advance(state, rng)
    assert state.ended is not None
    again = fold(created(settings), SEED, records)  # the log alone
    assert again.standings() == state.standings()
    folder = tmp_path_factory.mktemp("log")
    log = FileLog(folder / "T9.log", "never")
    for record in [created(settings), *records]:
        log.append(record)
    log.close()
    report = verify_tournament(Path(folder / "T9.log"))
    assert report.ok, (report.problem, report.line)
    assert [row.player for row in report.standings] == [row.player for row in state.standings()]


def avoidable(players: list[str], sizes: list[int], pairs: set[frozenset]) -> bool:
    """Whether some cut of ``players`` into tables of ``sizes`` seats no pair of ``pairs`` together."""
    if not sizes:
        return True
    first, rest = players[0], players[1:]
    for others in combinations(rest, sizes[0] - 1):
        table = (first, *others)
        if any(frozenset(p) in pairs for p in combinations(table, 2)):
            continue
        if avoidable([p for p in rest if p not in others], sizes[1:], pairs):
            return True
    return False


@hsettings(max_examples=80, deadline=None)
@given(st.integers(4, 10), st.integers(2, 4), st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=6),
       st.integers(0, 2))
def test_a_re_pair_never_seats_an_excluded_pair_together_when_it_can_be_avoided(count, wanted, raw, played):
    settings = swiss(sizes=Sizes(2, 4, wanted), rounds=3)
    state, _ = entered(settings, count)
    rng = Rng(count * 7 + wanted)
    for _ in range(played):  # some history first
        seat_round(state)
        state.apply(RoundBegun(round=state.round))
        finish_round(state, rng)
    seat_round(state)
    pairs = [(f"p{a % count}", f"p{b % count}") for a, b in raw if a % count != b % count]
    plan = fixes.repair_seating(state, pairs)
    excluded = {frozenset(p) for p in pairs}
    seated = [p for t in plan.tables for p in t]
    sizes, _ = table_sizes(len(seated), settings.sizes)
    together = [p for p in excluded if any(p <= set(t) for t in plan.tables)]
    if avoidable(seated, sorted((len(t) for t in plan.tables), reverse=True), excluded):
        assert not together, f"{together} seated together though a seating avoids every excluded pair"
    assert sorted(len(t) for t in plan.tables) == sorted(sizes)


def test_pairings_first_and_re_entry_are_swiss_settings():
    for format in ("round_robin", "arena"):
        for field in ("pairings_first", "reentry"):
            with pytest.raises(Refusal) as error:
                Settings(format=format, sizes=Sizes(2, 4, 3), **{field: True}).check_new()
            assert error.value.code == "bad_settings" and "Swiss settings" in error.value.message
    swiss(reentry=True).check_new()


@hsettings(max_examples=60, deadline=None)
@given(st.integers(3, 16), st.integers(2, 4), st.integers(0, 2), st.integers(0, 1000))
def test_a_re_pair_with_nothing_changed_gives_the_round_its_own_seating_again(count, wanted, played, seed):
    """The same seater from the same standings, history and seed: the same tables, seats and byes."""
    state, _ = entered(swiss(sizes=Sizes(2, 4, wanted), rounds=3), count)
    rng = Rng(seed)
    for _ in range(played):
        seat_round(state)
        state.apply(RoundBegun(round=state.round))
        finish_round(state, rng)
    seat_round(state)
    plan = fixes.repair_seating(state)
    assert (plan.tables, plan.byes) == (state.seatings[-1].tables, state.seatings[-1].byes)
