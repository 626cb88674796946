"""The server over real websockets on loopback: where the socket is the subject, or a whole game is."""

from __future__ import annotations

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st
from trio_websocket import ConnectionClosed, open_websocket_url

from clients.client import ActionRejected, ServerError, open_client
from clients.remote_bots import play_seat
from rules import GAMES, digest, replay
from rules.flag_finish.game import DrawPile, Drew, RaceDealt
from server.app import run_server
from server.gateway import Limits
from server.gateway import accept as accept_module
from server.gateway.connection import Connection
from server.protocol import CODECS, Closing, Error, Snapshot, Update

JSON = CODECS["json"]


async def start(nursery, **kwargs):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status, **kwargs))


async def raw_session(url: str, frames: list, hello: bool = True) -> list:
    """Send frames on a bare websocket and collect every answer until the server goes quiet or closes."""
    answers = []
    async with open_websocket_url(url) as ws:
        if hello:
            await ws.send_message('{"type": "hello", "protocol": 1, "id": 0}')
            answers.append(msgspec.json.decode(await ws.get_message()))
        for frame in frames:
            await ws.send_message(frame)
        await ws.send_message('{"type": "list_games", "id": "probe"}')
        with trio.fail_after(10):  # a server that stopped answering fails the test instead of hanging it
            try:
                while True:
                    answer = msgspec.json.decode(await ws.get_message())
                    answers.append(answer)
                    if answer.get("ref") == "probe":
                        break
            except ConnectionClosed:
                pass
    return answers


def hidden_card_leaks(seat, message) -> list[str]:
    """What in one message to ``seat`` (None: spectator) it should not have seen."""
    leaks = []
    if type(message) not in (Update, Snapshot):
        return leaks
    for event in getattr(message, "events", []):
        if type(event) is Drew and event.seat != seat and event.card is not None:
            leaks.append(f"seat {seat} saw seat {event.seat}'s blind draw")
        if type(event) is RaceDealt and any(h is not None for i, h in enumerate(event.hands) if i != seat):
            leaks.append(f"seat {seat} saw another hand in a deal")
    if message.view is not None and seat is None and message.view.hand is not None:
        leaks.append("a spectator saw a hand")
    return leaks


async def test_three_bots_finish_a_challenge_match_over_websockets_and_nobody_sees_a_hidden_card(nursery):
    running = await start(nursery)
    async with open_client(running.url) as admin:
        info = await admin.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 2})
        await admin.watch(info.table)
        leaks, seen = [], {0: 0, 1: 0, 2: 0}

        def check(seat, message):
            seen[seat] += 1
            leaks.extend(hidden_card_leaks(seat, message))

        async with trio.open_nursery() as bots:
            for index, policy in enumerate(["heuristic", "heuristic", "random"]):
                bots.start_soon(lambda p=policy, i=index: play_seat(running.url, info.table, p, i, seat=i,
                                                                    on_message=check))
        async for message in admin.messages:
            leaks.extend(hidden_card_leaks(None, message))
            if type(message) is Update and message.result is not None:
                break
    table = running.lobby.find(info.table)
    result = table.session.result()
    assert result is not None and len(result.scores) == 3 and result.winners
    assert all(count > 10 for count in seen.values())
    assert leaks == []
    states = list(replay(table.game, table.setup, table.log.history()))
    assert digest(states[-1][0]) == table.session.digest()


async def test_a_protocol_mismatch_is_refused_with_a_reason(nursery):
    running = await start(nursery)
    async with open_websocket_url(running.url) as ws:
        await ws.send_message('{"type": "hello", "protocol": 99, "id": 1}')
        error = msgspec.json.decode(await ws.get_message())
        closing = msgspec.json.decode(await ws.get_message())
        with pytest.raises(ConnectionClosed):
            await ws.get_message()
    assert error["code"] == "protocol_mismatch" and "protocol 1" in error["message"] and error["ref"] == 1
    assert closing["type"] == "closing"


async def test_hello_must_come_first(nursery):
    running = await start(nursery)
    answers = await raw_session(running.url, [], hello=False)
    assert answers[0]["code"] == "hello_first"


async def test_malformed_and_unknown_messages_get_typed_errors_and_the_connection_goes_on(nursery):
    running = await start(nursery)
    answers = await raw_session(running.url, [
        "not json at all", '{"type": "warp"}', '{"type": "act"}', '{"type": "list_games", "extra": 1}',
        '{"type": "act", "table": "nope", "action": {}, "id": 5}', '{"type": "hello", "protocol": 1, "id": 6}'])
    codes = [a.get("code") for a in answers[1:-1]]
    assert codes == ["malformed", "malformed", "malformed", "malformed", "no_table", "already_greeted"]
    assert answers[-1]["type"] == "games"


async def test_a_malformed_request_is_answered_under_its_id_where_the_id_can_be_read(nursery):
    """A bot waiting for the answer to its request gets one, even when the request itself was wrong."""
    running = await start(nursery)
    answers = await raw_session(running.url, [
        '{"type": "act", "id": 7}', '{"type": "warp", "id": "w1"}', '{"type": "take_seat", "table": 3, "id": 8}',
        '{"type": "act", "id": [1]}', "[1, 2]", "not json at all", msgspec.msgpack.encode({"type": "act", "id": 9})])
    errors = answers[1:-1]
    assert [a["code"] for a in errors] == ["malformed"] * 7
    assert [a["ref"] for a in errors] == [7, "w1", 8, None, None, None, 9]
    assert "table" in errors[2]["message"]
    assert errors[5]["message"].startswith("not JSON: ") and "msgpack" in errors[6]["message"]


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_an_integer_beyond_64_bits_is_malformed_and_the_connection_goes_on(nursery, encoding):
    """JSON has no bound on an integer and msgpack carries 64 bits: an id of 10**30 echoed as a msgpack ``ref``
    could not be written (its connection was cut with a traceback); now it is refused as it is read."""
    running = await start(nursery)
    frames = ['{"type": "list_games", "id": 1000000000000000000000000000000}',
              '{"type": "act", "table": "t1", "action": {}, "seen": -1000000000000000000000000000000, "id": 4}',
              '{"type": "list_games", "id": 9223372036854775807}']
    async with open_websocket_url(running.url) as ws:
        await ws.send_message(f'{{"type": "hello", "protocol": 1, "encoding": "{encoding}"}}')
        decode = msgspec.json.decode if encoding == "json" else msgspec.msgpack.decode
        assert decode(await ws.get_message())["type"] == "welcome"
        answers = []
        with trio.fail_after(10):
            for frame in frames:
                await ws.send_message(frame)
                answers.append(decode(await ws.get_message()))
    assert [(a["type"], a.get("code"), a["ref"]) for a in answers] == [
        ("error", "malformed", None), ("error", "malformed", 4), ("games", None, 2**63 - 1)]
    assert "9223372036854775807" in answers[0]["message"]


async def test_a_malformed_hello_is_refused_under_its_id(nursery):
    running = await start(nursery)
    async with open_websocket_url(running.url) as ws:
        await ws.send_message('{"type": "hello", "protocol": "one", "id": 3}')
        error = msgspec.json.decode(await ws.get_message())
    assert error["code"] == "bad_hello" and error["ref"] == 3


async def test_an_oversize_frame_closes_the_connection_with_1009(nursery):
    running = await start(nursery, limits=Limits(max_frame=1024))
    async with open_websocket_url(running.url) as ws:
        await ws.send_message('{"type": "hello", "protocol": 1}')
        await ws.get_message()
        await ws.send_message('{"type": "list_games", "id": "' + "x" * 5000 + '"}')
        with pytest.raises(ConnectionClosed) as closed:
            await ws.get_message()
    assert closed.value.reason.code == 1009


async def test_a_flood_is_rate_limited_then_closed(nursery):
    running = await start(nursery, limits=Limits(rate=5, burst=5, flood=30))
    answers = []
    async with open_websocket_url(running.url) as ws:
        await ws.send_message('{"type": "hello", "protocol": 1}')
        await ws.get_message()
        for _ in range(20):  # every message gets one answer: the tables, or a refusal
            await ws.send_message('{"type": "list_tables"}')
            answers.append(msgspec.json.decode(await ws.get_message()))
        assert answers[0]["type"] == "tables"
        assert sum(a.get("code") == "rate_limited" for a in answers) >= 10
        with pytest.raises(ConnectionClosed):
            with trio.fail_after(10):
                while True:
                    await ws.send_message('{"type": "list_tables"}')
                    last = msgspec.json.decode(await ws.get_message())
    assert last["code"] in ("flood", "rate_limited") or last["type"] == "closing"


async def test_a_request_dropped_by_the_rate_limit_is_answered_and_pongs_never_count(nursery):
    running = await start(nursery, limits=Limits(rate=0.01, burst=1, flood=30))
    async with open_client(running.url) as client:  # one message at once, then one every 100 s
        await client.list_games()
        with trio.fail_after(10), pytest.raises(ServerError) as dropped:
            await client.list_tables()  # over the limit: refused with its own ref, so it does not wait forever
        assert dropped.value.code == "rate_limited"
    async with open_websocket_url(running.url) as ws:
        await ws.send_message('{"type": "hello", "protocol": 1, "id": 0}')
        await ws.get_message()
        for _ in range(5):  # answers to pings: never rate-limited, never answered
            await ws.send_message('{"type": "pong", "ping": 1}')
        await ws.send_message('{"type": "list_tables", "id": 7}')
        answer = msgspec.json.decode(await ws.get_message())
    assert answer["type"] == "tables" and answer["ref"] == 7


async def test_msgpack_frames_work_end_to_end(nursery):
    running = await start(nursery)
    async with open_client(running.url, encoding="msgpack") as client:
        games = await client.list_games()
        assert "flag_finish" in [g.name for g in games]
        info = await client.create_table(game="flag_finish", mode="lockstep", seats=2, bots=[{"seat": 1}])
        seated = await client.take_seat(info.table)
        snapshot = None
        async for message in client.messages:
            if type(message) in (Update, Snapshot) and message.view is not None:
                snapshot = message
                break
        assert seated.seat == 0 and len(snapshot.view.hand) == 12


async def test_an_illegal_action_over_the_wire_is_rejected_with_the_rules_code(nursery):
    running = await start(nursery)
    async with open_client(running.url) as client:
        info = await client.create_table(game="flag_finish", mode="lockstep", seats=2, bots=[{"seat": 1}])
        await client.take_seat(info.table)
        with pytest.raises(ActionRejected) as rejected:
            await client.act(info.table, {"type": "discard", "card": "G0"})
        assert rejected.value.code in ("nothing_to_discard", "not_your_turn")
        with pytest.raises(ServerError) as error:
            await client.create_table(game="flag_finish", mode="challenge", seats=9)
        assert error.value.code == "bad_seats"


async def test_a_client_that_loses_its_connection_reconnects_and_misses_nothing(nursery):
    running = await start(nursery)
    async with open_client(running.url) as setup:
        info = await setup.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 1},
                                        bots=[{"seat": 1}, {"seat": 2, "policy": "random"}], bot_delay_ms=5)
    async with open_client(running.url) as client:
        await client.take_seat(info.table, seat=0)
        seqs, dropped = [], False
        async for message in client.messages:
            if type(message) is Update:
                seqs.append(message.seq)
                if len(seqs) == 15 and not dropped:
                    dropped = True
                    await client._ws.aclose()  # the network goes away; the client is not closing
                if message.result is not None:
                    final = message
                    break
        table = running.lobby.find(info.table)
        assert client.reconnects >= 1
        assert seqs == sorted(set(seqs)), "an update came twice or out of order"
        assert seqs == [e.seq for e in table.log.entries if e.accepted]
        assert final.view == table.game.view(table.session.state, 0)


async def test_shutdown_tells_every_client_why(nursery):
    running = await start(nursery)
    async with open_client(running.url, reconnect=False) as client:
        await client.list_games()
        await running.shutdown()
        closing = None
        async for message in client.messages:
            if type(message) is Closing:
                closing = message
                break
    assert closing.code in ("server_shutdown", "disconnected")


FRAMES = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),
    st.builds(lambda kind, fields: msgspec.json.encode({"type": kind, **fields}).decode(),
              st.sampled_from(["act", "take_seat", "resume", "watch", "leave", "create_table", "list_tables"]),
              st.dictionaries(st.sampled_from(["table", "seat", "token", "action", "id", "game", "mode", "seats",
                                               "options", "last_seq", "expect_seq", "bots"]),
                              st.one_of(st.none(), st.integers(-5, 10), st.text(max_size=8),
                                        st.just("t1"), st.just({"type": "draw"}),
                                        st.just({"type": "take", "card": "G5"}),
                                        st.lists(st.integers(0, 3), max_size=3)), max_size=5)),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FRAMES, min_size=1, max_size=25))
def test_garbage_and_wrong_messages_never_crash_the_server_or_change_a_table(frames):
    async def scenario():
        async with trio.open_nursery() as nursery:
            running = await start(nursery)
            async with open_client(running.url) as owner:
                info = await owner.create_table(game="flag_finish", mode="lockstep", seats=2,
                                                bots=[{"seat": 1, "policy": "random"}])
                await owner.take_seat(info.table, seat=0)
                table = running.lobby.find(info.table)
                async for message in owner.messages:  # until it is the idle seat 0's turn: nothing moves
                    if type(message) in (Update, Snapshot) and message.view is not None and message.to_act == [0]:
                        break
                before = (table.session.digest(), table.log.seq)
                answers = await raw_session(running.url, frames)
                assert answers[-1]["type"] == "games", "the server stopped answering"
                assert (table.session.digest(), table.log.seq) == before
                await running.shutdown()

    trio.run(scenario)


async def test_clients_vanishing_mid_stream_never_stop_the_server(nursery):
    running = await start(nursery)
    async with open_client(running.url) as admin:
        info = await admin.create_table(game="flag_finish", mode="challenge", seats=3, options={"races": 20},
                                        bots=[{"seat": 1}, {"seat": 2, "policy": "random"}])
        for _ in range(5):  # a spectator that hangs up while updates pour out to it
            async with open_websocket_url(running.url) as ws:
                await ws.send_message('{"type": "hello", "protocol": 1}')
                await ws.send_message(f'{{"type": "watch", "table": "{info.table}"}}')
                await ws.get_message()
                await ws.get_message()
        async with open_client(running.url) as seat:
            seated = await seat.take_seat(info.table, seat=0)
            await seat._ws.aclose()
        assert seated.seat == 0
        assert sorted(g.name for g in await admin.list_games()) == sorted(GAMES)


async def test_a_request_on_a_dropped_connection_is_answered_after_the_reconnect(nursery):
    running = await start(nursery)
    async with open_client(running.url) as client:
        await client._ws.aclose()  # the network drops just before the request
        with trio.fail_after(10):
            games = await client.list_games()
        assert client.reconnects >= 1 and games[0].name == "flag_finish"


async def test_a_move_made_while_the_server_is_down_is_applied_once_it_is_back(nursery, tmp_path):
    """A person types a move while the server is away (a crash, a restart): once it is back on its data, the
    move is sent, applied once and answered, however many reconnects were refused in between."""
    first = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, tmp_path, task_status=task_status))
    async with open_client(first.url) as other, open_client(first.url) as client:
        info = await other.create_table(game="flag_finish", mode="challenge", seats=2)
        await other.take_seat(info.table, seat=1)
        await client.take_seat(info.table, seat=0)
        await first.shutdown()

        tries = {count: trio.Event() for count in (2, 4)}
        client.on_reconnecting = lambda count: tries[count].set() if count in tries else None

        async def refused(count: int) -> None:  # the server is away: each reconnect is refused
            with trio.fail_after(20):
                await tries[count].wait()

        await refused(2)
        answered = []
        with trio.fail_after(30):
            async with trio.open_nursery() as typing:
                typing.start_soon(lambda: _keep(answered, client.act(info.table, DrawPile())))
                await refused(4)  # the move waits through more refused reconnects
                back = await nursery.start(lambda task_status: run_server("127.0.0.1", first.port, tmp_path,
                                                                          task_status=task_status))
    table = back.lobby.find(info.table)
    assert answered[0].table == info.table and not answered[0].duplicate
    assert [e.action for e in table.log.entries if e.accepted and e.actor == 0] == [DrawPile()]


async def _keep(into: list, call) -> None:
    into.append(await call)


async def test_a_request_without_reconnects_fails_plainly_when_the_connection_drops(nursery):
    running = await start(nursery)
    async with open_client(running.url, reconnect=False) as client:
        await client._ws.aclose()
        with trio.fail_after(10), pytest.raises(ServerError) as caught:
            await client.list_games()
        assert caught.value.code == "disconnected"


class _Wire:
    """Stands in for a websocket: keeps what the writer sends."""

    def __init__(self) -> None:
        self.frames: list = []

    async def send_message(self, frame) -> None:
        self.frames.append(frame)


async def test_a_writer_whose_outbox_closes_mid_drain_sends_what_was_queued_and_ends_cleanly():
    # The reader closes the outbox when its client leaves; a batching writer that has just taken a message
    # must send it and end, not fail on the closed outbox (that used to print a server error per connection).
    wire = _Wire()
    conn = Connection(wire, Limits())
    conn.batch = True
    conn.deliver(Error(ref=1, code="one", message="queued before the close"))
    conn.outbox.close()
    await conn.write_loop()
    assert [msgspec.json.decode(frame)["code"] for frame in wire.frames] == ["one"]


async def test_a_paced_bot_over_the_wire_waits_before_each_action(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as admin:
        info = await admin.create_table(game="flag_finish", mode="lockstep", seats=2, options={"races": 1},
                                        bots=[{"seat": 1, "policy": "random"}])
    with trio.fail_after(60):
        await play_seat(running.url, info.table, "heuristic", 3, seat=0, pace_ms=20)
    table = running.lobby.find(info.table)
    mine = [e for e in table.log.entries if e.actor == 0 and e.accepted]
    before = {e.seq: prev for prev, e in zip(table.log.entries, table.log.entries[1:])}
    assert mine and all(e.time - before[e.seq].time >= 0.010 for e in mine)  # at least half the pace, each time


async def test_a_hello_without_its_protocol_version_is_refused_typed_and_names_the_field(nursery):
    """``protocol`` is required: a client never speaks a version it did not name (PROTOCOL.md says so)."""
    running = await start(nursery)
    async with open_websocket_url(running.url) as ws:
        await ws.send_message('{"type": "hello", "id": 1}')
        error = msgspec.json.decode(await ws.get_message())
        closing = msgspec.json.decode(await ws.get_message())
        with pytest.raises(ConnectionClosed):
            await ws.get_message()
    assert error["type"] == "error" and error["code"] == "bad_hello" and error["ref"] == 1
    assert "`protocol`" in error["message"]
    assert closing == {"type": "closing", "code": "bad_hello", "message": error["message"]}


async def test_resume_from_a_negative_seq_is_refused_and_nothing_changes(nursery):
    running = await start(nursery)
    async with open_client(running.url) as client:
        created = await client.create_table(game="flag_finish", seats=2)
        seated = await client.take_seat(created.table)
        table = seated.table
    answers = await raw_session(running.url, [
        '{"type": "resume", "id": "r", "table": "%s", "token": "%s", "last_seq": -5}' % (table, seated.token)])
    refusals = [a for a in answers if a.get("ref") == "r"]
    assert [(a["type"], a["code"]) for a in refusals] == [("error", "malformed")]
    assert "last_seq" in refusals[0]["message"] and ">= 0" in refusals[0]["message"]
    assert not any(a["type"] == "seated" for a in answers)


@pytest.mark.parametrize("hello", [{"encoding": "json", "patches": True}, {"encoding": "msgpack", "patches": False},
                                   {"encoding": "msgpack"}, {}])
async def test_rows_without_msgpack_and_patches_are_refused_and_say_why(nursery, hello):
    """Rows are msgpack arrays of the patched updates: asked for without either, the hello is refused typed."""
    running = await start(nursery)
    async with open_websocket_url(running.url) as ws:
        await ws.send_message(msgspec.json.encode({"type": "hello", "protocol": 1, "id": 4, "rows": True,
                                                   **hello}).decode())
        error = msgspec.json.decode(await ws.get_message())
        closing = msgspec.json.decode(await ws.get_message())
        with pytest.raises(ConnectionClosed):
            await ws.get_message()
    assert error["type"] == "error" and error["code"] == "bad_hello" and error["ref"] == 4
    assert "rows need encoding msgpack and patches" in error["message"]
    assert closing["code"] == "bad_hello"
    assert not running.lobby.tables


async def test_a_rows_hello_with_msgpack_and_patches_is_welcomed_in_msgpack(nursery):
    running = await start(nursery)
    async with open_websocket_url(running.url) as ws:
        await ws.send_message(msgspec.msgpack.encode({"type": "hello", "protocol": 1, "id": 5, "rows": True,
                                                      "encoding": "msgpack", "patches": True}))
        welcome = msgspec.msgpack.decode(await ws.get_message())
    assert welcome["type"] == "welcome" and welcome["ref"] == 5


class CountedTurns:
    """The gateway's ``leaving`` limiter, counting the most turns taken at once."""

    def __init__(self, limiter: trio.CapacityLimiter) -> None:
        self.limiter, self.most = limiter, 0

    async def acquire(self) -> None:
        await self.limiter.acquire()
        self.most = max(self.most, self.limiter.borrowed_tokens)

    def release(self) -> None:
        self.limiter.release()


async def test_many_connections_ending_at_once_are_all_handled_a_few_at_a_time(nursery, monkeypatch):
    """Twelve spectators hang up at once (no close handshake, as a dropped Wi-Fi does); their ends are handled
    two at a time (``LEAVING_AT_ONCE``), never more, and every one of them is: the table is told each is gone,
    the gateway holds none of them, and every turn is given back."""
    monkeypatch.setattr(accept_module, "LEAVING_AT_ONCE", 2)
    running = await start(nursery)
    gateway = running.gateway
    turns = CountedTurns(gateway.leaving)
    gateway.leaving, hang_up = turns, trio.Event()

    async def watcher(table_id: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
        with trio.CancelScope() as scope:
            async with open_websocket_url(running.url) as ws:
                await ws.send_message('{"type": "hello", "protocol": 1}')
                await ws.send_message(f'{{"type": "watch", "table": "{table_id}"}}')
                await ws.get_message()  # watching
                await ws.get_message()  # the snapshot: the table holds it as a spectator now
                task_status.started()
                await hang_up.wait()
                scope.cancel()  # the websocket closes cancelled: cut, with no close frame
                await trio.lowlevel.checkpoint()

    async with open_client(running.url) as seat:
        info = await seat.create_table(game="flag_finish", mode="lockstep", seats=2, bots=[{"seat": 1}])
        await seat.take_seat(info.table, seat=0)
        table = running.lobby.tables[info.table]
        for _ in range(12):
            await nursery.start(watcher, info.table)
        watchers = list(table.spectators)
        assert len(watchers) == 12
        hang_up.set()
        with trio.fail_after(20):
            for conn in watchers:
                await conn.ended.wait()
            await trio.testing.wait_all_tasks_blocked()  # the last ends' turns given back, the table told
        assert not table.spectators and len(gateway.connections) == 1
        assert turns.most == 2  # two at a time: never more, and the limit was reached
        assert turns.limiter.borrowed_tokens == 0
