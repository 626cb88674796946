"""The action log on disk: replay rebuilds every state, any edit or cut is caught, acknowledgements wait for
the disk, and a server that stopped mid-game reopens its tables from their logs."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from server.protocol import Refusal
from server.logs.logfile import Entry, read_log
from server.quotas import Quotas
from server.lobby import Lobby
from server.protocol import Accepted, Act, BotSeat, CreateTable, Resume, Seated, Snapshot, TakeSeat, Update, Watch
from server.logs.replay import check_log, verify_seed
from server.table import intents
from clients.cli import main

from .helpers import Sink, settle, seated_against_a_bot

LOGGED = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])


def play_logged_game(folder: Path, seed: int, mode: str = "challenge", seats: int = 3, digest_every: int = 7,
                     durability: str = "never") -> Path:
    """A whole game of server-side bots on a logged table, in virtual time; returns its log file."""
    async def run():
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, folder, durability)
            policies = ["heuristic", "random", "heuristic"][:seats]
            table = await lobby.create(CreateTable(game="flag_finish", mode=mode, seats=seats, seed=seed, practice=True,
                                                   options={"races": 1, "action_limit": 400},
                                                   bots=[BotSeat(i, p) for i, p in enumerate(policies)]))
            table.digest_every = digest_every
            await table.over.wait()
            await table.stop()
            nursery.cancel_scope.cancel()
            return table.store.path

    return trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.fixture(scope="module")
def finished_log(tmp_path_factory) -> Path:
    return play_logged_game(tmp_path_factory.mktemp("data"), seed=11)


def test_replay_rebuilds_every_state_and_the_seed_verifies(finished_log):
    report = check_log(finished_log)
    assert report.ok and report.ended and report.torn is None
    assert report.digests_checked >= report.accepted // 7
    assert report.result is not None and verify_seed(report) is None


def test_the_commands_say_ok_and_export_one_json_document(finished_log, capsys, tmp_path):
    assert main(["replay", str(finished_log)]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["verify", str(finished_log)]) == 0
    assert "verified" in capsys.readouterr().out
    out = tmp_path / "game.json"
    assert main(["export", str(finished_log), "--output", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["ok"] and document["header"]["game"] == "flag_finish"
    assert sum(r["kind"] == "entry" for r in document["records"]) == check_log(finished_log).entries


def test_an_exported_log_replays_verifies_and_checks_receipts_as_the_log_itself(finished_log, capsys, tmp_path):
    """A player sends the referee the export: it rebuilds the log byte for byte, so every check works on it."""
    from server.logs.exported import log_bytes

    out = tmp_path / "game.json"
    assert main(["export", str(finished_log), "-o", str(out)]) == 0
    assert log_bytes(out.read_bytes()) == finished_log.read_bytes()
    assert main(["replay", str(out)]) == 0 and main(["verify", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"{out}: flag_finish" in said and "OK" in said and f"{out}: verified" in said
    read = read_log(finished_log)
    seq, receipt = next((e.seq, h) for e, h in zip(read.entries(), read.receipts()) if e.accepted and e.actor >= 0)
    assert main(["verify", str(out), "--receipt", f"{seq}:{receipt}"]) == 0
    assert "matches" in capsys.readouterr().out

    document = json.loads(out.read_text())  # an entry's time edited in the export: the receipt no longer matches
    entry = next(r for r in document["records"] if r["kind"] == "entry" and r["seq"] == seq)
    entry["time"] += 0.25
    out.write_text(json.dumps(document))
    assert main(["verify", str(out), "--receipt", f"{seq}:{receipt}"]) == 1
    assert "does NOT match" in capsys.readouterr().out

    other = tmp_path / "other.json"
    other.write_text('{"scores": [1, 2]}')
    assert main(["replay", str(other)]) == 2
    err = capsys.readouterr().err
    assert "not an exported log" in err and "Traceback" not in err


@LOGGED
@given(st.integers(0, 2**64 - 1), st.sampled_from(["lockstep", "challenge"]), st.integers(1, 20))
def test_any_logged_game_replays_to_the_same_digests(tmp_path_factory, seed, mode, every):
    path = play_logged_game(tmp_path_factory.mktemp("g"), seed, mode=mode, seats=2, digest_every=every)
    report = check_log(path)
    assert report.ok and report.ended, report.problem
    assert report.digests_checked >= report.accepted // every


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_flipping_any_byte_is_detected(finished_log, tmp_path_factory, data):
    original = finished_log.read_bytes()
    where = data.draw(st.integers(0, len(original) - 1))
    value = data.draw(st.integers(0, 255).filter(lambda b: b != original[where]))
    path = tmp_path_factory.mktemp("flip") / "t.log"
    path.write_bytes(original[:where] + bytes([value]) + original[where + 1:])
    report = check_log(path)
    assert not report.ok or report.torn, f"byte {where} changed to {value} went unnoticed"


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_cut_log_is_detected_or_reported_as_a_torn_tail(finished_log, tmp_path_factory, data):
    original = finished_log.read_bytes()
    cut = data.draw(st.integers(0, len(original) - 1))
    path = tmp_path_factory.mktemp("cut") / "t.log"
    path.write_bytes(original[:cut])
    report = check_log(path)
    assert not report.ok or report.torn or not report.ended
    if report.ok:  # what remains still replays exactly
        assert report.entries <= check_log(finished_log).entries


def test_a_missing_entry_is_named(finished_log, tmp_path):
    lines = finished_log.read_bytes().split(b"\n")
    path = tmp_path / "t.log"
    path.write_bytes(b"\n".join(lines[:5] + lines[6:]))
    report = check_log(path)
    assert not report.ok and "line 6" in report.problem


def test_a_rewritten_chain_is_still_caught_by_the_state_digests(finished_log, tmp_path):
    """Someone edits an action and recomputes every hash: the recorded digests still give it away."""
    from server.logs.logfile import encode_log

    read = read_log(finished_log)
    records = [read.header, *read.records]
    index = next(i for i, r in enumerate(records) if type(r) is Entry and r.accepted and r.actor >= 0
                 and r.action.get("type") == "discard")
    entry = records[index]
    swapped = next(c for c in ("G0", "R0", "B0") if c != entry.action["card"])
    records[index] = msgspec.structs.replace(entry, action={"type": "discard", "card": swapped})
    path = tmp_path / "t.log"
    path.write_bytes(encode_log(records))
    assert not check_log(path).ok


async def test_under_batch_durability_nothing_is_acknowledged_before_it_is_on_disk(tmp_path, nursery):
    lobby = Lobby(nursery, tmp_path, "batch")
    table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                           bots=[BotSeat(1)]))
    store = table.store
    line_of: dict[int, int] = {}
    append = store.append

    def tracking_append(record):
        number = append(record)
        if type(record) is Entry:
            line_of[record.seq] = number
        return number

    store.append = tracking_append
    early = []

    class Watchful(Sink):
        def deliver(self, message):
            seq = getattr(message, "seq", None)
            if type(message) in (Accepted, Update) and seq in line_of and store.durable < line_of[seq]:
                early.append(seq)
            return super().deliver(message)

    me = Watchful()
    await table.submit(intents.TakeSeat(me, TakeSeat(table=table.id, seat=0)))
    acted = 0
    with trio.fail_after(60):
        while acted < 40 and not table.over.is_set():
            await me.arrived.wait()
            latest = next(m for m in reversed(me.messages) if type(m) in (Update, Snapshot) and m.view is not None)
            if latest.legal:
                await table.submit(intents.Act(me, Act(table=table.id, action=latest.legal[0])))
                acted += 1
    assert store.fsyncs > 0 and line_of
    assert early == []


async def test_a_server_stopped_mid_game_reopens_the_table_and_its_seat_resumes(tmp_path):
    async with trio.open_nursery() as first:
        lobby = Lobby(first, tmp_path, "never")
        table = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2, bots=[BotSeat(1)]))
        me = Sink()
        await table.submit(intents.TakeSeat(me, TakeSeat(table=table.id, seat=0)))
        await settle()
        token = me.of(Seated)[0].token
        seq, state_digest = table.log.seq, table.session.digest()
        first.cancel_scope.cancel()  # the process dies: no end record, no goodbye
    async with trio.open_nursery() as second:
        lobby = Lobby(second, tmp_path, "never")
        assert await lobby.recover() == [table.id]
        again = lobby.find(table.id)
        assert again.session.digest() == state_digest and again.log.seq == seq
        assert again.slots[0].state == "away"
        back = Sink()
        await again.submit(intents.Resume(back, Resume(table=table.id, token=token, last_seq=seq)))
        await settle()
        assert back.of(Seated)[0].seat == 0 and back.last_view().hand is not None
        second.cancel_scope.cancel()
    assert check_log(table.store.path).ok


async def test_a_finished_log_plays_back_to_watchers_read_only(tmp_path, nursery, autojump_clock):
    lobby = Lobby(nursery, tmp_path, "never")
    live = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                          bots=[BotSeat(0), BotSeat(1, "random")], bot_delay_ms=50))
    await live.over.wait()
    playback = await lobby.open_playback(live.id, speed=10)
    watcher, intruder = Sink(), Sink()
    await playback.submit(intents.Watch(watcher, Watch(table=playback.id)))
    await playback.submit(intents.TakeSeat(intruder, TakeSeat(table=playback.id)))
    started = trio.current_time()
    await playback.over.wait()
    assert intruder.messages[0].code == "read_only"
    assert watcher.last_view() == live.game.view(live.session.state, None)
    assert [m.seq for m in watcher.of(Update)] == [e.seq for e in live.log.entries if e.accepted]
    recorded = live.log.entries[-1].time - live.log.entries[0].time
    assert abs((trio.current_time() - started) - recorded / 10) < 0.01
    with pytest.raises(Refusal) as caught:
        await lobby.open_playback("t99")
    assert caught.value.code == "no_log"


async def test_a_full_server_makes_room_by_forgetting_finished_tables(nursery, autojump_clock, monkeypatch):
    import server.lobby

    monkeypatch.setattr(server.lobby, "MAX_TABLES", 2)
    lobby = Lobby(nursery)
    done = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                          bots=[BotSeat(0), BotSeat(1)]))
    await done.over.wait()
    waiting = await lobby.create(CreateTable(game="flag_finish", seats=2))
    third = await lobby.create(CreateTable(game="flag_finish", seats=2))
    assert set(lobby.tables) == {waiting.id, third.id}
    with pytest.raises(Refusal) as caught:
        await lobby.create(CreateTable(game="flag_finish", seats=2))
    assert caught.value.code == "too_many_tables"


async def test_a_log_that_cannot_be_written_stops_its_table_not_the_server(tmp_path, autojump_clock):
    async with trio.open_nursery() as nursery:  # the lobby's nursery: it must survive the failing table
        # no expiry: the virtual clock jumps while the next table's seed is written in a thread, and the first
        # table, still waiting for its player, would expire meanwhile
        lobby = Lobby(nursery, tmp_path, "never", Quotas(waiting_expiry=0))
        failing = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                 bots=[BotSeat(1)]))
        healthy = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                 options={"races": 1}, bots=[BotSeat(0), BotSeat(1)]))
        me, watcher = Sink(), Sink()
        await failing.submit(intents.Watch(watcher, Watch(table=failing.id)))
        await failing.submit(intents.TakeSeat(me, TakeSeat(table=failing.id, seat=0)))
        await settle()

        def disk_full(record):
            raise OSError(28, "No space left on device")

        failing.store.append = disk_full
        acknowledged = len(me.of(Accepted))
        legal = next(m for m in reversed(me.messages) if type(m) in (Update, Snapshot) and m.legal).legal
        await failing.submit(intents.Act(me, Act(table=failing.id, action=legal[0], id="lost")))
        await failing.stopped.wait()
        assert me.closed[0] == "log_failed" and "No space left" in me.closed[1]
        assert watcher.closed[0] == "log_failed"
        assert len(me.of(Accepted)) == acknowledged, "an action that never reached the log was acknowledged"
        late = Sink()
        await failing.submit(intents.Watch(late, Watch(table=failing.id)))
        assert late.messages[0].code == "table_closed"
        await healthy.over.wait()  # the other table plays on to its end
        assert check_log(healthy.store.path).ok
        nursery.cancel_scope.cancel()


async def test_a_data_directory_that_cannot_be_written_is_a_typed_error(tmp_path, nursery):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the data directory should be")
    lobby = Lobby(nursery, blocked, "never")
    with pytest.raises(Refusal) as caught:
        await lobby.create(CreateTable(game="flag_finish", seats=2))
    assert caught.value.code == "storage_failed" and str(blocked) in caught.value.message
    assert lobby.tables == {}


@pytest.mark.parametrize("durability", ["batch", "always"])
async def test_a_failing_fsync_stops_its_table_and_acknowledges_nothing_more(tmp_path, nursery, monkeypatch,
                                                                             durability):
    import server.logs.logstore

    lobby = Lobby(nursery, tmp_path, durability)
    table, me = await seated_against_a_bot(lobby)

    def failing_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(server.logs.logstore.os, "fsync", failing_fsync)  # a failing disk fails both
    monkeypatch.setattr(server.logs.logstore.os, "fdatasync", failing_fsync)
    await table.submit(intents.Act(me, Act(table=table.id, action={"type": "draw"}, id="unsafe")))
    with trio.fail_after(10):
        await table.stopped.wait()
    assert table.failed and "Input/output error" in table.failed
    assert me.closed[0] == "log_failed"
    assert not [m for m in me.of(Accepted) if m.ref == "unsafe"], "acknowledged without reaching the disk"


async def test_a_playback_keeps_the_live_tables_seq_numbers_across_refused_attempts(tmp_path, nursery,
                                                                                    autojump_clock):
    """Refused attempts are not played back, but their numbers are kept: update N of the playback is entry N of
    the log (a referee comparing the two, or a receipt, finds the same number)."""
    from server.protocol import Act, Seated, TakeSeat, Update
    from tests.server.helpers import Sink

    lobby = Lobby(nursery, tmp_path, "never")
    live = await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2, options={"races": 1}))
    seats = [Sink(), Sink()]
    for seat, sink in enumerate(seats):
        await live.submit(intents.TakeSeat(sink, TakeSeat(table=live.id, seat=seat)))
    await trio.testing.wait_all_tasks_blocked()
    with trio.fail_after(600):
        for turn in range(2000):
            if live.over.is_set():
                break
            to_act = live.session.to_act().seats
            if not to_act:
                await trio.sleep(0.1)  # virtual time: the photo-finish window's system action
                continue
            if turn % 5 == 0:  # now and then the other seat acts out of turn: refused
                await live.submit(intents.Act(seats[1 - to_act[0]], Act(table=live.id, action={"type": "draw"})))
            legal = live.game.legal_actions(live.session.state, to_act[0])
            await live.submit(intents.Act(seats[to_act[0]], Act(table=live.id, action=legal[0])))
            await trio.testing.wait_all_tasks_blocked()
        await live.over.wait()
    assert any(not e.accepted for e in live.log.entries), "the live log has refused attempts"
    playback = await lobby.open_playback(live.id, speed=100)
    watcher = Sink()
    await playback.submit(intents.Watch(watcher, Watch(table=playback.id)))
    with trio.fail_after(600):
        await playback.over.wait()
    assert [m.seq for m in watcher.of(Update)] == [e.seq for e in live.log.entries if e.accepted]
