"""The one rebuild path: a restarted server (restore), `photofinish replay` and `verify`, and the browser's replay
frames agree on every state of the same log, for every game (hypothesis picks the games, set-ups and seeds),
and each refuses a log whose entries do not rebuild, at the same entry."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given

from rules import CHANCE, digest, replay
from server.logs import frames
from server.datadir import DataDir, seed_beside
from server.logs.logfile import End, Entry, Header, encode_log, seed_commitment
from server.protocol import PROTOCOL_VERSION, Replay
from server.logs.rebuild import Unbuildable, fold, restored, start
from server.logs.replay import check_log, verify_seed
from tests.rules.test_contract_properties import PROPERTY, random_playout, tables

DIGEST_EVERY = 7


def write_log(data: DataDir, game, setup, seed, history, refuse_every: int = 5) -> list[Entry]:
    """A finished table's log of ``history`` as a server writes it (a refused attempt now and then, a digest
    every few entries and on the last, the end record revealing the seed); returns its entries."""
    header = Header(format=1, table="t1", name="", game=game.info.name, rules_version=game.info.rules_version,
                    protocol=PROTOCOL_VERSION, seats=setup.seats, mode=setup.mode, options=dict(setup.options),
                    table_options={}, commitment=seed_commitment(seed), started="2026-01-01T00:00:00Z")
    entries, state = [], None
    steps = replay(game, setup, history)  # the live state: digested as it goes
    for index, ((actor, action), (state, _)) in enumerate(zip(history, steps)):
        if index % refuse_every == 3 and actor >= 0:
            entries.append(Entry(seq=len(entries) + 1, time=index / 10, actor=actor, action={"type": "nonsense"},
                                 accepted=False, code="bad_action"))
        last = index == len(history) - 1
        entries.append(Entry(seq=len(entries) + 1, time=index / 10, actor=actor, action=msgspec.to_builtins(action),
                             accepted=True, digest=digest(state) if last or index % DIGEST_EVERY == 0 else None))
    result = game.result(state)
    end = End(seq=len(entries), seed=seed, digest=digest(state), reason="over", scores=list(result.scores),
              winners=list(result.winners), places=list(game.placings(state)))
    data.tables.mkdir(parents=True, exist_ok=True)
    data.table_log("t1").write_bytes(encode_log([header, *entries, end]))
    seed_beside(data.table_log("t1")).write_text(f"{seed}\n")
    return entries


def reference(game, setup, history, seats):
    """What the rules alone give: each step's digest and events, and each seat's (and a spectator's) views."""
    digests, events, views = [], [], []
    for state, evs in replay(game, setup, history):
        digests.append(digest(state))
        events.append(evs)
        views.append({seat: msgspec.to_builtins(game.view(state, seat)) for seat in seats})
    return digests, events, views


@PROPERTY
@given(tables())
def test_restore_replay_verify_and_frames_agree_on_every_state(tmp_path_factory, table):
    game, setup, seed = table
    session = random_playout(game, setup, seed)
    history = session.history
    data = DataDir(tmp_path_factory.mktemp("data"))
    entries = write_log(data, game, setup, seed, history)
    seats = [None, 0, setup.seats - 1]
    digests, events, views = reference(game, setup, history, seats)

    checked = []
    report = check_log(data.table_log("t1"), on_step=lambda e, state, evs: evs is not None and checked.append(
        (digest(state), evs)))
    assert report.ok and report.ended, report.problem
    assert checked == list(zip(digests, events))
    assert verify_seed(report) is None

    restored_session, log = restored(game, setup, seed, entries)
    assert restored_session.digest() == digests[-1] == session.digest()
    assert restored_session.history == history
    assert restored_session.rng.state == session.rng.state  # ready to go on exactly where the table was
    assert [list(e.events) for e in log.entries if e.accepted] == events
    assert [e.seq for e in log.entries] == [e.seq for e in entries]

    for seat in seats:
        answer = frames.answer(data, Replay(log="t1", seat=seat, count=200))
        assert answer.total == len(history) + 1
        shown = [msgspec.to_builtins(f.view) for f in answer.frames[1:]]
        assert shown == [v[seat] for v in views][:199]


@PROPERTY
@given(tables())
def test_restore_and_verify_refuse_chance_that_does_not_follow_from_the_seed_at_the_same_entry(tmp_path_factory,
                                                                                                table):
    game, setup, seed = table
    history = random_playout(game, setup, seed).history
    other = (seed + 1) % 2**64  # the log commits to (and reveals) another seed than the one that dealt
    data = DataDir(tmp_path_factory.mktemp("data"))
    entries = write_log(data, game, setup, other, history)
    report = check_log(data.table_log("t1"))
    assert report.ok  # every action applies and every digest matches: only the seed can tell
    problem = verify_seed(report)
    try:
        restored(game, setup, other, entries)
    except Unbuildable as refused:
        assert problem == f"entry {refused.entry.seq}: this shuffle or roll does not follow from the seed"
    else:
        assert problem is None and not any(actor == CHANCE for actor, _ in history)


def test_an_entry_the_rules_refuse_is_named_the_same_by_every_reader(tmp_path):
    from rules import get_game, make_setup

    game = get_game("flag_finish")
    setup = make_setup(game.info, 2, "lockstep", {"races": 1, "action_limit": 60})
    history = random_playout(game, setup, 3).history
    data = DataDir(tmp_path)
    entries = write_log(data, game, setup, 3, history)
    bad = next(e for e in entries if e.accepted and e.actor >= 0)
    forged = [msgspec.structs.replace(e, action={"type": "play", "card": "Z9"}) if e is bad else e for e in entries]
    with pytest.raises(Unbuildable) as refused:
        restored(game, setup, 3, forged)
    assert refused.value.entry.seq == bad.seq and "the rules refuse" in str(refused.value)
    header = check_log(data.table_log("t1")).read.header
    log = data.table_log("t1")
    log.write_bytes(encode_log([header, *forged]))
    report = check_log(log)
    assert f"(entry {bad.seq}): the rules refuse this accepted action" in report.problem
    with pytest.raises(Exception) as framed:
        frames.answer(data, Replay(log="t1"))
    assert f"(entry {bad.seq})" in str(framed.value.message)


def test_the_rebuild_is_pure():
    """No trio, no clock, no file: only the rules, msgspec and the in-memory log (so a player's machine runs it)."""
    import ast
    from pathlib import Path

    import server.logs.rebuild

    tree = ast.parse(Path(server.logs.rebuild.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {(node.module or "").split(".")[0] if node.level == 0 else f".{node.module}"
                 for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "dataclasses", "typing", "msgspec", "rules", ".actionlog"}, imported


def test_an_export_sent_in_a_message_is_charged_for_its_unpacked_size_and_unpacks_to_16_mib_at_most():
    import base64
    import gzip

    from server.protocol import Refusal
    from server.logs.exported import MOST_BYTES, ExportError, unpack

    def packed(data: bytes) -> str:
        return base64.b64encode(gzip.compress(data)).decode()

    raw = b"{" + b" " * (3 * frames.LOG_UNIT) + b"}"
    assert unpack(packed(raw)) == raw
    assert frames.log_units(None, Replay(export=packed(raw))) == 3  # read whole for every page, like a log
    bomb = packed(b" " * (MOST_BYTES + 1))  # some 16 KiB that would unpack past the bound
    with pytest.raises(ExportError):
        unpack(bomb)
    with pytest.raises(Refusal) as refused:
        frames.answer(None, Replay(export=bomb))
    assert refused.value.code == "bad_log"
    with pytest.raises(ExportError):
        unpack(packed(raw)[:-8])  # cut short


def test_an_export_whose_trailer_names_another_size_is_refused_before_it_is_read():
    """red team 8: gzip's trailer (what an export is charged for) is the sender's to write: a large export
    followed by a second, empty gzip member was charged as 0 bytes and read and checked whole. An export is one
    gzip member, its trailer the size it unpacks to."""
    import base64
    import gzip

    from server.logs.exported import ExportError, unpack

    raw = b"{" + b" " * (3 * frames.LOG_UNIT) + b"}"
    lying = base64.b64encode(gzip.compress(raw) + gzip.compress(b"")).decode()
    assert frames.log_units(None, Replay(export=lying)) == 0  # what it says
    with pytest.raises(ExportError):
        unpack(lying)
    trailing = base64.b64encode(gzip.compress(raw) + b"\x00\x00\x00\x00").decode()
    with pytest.raises(ExportError):
        unpack(trailing)


def test_an_export_is_inflated_no_further_than_it_was_charged_for(monkeypatch):
    """red11: an export refused for a second gzip member (or cut short, its last four bytes the sender's) was
    refused only after its first member was inflated, up to 16 MiB (50 ms of the replay worker, which playbacks
    share, for a 22 KB message charged 8 units, not 264). It is inflated no further than its trailer says."""
    import base64
    import gzip
    import zlib

    from server.logs import exported

    inflated, original = [], zlib.decompressobj

    class Counting:
        def __init__(self, *args, **kwargs):
            self.inner = original(*args, **kwargs)

        def decompress(self, data, max_length=0):
            out = self.inner.decompress(data, max_length)
            inflated.append(len(out))
            return out

        def __getattr__(self, name):
            return getattr(self.inner, name)

    monkeypatch.setattr(exported.zlib, "decompressobj", Counting)
    big = gzip.compress(b" " * exported.MOST_BYTES)
    for lie in (big + gzip.compress(b""), big[:-8] + (0).to_bytes(4, "little") * 2, big[:-4] + (1).to_bytes(4, "little")):
        packed = base64.b64encode(lie).decode()
        charged = exported.unpacked_size(packed)
        inflated.clear()
        with pytest.raises(exported.ExportError):
            exported.unpack(packed)
        assert sum(inflated) <= charged + 1, f"{sum(inflated)} bytes inflated for an export charged as {charged}"
    raw = b"{" + b" " * (3 * frames.LOG_UNIT) + b"}"
    assert exported.unpack(base64.b64encode(gzip.compress(raw)).decode()) == raw
