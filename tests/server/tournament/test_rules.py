"""The rule holes an organiser's trial found (issue 32), each replayed as the organiser did it:

- nothing is accepted after the end (a drop, a check-in, a registration, a correction, a start):
  ``tournament_over``, and ``verify`` still passes;
- no dead end: a round that would seat no table ends the event with its standings; a top-N final larger than
  the field shrinks (said in the log) or is skipped; an error while advancing ends the event with a logged
  reason instead of stalling it or losing it at the next start;
- ``start --next-round`` while tables play ends them as they stand (as ``--round-time`` does) and seats the
  next round.

Pure ``state`` properties with hypothesis; the director in memory under the autojump clock."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from hypothesis import given, settings as hsettings, strategies as st

from rules.rng import Rng
from server.logs.logfile import seed_commitment
from server.logs.logstore import FileLog
from server.lobby import Lobby
from server.protocol import CreateTournament, Refusal
from server.tournament.hub import TournamentHub
from server.tournament.model import Settings, Sizes
from server.tournament.state import Tournament, fold
from server.tournament.tlog import (CheckedIn, Corrected, Created, Dropped, Ended, Registered, RoundSeated,
                                    SeatedTable, TableFinished)
from server.tournament.verify import verify_tournament

SEED = 0x5EED


def created(settings: Settings) -> Created:
    return Created(format=1, tournament="T9", name="trial", game="flush", options={}, settings=settings,
                   commitment=seed_commitment(SEED), started="2026-01-01T00:00:00Z")


def finish_round(state: Tournament, rng: Rng) -> list:
    """A result for every unfinished table (random scores, fewer is better), applied; the records."""
    out = []
    for table in state.unfinished():
        round_no, players = state.tables[table]
        scores = [rng.below(20) for _ in players]
        places = tuple(1 + sum(1 for o in scores if o < s) for s in scores)
        record = TableFinished(round=round_no, table=table, players=players, places=places, scores=tuple(scores),
                               log_hash="0" * 64)
        state.apply(record)
        out.append(record)
    return out


def seat_round(state: Tournament) -> RoundSeated:
    seating = state.next_seating()
    r = state.round + 1
    record = RoundSeated(round=r, tables=tuple(SeatedTable(table=f"r{r}t{i}", players=t)
                                               for i, t in enumerate(seating.tables)),
                         byes=seating.byes, note=seating.note)
    state.apply(record)
    return record


def run_to_end(state: Tournament, rng: Rng, drops: list[list[int]]) -> list:
    """Seat, play and drop (``drops[r]``: indexes into the active players, dropped after round r + 1) until
    the state says why it ends; then log ``ended`` with that reason. Every step must be an advance or an end."""
    records: list = []
    for guard in range(200):
        why = state.end_reason()
        if why is not None:
            end = Ended(seed=SEED, standings=tuple(r.player for r in state.standings()), reason=why[0], note=why[1])
            state.apply(end)
            return records + [end]
        record = seat_round(state)
        assert record.tables, "a logged round always seats a table"
        records.append(record)
        records += finish_round(state, rng)
        for index in (drops[state.round - 1] if state.round - 1 < len(drops) else []):
            active = state.active()
            if active:
                dropped = Dropped(player=active[index % len(active)])
                state.apply(dropped)
                records.append(dropped)
    raise AssertionError("the tournament never ended")


def registered(settings: Settings, count: int) -> tuple[Tournament, list]:
    state, records = Tournament(created=created(settings), seed=SEED), []
    for i in range(count):
        record = Registered(player=f"p{i}", name=f"P{i}")
        state.apply(record)
        records.append(record)
    return state, records


formats = st.one_of(
    st.builds(lambda sizes, rounds, top: Settings(format="swiss", sizes=sizes, rounds=rounds,
                                                  top_n=top if sizes.min <= top <= sizes.max else 0),
              st.sampled_from([Sizes(2, 2, 2), Sizes(2, 3, 3), Sizes(2, 6, 4), Sizes(3, 6, 4)]),
              st.integers(1, 4), st.integers(0, 6)),
    st.builds(lambda sizes: Settings(format="round_robin", sizes=sizes),
              st.sampled_from([Sizes(2, 2, 2), Sizes(2, 3, 3), Sizes(2, 6, 4)])))


@hsettings(max_examples=60, deadline=None)
@given(formats, st.integers(3, 9), st.lists(st.lists(st.integers(0, 8), max_size=4), max_size=6),
       st.integers(0, 2**32))
def test_every_reachable_state_advances_or_ends_and_the_log_verifies_by_a_fold(settings, count, drops, seed):
    """Whatever players drop between rounds, each step seats a round with a table or ends the event with a
    reason the fold recomputes (a restart folds the same records: it never meets ``bad_final``)."""
    state, records = registered(settings, count)
    records += run_to_end(state, Rng(seed), drops)
    assert type(records[-1]) is Ended and records[-1].reason in ("no_more_rounds", "no_table")
    again = fold(state.created, SEED, records)  # what a restart and `verify` do
    assert again.ended == records[-1]


def after_the_end() -> tuple[Tournament, list]:
    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=1), 4)
    records += run_to_end(state, Rng(3), [])
    return state, records


LATE = [Registered(player="p9", name="Late"), CheckedIn(player="p0"), Dropped(player="p1"),
        Corrected(table="r1t0", places=(1, 1), scores=(0, 0), reason="late"),
        RoundSeated(round=2, tables=(SeatedTable(table="r2t0", players=("p0", "p1")),)),
        TableFinished(round=1, table="r1t0", players=("p0", "p1"), places=(1, 2), scores=(0, 1), log_hash="0" * 64),
        Ended(seed=SEED, standings=())]


@given(st.lists(st.sampled_from(LATE), min_size=1, max_size=5))
def test_no_record_is_accepted_after_ended_and_none_changes_anything(late):
    state, records = after_the_end()
    before = (list(state.players), list(state.dropped), set(state.checked_in), dict(state.results),
              list(state.corrections), state.round, state.ended)
    for record in late:
        with pytest.raises(Refusal) as refused:
            state.apply(record)
        assert refused.value.code == "tournament_over"
    assert before == (list(state.players), list(state.dropped), set(state.checked_in), dict(state.results),
                      list(state.corrections), state.round, state.ended)


def test_two_of_three_dropping_in_round_1_ends_the_event_instead_of_a_round_of_one_bye():
    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3), 3)
    records.append(seat_round(state))
    for player in ("p0", "p1"):
        state.apply(Dropped(player=player))
    finish_round(state, Rng(1))
    with pytest.raises(Refusal) as refused:
        state.next_seating()
    assert refused.value.code == "no_table"
    assert state.end_reason() == ("no_table", "round 2 would seat no table (1 active player(s); a table seats 2 "
                                              "or more)")
    # the round of one bye the trial's server logged folds (an old log reopens: see below), and ends it then
    state.apply(RoundSeated(round=2, tables=(), byes=("p2",)))
    assert state.end_reason() == ("no_table", "round 3 would seat no table (1 active player(s); a table seats 2 "
                                              "or more)")


def test_a_top_3_final_with_one_of_three_dropped_is_a_final_of_2_and_says_so():
    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=1, top_n=3), 3)
    records.append(seat_round(state))
    records += finish_round(state, Rng(2))
    state.apply(Dropped(player="p1"))
    final = seat_round(state)
    assert len(final.tables) == 1 and len(final.tables[0].players) == 2 and "p1" not in final.tables[0].players
    assert final.note == "a final of 2: the top 3 was asked, 2 active players remain"
    with pytest.raises(Refusal) as refused:  # the note is recomputed: a log that hides it does not follow
        Tournament(created=state.created, seed=SEED).apply(final)  # (round 1 first: refused as a bad round)
    assert refused.value.code == "bad_round"
    replay = fold(state.created, SEED, records + [Dropped(player="p1")])
    with pytest.raises(Refusal) as refused:
        replay.apply(RoundSeated(round=2, tables=final.tables))
    assert refused.value.code == "wrong_seating" and "a final of 2" in refused.value.message


def test_a_final_with_fewer_players_left_than_a_table_needs_is_skipped_and_the_end_says_why():
    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=1, top_n=3), 3)
    records.append(seat_round(state))
    records += finish_round(state, Rng(2))
    state.apply(Dropped(player="p1"))
    state.apply(Dropped(player="p2"))
    code, note = state.end_reason()
    assert code == "no_more_rounds" and "final of the top 3 is skipped: 1 active player(s) remain" in note
    with pytest.raises(Refusal) as refused:  # an end that does not say the right reason does not follow
        state.apply(Ended(seed=SEED, standings=tuple(r.player for r in state.standings()), reason="no_table"))
    assert refused.value.code == "wrong_end"
    state.apply(Ended(seed=SEED, standings=tuple(r.player for r in state.standings()), reason=code, note=note))


# ---------------------------------------------------------------------------- the director, in memory


class ListLog:
    """A tournament log kept in a list (the director's ``log``), written to a real file for ``verify``."""

    policy = "never"
    head = None  # no line hashes here (a receipt is None)

    def __init__(self, first) -> None:
        self.records = [first]

    def append(self, record) -> int:
        self.records.append(record)
        return len(self.records)

    def verify(self, folder: Path):
        log = FileLog(folder / "T.log", "never")
        for record in self.records:
            log.append(record)
        log.close()
        return verify_tournament(folder / "T.log")


async def open_director(nursery, **fields):
    lobby = Lobby(nursery, None, "never")
    hub = TournamentHub(nursery, lobby, None)
    lobby.tournaments = hub
    request = CreateTournament(game="flag_finish", mode="challenge", seed=SEED, no_show_ms=3_600_000, **fields)
    director, secret = await hub.create(request)
    director.log = ListLog(director.state.created)
    return director, secret


async def over(director) -> None:
    with trio.fail_after(3600):
        await director.over.wait()


async def test_a_drop_a_check_in_an_entry_a_correction_and_a_start_after_the_end_are_refused(
        nursery, autojump_clock, tmp_path):
    director, secret = await open_director(nursery, seats=2, rounds=1, round_time_ms=1000)
    ana, _ = await director.register("Ana")
    _, ben_token = await director.register("Ben")
    await director.start(secret, False)
    await over(director)
    table = next(iter(director.state.results))
    for call in (director.drop("", secret, ana), director.drop(ben_token, "", None), director.check_in(ben_token),
                 director.register("Cy"), director.start(secret, True),
                 director.correct(secret, table, [2, 1], "too late")):
        with pytest.raises(Refusal) as refused:
            await call
        assert refused.value.code == "tournament_over"
    assert type(director.log.records[-1]) is Ended and director.log.records[-1].reason == "no_more_rounds"
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


async def test_two_of_three_dropping_in_round_1_end_the_event_with_its_standings(nursery, autojump_clock, tmp_path):
    director, secret = await open_director(nursery, seats=3, rounds=3, round_time_ms=60_000)
    tokens = [(await director.register(name))[1] for name in ("Ana", "Ben", "Cy")]
    await director.start(secret, False)
    await director.drop(tokens[0], "", None)
    await director.drop(tokens[1], "", None)
    await over(director)  # round 1's table ends by its clock; round 2 would seat nobody: the end
    end = director.log.records[-1]
    assert type(end) is Ended and end.reason == "no_table" and "round 2 would seat no table" in end.note
    assert director.state.round == 1 and director.info().status == "over"
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


async def test_a_top_3_final_with_a_drop_is_played_as_a_final_of_2(nursery, autojump_clock, tmp_path):
    director, secret = await open_director(nursery, seats=3, rounds=1, top=3, round_time_ms=1000)
    tokens = [(await director.register(name))[1] for name in ("Ana", "Ben", "Cy")]
    await director.start(secret, False)
    await director.drop(tokens[2], "", None)
    await over(director)
    final = [r for r in director.log.records if type(r) is RoundSeated][-1]
    assert final.round == 2 and len(final.tables[0].players) == 2 and final.note.startswith("a final of 2")
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem
    # what a restart does: fold the log (it used to fail with bad_final, and the tournament was gone)
    fold(director.state.created, SEED, director.log.records[1:])


async def test_an_error_while_seating_the_next_round_ends_the_event_with_a_logged_reason(
        nursery, autojump_clock, tmp_path, monkeypatch, capsys):
    from server.tournament import state as state_module

    director, secret = await open_director(nursery, seats=2, rounds=2, round_time_ms=1000)
    for name in ("Ana", "Ben"):
        await director.register(name)
    await director.start(secret, False)
    real = state_module.seating.swiss

    def broken(*args, **kwargs):
        if args[4] == 2:
            raise RuntimeError("a bug in round 2")
        return real(*args, **kwargs)

    monkeypatch.setattr(state_module.seating, "swiss", broken)
    await over(director)
    end = director.log.records[-1]
    assert end.reason == "stopped" and "RuntimeError: a bug in round 2" in end.note
    assert "stopped while seating round 2" in capsys.readouterr().err
    monkeypatch.setattr(state_module.seating, "swiss", real)
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


async def test_start_next_round_ends_the_tables_still_playing_as_they_stand_and_seats_the_next(
        nursery, autojump_clock, tmp_path):
    director, secret = await open_director(nursery, seats=2, rounds=2)  # no round time: nobody plays, tables wait
    for name in ("Ana", "Ben", "Cy", "Dee"):
        await director.register(name)
    await director.start(secret, False)
    first = list(director.state.unfinished())
    assert len(first) == 2
    await director.start(secret, True)
    assert director.state.round == 2 and set(first) <= set(director.state.results)
    assert all(director.tables[t].halted[0] == "time_limit" for t in first)  # as --round-time ends them
    await director.start(secret, True)  # round 2 likewise: then the event is over
    assert director.state.ended is not None and director.state.ended.reason == "no_more_rounds"
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


# ---------------------------------------------------------------------------- settings are numbers


def settings_of(**fields) -> Settings:
    return TournamentHub.settings_for(CreateTournament(game="flush", **fields))[1]


def test_fractional_points_are_kept_exactly_and_score_exactly():
    from fractions import Fraction

    from server.tournament.model import TableResult
    from server.tournament.standings import standings

    settings = settings_of(seats=3, points=[2.5, 1, 0], bye_points=0.1)
    assert settings.points == {3: (2.5, 1, 0)}  # was stored as 2, 1, 0
    assert settings.exact_points(3) == (Fraction(5, 2), 1, 0) and settings.exact_bye() == Fraction(1, 10)
    tied = TableResult(table="t", players=("a", "b", "c"), places=(1, 1, 3), scores=(1, 1, 5))
    rows = {r.player: r for r in standings(["a", "b", "c", "d"], [tied], ["d"] * 3, settings, SEED)}
    assert rows["a"].points == rows["b"].points == 1.75  # (5/2 + 1) / 2
    assert rows["d"].points == float(Fraction(3, 10))  # three byes of exactly 1/10
    again = msgspec_roundtrip(settings)  # as the log keeps it
    assert again == settings and again.exact_points(3) == settings.exact_points(3)


def msgspec_roundtrip(settings: Settings) -> Settings:
    import msgspec

    return msgspec.json.decode(msgspec.json.encode(settings), type=Settings)


@pytest.mark.parametrize("fields, words", [
    ({"points": [3, -1, 0]}, "0 to"),
    ({"points": [float("nan"), 1, 0]}, "0 to"),
    ({"points": [3, 1]}, "one value per place"),
    ({"bye_points": -1}, "0 to"),
    ({"bye_points": float("inf")}, "0 to"),
    ({"format": "arena", "top": 3}, "final follows Swiss"),
    ({"format": "round_robin", "top": 3}, "final follows Swiss"),
    ({"format": "round_robin", "rounds": 4}, "computes its own"),
    ({"format": "arena", "rounds": 4}, "runs for its time"),
    ({"format": "swiss", "arena_ms": 60_000}, "arena's length"),
    ({"format": "round_robin", "late_entry_rounds": 2}, "late entries"),
])
def test_settings_that_are_not_numbers_of_0_or_more_or_do_not_apply_are_refused_with_the_reason(fields, words):
    with pytest.raises(Refusal) as refused:
        settings_of(**{"seats": 3, **fields})
    assert refused.value.code == "bad_settings" and words in refused.value.message


def test_each_format_takes_its_own_settings():
    assert settings_of(seats=3).rounds == 3  # Swiss's default
    assert settings_of(seats=3, format="round_robin").rounds == 0
    assert settings_of(seats=3, format="arena", arena_ms=60_000).format == "arena"
    assert settings_of(seats=3, rounds=2, top=3, late_entry_rounds=2).top_n == 3


def test_the_cli_keeps_fractions_and_refuses_negatives_before_connecting():
    from clients.cli.values import points

    assert points("2.5,1,0") == [2.5, 1.0, 0.0]
    with pytest.raises(Exception) as refused:
        points("3,-1,0")
    assert "0 or more" in str(refused.value)


# ---------------------------------------------------------------------------- names


async def test_look_alike_invisible_and_decomposed_names_are_one_player_or_refused(nursery, autojump_clock):
    director, _ = await open_director(nursery, seats=2, rounds=1)
    ana, _ = await director.register("Ana")
    for twin in ("ANA", "\u0410na", " \u0430n\u0430 "):  # case, a Cyrillic А, Cyrillic а's
        with pytest.raises(Refusal) as refused:
            await director.register(twin)
        assert refused.value.code == "name_taken" and ana in refused.value.message
    for hidden in ("Ana\u200b", "\u200b", "\u2060"):
        with pytest.raises(Refusal) as refused:
            await director.register(hidden)
        assert refused.value.code == "bad_name"
    jose, _ = await director.register("Jose\u0301")  # decomposed: taken composed
    assert director.state.names[jose] == "Jos\u00e9"
    with pytest.raises(Refusal) as refused:
        await director.register("Jos\u00e9")
    assert refused.value.code == "name_taken"
    assert list(director.state.names.values()) == ["Ana", "Jos\u00e9"]


async def test_ratings_follow_the_player_across_tournaments_whatever_form_of_the_name(nursery, autojump_clock,
                                                                                     tmp_path):
    from server.tournament import results
    from server.tournament.model import TableResult
    from server.tournament.store import AsyncStore, Store

    store = AsyncStore(Store(tmp_path / "t.sqlite3"))
    for number, (josé, ben) in enumerate((("Jos\u00e9", "Ben"), ("JOSE\u0301", "\u0412en"))):  # composed;
        director, _ = await open_director(nursery, seats=2, rounds=1)  # decomposed, a Cyrillic В
        players = [(await director.register(name))[0] for name in (josé, ben)]
        director.store = store  # (registered without one: the store's rows of a tournament are not needed here)
        await results.rate(director, TableResult(table=f"t{number + 1}", players=tuple(players), places=(1, 2),
                                                 scores=(0, 5)))
    ratings = await store.call(Store.ratings, "flag_finish")
    assert sorted((r.player, r.tables, r.name) for r in ratings) == [("ben", 2, "\u0432en"), ("jos\u00e9", 2, "jos\u00e9")]
    store.store.close()


# ---------------------------------------------------------------------------- logs an older server wrote


def old_log(folder: Path, records: list) -> Path:
    """A tournament T9's log and seed as a server before these rules left them in ``folder``/tournaments."""
    from server.logs.logstore import write_secret_seed

    (folder / "tournaments").mkdir(parents=True, exist_ok=True)
    path = folder / "tournaments" / "T9.log"
    log = FileLog(path, "never")
    for record in [created(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3)), *records]:
        log.append(record)
    log.close()
    write_secret_seed(folder / "tournaments" / "T9.seed", SEED, sync=False)
    from server.datadir import DataDir
    from server.tournament.store import Store

    store = Store(DataDir(folder).store)
    first = created(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3))
    store.add_tournament("T9", first.name, first.game, {}, first.settings, first.commitment, first.started)
    store.close()
    return path


def the_trial_stuck_in_round_2() -> list:
    """What the trial's server logged: three players, two dropped in round 1, round 2 with no table and a bye."""
    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3), 3)
    records.append(seat_round(state))
    records += [Dropped(player="p0"), Dropped(player="p1")]
    for record in records[-2:]:
        state.apply(record)
    records += finish_round(state, Rng(1))
    return records + [RoundSeated(round=2, tables=(), byes=("p2",))]


async def reopen(nursery, folder: Path) -> TournamentHub:
    lobby = Lobby(nursery, folder, "never")
    hub = TournamentHub(nursery, lobby, folder, "never")
    lobby.tournaments = hub
    await hub.open()
    await hub.recover()
    return hub


async def test_the_trials_tournament_stuck_on_a_round_of_one_bye_reopens_and_ends(nursery, tmp_path):
    path = old_log(tmp_path, the_trial_stuck_in_round_2())
    hub = await reopen(nursery, tmp_path)
    director = hub.find("T9")
    assert director.state.ended is not None and director.state.ended.reason == "no_table"
    assert "round 3 would seat no table" in director.state.ended.note
    report = verify_tournament(path)
    assert report.ok, report.problem
    await hub.close()


async def test_an_old_log_with_a_drop_after_its_end_reopens_as_it_ended(nursery, tmp_path, capsys):
    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3), 4)
    records += run_to_end(state, Rng(5), [])
    old_log(tmp_path, records + [Dropped(player="p1"), CheckedIn(player="p2")])
    hub = await reopen(nursery, tmp_path)
    director = hub.find("T9")
    assert director.info().status == "over" and director.state.dropped == []
    assert "2 record(s) after its end" in capsys.readouterr().out
    with pytest.raises(Refusal) as refused:
        await director.drop("", "", "p3")
    assert refused.value.code == "tournament_over"
    await hub.close()


async def test_a_table_that_cannot_open_is_tried_again_and_the_event_goes_on(nursery, autojump_clock, tmp_path,
                                                                            monkeypatch, capsys):
    from rules import RulesError

    director, secret = await open_director(nursery, seats=2, rounds=2, round_time_ms=1000)
    for name in ("Ana", "Ben"):
        await director.register(name)
    await director.start(secret, False)
    lobby, create, refusals = director.hub.lobby, director.hub.lobby.create, [3]

    async def full_disk(*args, **kwargs):  # round 2's table: the lobby refuses it three times, then opens it
        if refusals[0]:
            refusals[0] -= 1
            raise RulesError("storage_failed", "no new tables for now: the disk is full")
        return await create(*args, **kwargs)

    monkeypatch.setattr(lobby, "create", full_disk)
    await over(director)
    assert refusals == [0] and director.state.round == 2 and director.paused is None
    assert director.state.ended.reason == "no_more_rounds"
    assert "round 2 is seated in the log but a table could not open" in capsys.readouterr().err
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


async def test_an_arena_has_no_next_round_to_start(nursery, autojump_clock):
    director, secret = await open_director(nursery, seats=2, format="arena", arena_ms=60_000)
    for name in ("Ana", "Ben"):
        await director.register(name)
    await director.start(secret, False)
    with pytest.raises(Refusal) as refused:
        await director.start(secret, True)
    assert refused.value.code == "already_started" and "arena" in refused.value.message


def test_tournament_verify_says_why_the_event_ended(tmp_path, capsys):
    from clients.cli import main

    state, records = registered(Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3), 3)
    records.append(seat_round(state))
    for record in (Dropped(player="p0"), Dropped(player="p1")):
        state.apply(record)
        records.append(record)
    records += finish_round(state, Rng(1))
    records += run_to_end(state, Rng(1), [])
    path = old_log(tmp_path, records)
    assert main(["tournament", "verify", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "verified" in first and "ended: no table (round 2 would seat no table" in first
