"""The SQLite store: a tournament's life written and read back, reopening (with a migration) keeps it all,
a write acknowledged before kill -9 is there after, refused writes change nothing, and trio's use of it
runs off the event loop's thread."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from server.protocol import Refusal
from server.tournament.model import Seating, Settings, Sizes, TableResult
from server.tournament.ratings import Rating
from server.datadir import DataDir
from server.tournament.store import MIGRATIONS, Store, open_store

SETTINGS = Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=3, points={3: (4, 2, 0)})


def fill(store: Store) -> None:
    for player in "abcd":
        store.add_player(player, player.upper(), token_hash="h" + player)
    store.add_tournament("t1", "Cup", "flag_finish", {"races": 2}, SETTINGS, "c" * 64, "2026-01-01T00:00:00Z")
    for player in "abcd":
        store.register("t1", player)
    store.check_in("t1", "b")
    store.add_round("t1", 1, {"t1-r1-0": ("a", "b"), "t1-r1-1": ("c", "d")})
    store.add_result("t1", 1, TableResult("t1-r1-0", ("a", "b"), (1, 2), (3, 9)), "f" * 64)
    store.correct_result("t1", "t1-r1-0", (2, 1), (9, 3), "scores swapped by hand")
    store.drop("t1", "d")
    store.db.execute("INSERT INTO ratings (player, game, mu, sigma, tables) VALUES ('a', 'flag_finish', 27.5, 7.0, 1)")
    store.set_state("t1", "ended", seed=2**64 - 1)


def test_reopening_keeps_everything_and_applies_the_new_migration(tmp_path):
    old = Store(DataDir(tmp_path).store, migrations=MIGRATIONS[:1])  # a database from the previous version
    assert old.version() == 1
    fill(old)
    old.close()
    store = Store(DataDir(tmp_path).store)
    assert store.version() == len(MIGRATIONS)
    assert store.db.execute("SELECT name FROM sqlite_master WHERE name = 'ratings_by_game'").fetchone()
    t = store.tournament("t1")
    assert (t["settings"], t["options"], t["state"], t["seed"]) == (SETTINGS, {"races": 2}, "ended", 2**64 - 1)
    assert store.entries("t1") == [("a", False, False), ("b", True, False), ("c", False, False), ("d", False, True)]
    assert store.seatings("t1") == [Seating(tables=(("a", "b"), ("c", "d")))]
    [(result, log_hash, reason)] = store.results("t1")
    assert (result.places, result.scores, log_hash, reason) == ((2, 1), (9, 3), "f" * 64, "scores swapped by hand")
    assert store.ratings("flag_finish") == [Rating("a", "flag_finish", mu=27.5, sigma=7.0, tables=1, name="a")]
    store.close()


def test_a_database_newer_than_the_code_is_refused(tmp_path):
    Store(DataDir(tmp_path).store).close()
    with pytest.raises(Refusal) as error:
        Store(DataDir(tmp_path).store, migrations=MIGRATIONS[:1])
    assert error.value.code == "store_too_new"


def test_refused_writes_are_typed_and_change_nothing(tmp_path):
    store = Store(DataDir(tmp_path).store)
    fill(store)
    before = store.db.execute("SELECT COUNT(*) FROM seatings").fetchone()
    cases = [
        (lambda: store.add_player("a", "again"), "player_exists"),
        (lambda: store.register("t1", "a"), "already_registered"),
        (lambda: store.register("t1", "zed"), "unknown_player"),
        (lambda: store.register("nope", "a"), "unknown_tournament"),
        (lambda: store.drop("t1", "zed"), "unknown_player"),
        # one table of the round is fine, the other reuses a seated table's id: nothing of it is stored
        (lambda: store.add_round("t1", 2, {"t1-r2-0": ("a", "c"), "t1-r1-0": ("b", "d")}), "bad_round"),
        (lambda: store.add_result("t1", 1, TableResult("t1-r1-0", ("a", "b"), (1, 2), (0, 0)), "x"),
         "already_finished"),
        (lambda: store.add_result("t1", 1, TableResult("t1-r1-1", ("d", "c"), (1, 2), (0, 0)), "x"),
         "bad_result"),
        (lambda: store.correct_result("t1", "t1-r1-1", (1, 2), (0, 0), "no result yet"), "unknown_table"),
        (lambda: store.correct_result("t1", "t1-r1-0", (1, 3), (0, 0), "bad places"), "bad_result"),
    ]
    for call, code in cases:
        with pytest.raises(Refusal) as error:
            call()
        assert error.value.code == code
    assert store.db.execute("SELECT COUNT(*) FROM seatings").fetchone() == before
    assert len(store.seatings("t1")) == 1 and store.results("t1")[0][2] == "scores swapped by hand"


def test_a_write_acknowledged_before_kill_9_survives(tmp_path):
    script = (f"import os, signal; from server.tournament.store import Store; s = Store({str(DataDir(tmp_path).store)!r}); "
              "s.add_player('p', 'P'); print('ack', flush=True); os.kill(os.getpid(), signal.SIGKILL)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stdout == "ack\n" and run.returncode == -9
    store = Store(DataDir(tmp_path).store)
    assert store.db.execute("SELECT name FROM players WHERE id = 'p'").fetchone() == ("P",)
    assert store.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert store.db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL


async def test_trio_uses_the_store_from_a_worker_thread_one_call_at_a_time(tmp_path):
    async with open_store(tmp_path) as db:
        await db.call(Store.add_player, "p", "P")
        where = await db.call(lambda store: threading.get_ident())
        assert where != threading.get_ident()
        with pytest.raises(Refusal):
            await db.call(Store.add_player, "p", "again")
        assert db.limiter.total_tokens == 1
    reopened = Store(DataDir(tmp_path).store)
    assert reopened.db.execute("SELECT name FROM players").fetchall() == [("P",)]


def test_ratings_of_an_old_store_are_keyed_by_the_skeleton_of_the_name_and_look_alikes_merge(tmp_path):
    """Version 3 keyed ratings by the case-folded name as typed: Ana and Аna (Cyrillic А) were two players, José
    decomposed another than José composed. Version 4 keys them by skeleton: one rating each, the one from more
    tables kept where two meet, shown by the old key."""
    old = Store(DataDir(tmp_path).store, migrations=MIGRATIONS[:3])
    for player, name in (("T1p1", "Ana"), ("T1p2", "\u0410na"), ("T1p3", "Jose\u0301")):
        old.add_player(player, name)
    for key, tables in (("ana", 3), ("\u0430na", 1), ("jose\u0301", 2)):
        old.db.execute("INSERT INTO ratings VALUES (?, 'flag_finish', 25.0, 8.0, ?)", (key, tables))
    old.close()
    store = Store(DataDir(tmp_path).store)
    assert store.ratings("flag_finish") == [Rating("ana", "flag_finish", mu=25.0, sigma=8.0, tables=3, name="ana"),
                                            Rating("jos\u00e9", "flag_finish", mu=25.0, sigma=8.0, tables=2,
                                                   name="jose\u0301")]
    store.close()
