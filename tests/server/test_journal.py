"""The write-ahead journal of ``--durability batch`` (server/logs/journal.py): one sync per round for every log,
lines written during a sync covered by the next round, an answer held until its round, checkpoints that start
the journal again, a failing journal stopping the tables it holds, and recovery writing back the lines a log
file lacks."""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from pathlib import Path

import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from server.logs import disk
from server.logs.journal import PREALLOC, Journal
from server.logs.walfile import MAGIC, encode_record, journal_files, read_records, replay
from server.lobby import Lobby
from server.logs.logfile import GENESIS, Entry, Header, encode_line, read_log
from server.logs.logstore import FileLog
from server.protocol import Accepted, Act, BotSeat, CreateTable, Rejected
from server.table import intents

from .helpers import answer_after_the_disk, seated_against_a_bot


def records_end(fd: int) -> int:
    """Where the records of the journal file open as ``fd`` end (the zeros written ahead not counted)."""
    return len(Path(os.readlink(f"/proc/self/fd/{fd}")).read_bytes().rstrip(b"\0"))


class GatedSync:
    """A fake fdatasync of the journal: records the journal's size (up to its last record) at each call and
    waits while the gate is shut (in the journal's worker thread)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.threads: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Semaphore(0)
        self.fail = False

    def __call__(self, fd: int) -> None:
        self.sizes.append(records_end(fd))
        self.threads.append(threading.current_thread().name)
        self.entered.release()
        if not self.gate.wait(timeout=10):
            raise OSError(110, "the test never opened the gate")
        if self.fail:
            raise OSError(5, "Input/output error")

    async def wait_entered(self) -> None:
        assert await trio.to_thread.run_sync(self.entered.acquire, True, 10), "no sync started"


def entry(n: int) -> Entry:
    return Entry(seq=n, time=0.0, actor=0, action={"type": "draw"}, accepted=True)


def header(table: str = "t1") -> Header:
    return Header(format=1, table=table, name=table, game="flag_finish", rules_version="1", protocol=1, seats=2,
                  mode="challenge", options={}, table_options={}, commitment="0" * 64, started="2026-01-01T00:00:00Z")


async def test_one_sync_per_round_for_every_log_and_lines_written_meanwhile_wait_for_the_next(tmp_path, nursery):
    fake = GatedSync()
    journal = Journal(tmp_path, fake, inline="never")
    nursery.start_soon(journal.run)
    (tmp_path / "tables").mkdir()
    logs = [FileLog(tmp_path / "tables" / f"t{n}.log", "batch", syncer=journal) for n in (1, 2, 3)]
    fake.gate.clear()
    logs[0].append(entry(1))
    with trio.fail_after(10):
        await fake.wait_entered()  # the first line started a round at once
        for log in logs:  # while that round's sync runs, every table writes
            log.append(entry(1))
            log.append(entry(2))
        assert [log.durable for log in logs] == [0, 0, 0]
        fake.gate.set()
        for log in logs:
            await log.wait_durable(log.written)
    assert journal.rounds == 2 and len(fake.sizes) == 2, "one sync of the journal per round, for all three logs"
    assert fake.sizes[1] > fake.sizes[0]
    records, problem = read_records(journal.path.read_bytes())
    assert problem is None and len(records) == 7
    assert sorted({r.path for r in records}) == [f"tables/t{n}.log" for n in (1, 2, 3)]
    for log in logs:  # each record is the line, where it is in its own file
        data = log.path.read_bytes()
        for record in (r for r in records if log.path == tmp_path / r.path):
            assert data[record.offset:record.offset + len(record.line)] == record.line


async def test_a_table_answers_an_action_only_after_its_round(tmp_path, nursery):
    fake = GatedSync()
    lobby = Lobby(nursery, tmp_path, "batch")
    lobby._syncer = Journal(tmp_path, fake, inline="never")
    nursery.start_soon(lobby._syncer.run)
    table, me = await seated_against_a_bot(lobby)
    with trio.fail_after(10):
        answer = await answer_after_the_disk(  # once the round that holds the action's line has started
            table, me, fake, lambda: [size for size in fake.sizes if size >= lobby._syncer.size])
    assert type(answer) in (Accepted, Rejected)  # refused or not, it is logged, so it waits for the disk
    await lobby.stop_all()
    assert journal_files(tmp_path) == [], "a clean stop leaves no journal to replay"


async def test_an_idle_server_syncs_the_journal_on_its_own_thread(tmp_path, nursery):
    fake = GatedSync()
    journal = Journal(tmp_path, fake)  # inline="auto"
    nursery.start_soon(journal.run)
    log = FileLog(tmp_path / "a.log", "batch", syncer=journal)
    await trio.testing.wait_all_tasks_blocked()
    log.append(entry(1))
    with trio.fail_after(10):
        await log.wait_durable(1)
    assert fake.threads == [threading.main_thread().name]


async def test_an_idle_server_syncs_a_batchs_lines_once_as_the_batch_ends_without_a_task_switch(tmp_path, nursery):
    fake = GatedSync()
    journal = Journal(tmp_path, fake)  # inline="auto"
    nursery.start_soon(journal.run)
    logs = [FileLog(tmp_path / f"t{n}.log", "batch", syncer=journal) for n in (1, 2)]
    await trio.testing.wait_all_tasks_blocked()
    journal.begin_group()  # a table's arbiter batch
    for log in logs:
        log.append(entry(1))
        log.append(entry(2))
    assert fake.sizes == [] and [log.durable for log in logs] == [0, 0], "no round inside the batch"
    journal.end_group()  # no await: the round ran right here, on the event loop's thread
    assert len(fake.sizes) == 1 and fake.threads == [threading.main_thread().name]
    assert [log.durable for log in logs] == [2, 2], "the batch's answers go out now (the table reads durable)"
    records, problem = read_records(journal.path.read_bytes())
    assert problem is None and len(records) == 4


async def test_a_batch_ending_while_other_tasks_are_ready_leaves_its_round_to_the_journals_task(tmp_path, nursery):
    fake = GatedSync()
    journal = Journal(tmp_path, fake)
    nursery.start_soon(journal.run)
    log = FileLog(tmp_path / "a.log", "batch", syncer=journal)
    await trio.testing.wait_all_tasks_blocked()
    ready = trio.Event()
    nursery.start_soon(ready.wait)
    await trio.testing.wait_all_tasks_blocked()
    ready.set()  # another task is ready to run now: the batch must not block the loop with a sync
    journal.begin_group()
    log.append(entry(1))
    journal.end_group()
    assert fake.sizes == [] and log.durable == 0
    with trio.fail_after(10):
        await log.wait_durable(1)
    assert journal.rounds == 1


async def test_rounds_overwrite_zeros_written_ahead_so_the_file_keeps_its_size(tmp_path, nursery):
    journal = Journal(tmp_path)  # the default PREALLOC
    nursery.start_soon(journal.run)
    log = FileLog(tmp_path / "a.log", "batch", syncer=journal)
    await log.wait_durable(log.append(entry(1)))
    size = journal.path.stat().st_size
    assert size >= journal.size + PREALLOC // 2, "the first round wrote zeros ahead"
    for n in range(2, 30):
        await log.wait_durable(log.append(entry(n)))
    assert journal.path.stat().st_size == size, "later rounds only overwrite: no new blocks, no size to sync"
    records, problem = read_records(journal.path.read_bytes())
    assert problem is None and [r.line for r in records] == log.path.read_bytes().splitlines(keepends=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=5), min_size=1, max_size=12),
       st.sampled_from([0, 64, 512, 4096]))
def test_after_every_round_the_zeros_ahead_last_and_the_records_read_back_whole(rounds, prealloc):
    async def main(folder: Path) -> None:
        journal = Journal(folder, prealloc=prealloc)
        log = FileLog(folder / "a.log", "batch", syncer=journal)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(journal.run)
            for lengths in rounds:
                journal.begin_group()
                for length in lengths:
                    log.append(Entry(seq=1, time=0.0, actor=0, action={"x": "y" * length}, accepted=True))
                journal.end_group()
                await log.wait_durable(log.written)
                assert journal.path.stat().st_size - journal.size >= prealloc // 2
                records, problem = read_records(journal.path.read_bytes())
                assert problem is None and b"".join(r.line for r in records) == log.path.read_bytes()
            await journal.aclose()

    with tempfile.TemporaryDirectory() as folder:
        trio.run(main, Path(folder))


async def test_a_checkpoint_starts_the_journal_again_and_a_clean_stop_leaves_none(tmp_path):
    (tmp_path / "tables").mkdir()
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            journal = Journal(tmp_path, limit=2000)
            nursery.start_soon(journal.run)
            log = FileLog(tmp_path / "tables" / "t1.log", "batch", syncer=journal)
            first = journal.path
            for n in range(1, 40):
                await log.wait_durable(log.append(entry(n)))
            while journal.checkpoints == 0:
                await journal.checkpointed.wait()
            assert journal.generation > 1 and not first.exists(), "the old journal was retired"
            while journal.size >= 2000 + 300:  # back under its limit once the checkpoints catch up (on a loaded
                await journal.checkpointed.wait()  # machine lines go on into it while a checkpoint's thread runs);
            # one that never did would fail the test at its deadline
            await journal.aclose()
    assert journal_files(tmp_path) == []
    assert log.path.read_bytes().count(b"\n") == 39 and log.durable == 39


async def test_a_failing_journal_stops_the_tables_it_holds_with_log_failed(tmp_path, nursery):
    fake = GatedSync()
    lobby = Lobby(nursery, tmp_path, "batch")
    lobby._syncer = Journal(tmp_path, fake, inline="never")
    nursery.start_soon(lobby._syncer.run)
    tables, sinks = [], []
    for _ in range(2):
        table, me = await seated_against_a_bot(lobby)
        tables.append(table)
        sinks.append(me)
    fake.fail = True
    for table, me in zip(tables, sinks):
        await table.submit(intents.Act(me, Act(table=table.id, action={"type": "draw"}, id="unsafe")))
    with trio.fail_after(10):
        for table in tables:
            await table.stopped.wait()
    for table, me in zip(tables, sinks):
        assert table.failed and "Input/output error" in table.failed
        assert me.closed[0] == "log_failed"
        assert not [m for m in me.messages if getattr(m, "ref", None) == "unsafe"], "answered without the disk"
    later = FileLog(tmp_path / "tables" / "late.log", "batch", syncer=lobby._syncer)
    later.append(entry(1))
    assert later.error is not None and later.durable == 0, "a failed journal makes nothing durable again"


async def test_a_stop_that_comes_while_a_round_syncs_with_a_line_marked_meanwhile_ends_with_it_durable(
        tmp_path, nursery):
    """The stop's wake comes while a round syncs, with a line marked meanwhile: the journal takes that line in one
    more round and ends (it waited for another wake that never came: the server's stop hung so, about one run in a
    hundred of the disk-fault property, and spun under the autojump clock)."""
    fake = GatedSync()
    journal = Journal(tmp_path, fake, inline="never")
    nursery.start_soon(journal.run)
    (tmp_path / "tables").mkdir()
    log = FileLog(tmp_path / "tables" / "t1.log", "batch", syncer=journal)
    fake.gate.clear()
    log.append(entry(1))
    with trio.fail_after(10):
        await fake.wait_entered()  # the round syncs, in its worker thread
    log.append(entry(2))  # marked meanwhile: pending when the stop comes

    async def open_the_gate() -> None:
        await trio.testing.wait_all_tasks_blocked()  # once the stop waits for the journal
        fake.gate.set()

    nursery.start_soon(open_the_gate)
    with trio.fail_after(10):
        await journal.aclose()
    assert log.durable == 2 and journal.rounds == 2
    assert journal_files(tmp_path) == []  # a clean stop: no journal left to replay


def write_log(path: Path, records: list) -> tuple[bytes, list[tuple[int, bytes]]]:
    """A log file's bytes for ``records`` and each line with its offset."""
    head, at, lines = GENESIS, 0, []
    for record in records:
        line, head = encode_line(head, record)
        lines.append((at, line))
        at += len(line)
    data = b"".join(line for _, line in lines)
    path.write_bytes(data)
    return data, lines


def write_journal(data_dir: Path, name: str, lines: list[tuple[int, bytes]], generation: int = 1) -> Path:
    folder = data_dir / "journal"
    folder.mkdir(exist_ok=True)
    path = folder / f"{generation:08d}.wal"
    path.write_bytes(MAGIC + b"".join(encode_record(name.encode(), offset, line) for offset, line in lines))
    return path


def test_zeros_end_a_journal_but_anything_after_them_is_damage():
    record = encode_record(b"tables/t1.log", 0, b"a line\n")
    assert read_records(MAGIC + record + bytes(50)) == ([read_records(MAGIC + record)[0][0]], None)
    records, problem = read_records(MAGIC + record + bytes(50) + record)
    assert len(records) == 1 and problem == f"a damaged record at byte {len(MAGIC) + len(record)}"


def test_recovery_writes_back_the_lines_a_log_file_lacks(tmp_path):
    (tmp_path / "tables").mkdir()
    log = tmp_path / "tables" / "t1.log"
    whole, lines = write_log(log, [header(), *[entry(n) for n in range(1, 11)]])
    write_journal(tmp_path, "tables/t1.log", lines[4:])  # the last checkpoint came after line 4
    with open(log, "r+b") as handle:  # a power cut: lines 7-11 lost, line 6 torn
        handle.truncate(lines[5][0] + 20)
    assert read_log(log).torn and len(read_log(log).entries()) == 4
    replayed = replay(tmp_path)
    assert log.read_bytes() == whole
    assert replayed.restored == 6 and replayed.logs == ("tables/t1.log",)
    assert journal_files(tmp_path) == []
    assert replay(tmp_path).restored == 0  # nothing left to do


async def test_a_restarted_server_reopens_a_table_with_the_lines_only_the_journal_kept(tmp_path, nursery):
    with trio.fail_after(20):
        async with trio.open_nursery() as dying:
            lobby = Lobby(dying, tmp_path, "batch")
            table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                   bots=[BotSeat(0), BotSeat(1)], options={"races": 3}))
            await table.store.wait_durable(20)  # the bots have played 20 lines onto the disk
            dying.cancel_scope.cancel()  # the server dies: no clean stop, so no checkpoint, the journal stays
    log = table.store.path
    whole = log.read_bytes()
    records, _ = read_records(b"".join(path.read_bytes() for path in journal_files(tmp_path)))
    assert len(records) >= 20, "the journal holds the table's lines"
    covered = max(r.offset + len(r.line) for r in records)  # the last line a round made durable
    with open(log, "r+b") as handle:
        handle.truncate(len(whole) // 3)  # what the disk had of the log file when the power went
    restarted = Lobby(nursery, tmp_path, "never")
    assert await restarted.recover() == [table.id]
    read = read_log(log)
    assert not read.torn and log.read_bytes().startswith(whole[:covered]), "every journaled line is back"
    assert type(read.records[-1]).__name__ == "Reopened"
    await restarted.stop_all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=12), st.data())
def test_replay_restores_exactly_the_whole_records_of_a_torn_journal(count, data):
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        (data_dir / "tables").mkdir()
        log = data_dir / "tables" / "t1.log"
        whole, lines = write_log(log, [header(), *[entry(n) for n in range(1, count + 1)]])
        journal = write_journal(data_dir, "tables/t1.log", lines)
        journal_bytes = journal.read_bytes()
        cut_journal = data.draw(st.integers(min_value=len(MAGIC), max_value=len(journal_bytes)), "journal cut")
        cut_log = data.draw(st.integers(min_value=0, max_value=len(whole)), "log cut")
        zeros = data.draw(st.sampled_from([0, 1, 100]), "zeros written ahead, after the cut")
        journal.write_bytes(journal_bytes[:cut_journal] + bytes(zeros))
        with open(log, "r+b") as handle:
            handle.truncate(cut_log)
        kept, _ = read_records(journal_bytes[:cut_journal])
        assert read_records(journal_bytes[:cut_journal] + bytes(zeros))[0] == kept
        covered = max((r.offset + len(r.line) for r in kept), default=0)
        replay(data_dir)
        assert log.read_bytes() == whole[:max(cut_log, covered)]


async def test_the_journals_count_of_runnable_tasks_is_trios_own():
    """The journal reads trio's run queue (the public statistics also walk every file descriptor, a cost
    that grows with the connections): the two counts agree, with none ready and with three ready."""
    from server.logs.journal import tasks_runnable

    assert tasks_runnable() == trio.lowlevel.current_statistics().tasks_runnable == 0
    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(trio.sleep, 0)
        assert tasks_runnable() == trio.lowlevel.current_statistics().tasks_runnable == 3


class SmallDisk(disk.Disk):
    """A file system with ``free`` bytes left for the journal's files: a write that would grow one past them
    writes what fits and fails ENOSPC, as a full disk does; cutting a file back frees its bytes again."""

    def __init__(self, free: int) -> None:
        self.free = free

    @staticmethod
    def _journal(fd: int) -> bool:
        return "/journal/" in os.readlink(f"/proc/self/fd/{fd}")

    def pwrite(self, fd, data, offset):
        grows = max(0, offset + len(data) - os.fstat(fd).st_size)
        if self._journal(fd) and grows > self.free:
            fits = len(data) - (grows - self.free)
            if fits > 0:
                os.pwrite(fd, data[:fits], offset)
            self.free = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        if self._journal(fd):
            self.free -= grows
        return super().pwrite(fd, data, offset)

    def ftruncate(self, fd, size):
        if self._journal(fd):
            self.free += max(0, os.fstat(fd).st_size - size)
        super().ftruncate(fd, size)


async def test_on_a_nearly_full_disk_the_journal_writes_its_records_without_the_zeros_ahead(tmp_path, nursery):
    """Red team: on a disk with less room than ``PREALLOC``, the round's one write of records and zeros failed,
    the journal stopped every table for good (space its records did not need), and the failed file kept the
    zeros that fit. Now the records go alone, the file cut back to them, and the rounds go on."""
    (tmp_path / "tables").mkdir()
    small = SmallDisk(free=PREALLOC // 4)
    with disk.using(small):
        journal = Journal(tmp_path, lambda fd: None, inline="never")
        nursery.start_soon(journal.run)
        log = FileLog(tmp_path / "tables" / "t1.log", "batch", syncer=journal)
        for n in range(1, 41):
            log.append(entry(n))
            with trio.fail_after(10):
                await log.wait_durable(log.written)
        assert journal.error is None and log.durable == log.written
        assert journal.path.stat().st_size == records_end(journal._fd), "no zeros left holding the disk"
        records, problem = read_records(journal.path.read_bytes())
        assert problem is None and [r.path for r in records] == ["tables/t1.log"] * 40
        small.free = 0  # full: a round's records cannot be written at all
        log.append(entry(41))
        with trio.fail_after(10):
            try:
                await log.wait_durable(log.written)
            except OSError:
                pass
        assert journal.error is not None, "a record that cannot be written still fails the journal, as before"
        assert records_end(journal._fd) == journal.path.stat().st_size, "no part of the record it began is kept"
