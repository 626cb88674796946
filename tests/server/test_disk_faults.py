"""A failing disk, injected: whatever call fails and however (a short write, ENOSPC, EIO, EROFS), nothing a seat
saw acknowledged is lost, no log breaks its chain, and the server goes on (SQLite's I/O error testing).

``server.logs.disk.FaultyDisk`` fails the Nth call that changes a file; a property runs two tables under every
durability policy with the failure at N, then restarts on the data directory as a clean stop left it and as a
kill -9 left it (a copy of the files at the moment of the failure's aftermath), and checks every acknowledged
entry against the logs. Other tests: a disk that comes back (the tables reopen by themselves, new tables are
taken again), a checkpoint that meets a log lacking a line, and the files' modes.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.logs import disk
from server.logs.disk import FaultyDisk
from server.logs.journal import Journal
from server.logs.walfile import journal_files
from server.lobby import Lobby
from server.logs.logfile import Entry, read_log
from server.logs.logstore import FileLog, numbered_logs
from server.protocol import Accepted, Act, CreateTable, Resume, Seated, Snapshot, TakeSeat, Update
from server.logs.replay import check_log
from server.table import intents
from tests.server.helpers import Sink

STEPS = 12  # rounds of play: each seat that may act does, every round
RUN_BOUND_S = 120  # real seconds a ``run_with_fault`` run may take (about 0.15 s as a rule) before it fails


def legal_now(sink: Sink):
    for message in reversed(sink.messages):
        if type(message) in (Update, Snapshot) and message.legal is not None:
            return message.legal
    return None


async def settle(lobby: Lobby | None = None) -> None:
    """Let the arbiters take everything queued and the disk rounds (worker threads, real time) end: under
    the autojump clock virtual time runs ahead of a thread, so wait until no table has a line in flight."""
    for _ in range(100_000):
        await trio.testing.wait_all_tasks_blocked()
        tables = list(lobby.tables.values()) if lobby is not None else []
        behind = [(t.id, t.store.durable, t.store.written) for t in tables if t.store is not None
                  and not t.stopped.is_set() and t.store.error is None and t.store.durable < t.store.written]
        if not behind:
            return
        await trio.sleep(0.0005)
    raise AssertionError(f"a disk round never ended: (table, durable, written) {behind}")


async def open_tables(lobby: Lobby, count: int) -> list[tuple]:
    """``count`` two-seat lockstep tables with both seats taken; fewer if the disk refuses a table."""
    tables = []
    for _ in range(count):
        try:
            table = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
        except Exception as error:  # noqa: BLE001 - a typed refusal is expected here, anything else is a bug
            assert getattr(error, "code", None) == "storage_failed", error
            continue
        sinks = [Sink(), Sink()]
        for seat, sink in enumerate(sinks):
            await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat, name=f"p{seat}")))
        tables.append((table, sinks))
        await settle(lobby)
    return tables


async def play(lobby: Lobby, tables: list[tuple], steps: int) -> None:
    for step in range(steps):
        for table, sinks in tables:
            if table.stopped.is_set():
                continue
            for seat, sink in enumerate(sinks):
                legal = legal_now(sink)
                if legal:
                    await table.submit(intents.Act(sink, Act(table=table.id, action=legal[0],
                                                               id=f"{seat}-{step}")))
        await settle(lobby)


def acknowledged(tables: list[tuple]) -> dict[str, dict[int, str | None]]:
    """Every entry a seat saw acknowledged: table -> seq -> receipt (the hash of its line)."""
    seen: dict[str, dict[int, str | None]] = {}
    for table, sinks in tables:
        for sink in sinks:
            for message in sink.messages:
                if type(message) is Accepted:
                    seen.setdefault(table.id, {})[message.seq] = message.receipt
                elif type(message) is Update and message.receipt is not None:
                    seen.setdefault(table.id, {})[message.seq] = message.receipt
                elif type(message) is Seated:
                    seen.setdefault(table.id, {})
    return seen


def check_data_dir(data: Path, acked: dict[str, dict[int, str | None]]) -> None:
    """Every log chains and replays, and holds every acknowledged entry with the receipt its seat was given."""
    logs, _ = numbered_logs(data / "tables", "t")
    by_id = {path.stem: path for path in logs}
    for path in logs:
        report = check_log(path)
        assert report.ok, f"{path.name}: {report.problem}"
    for table_id, entries in acked.items():
        if not entries:
            continue
        assert table_id in by_id, f"{table_id} acknowledged {len(entries)} entries but has no log"
        read = read_log(by_id[table_id])
        hashes = {r.seq: h for r, h in zip(read.records, read.hashes) if type(r) is Entry}
        for seq, receipt in entries.items():
            assert seq in hashes, f"{table_id}: entry {seq} was acknowledged but is not in the log"
            if receipt is not None:
                assert hashes[seq] == receipt, f"{table_id}: entry {seq} is not the one acknowledged"


async def restart(data: Path, durability: str) -> list[str]:
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, data, durability)
        reopened = await lobby.recover()
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    return reopened


def run_with_fault(base: Path, durability: str, at: int, kind: str) -> None:
    data, crashed = base / "data", base / "crashed"
    shutil.rmtree(base, ignore_errors=True)
    faulty = FaultyDisk(at=at, kind=kind)
    acked: dict = {}
    acked_at_crash: dict = {}

    phase = ["start"]

    async def main() -> None:
        nonlocal acked, acked_at_crash
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, data, durability, journal_limit=4096)
            with disk.using(faulty):
                phase[0] = "open_tables"
                tables = await open_tables(lobby, 2)
                phase[0] = "play"
                await play(lobby, tables, STEPS)
                acked_at_crash = acknowledged(tables)
                shutil.copytree(data, crashed)  # what a kill -9 now would leave: the files as the OS has them
                phase[0] = "stop_all"
                await lobby.stop_all()
            acked = acknowledged(tables)  # answers released by the last round of the stop count too
            nursery.cancel_scope.cancel()
        for folder in (data, crashed):
            phase[0] = f"restart {folder.name}"
            await restart(folder, durability)

    async def bounded() -> None:
        """``main`` within ``RUN_BOUND_S`` real seconds: under the autojump clock a run that waits for what never
        comes can spin for ever (a timer's loop keeps virtual time going), so a watchdog thread cancels it."""
        token, scope = trio.lowlevel.current_trio_token(), trio.CancelScope()
        watchdog = threading.Timer(RUN_BOUND_S, lambda: token.run_sync_soon(scope.cancel))
        watchdog.daemon = True
        watchdog.start()
        try:
            with scope:
                await main()
        finally:
            watchdog.cancel()
        assert not scope.cancelled_caught, (
            f"the run with the fault at call {at} ({kind}, {durability}) took over {RUN_BOUND_S} s in {phase[0]}")

    trio.run(bounded, clock=trio.testing.MockClock(autojump_threshold=0))
    if faulty.failures == 0:  # the control: the run must have played for the checks to mean anything
        assert sum(len(entries) for entries in acked.values()) >= 2 * STEPS, acked
    check_data_dir(data, acked)
    check_data_dir(crashed, acked_at_crash)


@pytest.mark.parametrize("durability", ["batch", "always", "never"])
def test_no_fault_is_the_control(tmp_path, durability):
    """The same run with a disk that never fails: every log whole, every acknowledged entry in it."""
    run_with_fault(tmp_path / "run", durability, at=10**9, kind="enospc")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.integers(min_value=1, max_value=120), kind=st.sampled_from(FaultyDisk.KINDS),
       durability=st.sampled_from(["batch", "always", "never"]))
def test_whatever_call_fails_nothing_acknowledged_is_lost_and_no_log_breaks(tmp_path, at, kind, durability):
    run_with_fault(tmp_path / "run", durability, at, kind)


def test_every_failure_point_of_a_short_write_then_a_full_disk(tmp_path):
    """The measured case (a write on a full tmpfs returns 96 of 300 bytes, then ENOSPC), at every call."""
    for at in range(1, 120):
        run_with_fault(tmp_path / "run", "batch", at, "short")


async def test_the_tables_reopen_by_themselves_when_the_disk_comes_back(tmp_path, autojump_clock):
    faulty = FaultyDisk()
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, tmp_path, "batch")
        with disk.using(faulty):
            tables = await open_tables(lobby, 2)
            await play(lobby, tables, 3)
            faulty.fail_now()  # the disk fills
            await play(lobby, tables, 3)
            assert all(table.stopped.is_set() for table, _ in tables), "a table went on without its log"
            for table, sinks in tables:
                assert {sink.closed[0] for sink in sinks} == {"log_failed"}
                assert "reopens the table from its log by itself" in sinks[0].closed[1]
            with pytest.raises(Exception) as refused:
                await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
            assert refused.value.code == "storage_failed" and "No space left" in refused.value.message
            await trio.sleep(5)
            assert lobby.storage_error is not None, "the server took the disk for healed while it is full"
            faulty.heal()
            with trio.fail_after(600):  # virtual seconds: the checks run every second, in a worker thread
                while lobby.storage_error is not None:
                    await trio.sleep(0.01)
            await settle(lobby)
            for table, sinks in tables:
                again = lobby.tables[table.id]
                assert again is not table and not again.stopped.is_set()
                token = next(m.token for m in sinks[0].messages if type(m) is Seated)
                back = Sink()
                await again.submit(intents.Resume(back, Resume(table=table.id, token=token, last_seq=0)))
                await settle(lobby)
                assert back.of(Seated) and back.closed is None
            fresh = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
            assert not fresh.stopped.is_set()
        acked = acknowledged(tables)
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    check_data_dir(tmp_path, acked)


async def test_a_checkpoint_writes_back_a_line_a_log_lacks_before_it_deletes_the_journal(tmp_path, autojump_clock):
    """A checkpoint removes nothing the logs do not hold: a log file that lost a line the journal holds (as a
    short write that went unnoticed once did) gets it back before the journal file is deleted."""
    async with trio.open_nursery() as nursery:
        journal = Journal(tmp_path, limit=10**9)
        nursery.start_soon(journal.run)
        folder = tmp_path / "tables"
        folder.mkdir()
        log = FileLog(folder / "t1.log", "batch", syncer=journal)
        for seq in range(1, 4):
            line = log.append(Entry(seq=seq, time=0.0, actor=0, action={"type": "draw"}, accepted=True))
        await log.wait_durable(line)
        whole = (folder / "t1.log").read_bytes()
        os.truncate(folder / "t1.log", len(whole) - 10)  # the file lost the end of its last line
        log.file.close()
        await journal.aclose()
        nursery.cancel_scope.cancel()
    assert (folder / "t1.log").read_bytes() == whole
    assert journal_files(tmp_path) == []


async def test_a_journal_that_cannot_start_its_next_file_goes_on_in_this_one(tmp_path, autojump_clock):
    """A read-only remount as the journal nears its checkpoint: it stays in its file, nothing stops."""
    async with trio.open_nursery() as nursery:
        journal = Journal(tmp_path, limit=200)
        nursery.start_soon(journal.run)
        log = FileLog(tmp_path / "t1.log", "batch", syncer=journal)
        faulty = FaultyDisk()
        with disk.using(faulty):
            real_open = faulty.open

            def no_new_files(path, flags, mode=disk.FILE_MODE):
                if str(path).endswith(".wal"):
                    raise OSError(30, "Read-only file system")
                return real_open(path, flags, mode)

            faulty.open = no_new_files
            for seq in range(1, 20):
                line = log.append(Entry(seq=seq, time=0.0, actor=0, action={"type": "draw"}, accepted=True))
                await log.wait_durable(line)
        assert log.error is None and journal.error is None and journal.generation == 1
        await journal.aclose()
        log.file.close()
        nursery.cancel_scope.cancel()


async def test_the_data_directory_is_private(tmp_path, autojump_clock):
    """Logs hold live deck orders: the data directory 0700, logs, seeds and the journal 0600."""
    data = tmp_path / "data"
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, data, "batch")
        table = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
        files = [table.store.path, table.store.path.with_suffix(".seed"), *journal_files(data)]
        assert journal_files(data)
        for path in files:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        for folder in (data, data / "tables", data / "journal"):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        await lobby.stop_all()
        nursery.cancel_scope.cancel()


@pytest.fixture
def tmpfs(tmp_path):
    """A real 4 MB tmpfs (root only: CI runs as root, where it must work)."""
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("the real full-disk test needs root to mount a tmpfs (CI runs as root)")
        pytest.skip("mounting a tmpfs needs root; run the tests as root (CI does) to include the real full disk")
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte; returns the filler to delete."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (1 << 16, 1 << 12, 1 << 8, 1):
            try:
                while handle.write(bytes(size)) == size:
                    pass
            except OSError:
                pass
    return filler


async def test_a_real_full_tmpfs_loses_nothing_acknowledged_and_the_server_comes_back(tmpfs, autojump_clock):
    data = tmpfs / "data"
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, data, "batch")
        tables = await open_tables(lobby, 3)
        await play(lobby, tables, 4)
        filler = fill(tmpfs)
        await play(lobby, tables, 30)
        assert all(table.stopped.is_set() for table, _ in tables), "a table played on a full disk"
        acked = acknowledged(tables)
        filler.unlink()
        with trio.fail_after(600):
            while lobby.storage_error is not None:
                await trio.sleep(0.01)
        await settle(lobby)
        assert all(not lobby.tables[table.id].stopped.is_set() for table, _ in tables)
        await lobby.stop_all()
        nursery.cancel_scope.cancel()
    await restart(data, "batch")
    check_data_dir(data, acked)
