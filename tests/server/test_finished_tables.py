"""Logs that must not lie: a finished table stays finished after its log loses its tail, replay checks the
revealed seed and says when a log is incomplete, receipts prove which log a player saw, and the demo's
kept tables are reopened under their names instead of doubled at every restart."""

from __future__ import annotations

from pathlib import Path

import msgspec
import trio
import trio.testing

from clients.cli import main
from clients.client import open_client
from server.app import DEMO_ALIAS, OPEN_ALIAS, run_server
from server.logs.finished import marker_path
from server.lobby import Lobby
from server.logs.logfile import End, Entry, encode_log, read_log
from server.protocol import (Accepted, Act, BotSeat, CreateTable, Rejected, Resume, Seated, Snapshot, TakeSeat,
                             Update, Watch)
from server.logs.replay import check_log
from server.table import intents

from .helpers import Sink, settle

BOTS_GAME = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1}, seed=3, practice=True,
                        bots=[BotSeat(0), BotSeat(1, "random")])


async def finished_table(folder: Path, durability: str = "never"):
    """A game of two server bots played to its end on a logged table (in real time: the log's fsyncs run in
    threads, which a virtual clock would jump over), then the server stopped cleanly (under batch its journal
    checkpointed and gone, so a later loss of the log's tail is not written back); and whether it was marked
    finished while it still ran."""
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, folder, durability)
        table = await lobby.create(BOTS_GAME)
        with trio.fail_after(20):
            await table.over.wait()
            await table.marked.wait()  # while the table still runs: a crash from now on keeps the record
        marked_while_running = marker_path(table.store.path).exists()
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    return table, marked_while_running


def cut_before_end(path: Path) -> Path:
    """The same log with its end record (and what follows it) gone, as a damaged disk or a cut copy leaves it."""
    lines = path.read_bytes().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if b'"kind":"end"' in line)
    path.write_bytes(b"".join(lines[:end]) + lines[end][:40])
    return path


async def test_a_finished_table_whose_log_lost_its_end_is_not_reopened_at_restart(tmp_path, capsys):
    table, marked_while_running = await finished_table(tmp_path, "batch")
    assert marked_while_running
    cut_before_end(table.store.path)
    assert read_log(table.store.path).end is None
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "never")
        assert await lobby.recover() == []
        assert lobby.tables == {}
        nursery.cancel_scope.cancel()
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and table.id in said[0] and "finished" in said[0] and "end record" in said[0]
    assert check_log(table.store.path).read.end is None  # left as it was: nothing appended


async def test_replay_of_a_log_without_its_end_says_incomplete_unless_allowed(tmp_path, capsys):
    table, _ = await finished_table(tmp_path)
    log = str(table.store.path)
    assert main(["replay", log]) == 0
    cut_before_end(table.store.path)
    capsys.readouterr()
    assert main(["replay", log]) == 1
    said = capsys.readouterr().out
    assert "INCOMPLETE" in said and f"{table.id}.done says it finished" in said
    assert main(["replay", log, "--allow-unfinished"]) == 0


async def test_a_rewritten_chain_with_a_forged_seed_fails_replay(tmp_path, capsys):
    table, _ = await finished_table(tmp_path)
    read = read_log(table.store.path)
    records = [read.header] + [msgspec.structs.replace(r, seed=r.seed ^ 1) if type(r) is End else r
                               for r in read.records]
    forged = encode_log(records)
    path = tmp_path / "forged.log"
    path.write_bytes(forged)
    report = check_log(path)
    assert not report.ok and "commitment" in report.problem
    assert main(["replay", str(path)]) == 1


async def test_a_log_rewritten_beside_its_done_marker_fails_replay_even_where_the_states_still_rebuild(tmp_path,
                                                                                                      capsys):
    """A time or a name edited in the data directory, every hash after it recomputed: the states still rebuild,
    but the end line is no longer the one the server recorded when the table finished."""
    table, _ = await finished_table(tmp_path)
    path = table.store.path
    read = read_log(path)
    first = next(i for i, r in enumerate(read.records) if type(r) is Entry and r.actor >= 0)
    records = [read.header] + [msgspec.structs.replace(r, time=r.time + 0.5) if i == first else r
                               for i, r in enumerate(read.records)]
    forged = encode_log(records)
    copy = tmp_path / "copy.log"
    copy.write_bytes(forged)
    assert check_log(copy).ok, "away from its marker, only a player's receipt can tell"
    path.write_bytes(forged)
    report = check_log(path)
    assert not report.ok and f"{table.id}.done" in report.problem and "rewritten" in report.problem
    assert main(["replay", str(path)]) == 1


async def test_accepted_and_updates_carry_receipts_that_verify_against_the_log(tmp_path, nursery, autojump_clock,
                                                                               capsys):
    lobby = Lobby(nursery, tmp_path, "never")
    table = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2, bots=[BotSeat(1)]))
    me = Sink()
    await table.submit(intents.TakeSeat(me, TakeSeat(table=table.id, seat=0)))
    await settle()
    await table.submit(intents.Act(me, Act(table=table.id, action={"type": "take", "card": "nope"}, id="bad")))
    legal = next(m for m in reversed(me.messages) if getattr(m, "legal", None)).legal
    await table.submit(intents.Act(me, Act(table=table.id, action=legal[0], id="good")))
    await settle()
    receipts = read_log(table.store.path).receipts()
    accepted, updates = me.of(Accepted)[0], me.of(Update)
    assert me.of(Rejected)[0].seq == accepted.seq - 1  # a refused entry before it: numbering and lines agree
    assert accepted.receipt == receipts[accepted.seq - 1]
    assert updates and all(u.receipt == receipts[u.seq - 1] for u in updates)
    log = str(table.store.path)
    assert main(["verify", log, "--receipt", f"{accepted.seq}:{accepted.receipt}"]) == 0
    assert "matches" in capsys.readouterr().out
    assert main(["verify", log, "--receipt", f"{accepted.seq}:{'0' * 64}"]) == 1
    assert "does NOT match" in capsys.readouterr().out
    assert main(["verify", log, "--receipt", f"99999:{accepted.receipt}"]) == 1
    assert "no entry 99999" in capsys.readouterr().out


async def test_receipts_survive_a_restart_and_a_table_without_a_log_gives_none(tmp_path, autojump_clock):
    async with trio.open_nursery() as first:
        lobby = Lobby(first, tmp_path, "never")
        table = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2, bots=[BotSeat(1)]))
        me = Sink()
        await table.submit(intents.TakeSeat(me, TakeSeat(table=table.id, seat=0)))
        await settle()
        first.cancel_scope.cancel()
    token = me.of(Seated)[0].token
    async with trio.open_nursery() as second:
        lobby = Lobby(second, tmp_path, "never")
        await lobby.recover()
        back = Sink()
        await lobby.find(table.id).submit(intents.Resume(back, Resume(table=table.id, token=token)))
        await settle()
        receipts = read_log(table.store.path).receipts()
        assert back.of(Update) and all(u.receipt == receipts[u.seq - 1] for u in back.of(Update))
        memory = await Lobby(second).create(CreateTable(game="flag_finish", seats=2, bots=[BotSeat(1)]))
        watcher = Sink()
        await memory.submit(intents.Watch(watcher, Watch(table=memory.id)))
        await memory.submit(intents.TakeSeat(Sink(), TakeSeat(table=memory.id, seat=0)))
        await settle()
        assert watcher.of(Update) and all(m.receipt is None for m in watcher.of(Update) + watcher.of(Snapshot))
        second.cancel_scope.cancel()


async def test_the_client_library_keeps_the_last_receipt_per_table(tmp_path, nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 task_status=task_status))
    async with open_client(running.url) as client:
        info = await client.create_table(game="flag_finish", mode="lockstep", seats=2, bots=[{"seat": 1}])
        await client.take_seat(info.table, seat=0)
        with trio.fail_after(10):
            async for message in client.messages:
                if type(message) is Update and message.legal:
                    accepted = await client.act(info.table, message.legal[0])
                    break
            async for message in client.messages:
                if type(message) is Update and message.view is not None:
                    break
        table = running.lobby.find(info.table)
        seq, receipt = client.receipts[info.table]
    assert seq >= accepted.seq and receipt == read_log(table.store.path).receipts()[seq - 1]


async def test_a_copy_of_a_log_in_the_tables_folder_is_left_alone_at_start(tmp_path, nursery, capsys):
    """A referee copies t1.log beside it as t1-copy.log (or a tournament's as T1 old.log): the server still
    starts, says it leaves the copy alone, reopens what it should and never names a new table after the copy."""
    table, _ = await finished_table(tmp_path)
    copy = tmp_path / "tables" / f"{table.id}-copy.log"
    copy.write_bytes(table.store.path.read_bytes())
    (tmp_path / "tournaments").mkdir(exist_ok=True)
    (tmp_path / "tournaments" / "T1 old.log").write_text("not a tournament\n")
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 task_status=task_status))
    said = capsys.readouterr().out
    assert f"leaving {copy} alone" in said and "T1 old.log alone" in said
    assert "Traceback" not in said
    created = await running.lobby.create(BOTS_GAME)
    assert created.id == "t2" and copy.read_bytes() == table.store.path.read_bytes()


async def test_restarting_the_demo_server_reopens_its_two_tables_under_their_names(tmp_path, nursery):
    ids = []
    for _ in range(3):
        async with trio.open_nursery() as serving:
            running = await serving.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                         demo=True, task_status=task_status))
            with trio.fail_after(10):
                while not {DEMO_ALIAS, OPEN_ALIAS} <= set(running.lobby.aliases):
                    await trio.testing.wait_all_tasks_blocked()
                await trio.testing.wait_all_tasks_blocked()  # keep_table has done what it does at the start
            ids.append({alias: running.lobby.find(alias).id for alias in (DEMO_ALIAS, OPEN_ALIAS)})
            assert len(running.lobby.tables) == 2
            await running.shutdown()
    assert ids[0] == ids[1] == ids[2]
