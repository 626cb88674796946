"""A tournament with a broadcast delay (``spectator_delay_ms``): each table's result reaches the tournament (its
log, standings, views and next round) only once that table's spectators have been shown its end, never sooner:
an outsider watching the tournament would otherwise learn a table's end a delay before its spectators. In memory
under the autojump clock; every seat is left to its stand-in bot, so the games end by their own rules."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from server.app import run_server
from server.cluster.presence import LocalPresence
from server.lobby import Lobby
from server.protocol import CreateTournament, TableEnded, TournamentState, Update, Watch
from server.table import intents
from server.tournament import organiser
from server.tournament.hub import TournamentHub
from server.tournament.tlog import RoundSeated, TableFinished

from ..helpers import Sink
from ..test_cluster_tournament import beats, start_node
from .test_rules import SEED, ListLog

DELAY_S = 10


class Timed(Sink):
    """A receiver that keeps when (trio time) each message came."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def deliver(self, message: Any) -> bool:
        self.times.append(trio.current_time())
        return super().deliver(message)

    def first(self, found) -> float | None:
        """When the first message ``found`` says yes to came (None: none yet)."""
        return next((t for t, m in zip(self.times, self.messages) if found(m)), None)


def shows_end(message: Any) -> bool:
    return (type(message) is Update and message.result is not None) or type(message) is TableEnded


def places_of(message: Any, table: str) -> list[int] | None:
    if type(message) is not TournamentState:
        return None
    return next((t.places for r in message.rounds for t in r.tables if t.table == table), None)


async def delayed_director(nursery, players: int = 4, no_show_ms: int = 300, delay_s: float = DELAY_S, **fields):
    """A Swiss of ``players`` at tables of 2 with a broadcast delay of ``delay_s``; every seat is played by its
    stand-in from ``no_show_ms`` after its table opens."""
    lobby = Lobby(nursery, None, "never")
    hub = TournamentHub(nursery, lobby, None)
    lobby.tournaments = hub
    director, secret = await hub.create(cup(no_show_ms=no_show_ms, spectator_delay_ms=int(delay_s * 1000), **fields))
    director.log = ListLog(director.state.created)
    for index in range(players):
        await director.register(f"player {index + 1}")
    return director, secret


def cup(rounds: int = 1, no_show_ms: int = 300, **fields) -> CreateTournament:
    return CreateTournament(game="flag_finish", mode="challenge", seats=2, rounds=rounds, options={"races": 1},
                            seed=SEED, no_show_ms=no_show_ms, **fields)


async def watched_round(director) -> dict[str, Timed]:
    """A spectator at each of the tables open now."""
    spectators = {}
    for table in director.tables.values():
        spectators[table.id] = Timed()
        await table.submit(intents.Watch(spectators[table.id], Watch(table=table.id)))
    return spectators


def results_logged(director) -> list[str]:
    return [r.table for r in director.log.records if type(r) is TableFinished]


async def test_an_outsider_is_shown_a_tables_result_and_the_next_round_only_once_its_spectators_saw_its_end(
        nursery, autojump_clock, tmp_path):
    director, secret = await delayed_director(nursery, rounds=2)
    outsider = Timed()
    director.watch(outsider, "", None)  # no token: anyone may follow a tournament
    await director.start(secret, False)
    round_one = dict(director.tables)
    spectators = await watched_round(director)
    assert len(round_one) == 2
    ended = {}
    for table in round_one.values():
        await table.over.wait()
        ended[table.id] = trio.current_time()
    assert max(ended.values()) - min(ended.values()) < DELAY_S / 2  # (the games end close together)
    await trio.sleep(DELAY_S / 2)  # every game over, half the delay gone: nothing of their ends is out yet
    assert not any(shows_end(m) for s in spectators.values() for m in s.messages)
    assert results_logged(director) == [] and director.state.round == 1
    assert all(places_of(m, t) is None for m in outsider.messages for t in round_one)
    assert all(row.points == 0 for row in director.snapshot().standings)
    assert director.info().round == 1  # the listing too
    with trio.fail_after(600):
        await director.over.wait()
    for table_id, spectator in spectators.items():
        shown = spectator.first(shows_end)
        assert shown is not None and shown >= ended[table_id] + DELAY_S - 1  # (the delay's worth later)
        told = outsider.first(lambda m, t=table_id: places_of(m, t) is not None)
        assert told is not None and told >= shown  # the outsider learns its places no sooner
        taken = next(r for r in director.log.records if type(r) is TableFinished and r.table == table_id)
        assert taken.time + director._t0 >= shown  # and the log has them no sooner
    round_two = outsider.first(lambda m: type(m) is TournamentState and m.tournament.round == 2)
    seated = next(r for r in director.log.records if type(r) is RoundSeated and r.round == 2)
    assert round_two >= max(s.first(shows_end) for s in spectators.values())
    assert seated.time + director._t0 >= max(s.first(shows_end) for s in spectators.values())
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem
    assert report.results == 4


LONG_DELAY_S = 45  # longer than the 30 s an organiser who ends a round was kept waiting for its results


@pytest.mark.parametrize("ending", ["end_round", "start_next_round"])
async def test_a_round_the_organiser_ends_advances_once_its_halted_tables_ends_are_shown_and_then_answers(
        nursery, autojump_clock, ending):
    director, secret = await delayed_director(nursery, rounds=2, no_show_ms=3_600_000, delay_s=LONG_DELAY_S)
    await director.start(secret, False)  # nobody comes: the tables wait for their players
    spectators = await watched_round(director)
    await trio.sleep(1)  # (under way)
    halted = trio.current_time()
    if ending == "end_round":
        await organiser.end_round(director, secret, "the hall closes")
    else:
        await director.start(secret, True)
    assert all(director.tables[t].halted[0] == "time_limit" for t in spectators)
    assert director.state.round == 2  # the organiser is answered once the results are in and round 2 seated
    for table_id, spectator in spectators.items():
        shown = spectator.first(shows_end)
        assert shown is not None and shown >= halted + LONG_DELAY_S  # round 2 was seated after its spectators
        taken = next(r for r in director.log.records if type(r) is TableFinished and r.table == table_id)
        assert taken.time + director._t0 >= shown  # ... saw its end


@pytest.mark.parametrize("delay", [{"spectator_delay_ms": 0}, {"spectator_delay_entries": 3}])
async def test_without_a_delay_in_time_a_tables_result_is_taken_as_its_game_ends(nursery, autojump_clock, delay):
    lobby = Lobby(nursery, None, "never")
    hub = TournamentHub(nursery, lobby, None)
    lobby.tournaments = hub
    director, secret = await hub.create(cup(**delay))
    director.log = ListLog(director.state.created)
    for name in ("Ana", "Ben"):
        await director.register(name)
    await director.start(secret, False)
    table = next(iter(director.tables.values()))
    await table.over.wait()
    ended = trio.current_time()
    with trio.fail_after(600):
        await director.over.wait()
    assert trio.current_time() - ended < 0.01  # no wait added


async def delayed_cup_on_two_nodes(nursery, presence: LocalPresence, tmp_path: Path) -> tuple:
    """Two nodes of one ``presence``, a delayed cup of four on the first, started, and watched by an outsider:
    (the first node, the second, the director, the outsider, the cup's table the second node runs)."""
    home = await start_node(nursery, presence, tmp_path / "home")
    other = await start_node(nursery, presence, tmp_path / "other")
    await beats(home, other, home)
    director, secret = await home.lobby.tournaments.create(cup(spectator_delay_ms=DELAY_S * 1000))
    for index in range(4):
        await director.register(f"player {index + 1}")
    outsider = Timed()
    director.watch(outsider, "", None)
    await director.start(secret, next_round=False)
    [away] = set(director.state.tables) & set(other.lobby.tables)
    return home, other, director, outsider, other.lobby.tables[away]


async def test_a_table_on_another_node_has_its_result_written_only_once_its_spectators_saw_its_end(
        autojump_clock, tmp_path, monkeypatch):
    """The wait is where the table is: the node that runs it writes its result for the director no sooner."""
    from server.tournament import remote
    from server.tournament.remote import tourney_key

    monkeypatch.setattr(remote, "ANSWER_WAIT", 3600.0)  # (virtual time races ahead while a node opens files)
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home, other, director, outsider, table = await delayed_cup_on_two_nodes(nursery, presence, tmp_path)
        away = table.id
        spectator = Timed()
        await table.submit(intents.Watch(spectator, Watch(table=away)))
        with trio.fail_after(600):
            await table.over.wait()
        await trio.sleep(DELAY_S / 2)
        assert f"result:{away}" not in await presence.hgetall(tourney_key(director.id))
        assert away not in director.state.results and not any(shows_end(m) for m in spectator.messages)
        with trio.fail_after(600):
            await director.over.wait()
        shown = spectator.first(shows_end)
        told = outsider.first(lambda m: places_of(m, away) is not None)
        assert shown is not None and told is not None and told >= shown
        for node in (home, other):
            await node.shutdown()


async def test_a_table_whose_end_was_not_shown_when_the_server_stopped_gives_its_result_once_its_delay_passed(
        autojump_clock, tmp_path):
    """Stopped (or killed) between a table's end and its being shown, the server does not reopen the finished
    table; it keeps its end hidden until its delay has passed since the end (``heldends``), and the tournament
    takes its result then, not at the start: nothing is logged on the way down, and the standings never show
    what the lobby still hides."""
    async with trio.open_nursery() as nursery:
        running = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path, durability="never"))
        director, secret = await running.lobby.tournaments.create(cup(spectator_delay_ms=DELAY_S * 1000))
        for name in ("Ana", "Ben"):
            await director.register(name)
        await director.start(secret, False)
        table = next(iter(director.tables.values()))
        with trio.fail_after(600):
            await table.over.wait()
        ended = trio.current_time()
        await trio.sleep(1)
        await running.shutdown()
        assert director.state.results == {}  # not taken before its end was shown, nor on the way down
        running = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path, durability="never"))
        director = running.lobby.tournaments.find(director.id)
        with trio.fail_after(600):
            while table.id not in director.state.results:
                await trio.sleep(0.1)
        assert trio.current_time() - ended >= DELAY_S - 0.1  # (the wall clock reads the end's time: a hair off)
        with trio.fail_after(600):
            await director.over.wait()
        await running.shutdown()


async def test_an_arena_seats_a_tables_players_again_once_its_spectators_saw_its_end(nursery, autojump_clock,
                                                                                    tmp_path):
    director, secret = await delayed_director(nursery, rounds=None, format="arena", arena_ms=60_000)
    over_at: dict[str, float] = {}

    async def note_ends() -> None:
        while True:
            for table in director.tables.values():
                if table.over.is_set():
                    over_at.setdefault(table.id, trio.current_time())
            await trio.sleep(0.05)

    nursery.start_soon(note_ends)
    await director.start(secret, False)
    with trio.fail_after(3600):
        await director.over.wait()
    taken = [r for r in director.log.records if type(r) is TableFinished]
    assert len(taken) >= 4  # (several tables each)
    for record in taken:
        assert record.time + director._t0 >= over_at[record.table] + DELAY_S - 0.1
    seated = [r for r in director.log.records if type(r) is RoundSeated]
    for record in seated[1:]:  # every later table seats players freed by a result, a delay after its end
        assert record.time + director._t0 >= min(over_at.values()) + DELAY_S - 0.1
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


async def test_a_node_restarted_after_its_delayed_table_ended_hands_its_result_over_only_once_its_delay_passed(
        autojump_clock, tmp_path, monkeypatch):
    """The node that ran a delayed table, stopped between the table's end and its being shown, writes nothing on
    the way down; started again, it finds the table ended in its log and hands its result to the director only
    once its delay has passed since the end, as a single server takes it (``heldends.until_shown``)."""
    from server.tournament import remote
    from server.tournament.remote import tourney_key

    monkeypatch.setattr(remote, "ANSWER_WAIT", 3600.0)  # (virtual time races ahead while a node opens files)
    presence = LocalPresence()
    async with trio.open_nursery() as nursery:
        home, other, director, outsider, table = await delayed_cup_on_two_nodes(nursery, presence, tmp_path)
        away = table.id
        with trio.fail_after(600):
            await table.over.wait()
        ended = trio.current_time()
        await trio.sleep(1)
        await other.shutdown()
        assert f"result:{away}" not in await presence.hgetall(tourney_key(director.id))  # none on the way down
        other = await start_node(nursery, presence, tmp_path / "other")
        with trio.fail_after(600):
            await director.over.wait()
        told = outsider.first(lambda m: places_of(m, away) is not None)
        assert told is not None and told >= ended + DELAY_S - 0.1  # (the wall clock reads the end's time)
        for node in (home, other):
            await node.shutdown()
