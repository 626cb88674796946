"""The load generator (`photofinish load`) against a real server on loopback: what an organizer relies on.

Every run here is bounded by a count of answers, so it ends as soon as the server has answered them; the
time bound is only the guard against a hang.
"""

from __future__ import annotations

import msgspec
import pytest
import trio

import clients.load
from clients.client import ServerError
from clients.load import run_load, summarize
from server.app import run_server
from server.gateway import Limits

SHORT_GAMES = ("flag_finish", "challenge", {"races": 1, "window_ms": 0, "extra_races": 0, "action_limit": 40})


async def start(nursery, **kwargs):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status, **kwargs))


async def test_a_run_is_bounded_by_its_count_and_every_action_is_answered(nursery):
    running = await start(nursery)
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=2, seconds=60, max_actions=200, table=SHORT_GAMES)
    row = summarize(stats, tables=2)
    assert stats.accepted + stats.rejected >= 200
    assert row["answered"] == stats.accepted + stats.rejected
    assert row["unanswered"] == 0  # the run waits for the answers to what it sent before it stops
    assert stats.elapsed < 60  # it stopped on the count, not the clock
    assert all(rt > 0 for rt in stats.round_trips_us)
    assert row["fanout_p50_us"] > 0  # measured (not NaN): accepted actions reached all three seats


async def test_a_table_whose_game_ends_is_replaced_so_the_run_goes_on(nursery):
    running = await start(nursery)
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=1, seconds=60, max_actions=400, table=SHORT_GAMES)
    assert stats.games >= 3  # a one-race game ends within 40 seat actions
    assert stats.accepted + stats.rejected >= 400
    tables = {table for table, _ in stats.sent_at}
    assert len(tables) in (stats.games, stats.games + 1)  # a fresh table for each game that ended
    assert len(running.lobby.tables) >= 2


async def test_every_table_gets_its_share_of_the_actions(nursery):
    running = await start(nursery)
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=4, seconds=60, max_actions=600)
    row = summarize(stats, tables=4)
    assert sorted(stats.per_table) == [0, 1, 2, 3]
    assert row["table_rate_min"] > 0


async def test_a_server_rate_limit_is_counted_and_the_seats_go_on(nursery, monkeypatch):
    monkeypatch.setattr(clients.load, "LIMITED_PAUSE", 0.001)
    running = await start(nursery, limits=Limits(rate=100, burst=5, flood=10**9))
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=1, seconds=60, max_actions=150)
    row = summarize(stats, tables=1)
    assert stats.limited > 0  # three seats acting as fast as they can outrun 100 messages a second
    assert stats.accepted + stats.rejected >= 150  # ... and none of them waits forever for a dropped action
    assert row["rate_limited_per_s"] > 0


async def test_a_table_the_server_refuses_is_a_typed_error_naming_the_reason(nursery):
    running = await start(nursery)
    with pytest.raises(ServerError) as refused:
        await run_load(running.url, tables=1, seconds=60, table=("flag_finish", "challenge", {"races": 0}))
    assert refused.value.code == "bad_option" and "races" in refused.value.message
    assert not running.lobby.tables  # nothing half-made


class ScriptedSocket:
    """Frames from a server, in order, as trio-websocket's get_message would hand them over."""

    def __init__(self, frames: list[dict]) -> None:
        self.frames = [msgspec.json.encode(frame).decode() for frame in frames]

    async def get_message(self) -> str:
        await trio.lowlevel.checkpoint()
        return self.frames.pop(0)


async def test_after_its_answer_a_seat_holds_the_legal_list_that_came_with_the_answer():
    take, discard = [{"type": "take", "card": "R1"}], [{"type": "discard", "card": "R1"}]
    link = clients.load._Link(ScriptedSocket([
        {"type": "update", "table": "t", "seq": 5, "legal": take},  # another seat acted first: an older list
        {"type": "batch", "messages": [{"type": "accepted", "ref": 1, "table": "t", "seq": 6},
                                       {"type": "update", "table": "t", "seq": 6, "legal": discard}]},
    ]))
    table = clients.load._Table("t", clients.load.Stats())
    answer, arrived = await clients.load._answer(link, table, ref=1)
    assert (answer.type, answer.seq) == ("accepted", 6)
    assert msgspec.json.decode(table.legal) == discard  # not the take list: that would be refused
    assert not link.inbox


async def test_load_seats_answer_pings_so_fair_ordering_credits_their_round_trip(nursery):
    """A seat that never answers a ping has no round trip measured: fair ordering then holds each of its takes
    the whole window (50 ms), which a real client (it answers) never sees, and the bench would measure it."""
    running = await start(nursery)
    with trio.fail_after(60):
        await run_load(running.url, tables=1, seconds=60, max_actions=200, table=SHORT_GAMES)
    seats = [slot.receiver for table in running.lobby.tables.values() for slot in table.slots
             if slot.receiver is not None]
    assert seats
    assert all(seat.latency.samples for seat in seats)  # each answered at least its first ping with a pong


async def test_a_load_tables_fields_reach_the_create_so_a_bench_can_choose_their_ordering(nursery):
    running = await start(nursery)
    with trio.fail_after(60):
        await run_load(running.url, tables=2, seconds=60, max_actions=20, table=(*SHORT_GAMES, {"ordering": "arrival"}))
    assert running.lobby.tables
    assert {table.ordering for table in running.lobby.tables.values()} == {"arrival"}  # Challenge's default: fair
