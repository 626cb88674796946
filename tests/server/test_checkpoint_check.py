"""A checkpoint deletes a journal file only once every log holds every line the file holds. Each log's lines in
one journal file are one run of its bytes, checked by one read and one crc32 (``walfile.logs_hold``); where that
finds a log short or changed, the journal is read record by record and the lines written back. A property over
how the logs' lines interleave and how one log is damaged: every log ends whole, and no journal is left."""

from __future__ import annotations

import os

import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.logs import walfile
from server.logs.journal import Journal
from server.logs.logfile import Entry
from server.logs.logstore import FileLog
from server.logs.walfile import journal_files

LOGS = 3


def entry(seq: int, text: str) -> Entry:
    return Entry(seq=seq, time=0.0, actor=0, action={"type": "say", "text": text}, accepted=True)


async def write_then_damage(data_dir, order: list[int], damage) -> dict:
    """The logs' lines appended in ``order`` (a log index per line) under one journal, made durable, the
    ``damage`` done to one log file, then a clean stop (its checkpoint). Returns each log file's bytes as they
    were whole."""
    folder = data_dir / "tables"
    folder.mkdir(exist_ok=True)
    async with trio.open_nursery() as nursery:
        journal = Journal(data_dir, limit=10**9)
        nursery.start_soon(journal.run)
        logs = [FileLog(folder / f"t{i}.log", "batch", syncer=journal) for i in range(LOGS)]
        last = {}
        for seq, index in enumerate(order, 1):
            last[index] = logs[index].append(entry(seq, "x" * (seq % 7)))
            if seq % 3 == 0:
                await trio.lowlevel.checkpoint()  # rounds take some lines, others wait for the next
        for index, line in last.items():
            await logs[index].wait_durable(line)
        whole = {log.path: log.path.read_bytes() for log in logs}
        if damage is not None:
            damage(folder / f"t{order[0]}.log")
        for log in logs:
            log.file.close()
        await journal.aclose()
        nursery.cancel_scope.cancel()
    return whole


def cut(by: int):
    def damage(path):
        os.truncate(path, max(0, path.stat().st_size - by))
    return damage


def flip(at: int):
    def damage(path):
        data = bytearray(path.read_bytes())
        data[at % len(data)] ^= 0x20
        path.write_bytes(bytes(data))
    return damage


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.lists(st.integers(0, LOGS - 1), min_size=1, max_size=30),
       damage=st.one_of(st.none(), st.integers(1, 200).map(cut), st.integers(0, 10_000).map(flip)))
def test_a_checkpoint_leaves_every_log_whole_however_its_lines_interleave_and_one_is_damaged(tmp_path_factory,
                                                                                               order, damage):
    data_dir = tmp_path_factory.mktemp("data")
    whole = trio.run(write_then_damage, data_dir, order, damage, clock=trio.testing.MockClock(autojump_threshold=0))
    for path, data in whole.items():
        assert path.read_bytes() == data, f"{path.name} lost or changed a line the journal held"
    assert journal_files(data_dir) == []


def test_logs_that_hold_their_lines_are_checked_without_reading_the_journal_back(tmp_path, monkeypatch):
    """The usual checkpoint: every log whole, so the journal's records are not read one by one (the per-record
    check cost a busy server a few per cent of its CPU); a changed byte sends it to the full check."""
    read = []
    original = walfile.read_records

    def counting(data):
        read.append(len(data))
        return original(data)

    monkeypatch.setattr("server.logs.journal.read_records", counting)
    clock = trio.testing.MockClock(autojump_threshold=0)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    trio.run(write_then_damage, tmp_path / "a", [0, 1, 2, 0, 1, 2], None, clock=clock)
    assert read == []
    whole = trio.run(write_then_damage, tmp_path / "b", [0, 1, 2, 0], flip(5), clock=clock)
    assert len(read) == 1
    assert all(path.read_bytes() == data for path, data in whole.items())
