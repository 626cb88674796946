"""The group commit of ``--durability always`` (server/logs/logstore.py ``Syncer``: rounds of fdatasyncs of the log
files themselves) with a fake fsync that the test holds open: a round starts at once, lines written while it
runs are covered by the next round, one round serves every dirty log, a failing sync fails only its own log,
and a table's acknowledgement waits for its line's round. (``batch``'s journal: test_journal.py.)"""

from __future__ import annotations

import threading

import pytest
import trio
import trio.testing

from server.logs.logfile import Entry
from server.logs.logstore import FileLog, Syncer
from server.lobby import Lobby
from server.protocol import Accepted, Rejected

from .helpers import answer_after_the_disk, seated_against_a_bot


class GatedSync:
    """A fake fsync: records each call's file and the bytes written to it then, and waits while the gate is
    shut (in the syncer's worker thread)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Semaphore(0)
        self.fail: set[int] = set()

    def __call__(self, fd: int) -> None:
        import os

        self.calls.append((fd, os.fstat(fd).st_size))
        self.entered.release()
        if not self.gate.wait(timeout=10):
            raise OSError(110, "the test never opened the gate")
        if fd in self.fail:
            raise OSError(5, "Input/output error")

    async def wait_entered(self) -> None:
        assert await trio.to_thread.run_sync(self.entered.acquire, True, 10), "no sync started"


def entry(n: int) -> Entry:
    return Entry(seq=n, time=0.0, actor=0, action={"type": "draw"}, accepted=True)


async def test_lines_written_during_a_sync_wait_for_the_next_one_which_starts_as_soon_as_it_ends(tmp_path, nursery):
    fake = GatedSync()
    syncer = Syncer(fake)
    nursery.start_soon(syncer.run)
    log = FileLog(tmp_path / "a.log", "batch", syncer=syncer)
    fake.gate.clear()
    log.append(entry(1))
    with trio.fail_after(10):
        await fake.wait_entered()  # the first line started a sync at once, with no wait to group
        size_at_first = fake.calls[0][1]
        log.append(entry(2))
        log.append(entry(3))
        assert log.durable == 0
        fake.gate.set()
        await log.wait_durable(1)
        await log.wait_durable(3)
    assert len(fake.calls) == 2, "lines 2 and 3 share the second sync"
    assert fake.calls[1][1] > size_at_first
    assert log.fsyncs == 2 and syncer.rounds == 2


async def test_one_round_syncs_every_dirty_log_and_a_failure_stays_with_its_log(tmp_path, nursery):
    fake = GatedSync()
    syncer = Syncer(fake)
    logs = [FileLog(tmp_path / f"{name}.log", "batch", syncer=syncer) for name in "abc"]
    fake.fail.add(logs[1].file.fileno())
    for log in logs:
        log.append(entry(1))
    nursery.start_soon(syncer.run)
    with trio.fail_after(10):
        await logs[0].wait_durable(1)
        await logs[2].wait_durable(1)
        try:
            await logs[1].wait_durable(1)
        except OSError as error:
            failed = error
    assert syncer.rounds == 1 and len(fake.calls) == 3
    assert "Input/output error" in str(failed) and logs[1].durable == 0
    with pytest.raises(OSError):  # a failed log takes no more lines: none could ever be acknowledged
        logs[1].append(entry(2))
    logs[1].close()  # no later sync makes a failed log durable again
    assert logs[1].durable == 0


async def test_a_table_acknowledges_an_action_only_after_its_round_and_then_at_once(tmp_path, nursery, monkeypatch):
    import server.logs.logstore

    fake = GatedSync()
    monkeypatch.setattr(server.logs.logstore, "sync_file", fake)
    lobby = Lobby(nursery, tmp_path, "always")
    table, me = await seated_against_a_bot(lobby)
    with trio.fail_after(10):
        while table.store.durable < table.store.written:
            await me.arrived.wait()
        written = table.store.written
        answer = await answer_after_the_disk(  # once the round that covers the action's line has started
            table, me, fake, lambda: [fd for fd, size in fake.calls if size >= table.store.file.tell()])
    assert type(answer) in (Accepted, Rejected)  # refused or not, it is logged, so it waits for the disk
    assert table.store.durable >= written + 1
    await lobby.stop_all()


async def test_close_ends_the_rounds(tmp_path):
    syncer = Syncer(GatedSync())
    log = FileLog(tmp_path / "a.log", "batch", syncer=syncer)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(syncer.run)
            log.append(entry(1))
            await log.wait_durable(1)
            syncer.close()
    assert log.durable == 1
