"""A tournament bot's trouble at one table ends only that seat: the tournament bots survived neither a table
gone after a restart ("no table 't3'") nor a server restarting when a round began ("cannot connect"), and one
table's error cancelled every seat of every bot."""

import pytest
import trio

import clients.tournament_bots as bots
from clients.client import ServerError


async def test_a_table_the_server_refuses_ends_that_seat_quietly(monkeypatch):
    calls = []

    async def refused(*args, **kwargs):
        calls.append(args[1])
        raise ServerError("no_table", "no table 't3'")

    monkeypatch.setattr(bots, "play_seat", refused)
    await bots._play_table("ws://127.0.0.1:1", "t3", "random", 1, "bot 1", "token", 0)
    assert calls == ["t3"]  # asked once, then left to the server's stand-in


async def test_a_server_restarting_is_waited_for_then_the_seat_is_played(monkeypatch, autojump_clock):
    tries = []

    async def down_twice(*args, **kwargs):
        tries.append(trio.current_time())
        if len(tries) <= 2:
            raise ConnectionError("cannot connect to ws://127.0.0.1:1: is a photofinish server running there?")

    monkeypatch.setattr(bots, "play_seat", down_twice)
    await bots._play_table("ws://127.0.0.1:1", "t4", "random", 1, "bot 1", "token", 0)
    assert len(tries) == 3
    assert tries[1] - tries[0] == pytest.approx(bots.RETRY_PAUSE)


async def test_a_server_that_never_comes_back_ends_the_seat_after_its_tries(monkeypatch, autojump_clock):
    tries = []

    async def down(*args, **kwargs):
        tries.append(1)
        raise ConnectionError("cannot connect")

    monkeypatch.setattr(bots, "play_seat", down)
    await bots._play_table("ws://127.0.0.1:1", "t5", "random", 1, "bot 1", "token", 0)
    assert len(tries) == bots.TABLE_TRIES


async def test_one_seats_error_does_not_cancel_the_bots_other_tables(monkeypatch, autojump_clock):
    finished = []

    async def seat(url, table, *args, **kwargs):
        if table == "t1":
            raise ServerError("no_table", "no table 't1'")
        await trio.sleep(5)
        finished.append(table)

    monkeypatch.setattr(bots, "play_seat", seat)
    async with trio.open_nursery() as nursery:
        for table in ("t1", "t2"):
            nursery.start_soon(bots._play_table, "ws://127.0.0.1:1", table, "random", 1, "bot", "token", 0)
    assert finished == ["t2"]
