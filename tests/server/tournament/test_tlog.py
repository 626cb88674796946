"""The tournament log: a whole tournament written and read back, verified from its own records and its
table logs, and every kind of forgery (a seating, a result, the seed, an edited line) caught and named."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from rules.rng import Rng
from server.logs.logfile import End, Header, seed_commitment
from server.logs.logstore import FileLog
from server.protocol import Refusal
from server.tournament.model import Settings, Sizes
from server.tournament.state import Tournament, fold
from server.tournament.tlog import (CheckedIn, Corrected, Created, Dropped, Ended, Registered, RoundSeated,
                                    SeatedTable, TableFinished, read_tournament_log)
from server.tournament.verify import end_line_hash, verify_tournament

SEED = 0xC0FFEE


def write(path: Path, records) -> None:
    log = FileLog(path, "never")
    for record in records:
        log.append(record)
    log.close()


def table_log(folder: Path, table: str, scores: list[int], winners: list[int]) -> str:
    """A table's log reduced to its header and end: what the tournament's checks read."""
    path = folder / f"{table}.log"
    write(path, [Header(format=1, table=table, name=table, game="flag_finish", rules_version="1", protocol=1,
                        seats=len(scores), mode="challenge", options={}, table_options={},
                        commitment=seed_commitment(1), started="2026-01-01T00:00:00Z"),
                 End(seq=1, seed=1, digest="0" * 64, reason="over", scores=scores, winners=winners)])
    return end_line_hash(path)


def competition_places(scores: list[int]) -> tuple[int, ...]:
    """Fewer points is better (Flag Finish): 1 + how many scored strictly fewer."""
    return tuple(1 + sum(1 for other in scores if other < s) for s in scores)


def play(folder: Path, settings: Settings, count: int, *, drop_after: dict[int, str] | None = None,
         correct: bool = False, log_format: int = 1) -> list:
    """Run a whole tournament on the state the director will use, with seeded random table results; return
    its records after ``created`` (and leave the table logs in ``folder``)."""
    created = Created(format=log_format, tournament="t17", name="Test cup", game="flag_finish", options={"races": 1},
                      settings=settings, commitment=seed_commitment(SEED), started="2026-01-01T00:00:00Z")
    state, records, rng = Tournament(created=created, seed=SEED), [], Rng(42)

    def add(record):
        state.apply(record)
        records.append(record)

    for i in range(count):
        add(Registered(player=f"p{i}", name=f"Player {i}"))
        if settings.check_in:
            add(CheckedIn(player=f"p{i}"))
    while True:
        try:
            seating = state.next_seating()
        except Refusal as error:
            assert error.code == "no_more_rounds"
            break
        round_no = state.round + 1
        tables = tuple(SeatedTable(table=f"r{round_no}t{i}", players=t) for i, t in enumerate(seating.tables))
        add(RoundSeated(round=round_no, tables=tables, byes=seating.byes))
        for table in tables:
            scores = [rng.below(40) for _ in table.players]
            places = competition_places(scores)
            winners = [seat for seat, place in enumerate(places) if place == 1]
            add(TableFinished(round=round_no, table=table.table, players=table.players, places=places,
                              scores=tuple(scores), log_hash=table_log(folder, table.table, scores, winners)))
        if correct and round_no == 1:
            first = state.results[tables[0].table]
            add(Corrected(table=first.table, places=tuple(reversed(sorted(first.places))),
                          scores=first.scores, reason="the organiser saw a misdeal"))
        if drop_after and round_no in drop_after:
            add(Dropped(player=drop_after[round_no]))
    add(Ended(seed=SEED, standings=tuple(row.player for row in state.standings())))
    write(folder / "t17.tournament.log", [created, *records])
    return records


SWISS = Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=4)


def test_a_whole_swiss_tournament_reads_back_and_verifies(tmp_path):
    records = play(tmp_path, SWISS, 11, drop_after={2: "p3"}, correct=True)
    read = read_tournament_log(tmp_path / "t17.tournament.log")
    assert read.records == records and read.torn is None
    report = verify_tournament(tmp_path / "t17.tournament.log", tmp_path)
    assert report.ok, report.problem
    assert report.rounds == 4 and report.table_logs == report.results == sum(
        len(r.tables) for r in records if type(r) is RoundSeated)
    assert [row.player for row in report.standings] == list(records[-1].standings)
    seated_later = [p for r in records if type(r) is RoundSeated and r.round > 2 for t in r.tables
                    for p in t.players]
    assert "p3" not in seated_later  # a dropped player is seated no more ...
    assert any(row.player == "p3" and row.dropped for row in report.standings)  # ... and keeps their row


def test_a_log_given_to_the_other_kinds_command_says_which_command_reads_it(tmp_path, capsys):
    from clients.cli import main

    play(tmp_path, SWISS, 4)
    tournament_log, table_log = tmp_path / "t17.tournament.log", tmp_path / "r1t0.log"
    assert main(["replay", str(tournament_log)]) == 1
    assert "this is a tournament's log: check it with photofinish tournament verify" in capsys.readouterr().out
    assert main(["tournament", "verify", str(table_log)]) == 1
    assert "this is a table's log: check it with photofinish replay" in capsys.readouterr().out


def test_tournament_verify_prints_the_final_standings_by_the_names_players_registered(tmp_path, capsys):
    from clients.cli import main

    records = play(tmp_path, SWISS, 11, drop_after={2: "p3"})
    assert main(["tournament", "verify", str(tmp_path / "t17.tournament.log"), "--tables", str(tmp_path)]) == 0
    rows = [line.strip() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [row.split(". ", 1)[1].split(" (p")[0] for row in rows] == [
        f"Player {player[1:]}" for player in records[-1].standings]
    assert any("Player 3 (p3)" in row and row.endswith("(dropped)") for row in rows)


@pytest.mark.parametrize("settings", [
    Settings(format="swiss", sizes=Sizes(2, 2, 2), rounds=3, top_n=2),
    Settings(format="round_robin", sizes=Sizes(2, 2, 2)),
    Settings(format="round_robin", sizes=Sizes(3, 4, 3), check_in=True),
], ids=["swiss-with-final", "round-robin", "pods-round-robin"])
def test_other_formats_verify(tmp_path, settings):
    play(tmp_path, settings, 7)
    report = verify_tournament(tmp_path / "t17.tournament.log", tmp_path)
    assert report.ok, report.problem


@pytest.mark.parametrize("log_format", [1, 2, 3])
def test_a_log_of_every_format_still_verifies_with_the_seed_derivation_it_was_written_with(tmp_path, log_format):
    records = play(tmp_path, SWISS, 11, drop_after={2: "p3"}, log_format=log_format)
    report = verify_tournament(tmp_path / "t17.tournament.log", tmp_path)
    assert report.ok, report.problem
    assert [row.player for row in report.standings] == list(records[-1].standings)


def test_format_3_derives_its_seeds_by_hashing_and_formats_1_and_2_by_the_frozen_xor_mix(tmp_path):
    from rules.rng import derive
    from server.tournament import seeds

    assert seeds.for_format(1) is seeds.for_format(2) is seeds.xor_mixed
    assert seeds.for_format(3) is seeds.hashed
    assert seeds.xor_mixed(SEED, 0) == 0xCA8216FA9058D0FA  # frozen: logs of formats 1 and 2 were drawn with it
    assert seeds.xor_mixed(SEED, 1) == 0x804803D296841A49
    assert seeds.hashed(SEED, 1) == derive(SEED, "tournament round 1") == 0x65FCED4EF87B0C64
    assert seeds.hashed(SEED, seeds.LOT) == derive(SEED, "tournament lot")
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir(), new.mkdir()
    records_2 = play(old, SWISS, 11, log_format=2)
    records_3 = play(new, SWISS, 11, log_format=3)
    assert records_2 != records_3  # another draw: the lots (and so the seatings) differ
    # format 3's records under a format-2 header: the old derivation gives other seatings or standings
    read = read_tournament_log(new / "t17.tournament.log")
    write(new / "as-2.log", [msgspec.structs.replace(read.created, format=2), *read.records])
    report = verify_tournament(new / "as-2.log", new)
    assert not report.ok and ("seating" in report.problem or "standings" in report.problem), report.problem


def rewrite(tmp_path: Path, change) -> Path:
    """A forger who rewrites the whole chain after changing records: every line hashes correctly."""
    read = read_tournament_log(tmp_path / "t17.tournament.log")
    forged = tmp_path / "forged.log"
    write(forged, [read.created, *change(list(read.records))])
    return forged


def line_of(records, predicate) -> int:
    return 2 + next(i for i, r in enumerate(records) if predicate(r))


def test_a_forged_seating_is_caught_even_with_a_rewritten_chain(tmp_path):
    records = play(tmp_path, SWISS, 9)

    def swap_two_players(records):
        i = next(i for i, r in enumerate(records) if type(r) is RoundSeated and r.round == 2)
        t0, t1 = records[i].tables[:2]
        a = SeatedTable(t0.table, (t1.players[0], *t0.players[1:]))
        b = SeatedTable(t1.table, (t0.players[0], *t1.players[1:]))
        records[i] = msgspec.structs.replace(records[i], tables=(a, b, *records[i].tables[2:]))
        return records

    report = verify_tournament(rewrite(tmp_path, swap_two_players))
    assert not report.ok and "round 2's seating is not the one" in report.problem
    assert report.line == line_of(records, lambda r: type(r) is RoundSeated and r.round == 2)


def test_a_forged_result_is_caught_by_the_standings_and_by_the_table_log(tmp_path):
    records = play(tmp_path, SWISS, 9)
    last = max(i for i, r in enumerate(records) if type(r) is TableFinished)

    def flip_places(records):
        r = records[last]
        records[last] = msgspec.structs.replace(r, places=tuple(reversed(r.places)),
                                                scores=tuple(reversed(r.scores)))
        return records

    forged = rewrite(tmp_path, flip_places)
    by_log = verify_tournament(forged, tmp_path)
    assert not by_log.ok and f"table {records[last].table}: the scores" in by_log.problem
    assert by_log.line == last + 2
    alone = verify_tournament(forged)  # without the table logs, the published standings no longer add up
    if tuple(reversed(records[last].places)) != records[last].places:
        assert not alone.ok and "final standings" in alone.problem


def test_a_result_whose_table_log_was_swapped_is_caught(tmp_path):
    records = play(tmp_path, SWISS, 9)
    results = [r for r in records if type(r) is TableFinished]
    (tmp_path / f"{results[0].table}.log").write_bytes((tmp_path / f"{results[1].table}.log").read_bytes())
    report = verify_tournament(tmp_path / "t17.tournament.log", tmp_path)
    assert not report.ok and f"is the log of table {results[1].table}" in report.problem


def test_a_forged_seed_is_caught(tmp_path):
    play(tmp_path, SWISS, 9)
    forged = rewrite(tmp_path, lambda rs: [*rs[:-1], msgspec.structs.replace(rs[-1], seed=SEED + 1)])
    report = verify_tournament(forged)
    assert not report.ok and "does not match the commitment" in report.problem


def test_an_edited_line_breaks_the_chain_there(tmp_path):
    play(tmp_path, SWISS, 9)
    path = tmp_path / "t17.tournament.log"
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"Player", b"Playor")
    path.write_bytes(b"\n".join(lines))
    report = verify_tournament(path)
    assert (report.ok, report.line) == (False, 4) and "hash chain is broken" in report.problem


def test_an_unfinished_tournament_is_not_verified(tmp_path):
    play(tmp_path, SWISS, 9)
    forged = rewrite(tmp_path, lambda rs: rs[:-1])
    report = verify_tournament(forged)
    assert not report.ok and "has not ended" in report.problem


def test_records_that_do_not_follow_are_refused_and_change_nothing():
    created = Created(format=1, tournament="t", name="t", game="flush", options={}, settings=SWISS,
                      commitment=seed_commitment(SEED), started="")
    state = fold(created, SEED, [Registered("a", "A"), Registered("b", "B"), Registered("c", "C")])
    for record, code in [(Registered("a", "again"), "already_registered"), (Dropped("zed"), "unknown_player"),
                         (RoundSeated(round=2, tables=()), "bad_round"),
                         (RoundSeated(round=1, tables=(SeatedTable("x", ("c", "b", "a")),)), "wrong_seating"),
                         (TableFinished(round=1, table="x", players=("a", "b"), places=(1, 2), scores=(0, 1),
                                        log_hash=""), "unknown_table")]:
        before = (list(state.players), len(state.seatings), dict(state.results))
        with pytest.raises(Refusal) as error:
            state.apply(record)
        assert error.value.code == code
        assert (list(state.players), len(state.seatings), dict(state.results)) == before
    seating = state.next_seating()
    state.apply(RoundSeated(round=1, tables=tuple(SeatedTable(f"t{i}", t) for i, t in enumerate(seating.tables))))
    with pytest.raises(Refusal) as error:
        state.next_seating()
    assert error.value.code == "round_not_over"
    with pytest.raises(Refusal) as error:
        state.apply(Registered("late", "Late"))
    assert error.value.code == "registration_closed"


def test_an_arena_seats_waiting_players_and_verifies(tmp_path):
    arena_settings = Settings(format="arena", sizes=Sizes(2, 3, 3))
    created = Created(format=1, tournament="t17", name="Arena", game="flag_finish", options={},
                      settings=arena_settings, commitment=seed_commitment(SEED), started="")
    state, records = Tournament(created=created, seed=SEED), []

    def add(record):
        state.apply(record)
        records.append(record)

    for i in range(7):
        add(Registered(player=f"p{i}", name=f"P{i}"))
    waiting = [f"p{i}" for i in range(7)]
    for label in range(1, 5):
        seating = state.next_seating(waiting)
        assert len(seating.tables) == len(waiting) // 3 and list(seating.waiting) == waiting[len(seating.tables) * 3:]
        tables = tuple(SeatedTable(f"a{label}t{i}", t) for i, t in enumerate(seating.tables))
        add(RoundSeated(round=label, tables=tables, waiting=tuple(waiting)))
        with pytest.raises(Refusal) as error:  # a player still at a table is not waiting
            state.next_seating([tables[0].players[0]])
        assert error.value.code == "not_waiting"
        first = tables[0]  # only the first table finishes before the next seating
        add(TableFinished(round=label, table=first.table, players=first.players, places=(1, 2, 3),
                          scores=(0, 5, 9), log_hash="0" * 64))
        for rest in tables[1:]:
            add(TableFinished(round=label, table=rest.table, players=rest.players, places=(1, 2, 3),
                              scores=(1, 2, 3), log_hash="0" * 64))
        waiting = list(seating.waiting) + [p for t in tables for p in t.players]
    add(Ended(seed=SEED, standings=tuple(row.player for row in state.standings())))
    write(tmp_path / "arena.log", [created, *records])
    report = verify_tournament(tmp_path / "arena.log")
    assert report.ok, report.problem
    forged = rewrite_file(tmp_path / "arena.log", tmp_path / "forged.log",
                          lambda rs: [msgspec.structs.replace(rs[7], waiting=tuple(reversed(rs[7].waiting)))
                                      if i == 7 else r for i, r in enumerate(rs)])
    assert type(records[7]) is RoundSeated
    assert not verify_tournament(forged).ok


def rewrite_file(source: Path, target: Path, change) -> Path:
    read = read_tournament_log(source)
    write(target, [read.created, *change(list(read.records))])
    return target
