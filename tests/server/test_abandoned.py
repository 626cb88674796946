"""A started table its people left to the server's bots ends by itself (``serve --abandoned-after``): its log ends
``abandoned`` and reads back through replay and verify, its spectators and a player who comes back are told, it
is a finished table like any other (held, then listed by its summary) and leaves room under the table cap. A
player back (or a newcomer in a freed seat) before the limit keeps it going; tournament tables, the demo's, tables
of bots alone and a limit of 0 are never ended this way. All in virtual time, exact to the second."""

from __future__ import annotations

import math

import msgspec
import trio

from clients.cli import main
from server import lobby as lobby_module
from server.lobby import Lobby
from server.logs.finished import marker_path
from server.logs.logfile import read_log
from server.logs.replay import check_log
from server.protocol import Act, BotSeat, CreateTable, Resume, Seated, Snapshot, TableEnded, TakeSeat, Update, Watch
from server.quotas import Owner, Quotas
from server.table import Reservation, Table, intents, token_hash

from .helpers import Sink, settle

LIMIT = 900.0
LOCKSTEP = CreateTable(game="flag_finish", mode="lockstep", seats=3, bots=[BotSeat(1), BotSeat(2)],
                       options={"races": 3})  # the bots wait for seat 0's turn for ever
CHALLENGE = CreateTable(game="flag_finish", mode="challenge", seats=3, bots=[BotSeat(1), BotSeat(2, "random")],
                        bot_delay_ms=60_000, options={"races": 50})  # everyone at once: the bots play on, slowly
ME = Owner("10.0.0.1", 1)


async def passes(clock, seconds: float) -> None:
    """Let ``seconds`` of virtual time pass with every timer falling due in it (with a data directory: no thread
    may run meanwhile, or the jumping clock would seem to wait for it for ever)."""
    clock.autojump_threshold = 0
    await trio.sleep(seconds)
    clock.autojump_threshold = math.inf


async def sit(table: Table, seat: int = 0) -> tuple[Sink, str]:
    """A person takes ``seat``: their connection and their seat's token."""
    person = Sink()
    await table.submit(intents.TakeSeat(person, TakeSeat(table=table.id, seat=seat)))
    await settle()
    return person, person.of(Seated)[-1].token


async def leave(table: Table, person: Sink) -> float:
    """``person``'s connection is gone; the time it went."""
    await table.submit(intents.Disconnect(person))
    await settle()
    return trio.current_time()


async def play_a_move(table: Table, person: Sink, seat: int = 0) -> None:
    """``person`` makes one legal move once it is their turn (the bots move at once: bot_delay_ms 0)."""
    await settle()
    last = next(m for m in reversed(person.messages) if type(m) in (Update, Snapshot) and m.legal is not None)
    assert seat in last.to_act and last.legal, "the bots play to the human's turn, then wait"
    before = table.log.seq
    await table.submit(intents.Act(person, Act(table=table.id, action=last.legal[0], id="mine")))
    await settle()
    assert any(e.actor == seat and e.accepted for e in table.log.entries[before:])


async def ended_at(table: Table) -> float:
    """When ``table`` ends (autojump_clock: a table that never ends fails the test in virtual time)."""
    with trio.fail_after(10 * LIMIT):
        await table.over.wait()
    return trio.current_time()


async def test_a_table_left_to_its_bots_ends_abandoned_reads_back_and_leaves_room(tmp_path, mock_clock,
                                                                                    monkeypatch, capsys):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(abandoned_after=LIMIT, keep_finished=300))
        table = await lobby.create(LOCKSTEP, owner=ME)
        person, _ = await sit(table)
        assert table.started
        await play_a_move(table, person)
        watcher = Sink()
        await table.submit(intents.Watch(watcher, Watch(table=table.id)))
        await settle()
        await leave(table, person)
        await passes(mock_clock, LIMIT - 1)
        assert not table.over.is_set(), "not a second early"
        await passes(mock_clock, 2)
        assert table.over.is_set()
        places = list(table.game.standing(table.session.state))
        ended = watcher.of(TableEnded)
        assert [(m.reason, m.places) for m in ended] == [("abandoned", places)]
        assert table.halted == ("abandoned", places) and table.info().status == "over"
        refused = Sink()  # nothing is taken after its end
        await table.submit(intents.Act(refused, Act(table=table.id, action={"type": "draw"}, id=1)))
        await settle()
        await table.marked.wait()  # its end on disk, its .done marker written, its file closed
        assert table.store.file.closed and marker_path(table.store.path).exists()
        end = read_log(table.store.path).end
        assert (end.reason, end.places, end.scores) == ("abandoned", places, None)
        report = check_log(table.store.path)
        assert report.ok and report.ended and report.halted == "abandoned", report.problem
        assert f"ended as it stood (no player was connected for serve --abandoned-after seconds): places {places}" \
            in report.summary()
        capsys.readouterr()
        assert main(["replay", str(table.store.path)]) == 0, capsys.readouterr().out
        assert main(["verify", str(table.store.path)]) == 0, capsys.readouterr().out

        await settle()
        assert table.id in lobby.tables and table.id in lobby.finished  # held, watchable, as any finished table
        monkeypatch.setattr(lobby_module, "MAX_TABLES", len(lobby.tables))  # the server is full...
        other = await lobby.create(LOCKSTEP, owner=Owner("10.0.0.2", 2))  # ... but an abandoned table makes room
        assert table.id not in lobby.tables and other.id in lobby.tables
        [summary] = [i for i in lobby.list() if i.table == table.id]  # listed as it ended, its log replayable
        assert summary.status == "over" and summary.revealed_seed == str(table.seed)
        nursery.cancel_scope.cancel()


async def test_an_abandoned_table_leaves_memory_after_keep_finished_and_stays_listed(nursery, autojump_clock):
    lobby = Lobby(nursery, quotas=Quotas(abandoned_after=LIMIT, keep_finished=300))
    table = await lobby.create(LOCKSTEP, owner=ME)
    person, _ = await sit(table)
    left = await leave(table, person)
    assert await ended_at(table) - left == LIMIT
    await trio.sleep(299)
    assert table.id in lobby.tables
    await trio.sleep(2)
    assert table.id not in lobby.tables and table.id in lobby.summaries  # unlike an expired table: it was played
    assert lobby.summaries[table.id].status == "over"


async def test_a_player_back_before_the_limit_keeps_the_table_and_the_clock_starts_again(nursery, autojump_clock):
    lobby = Lobby(nursery, quotas=Quotas(abandoned_after=LIMIT))
    table = await lobby.create(msgspec.structs.replace(LOCKSTEP, grace_ms=3_600_000), owner=ME)
    person, token = await sit(table)
    await leave(table, person)
    await trio.sleep(LIMIT - 10)
    back = Sink()
    await table.submit(intents.Resume(back, Resume(table=table.id, token=token)))
    await settle()
    assert back.of(Seated) and table.slots[0].state == "taken"
    await trio.sleep(3 * LIMIT)  # connected all along: however long it takes
    assert not table.over.is_set()
    await play_a_move(table, back)
    left = await leave(table, back)
    assert await ended_at(table) - left == LIMIT  # counted from the last time a player went, not the first
    assert table.halted[0] == "abandoned"
    again = Sink()  # the player comes back to their seat after the end (its grace still runs): told it ended
    await table.submit(intents.Resume(again, Resume(table=table.id, token=token)))
    await settle()
    assert [m.reason for m in again.of(TableEnded)] == ["abandoned"]
    kinds = [type(m) for m in again.messages]
    assert kinds.index(TableEnded) > kinds.index(Snapshot)  # after the view that still offers moves
    late = Sink()  # and so is a spectator who comes after it
    await table.submit(intents.Watch(late, Watch(table=table.id)))
    await settle()
    assert [m.reason for m in late.of(TableEnded)] == ["abandoned"]


async def test_a_newcomer_in_a_freed_seat_keeps_the_table_going(nursery, autojump_clock):
    lobby = Lobby(nursery, quotas=Quotas(abandoned_after=LIMIT))
    table = await lobby.create(LOCKSTEP, owner=ME)  # grace 60 s: the seat is freed long before the limit
    person, _ = await sit(table)
    await leave(table, person)
    await trio.sleep(LIMIT - 100)
    assert table.slots[0].state == "free" and not table.over.is_set()
    newcomer, _ = await sit(table)
    await trio.sleep(LIMIT)
    assert not table.over.is_set()
    left = await leave(table, newcomer)
    assert await ended_at(table) - left == LIMIT


async def test_a_challenge_table_whose_bots_play_on_ends_abandoned_too(tmp_path, mock_clock, capsys):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(abandoned_after=LIMIT))
        table = await lobby.create(CHALLENGE, owner=ME)
        person, _ = await sit(table)
        await leave(table, person)
        played = table.log.seq
        await passes(mock_clock, LIMIT - 1)
        assert not table.over.is_set() and table.log.seq > played  # the bots play on without anyone
        await passes(mock_clock, 2)
        assert table.halted is not None and table.halted[0] == "abandoned"
        await table.marked.wait()
        report = check_log(table.store.path)
        assert report.ok and report.halted == "abandoned", report.problem
        capsys.readouterr()
        assert main(["verify", str(table.store.path)]) == 0, capsys.readouterr().out
        nursery.cancel_scope.cancel()


async def test_a_table_reopened_after_a_restart_with_nobody_back_ends_abandoned(tmp_path, mock_clock):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(abandoned_after=LIMIT))
        table = await lobby.create(LOCKSTEP, owner=ME)
        person, _ = await sit(table)
        await play_a_move(table, person)
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        again = Lobby(nursery, tmp_path, "never", Quotas(abandoned_after=LIMIT))
        assert await again.recover() == [table.id]
        reopened = again.find(table.id)
        await passes(mock_clock, LIMIT - 1)  # counted from the restart: nobody could come back while it was down
        assert not reopened.over.is_set()
        await passes(mock_clock, 2)
        assert reopened.halted is not None and reopened.halted[0] == "abandoned"
        await reopened.marked.wait()
        assert read_log(table.store.path).end.reason == "abandoned" and check_log(table.store.path).ok
        nursery.cancel_scope.cancel()


async def test_tournament_demo_and_bot_tables_and_a_limit_of_0_are_never_ended_abandoned(nursery, autojump_clock):
    lobby = Lobby(nursery, quotas=Quotas(abandoned_after=LIMIT))
    kept = await lobby.create(LOCKSTEP, alias="open")  # the demo's: the app keeps it, and replaces it once over
    tournament = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2, options={"races": 3}),
                                    reserved=[Reservation(0, "ana", token_hash("ana")),
                                              Reservation(1, "bo", token_hash("bo"))],
                                    tags={"tournament": "T1", "round": 1})  # its round's clock ends it
    bots = await lobby.create(msgspec.structs.replace(LOCKSTEP, bots=[BotSeat(0), BotSeat(1), BotSeat(2)],
                                                      bot_delay_ms=60_000, options={"races": 50}), owner=ME)
    never = Lobby(nursery, quotas=Quotas(abandoned_after=0))
    unlimited = await never.create(LOCKSTEP, owner=ME)
    for table in (kept, unlimited):
        person, _ = await sit(table)
        await leave(table, person)
    person = Sink()
    await tournament.submit(intents.Resume(person, Resume(table=tournament.id, token="ana")))
    await settle()
    await leave(tournament, person)
    await trio.sleep(10 * LIMIT)
    for table in (kept, tournament, bots, unlimited):
        assert table.halted is None and not table.over.is_set(), table.id
    assert bots.log.seq > 10  # its bots play it (slowly) to its end: it counts against its creator meanwhile
