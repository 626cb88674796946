"""A kill -9 after every record of an event, compared with the event run through: the files copied the moment
each record is on disk, a second server started on them, the rest of the organiser's and players' script run on
it, and its log must end as the uninterrupted one does (every record but its time), its director's runtime
(``waiting``, ``ending``, ``reports_made``, ``arena_over``) as the first one had it at that record.

Every table is played with cards (``reported_tables``), so the event is a pure function of the script."""

from __future__ import annotations

import shutil

import msgspec
import pytest
import trio

from server.logs import crashpoint
from server.protocol import CreateTournament
from server.tournament import organiser, reported
from server.tournament.tlog import read_tournament_log

from .test_restart_clocks import run_hub
from .test_rules import SEED

NAMES = ("Ana", "Ben", "Cy", "Dan", "Eve")


def _tables(d) -> list[str]:
    return [t for t, (r, _) in d.state.tables.items() if r == d.state.round]


def _seat(d, table: str, i: int) -> str:
    return d.state.tables[table][1][i]


def _places(d, table: str, reverse: bool = False) -> list[int]:
    places = list(range(1, len(d.state.tables[table][1]) + 1))
    return places[::-1] if reverse else places


async def _report_all(d, s, tokens, nth=None, round_no=None) -> None:
    """Every player of round ``round_no``'s tables reports (or of the ``nth`` table seated), who has not yet: a
    step of several records, run again whole after a kill in it."""
    tables = ([t for t, (r, _) in d.state.tables.items() if r == round_no] if nth is None
              else [sorted(d.state.tables, key=lambda t: int(t[1:]))[nth]])
    for table in tables:
        if table not in d.state.results:
            for player in d.state.tables[table][1]:
                if d.state.reports.get(table, {}).get(player) is None and table not in d.state.results:
                    await reported.report(d, tokens[player], table, _places(d, table))


def swiss_steps():
    async def register(d, s, tokens, name):
        player, tokens[player] = await d.register(name)

    async def swap(d, s, tokens):
        a, b = _tables(d)[:2]
        await organiser.swap(d, s, _seat(d, a, 0), _seat(d, b, 1), "asked")

    async def report_one(d, s, tokens, table_index, seat, reverse):
        table = _tables(d)[table_index]
        await reported.report(d, tokens[_seat(d, table, seat)], table, _places(d, table, reverse))

    async def settle(d, s, tokens):
        await reported.settle(d, s, _tables(d)[1], _places(d, _tables(d)[1], True), "judge")

    async def penalise(d, s, tokens):
        await organiser.penalise(d, s, "Ana", "late", 1, "")

    async def repair(d, s, tokens):
        await organiser.repair(d, s, [], "again")

    async def drop(d, s, tokens):
        await d.drop("", s, "T1p5")

    steps = [(register, n) for n in NAMES]
    steps += [((lambda d, s, t: d.start(s, False)),), (swap,), ((lambda d, s, t: d.start(s, False)),),
              (report_one, 0, 0, False), (report_one, 0, 1, False), (report_one, 1, 0, False),
              (report_one, 1, 1, True), (settle,), (_report_all, None, 1), (penalise,), (drop,), (repair,),
              ((lambda d, s, t: d.start(s, False)),), (_report_all, None, 2)]
    return steps


def arena_steps():
    async def register(d, s, tokens, name):
        player, tokens[player] = await d.register(name)

    steps = [(register, n) for n in NAMES]
    async def drop(d, s, tokens):
        await d.drop("", s, "T1p2")

    async def undrop(d, s, tokens):
        await organiser.undrop(d, s, "T1p2", "by mistake")

    steps += [((lambda d, s, t: d.start(s, False)),), (_report_all, 0), (drop,), (_report_all, 1),
              (_report_all, 2), (undrop,)] + [(_report_all, n) for n in range(3, 7)]
    return steps


SETTINGS = {
    "swiss": dict(rounds=2, pairings_first=True),
    "arena": dict(format="arena", arena_ms=3_600_000),
}


async def run(d, secret, tokens, steps, marks) -> None:
    for index, (fn, *args) in enumerate(steps):
        marks.append(index)
        await fn(d, secret, tokens, *args)


def records(path) -> list:
    out = []
    for record in read_tournament_log(path).records:
        value = msgspec.to_builtins(record)
        value.pop("time", None)
        value.pop("token", None)  # drawn afresh by each run
        out.append(value)
    return out


@pytest.mark.parametrize("kind, point", [("swiss", point) for point in range(1, 25)]  # (every record of each
                         + [("arena", point) for point in range(1, 26)])  # event's run: 24 and 25)
async def test_a_kill_after_any_record_ends_the_event_as_it_would_have(mock_clock, tmp_path, monkeypatch, kind,
                                                                       point):
    steps = swiss_steps() if kind == "swiss" else arena_steps()
    async with trio.open_nursery() as nursery:
        hub = await run_hub(nursery, tmp_path / "first")
        director, secret = await hub.create(CreateTournament(
            game="flag_finish", mode="challenge", seats=2, seed=SEED, no_show_ms=3_600_000, reported_tables=100,
            **SETTINGS[kind]))
        seen, marks, at, runtime = [], [], [], {}

        def reached(name: str) -> None:
            seen.append(name)
            if len(seen) == point:
                shutil.copytree(tmp_path / "first", tmp_path / "second")
                at.append(marks[-1])
                runtime.update(waiting=list(director.waiting), ending=director.ending,
                               reports=dict(director.reports_made), over=director.arena_over)
        monkeypatch.setattr(crashpoint, "reached", reached)
        tokens = {}
        await run(director, secret, tokens, steps, marks)
        assert at, f"the {kind} event has fewer than {point} records: the points to kill at no longer fit its run"
        tid = director.id
        monkeypatch.setattr(crashpoint, "reached", lambda name: None)
        hub = await run_hub(nursery, tmp_path / "second")
        again = hub.find(tid)
        assert again.ending == runtime["ending"] and again.arena_over == runtime["over"]
        if kind == "arena" and again.state.ended is None:
            assert again.waiting == runtime["waiting"] or (seen[point - 1] != "tournament:round_seated" and
                                                           len(again.waiting) < 2), (again.waiting, runtime)
        redo = steps[at[0]][0] is _report_all  # (reports the players who have not yet: a step of several records)
        await run(again, secret, tokens, steps[at[0] + (0 if redo else 1):], [])
        made = (dict(again.reports_made), dict(director.reports_made))
        nursery.cancel_scope.cancel()
    first, second = (records(tmp_path / where / "tournaments" / f"{tid}.log") for where in ("first", "second"))
    for index, (a, b) in enumerate(zip(first, second)):
        assert b == a, (index, a, b)
    assert len(second) == len(first)
    assert made[0] == made[1]
