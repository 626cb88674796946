"""What one client may hold of a server, and for how long (issue 29): waiting tables per connection and per
address, tables nobody sat at expiring (and not reopened after a restart), playbacks counted and closed when
nobody watches, refused junk kept as a digest, a chosen seed only at a practice table and shown to everyone,
and finished tables closing their logs at once and leaving memory while their summaries stay listed."""

from __future__ import annotations

import gc
import math
import os
from pathlib import Path

import msgspec
import pytest
import trio
import trio.testing

from clients.cli import main
from server.protocol import Refusal
from server import lobby as lobby_module
from server.logs.finished import marker_path
from server.lobby import Lobby
from server.logs.logfile import read_log
from server.protocol import Act, BotSeat, CreateTable, Leave, Rejected, TableEnded, TakeSeat, Watch
from server.quotas import Owner, Quotas
from server.logs.replay import check_log
from server.table import Table, intents

from .helpers import Sink, settle

WAITING = CreateTable(game="flag_finish", mode="lockstep", seats=2)
BOTS = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                   bots=[BotSeat(0), BotSeat(1, "random")])
LONG_BOTS = CreateTable(game="flag_finish", mode="lockstep", seats=2, options={"races": 50},
                        bots=[BotSeat(0), BotSeat(1)], bot_delay_ms=60_000)  # hours of play, watched by nobody
HELD = "tables waiting for players, played by server bots alone or kept behind a broadcast delay"


def fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


async def refused(coro) -> Refusal:
    with pytest.raises(Refusal) as caught:
        await coro
    return caught.value


async def passes(clock, seconds: float) -> None:
    """Let ``seconds`` of virtual time pass with every timer falling due in it (no thread may run meanwhile:
    the clock jumps whenever all tasks wait, and a thread's work would seem to take for ever)."""
    clock.autojump_threshold = 0
    await trio.sleep(seconds)
    clock.autojump_threshold = math.inf


async def test_waiting_tables_are_limited_per_connection_and_per_address(nursery):
    lobby = Lobby(nursery, quotas=Quotas(waiting_per_connection=2, waiting_per_address=3))
    first, second, elsewhere = Owner("10.0.0.1", 1), Owner("10.0.0.1", 2), Owner("10.0.0.2", 3)
    mine = [await lobby.create(WAITING, owner=first) for _ in range(2)]
    error = await refused(lobby.create(WAITING, owner=first))
    assert error.code == "too_many_waiting" and "--waiting-per-connection 2" in error.message
    await lobby.create(WAITING, owner=second)  # the address's third
    error = await refused(lobby.create(WAITING, owner=second))
    assert error.code == "too_many_waiting" and "--waiting-per-address 3" in error.message
    await lobby.create(WAITING, owner=elsewhere)  # another address is not held back
    await lobby.create(WAITING)  # a tournament's table (no owner) is never counted
    for seat in range(2):  # once a table fills it no longer waits: its creator may open another
        await mine[0].submit(intents.TakeSeat(Sink(), TakeSeat(table=mine[0].id, seat=seat)))
    await settle()
    assert mine[0].started
    await lobby.create(WAITING, owner=first)
    assert (await refused(lobby.create(WAITING, owner=first))).code == "too_many_waiting"


async def test_tables_played_by_server_bots_alone_count_like_waiting_ones_until_they_are_over(nursery):
    """A table whose every seat is a server bot starts at once, so it never waits; it counts against the
    connection and address that opened it until its game is over, or one client could fill the server's
    2,000 tables with games nobody plays (and a tournament's round could not open)."""
    lobby = Lobby(nursery, quotas=Quotas(waiting_per_connection=2, waiting_per_address=3))
    first, second, elsewhere = Owner("10.0.0.1", 1), Owner("10.0.0.1", 2), Owner("10.0.0.2", 3)
    mine = [await lobby.create(LONG_BOTS, owner=first) for _ in range(2)]
    assert all(table.started for table in mine)
    error = await refused(lobby.create(LONG_BOTS, owner=first))
    assert (error.code, error.message) == ("too_many_waiting", f"this connection has 2 {HELD}, the most it may "
                                           "(serve --waiting-per-connection 2): sit at one, or let one fill or end first")
    await lobby.create(WAITING, owner=second)  # a waiting table and all-bot ones share the count
    error = await refused(lobby.create(LONG_BOTS, owner=second))
    assert (error.code, error.message) == ("too_many_waiting", f"your address has 3 {HELD}, the most it may "
                                           "(serve --waiting-per-address 3)")
    await lobby.create(LONG_BOTS, owner=elsewhere)  # another address is not held back
    await lobby.create(LONG_BOTS)  # a tournament's table (no owner) is never counted
    await mine[0].halt("time_limit")
    await mine[0].over.wait()
    assert mine[0].id in lobby.tables and mine[0].id in lobby.owners  # still held, watchable: but over is over
    await lobby.create(LONG_BOTS, owner=first)
    assert (await refused(lobby.create(LONG_BOTS, owner=first))).code == "too_many_waiting"


async def test_a_table_behind_a_broadcast_delay_counts_from_its_creation_until_its_end_is_shown(nursery,
                                                                                                autojump_clock):
    """A finished table is never let go before its spectators were shown its end (so its end stays hidden), so
    such tables count against whoever opened them, or one client playing fast games behind an hour's delay
    could fill the server's tables for an hour; from the start, so the count never tells the creator the end."""
    lobby = Lobby(nursery, quotas=Quotas(waiting_per_connection=1, waiting_per_address=1))
    first = Owner("10.0.0.1", 1)
    delayed = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                          bots=[BotSeat(1)], spectator_delay_ms=60_000)
    table = await lobby.create(delayed, owner=first)
    await table.submit(intents.TakeSeat(Sink(), TakeSeat(table=table.id, seat=0)))
    await settle()
    assert table.started  # a person plays it: a table like this one used to count against nobody
    assert (await refused(lobby.create(WAITING, owner=first))).code == "too_many_waiting"
    await table.halt("time_limit")
    await table.over.wait()
    assert not table.end_shown()
    assert (await refused(lobby.create(WAITING, owner=first))).code == "too_many_waiting"  # the same as before
    await trio.sleep(61)
    assert table.end_shown()
    await lobby.create(WAITING, owner=first)


async def test_a_table_nobody_sat_at_expires_and_its_log_ends_expired(tmp_path, mock_clock):
    async with trio.open_nursery() as nursery:  # time passes only when the test says (seeds are written in threads)
        lobby = Lobby(nursery, tmp_path, "never", Quotas(waiting_expiry=600))
        lonely = await lobby.create(WAITING, owner=Owner("10.0.0.1", 1))
        sat = await lobby.create(WAITING, owner=Owner("10.0.0.1", 1))
        kept = await lobby.create(WAITING, alias="open")  # the demo's open table waits for ever
        watcher = Sink()
        await lonely.submit(intents.Watch(watcher, Watch(table=lonely.id)))
        await sat.submit(intents.TakeSeat(Sink(), TakeSeat(table=sat.id, seat=0)))
        await settle()
        await passes(mock_clock, 599)
        assert not lonely.stopped.is_set()
        await passes(mock_clock, 2)
        assert lonely.stopped.is_set()
        assert lonely.id not in lobby.tables and lonely.id not in lobby.owners
        assert set(lobby.tables) == {sat.id, kept.id}
        assert lonely.store.file.closed
        assert watcher.of(TableEnded)[-1].reason == "expired"
        read = read_log(lonely.store.path)
        assert read.end.reason == "expired" and marker_path(lonely.store.path).exists()
        report = check_log(lonely.store.path)
        assert report.ok and report.expired, report.problem
        assert "expired: nobody sat at the table" in report.summary()
        await passes(mock_clock, 3600)
        assert set(lobby.tables) == {sat.id, kept.id}  # a seat held, or an alias: never expires
        nursery.cancel_scope.cancel()


async def test_a_waiting_table_its_players_all_left_expires_as_one_nobody_sat_at(tmp_path, mock_clock):
    """A red team sat at sixteen tables and left each: they waited for ever, holding the address's sixteen
    places (too_many_waiting for good) and the server's. The expiry runs from when the last player left."""
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(waiting_expiry=600, waiting_per_address=1))
        owner = Owner("10.0.0.1", 1)
        table = await lobby.create(WAITING, owner=owner)
        person = Sink()
        await table.submit(intents.TakeSeat(person, TakeSeat(table=table.id, seat=0)))
        await settle()
        await passes(mock_clock, 700)
        assert not table.stopped.is_set()  # someone sits there: it waits
        await table.submit(intents.Leave(person, Leave(table=table.id)))
        await settle()
        assert (await refused(lobby.create(WAITING, owner=owner))).code == "too_many_waiting"
        await passes(mock_clock, 599)
        assert not table.stopped.is_set()
        await passes(mock_clock, 2)
        assert table.stopped.is_set() and read_log(table.store.path).end.reason == "expired"
        await lobby.create(WAITING, owner=owner)  # the address's place is free again
        nursery.cancel_scope.cancel()


async def test_after_a_restart_a_table_nobody_sat_at_is_ended_not_reopened(tmp_path, capsys):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never")
        lonely = await lobby.create(WAITING, owner=Owner("10.0.0.1", 1))
        sat = await lobby.create(WAITING, owner=Owner("10.0.0.1", 1))
        kept = await lobby.create(WAITING, alias="open")
        await sat.submit(intents.TakeSeat(Sink(), TakeSeat(table=sat.id, seat=0)))
        await settle()
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        again = Lobby(nursery, tmp_path, "never")
        assert sorted(await again.recover()) == sorted([sat.id, kept.id])
        assert again.aliases == {"open": kept.id}
        assert again.find("open").info().alias == "open", "listed under its alias again (a page opens it by it)"
        assert kept.info().alias == "open" and again.find(sat.id).info().alias is None
        await again.stop_all()
        nursery.cancel_scope.cancel()
    assert f"not reopening {lonely.id}: nobody ever sat at it" in capsys.readouterr().out
    assert read_log(lonely.store.path).end.reason == "expired"
    assert check_log(lonely.store.path).ok and marker_path(lonely.store.path).exists()
    assert main(["replay", str(lonely.store.path)]) == 0


async def test_an_alias_given_to_a_new_table_is_listed_for_it_alone(tmp_path):
    """A kept table's next game (the demo's) takes its alias: the list names it there only, so a page watching the
    alias finds the new table, not the finished one still listed beside it."""
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never")
        old = await lobby.create(WAITING, alias="demo")
        new = await lobby.create(WAITING, alias="demo")
        assert lobby.find("demo") is new
        assert [t.table for t in lobby.list() if t.alias == "demo"] == [new.id]
        assert old.info().alias is None
        await lobby.stop_all()
        nursery.cancel_scope.cancel()


async def finished_logs(folder: Path, count: int, request: CreateTable = BOTS) -> list[str]:
    """``count`` finished bot games logged in ``folder`` (the server stopped after them)."""
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, folder, "never")
        ids = []
        for _ in range(count):
            table = await lobby.create(request)
            await table.over.wait()
            await table.marked.wait()
            ids.append(table.id)
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    return ids


async def test_playbacks_are_limited_per_address_counted_and_closed_when_unwatched(tmp_path, mock_clock,
                                                                                    monkeypatch):
    mock_clock.autojump_threshold = 0  # the bots' games run on virtual time
    [log] = await finished_logs(tmp_path, 1, msgspec.structs.replace(BOTS, bot_delay_ms=1000))  # a second a move
    mock_clock.autojump_threshold = math.inf  # from here time passes when the test says: logs are checked in
    async with trio.open_nursery() as nursery:  # threads, which an autojumping clock would jump across
        lobby = Lobby(nursery, tmp_path, "never", Quotas(playbacks_per_address=2))
        me = Owner("10.0.0.1", 1)
        watched = await lobby.open_playback(log, speed=1.0, owner=me)
        unwatched = await lobby.open_playback(log, speed=0.01, owner=Owner("10.0.0.1", 2))
        error = await refused(lobby.open_playback(log, owner=me))
        assert error.code == "too_many_playbacks" and "--playbacks-per-address 2" in error.message
        monkeypatch.setattr(lobby_module, "MAX_TABLES", len(lobby.tables))  # playbacks count in the table cap
        assert (await refused(lobby.open_playback(log, owner=Owner("10.0.0.8", 4)))).code == "too_many_tables"
        assert (await refused(lobby.create(WAITING))).code == "too_many_tables"
        monkeypatch.setattr(lobby_module, "MAX_TABLES", 2000)
        other = await lobby.open_playback(log, speed=10_000, owner=Owner("10.0.0.9", 3))
        watcher = Sink()
        await watched.submit(intents.Watch(watcher, Watch(table=watched.id)))
        await passes(mock_clock, 30)
        assert other.id not in lobby.tables  # played to its end, nobody watching: closed within seconds
        assert {watched.id, unwatched.id} <= set(lobby.tables)
        await passes(mock_clock, 35)
        assert unwatched.id not in lobby.tables  # still playing, but nobody has watched it for a minute
        for _ in range(60):
            if watched.played_out:
                break
            await passes(mock_clock, 60)
        await passes(mock_clock, 30)
        assert watched.played_out and watched.id in lobby.tables  # played out, but watched: kept
        await watched.submit(intents.Leave(watcher, Watch(table=watched.id)))
        await passes(mock_clock, 10)
        assert watched.id not in lobby.tables and lobby.owners == {}
        await lobby.open_playback(log, owner=me)  # the address's share is free again
        nursery.cancel_scope.cancel()


async def test_refused_junk_actions_are_kept_as_a_digest_in_memory_and_in_the_log(tmp_path, autojump_clock, capsys):
    junk = {"type": "junk", "padding": "x" * 60 * 1024}
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never")
        table = await lobby.create(WAITING)
        me, you = Sink(), Sink()
        for seat, sink in enumerate((me, you)):
            await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat)))
        await settle()
        size = table.store.path.stat().st_size
        for n in range(50):
            await table.submit(intents.Act(me, Act(table=table.id, action=junk, id=n)))
        await settle()
        assert len(me.of(Rejected)) == 50
        grown = table.store.path.stat().st_size - size
        assert grown <= 50 * 400, f"{grown} bytes for 50 refusals"
        refusals = [e for e in table.log.entries if not e.accepted]
        assert len(refusals) == 50
        for entry in refusals:
            assert entry.code == "bad_action"
            assert len(msgspec.json.encode(entry.action)) < 200
            assert entry.action["bytes"] > 60 * 1024 and len(entry.action["digest"]) == 64
        small = {"type": "junk"}
        await table.submit(intents.Act(me, Act(table=table.id, action=small, id="small")))
        await settle()
        assert table.log.entries[-1].action == small  # a small refused action is kept as it was
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    report = check_log(table.store.path)
    assert report.ok and report.refused == 51, report.problem
    capsys.readouterr()
    assert main(["replay", str(table.store.path), "--allow-unfinished", "--seat", "1"]) == 0
    said = capsys.readouterr().out
    assert f"refused an action of {len(msgspec.json.encode(junk))} bytes (kept as its sha256" in said


async def test_a_chosen_seed_is_for_practice_tables_and_everyone_is_shown_it(tmp_path, nursery, capsys):
    lobby = Lobby(nursery, tmp_path, "never")
    error = await refused(lobby.create(CreateTable(game="flag_finish", seats=2, seed=42)))
    assert error.code == "bad_seed" and "practice" in error.message
    table = await lobby.create(CreateTable(game="flag_finish", seats=2, seed=42, practice=True))
    info = table.info()
    assert info.practice and info.seed == 42
    assert lobby.list()[0].seed == 42
    header = read_log(table.store.path).header
    assert header.table_options["chosen_seed"] == 42 and header.table_options["practice"] is True
    drawn = await lobby.create(CreateTable(game="flag_finish", seats=2))
    assert drawn.info().seed is None and not drawn.info().practice
    assert "chosen_seed" not in read_log(drawn.store.path).header.table_options
    await lobby.stop_all()
    assert "its creator chose the seed (42)" in check_log(table.store.path).summary()
    assert "chose the seed" not in check_log(drawn.store.path).summary()


async def test_a_finished_table_closes_its_log_at_once_and_leaves_memory_later(tmp_path, autojump_clock):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(keep_finished=300))
        table = await lobby.create(BOTS)
        await table.over.wait()
        await table.marked.wait()
        assert table.store.file.closed and table.id in lobby.tables  # watchable still, its file closed
        late = Sink()
        await table.submit(intents.Watch(late, Watch(table=table.id)))
        await settle()
        assert late.messages, "a finished table is still watched from memory"
        ended = table.info()
        await trio.sleep(301)
        assert table.id not in lobby.tables and table.stopped.is_set()
        assert lobby.list() == [msgspec.structs.replace(ended, spectators=ended.spectators + 1)] or \
            [i.table for i in lobby.list()] == [table.id]
        assert lobby.list()[0].status == "over"
        error = None
        try:
            lobby.find(table.id)
        except Refusal as caught:
            error = caught
        assert error is not None and error.code == "table_over" and "open_playback" in error.message
        playback = await lobby.open_playback(table.id, speed=10_000)  # its log is still on disk
        assert playback.read_only
        nursery.cancel_scope.cancel()


async def test_no_more_finished_tables_are_held_than_the_bound(tmp_path, autojump_clock):
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(keep_finished=math.inf, finished_most=3, summaries_most=5))
        for _ in range(10):
            table = await lobby.create(BOTS)
            await table.marked.wait()
            await settle()
        assert len(lobby.tables) == 3 and len(lobby.finished) == 3
        assert len(lobby.summaries) == 5
        assert len(lobby.list()) == len(lobby.tables) + 5
        nursery.cancel_scope.cancel()


async def test_soak_of_sixty_games_holds_file_descriptors_and_tables_bounded(tmp_path, autojump_clock):
    """File descriptors follow live tables, never history: 60 bot games in one lobby (six times the finished
    tables kept, more than twice the summaries kept; a descriptor leaked a game shows within 9 games) leave the
    process with about the descriptors it started with. The long soak is bench/soak_bench.py. (``never``: under ``batch`` the journal's checkpoint opens each log
    again for a moment in worker threads, which a virtual clock can catch mid-way; bench/soak_bench.py runs
    ``batch`` on the real clock.)"""
    games = 60
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(finished_most=10, summaries_most=25))
        await (await lobby.create(BOTS)).marked.wait()
        await settle()
        floor, most_held = fd_count(), 0
        for played in range(games):
            table = await lobby.create(BOTS if played % 2 else CreateTable(
                game="race_to_the_finish", seats=2, bots=[BotSeat(0), BotSeat(1)]))
            await table.over.wait()
            await table.marked.wait()
            most_held = max(most_held, len(lobby.tables))
            assert fd_count() <= floor + 8, f"after {played + 1} games: {fd_count()} open, {floor} at the start"
        assert most_held <= 10 + 2
        assert len(lobby.summaries) == 25
        del table
        gc.collect()  # and a table let go of is gone (no task's frame, no journal's closed log keeps it)
        assert sum(type(o) is Table and o.store is not None and tmp_path in o.store.path.parents  # (this lobby's)
                   for o in gc.get_objects()) <= 10 + 2
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    assert len(list((tmp_path / "tables").glob("t*.log"))) == games + 1


async def test_over_the_wire_each_connection_and_its_address_are_counted(nursery):
    """The gateway names the connection and its peer's address as the owner of what it creates."""
    from clients.client import ServerError, open_client
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server(
        "127.0.0.1", 0, quotas=Quotas(waiting_per_connection=2, waiting_per_address=3), task_status=task_status))
    async with open_client(running.url) as first, open_client(running.url) as second:
        with pytest.raises(ServerError) as error:
            await first.create_table(game="flag_finish", seats=2, seed=5)
        assert error.value.code == "bad_seed" and "practice" in str(error.value)
        practice = await first.create_table(game="flag_finish", seats=2, seed=5, practice=True)
        assert practice.seed == 5 and practice.practice
        for _ in range(1):
            await first.create_table(game="flag_finish", seats=2)
        with pytest.raises(ServerError) as error:
            await first.create_table(game="flag_finish", seats=2)
        assert error.value.code == "too_many_waiting" and "--waiting-per-connection 2" in str(error.value)
        await second.create_table(game="flag_finish", seats=2)
        with pytest.raises(ServerError) as error:
            await second.create_table(game="flag_finish", seats=2)
        assert error.value.code == "too_many_waiting" and "--waiting-per-address 3" in str(error.value)
    assert {o.address for o in running.lobby.owners.values()} == {"127.0.0.1"}
    await running.shutdown()


async def test_over_the_wire_all_bot_tables_and_their_rematches_are_counted_at_the_default_limits(nursery):
    """The red team's flood: one connection asking for tables two slow server bots play is refused at its
    fifth (``serve --waiting-per-connection 4``), its address at its seventeenth (16), and a rematch of a
    finished all-bot table is counted as a create is."""
    from clients.client import ServerError, open_client
    from server.app import run_server
    from server.protocol import Rematch

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    flood = dict(game="flag_finish", mode="lockstep", seats=2, bots=[{"seat": 0}, {"seat": 1}], bot_delay_ms=60_000,
                 options={"races": 50})
    async with open_client(running.url) as done:  # a finished all-bot table (held, but counted no more)
        quick = await done.create_table(game="flag_finish", mode="lockstep", seats=2, options={"races": 1},
                                        bots=[{"seat": 0}, {"seat": 1}])
        with trio.fail_after(30):
            await running.lobby.find(quick.table).over.wait()
        clients = [await nursery.start(_client, running.url) for _ in range(5)]
        for client in clients[:4]:
            for _ in range(4):
                await client.create_table(**flood)
            with pytest.raises(ServerError) as error:
                await client.create_table(**flood)
            assert error.value.code == "too_many_waiting" and "--waiting-per-connection 4" in str(error.value)
        assert [t.status for t in await done.list_tables()].count("playing") == 16
        for ask in (lambda: clients[4].create_table(**flood), lambda: clients[4].request(Rematch(table=quick.table))):
            with pytest.raises(ServerError) as error:  # a new connection from the same address
                await ask()
            assert error.value.code == "too_many_waiting" and f"address has 16 {HELD}" in str(error.value)
        flooded = next(t for t in running.lobby.tables.values() if t.id != quick.table)
        await flooded.halt("time_limit")  # one of them is over: the address may open one more (its rematch here)
        await flooded.over.wait()
        assert (await clients[4].request(Rematch(table=quick.table))).table.seats[0].state == "bot"
    await running.shutdown()


async def _client(url, task_status=trio.TASK_STATUS_IGNORED):
    """A client connection that stays open until the test's nursery ends."""
    from clients.client import open_client
    from server.protocol import OpenPlayback

    async with open_client(url) as client:
        task_status.started(client)
        await trio.sleep_forever()


async def test_a_tournament_never_takes_a_seed_from_a_client(nursery):
    """A tournament's seed decides every seating and lot: a client that could choose it could choose them."""
    from functools import partial

    from clients.client import ServerError, open_client
    from server.app import run_server

    running = await nursery.start(partial(run_server, "127.0.0.1", 0, None))
    async with open_client(running.url) as organiser:
        with pytest.raises(ServerError) as refused:
            await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, seed=7)
        assert refused.value.code == "bad_seed" and "drawn by the server" in str(refused.value)
        assert await organiser.list_tournaments() == []
    running.cancel_scope.cancel()


async def test_playbacks_opened_at_once_by_one_address_are_counted_before_the_next_is_read(tmp_path, mock_clock):
    """red team 8: each playback's log was read in a thread before the address's playbacks were counted, so
    sixteen asked for at once all passed the count (and read a 30 MB log each at the same time)."""
    mock_clock.autojump_threshold = 0  # the bots' games run on virtual time
    [log] = await finished_logs(tmp_path, 1)
    mock_clock.autojump_threshold = math.inf  # logs are read in threads: time passes only when the test says
    results = []
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never", Quotas(playbacks_per_address=2))

        async def one(n: int) -> None:
            try:
                results.append((await lobby.open_playback(log, speed=0.01, owner=Owner("10.0.0.1", n))).id)
            except Refusal as error:
                results.append(error.code)

        async with trio.open_nursery() as asking:
            for n in range(5):
                asking.start_soon(one, n)
        assert sorted(results, key=str)[2:] == ["too_many_playbacks"] * 3 and len(set(results)) == 3
        await lobby.stop_all()
        nursery.cancel_scope.cancel()


async def test_the_gateway_reads_a_playbacks_log_in_the_replay_workers_process(tmp_path, monkeypatch):
    """red team 8: a playback's log was read and checked in a thread of the server's process, holding the
    event loop (the GIL) for a second a 30 MB log: every table's answers took up to 1 s meanwhile. Now it is
    read where a replay's is: here, where reading it fails, the playback opens all the same."""
    from server.app import run_server
    from server.logs import frames, replay
    from clients.client import open_client
    from server.protocol import OpenPlayback

    [log] = await finished_logs(tmp_path, 1)

    def here(*args, **kwargs):
        raise AssertionError("a playback's log was read in the server's process")

    monkeypatch.setattr(replay, "check_log", here)
    monkeypatch.setattr(frames, "check_log", here)
    async with trio.open_nursery() as nursery:
        running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                     task_status=task_status))
        async with open_client(running.url) as client:
            with trio.fail_after(60):
                created = await client.request(OpenPlayback(log=log))
            assert created.table.table.startswith("p")
        nursery.cancel_scope.cancel()
