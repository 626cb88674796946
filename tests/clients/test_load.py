"""The load generator (`photofinish load`) against a real server on loopback: what an organizer relies on.

Every run here is bounded by a count of answers, so it ends as soon as the server has answered them; the
time bound is only the guard against a hang.
"""

from __future__ import annotations

import msgspec
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

import clients.load
from clients.client import ServerError
from clients.load import run_load, summarize
from server.app import run_server
from server.gateway import Limits
from server.protocol import ROWS, ServerMessageType, viewpatch

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


BOT_SPEECH = clients.load.Speech(patches=True, events=False, encoding="msgpack")
ROWS_SPEECH = clients.load.Speech(patches=True, events=False, encoding="msgpack", rows=True)


async def test_seats_that_speak_as_a_bot_with_the_smallest_updates_play_on_and_the_server_hears_them(nursery):
    """`photofinish load --patches --no-events --encoding msgpack`: each seat's hello asks for patches, no events
    and msgpack; the seats keep their legal lists whole from patches, so the run plays games to their end."""
    running = await start(nursery)
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=2, seconds=60, max_actions=300, table=SHORT_GAMES,
                               speech=BOT_SPEECH)
    row = summarize(stats, tables=2)
    assert stats.accepted > 0 and row["unanswered"] == 0 and stats.limited == 0
    assert stats.accepted + stats.rejected >= 300
    assert stats.games >= 2  # the game's last update (its result) reached the seats: they moved on
    seats = [slot.receiver for table in running.lobby.tables.values() for slot in table.slots
             if slot.receiver is not None]
    assert seats
    assert all(seat.patches and not seat.events and seat.codec.encoding == "msgpack" for seat in seats)
    assert row["received_bytes_per_action"] > 0


async def test_seats_that_ask_for_rows_play_on_and_are_sent_rows(nursery):
    """`photofinish load --patches --no-events --encoding msgpack --rows`: updates come as arrays; the seats read
    them at the protocol's places, so they still hold their legal lists and play games to their end."""
    running = await start(nursery)
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=2, seconds=60, max_actions=300, table=SHORT_GAMES,
                               speech=ROWS_SPEECH)
    row = summarize(stats, tables=2)
    assert stats.accepted > 0 and row["unanswered"] == 0 and stats.games >= 2
    seats = [slot.receiver for table in running.lobby.tables.values() for slot in table.slots
             if slot.receiver is not None]
    assert seats and all(seat.codec.name == "msgpack rows" for seat in seats)


async def test_the_default_seats_say_nothing_new_in_their_hello(nursery):
    running = await start(nursery)
    with trio.fail_after(60):
        stats = await run_load(running.url, tables=1, seconds=60, max_actions=30, table=SHORT_GAMES)
    seats = [slot.receiver for table in running.lobby.tables.values() for slot in table.slots
             if slot.receiver is not None]
    assert stats.accepted > 0 and seats
    assert all(not seat.patches and seat.events and seat.codec.encoding == "json" for seat in seats)


def test_events_off_without_patches_is_refused():
    with pytest.raises(ValueError, match="needs patches"):
        clients.load.Speech(patches=False, events=False)


@pytest.mark.parametrize("speech", [{"patches": True}, {"encoding": "msgpack"}])
def test_rows_without_patches_and_msgpack_are_refused(speech):
    with pytest.raises(ValueError, match="rows need patches and the msgpack encoding"):
        clients.load.Speech(rows=True, **speech)


def patched_updates(lists: list[list]) -> list[dict]:
    """The updates a seat with patches is sent for these legal lists, one after another, as the server trims them
    (server/table/patching.py): a list equal to the last sent is left out, a changed non-empty one comes as a patch
    of the last non-empty one sent (unless the patch is the whole list), the rest whole."""
    sent, base, out = None, None, []
    for seq, legal in enumerate(lists, start=1):
        update = {"type": "update", "table": "t", "seq": seq, "actor": 0, "view_patch": []}
        if legal == sent:
            pass
        elif legal and base:
            patch = viewpatch.diff(base, legal)
            update.update({"legal": legal} if len(patch) == 1 and not patch[0][0] else {"legal_patch": patch})
        else:
            update["legal"] = legal
        if legal:
            base = legal
        sent = legal
        out.append(update)
    return out


ACTIONS = st.fixed_dictionaries({"type": st.sampled_from(["take", "discard", "pass"]),
                                 "card": st.sampled_from(["R1", "R2", "G3", "B4", "Y5"])})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(ACTIONS, max_size=6), min_size=1, max_size=8), st.sampled_from(["json", "msgpack", "rows"]))
def test_a_seat_with_patches_holds_every_legal_list_whole_again(lists, encoding):
    """Whatever the lists, after each update the seat may act on exactly the list the server meant (nothing when
    it is empty), though the seat used up the list it acted on (a list left out is the one last sent); with rows,
    the updates are the server's own messages encoded as rows."""
    codec = clients.load.ROWS if encoding == "rows" else clients.load.CODECS[encoding]
    if encoding == "rows":  # as the server encodes them
        encode = lambda message: ROWS.bytes_of(msgspec.convert(message, ServerMessageType))  # noqa: E731
    else:
        encode = codec.encode
    table = clients.load._Table("t", clients.load.Stats(), codec)
    snapshot = {"type": "snapshot", "table": "t", "seq": 0, "view": {}, "to_act": [0], "legal": [{"type": "pass"}]}
    table.take(codec.decode_seen(encode(snapshot)))
    for legal, update in zip(lists, patched_updates([[{"type": "pass"}], *lists])[1:]):
        table.legal = None  # the seat acted on what it had: only the update may give it a list again
        table.take(codec.decode_seen(encode(update)))
        held = None if table.legal is None else [msgspec.convert(codec.decode_any(item) if type(item) is
                                                                 msgspec.Raw else item, dict)
                                                 for item in table.choices(table.legal)]
        assert held == (legal or None)


def test_a_rows_seat_sends_the_map_of_the_action_row_it_picked():
    """A rows seat's legal actions are rows (``["take", "G5"]``); what it sends is the action's map again."""
    picked = msgspec.Raw(msgspec.msgpack.encode(["take", "G5"]))
    assert clients.load.ROWS.action("flag_finish", picked) == {"type": "take", "card": "G5"}
    assert clients.load.ROWS.action("flag_finish", ["draw"]) == {"type": "draw"}  # (as patched: decoded)
    with pytest.raises(ConnectionError, match="no action row"):
        clients.load.ROWS.action("flag_finish", ["fly", "G5"])


def test_a_patch_of_a_legal_list_the_seat_never_had_is_a_connection_failure_not_a_crash():
    table = clients.load._Table("t", clients.load.Stats())
    update = {"type": "update", "table": "t", "seq": 1, "actor": 0, "view_patch": [], "legal_patch": [[[0]]]}
    with pytest.raises(ConnectionError, match="no list before"):
        table.take(clients.load.JSON.decode_seen(msgspec.json.encode(update)))
