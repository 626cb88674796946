"""No anonymous client can lock the others out (issue 29): each limit of ``gateway.Limits`` against exactly its
attack over real loopback sockets, the typed refusal it gets, and a normal client that still plays.

Time is trio's autojump clock wherever the server has to wait (idle, hello, budgets): no test sleeps on the
real clock. The attacks come from 127.0.0.1; a client "from another address" binds its socket to 127.0.0.2,
still talking to the server on 127.0.0.1.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

import msgspec
import pytest
import trio
import trio.testing
from trio_websocket import ConnectionClosed, wrap_client_stream
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage

from clients.client import ServerError, open_client
from server.app import run_server
from server.cluster.directory import LocalDirectory
from server.gateway import Limits
from server.gateway.listing import TablesCache
from server.limits import Admission, Buckets, check_ids, json_depth, msgpack_depth, too_deep
from server.protocol import BotSeat, CreateTable, Refusal, Replay, Watch

HELLO = '{"type": "hello", "protocol": 1, "id": 0}'


async def start(nursery, **kwargs):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status, **kwargs))


@asynccontextmanager
async def websocket(port: int, source: str = "127.0.0.1", hello: bool = True, headers: dict[str, str] = {}):
    """A trio-websocket connection to the server on 127.0.0.1 from ``source`` (said hello, welcome read),
    its upgrade request carrying ``headers`` too."""
    sock = trio.socket.socket()
    await sock.bind((source, 0))
    await sock.connect(("127.0.0.1", port))
    async with trio.open_nursery() as nursery:
        ws = await wrap_client_stream(nursery, trio.SocketStream(sock), "127.0.0.1", "/",
                                      extra_headers=[(k.encode(), v.encode()) for k, v in headers.items()])
        try:
            if hello:
                await ws.send_message(HELLO)
                assert msgspec.json.decode(await ws.get_message())["type"] == "welcome"
            yield ws
        finally:
            await ws.aclose()
            nursery.cancel_scope.cancel()


async def answer(ws, frame: str | bytes, ref="probe") -> dict:
    """Send ``frame`` and return the answer whose ref is ``ref`` (pings and other frames skipped)."""
    await ws.send_message(frame)
    with trio.fail_after(30):
        while True:
            got = await ws.get_message()
            message = msgspec.json.decode(got) if isinstance(got, str) else msgspec.msgpack.decode(got)
            if message.get("ref") == ref:
                return message


async def to_the_close(ws) -> list[dict]:
    """Every message until the server closes the websocket."""
    messages = []
    with trio.fail_after(30):
        try:
            while True:
                messages.append(msgspec.json.decode(await ws.get_message()))
        except ConnectionClosed:
            return messages


def probe(kind: str = "list_games", **fields) -> str:
    return msgspec.json.encode({"type": kind, "id": "probe", **fields}).decode()


# ------------------------------------------------------------------ connections


async def test_one_address_over_its_connection_cap_is_refused_at_once_and_another_address_still_plays(nursery):
    running = await start(nursery, limits=Limits(max_conns_per_address=3))
    async with websocket(running.port) as a, websocket(running.port) as b, websocket(running.port) as c:
        held = set(running.gateway.connections)
        async with websocket(running.port, hello=False) as fourth:
            closing = await to_the_close(fourth)
        assert closing[-1]["type"] == "closing" and closing[-1]["code"] == "too_many_connections"
        assert "3 connections open" in closing[-1]["message"] and "--max-conns-per-address" in closing[-1]["message"]
        async with websocket(running.port, source="127.0.0.2") as other:
            assert (await answer(other, probe()))["type"] == "games"
        for ws in (a, b, c):  # the three kept theirs
            assert (await answer(ws, probe()))["type"] == "games"
    with trio.fail_after(10):
        for conn in held:
            await conn.ended.wait()
    await trio.testing.wait_all_tasks_blocked()  # each released as its socket closes
    assert running.gateway.admission.open == {}
    async with websocket(running.port) as again:
        assert (await answer(again, probe()))["type"] == "games"


async def test_plain_http_over_the_cap_gets_a_503_naming_the_limit(nursery):
    running = await start(nursery, limits=Limits(max_conns_per_address=1))
    async with websocket(running.port):
        stream = await trio.open_tcp_stream("127.0.0.1", running.port)
        await stream.send_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        with trio.fail_after(10):
            while chunk := await stream.receive_some():
                received += chunk
        await stream.aclose()
    assert received.startswith(b"HTTP/1.1 503") and b"too_many_connections" in received


async def test_over_the_total_cap_a_new_connection_is_told_at_once_never_left_hanging(nursery):
    running = await start(nursery, limits=Limits(max_connections=2))
    async with websocket(running.port) as a, websocket(running.port, source="127.0.0.2"):
        with trio.fail_after(5):
            async with websocket(running.port, source="127.0.0.3", hello=False) as third:
                closing = await to_the_close(third)
        assert closing[-1]["code"] == "server_full" and "--max-connections" in closing[-1]["message"]
        assert (await answer(a, probe()))["type"] == "games"


def test_admission_counts_per_address_and_in_all_and_releases():
    admission = Admission(per_address=2, total=3)
    assert admission.admit("a") is None and admission.admit("a") is None
    assert admission.admit("a")[0] == "too_many_connections"
    assert admission.admit("b") is None
    assert admission.admit("c")[0] == "server_full"
    admission.release("a")
    assert admission.admit("c") is None and admission.open == {"a": 1, "b": 1, "c": 1}


# ------------------------------------------------------------------ idle and stalled connections


class HalfFrameClient:
    """A bare socket speaking websocket with wsproto: it says hello, then sends half a frame header."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)

    @classmethod
    async def connect(cls, port: int) -> "HalfFrameClient":
        client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        await client.stream.send_all(client.ws.send(Request(host="127.0.0.1", target="/")))
        while not any(type(event) is AcceptConnection for event in await client.events()):
            pass
        return client

    async def events(self) -> list:
        data = await self.stream.receive_some(65536)
        self.ws.receive_data(data or None)
        return list(self.ws.events())

    async def read_to_the_end(self) -> tuple[list[dict], int]:
        messages = []
        while True:
            for event in await self.events():
                if type(event) is TextMessage:
                    messages.append(msgspec.json.decode(event.data))
                elif type(event) is CloseConnection:
                    return messages, event.code


async def test_a_connection_stalled_halfway_through_a_frame_header_is_closed_and_a_pinged_client_stays(
        nursery, autojump_clock):
    running = await start(nursery, limits=Limits(idle_timeout=60))
    async with open_client(running.url) as player:
        await player.list_games()
        staller = await HalfFrameClient.connect(running.port)
        await staller.stream.send_all(staller.ws.send(TextMessage(data=HELLO)))
        await staller.stream.send_all(b"\x81")  # a text frame's first header byte, and nothing more, ever
        start_at = trio.current_time()
        messages, code = await staller.read_to_the_end()
        assert messages[0]["type"] == "welcome"
        assert any(m["type"] == "ping" for m in messages), "pinged at half the timeout"
        assert messages[-1]["type"] == "closing" and messages[-1]["code"] == "no_answer"
        assert "--idle-timeout" in messages[-1]["message"] and code == 1008
        assert 60 <= trio.current_time() - start_at < 61
        await trio.sleep(120)  # the player answered its pings: it is still there
        assert await player.list_games()
        assert len(running.gateway.connections) == 1


async def test_a_connection_that_never_says_hello_is_closed_after_hello_timeout(nursery, autojump_clock):
    running = await start(nursery, limits=Limits(hello_timeout=10))
    async with websocket(running.port, hello=False) as silent:
        messages = await to_the_close(silent)
    assert [m["code"] for m in messages] == ["hello_timeout", "hello_timeout"]  # the error, then closing


# ------------------------------------------------------------------ nesting depth


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def test_an_action_nested_deep_is_malformed_and_the_table_plays_on(nursery, capsys):
    running = await start(nursery)
    async with open_client(running.url) as player, websocket(running.port) as attacker:
        info = await player.create_table(game="flag_finish", mode="challenge", seats=2, bots=[{"seat": 1}])
        await player.take_seat(info.table, seat=0)
        act = f'{{"type": "act", "id": "probe", "table": "{info.table}", "action": {nested(985)}}}'
        refused = await answer(attacker, act)
        assert refused["code"] == "malformed" and "deeper than 32 levels" in refused["message"]
        assert "--max-depth" in refused["message"]
        deep = f'{{"type": "list_games", "id": "probe", "x": {nested(5000)}}}'
        assert (await answer(attacker, deep))["code"] == "malformed"
        assert (await answer(attacker, probe()))["type"] == "games", "the connection stays"
        table = running.lobby.find(info.table)
        legal = await first_legal(player)
        accepted = await player.act(info.table, legal)
        assert accepted.seq >= 1 and not table.over.is_set()
    assert "Traceback" not in capsys.readouterr().err


async def first_legal(player):
    from server.protocol import Snapshot, Update

    with trio.fail_after(30):
        async for message in player.messages:
            if type(message) in (Update, Snapshot) and message.legal:
                return message.legal[0]


async def test_a_msgpack_frame_nested_deep_is_malformed_and_the_connection_stays(nursery, capsys):
    running = await start(nursery)
    async with websocket(running.port, hello=False) as ws:
        await ws.send_message(msgspec.msgpack.encode({"type": "hello", "protocol": 1, "encoding": "msgpack"}))
        assert msgspec.msgpack.decode(await ws.get_message())["type"] == "welcome"
        frame = b"\x83" + msgspec.msgpack.encode("type") + msgspec.msgpack.encode("list_games") + \
            msgspec.msgpack.encode("id") + msgspec.msgpack.encode("probe") + msgspec.msgpack.encode("x") + \
            b"\x91" * 5000 + b"\xc0"
        refused = await answer(ws, frame)
        assert refused["code"] == "malformed" and "--max-depth" in refused["message"]
        assert (await answer(ws, msgspec.msgpack.encode({"type": "list_games", "id": "probe"})))["type"] == "games"
    assert "Traceback" not in capsys.readouterr().err


def test_depth_is_measured_without_counting_brackets_in_strings_and_ordinary_frames_pass_cheaply():
    assert json_depth('{"a": "[[[[[", "b": [[1]]}') == 3
    assert not too_deep('{"name": "' + "[" * 100 + '"}', 32)
    assert too_deep('{"a": ' + nested(33) + "}", 32) and not too_deep('{"a": ' + nested(31) + "}", 32)
    many = {"entries": [{"seq": n, "action": {"type": "draw", "cards": [1, 2]}} for n in range(200)]}
    assert msgpack_depth(msgspec.msgpack.encode(many), 99) == json_depth(msgspec.json.encode(many).decode()) == 5
    assert not too_deep(msgspec.msgpack.encode(many), 32)
    assert too_deep(b"\x91" * 40 + b"\xc0", 32) and not too_deep(b"\x91" * 20 + b"\xc0", 32)


# ------------------------------------------------------------------ ids


async def test_a_5000_digit_id_is_refused_by_its_shape_before_any_file_is_touched(nursery, tmp_path, capsys):
    running = await start(nursery, data_dir=tmp_path / "data")
    digits = "9" * 5000
    async with websocket(running.port) as ws:
        for kind, fields, code in [("replay", {"log": "t" + digits}, "no_log"),
                                   ("open_playback", {"log": "t" + digits}, "no_log"),
                                   ("open_playback", {"log": "../t1"}, "no_log"),
                                   ("watch", {"table": "t" + digits}, "no_table"),
                                   ("register", {"tournament": "T" + digits, "name": "ann"}, "no_tournament")]:
            refused = await answer(ws, probe(kind, **fields))
            assert refused["code"] == code, refused
            assert "5001 characters" in refused["message"] or "../t1" in refused["message"]
            assert len(refused["message"]) < 200
        assert (await answer(ws, probe()))["type"] == "games"
    assert "Traceback" not in capsys.readouterr().err


def test_ids_of_the_right_shape_pass():
    check_ids(Replay(log="t12"))
    check_ids(Watch(table="demo"))
    check_ids(CreateTable())
    with pytest.raises(Refusal) as refused:
        check_ids(Replay(log="t1/../../x"))
    assert refused.value.code == "no_log"


# ------------------------------------------------------------------ request budget and table lists


async def test_a_list_tables_flood_is_over_budget_for_the_whole_address_and_others_still_play(
        nursery, autojump_clock):
    running = await start(nursery, limits=Limits(budget_rate=1, budget_burst=3))
    async with websocket(running.port) as flood, websocket(running.port) as second:
        answers = [await answer(flood, probe("list_tables")) for _ in range(4)]
        assert [a["type"] for a in answers] == ["tables", "tables", "tables", "error"]
        refused = answers[-1]
        assert refused["code"] == "over_budget" and "--budget-rate" in refused["message"]
        assert 0 < refused["retry_ms"] <= 1000
        assert (await answer(second, probe("list_tables")))["code"] == "over_budget", "shared by the address"
        assert (await answer(flood, probe()))["type"] == "games", "ordinary messages are not charged"
        async with websocket(running.port, source="127.0.0.2") as other:
            assert (await answer(other, probe("list_tables")))["type"] == "tables"
        await trio.sleep(refused["retry_ms"] / 1000)
        assert (await answer(flood, probe("list_tables")))["type"] == "tables"


async def test_list_tables_pages_say_the_total_and_old_clients_get_every_table(nursery):
    running = await start(nursery)
    async with open_client(running.url) as client, websocket(running.port) as ws:
        made = [(await client.create_table(name=f"n{n}")).table for n in range(3)]
        assert [info.table for info in await client.list_tables()] == made
        page = await answer(ws, probe("list_tables", offset=1, limit=1))
        assert [t["table"] for t in page["tables"]] == made[1:2] and page["total"] == 3
        assert (await answer(ws, probe("list_tables", limit=0)))["code"] == "bad_page"


class Listed:
    """A lobby whose ``list`` is counted."""

    def __init__(self, tables: list) -> None:
        self.tables = tables
        self.calls = 0

    def list(self) -> list:
        self.calls += 1
        return self.tables

    async def list_in_steps(self, step: int) -> list:
        return self.list()


async def test_a_large_table_list_is_made_once_per_cache_time_and_a_small_one_every_time(autojump_clock):
    big = Listed([{"table": f"t{n}", "name": "x" * 100} for n in range(1000)])
    cache = TablesCache(0.25)
    for _ in range(5):
        raw, total = await cache.page(big, LocalDirectory(), "json", 0, None)
    assert big.calls == 1 and total == 1000 and len(msgspec.json.decode(raw)) == 1000
    await trio.sleep(0.25)
    await cache.page(big, LocalDirectory(), "msgpack", 10, 5)
    assert big.calls == 2
    small = Listed([{"table": "t1"}])
    cache = TablesCache(0.25)
    await cache.page(small, LocalDirectory(), "json", 0, None)
    await cache.page(small, LocalDirectory(), "json", 0, None)
    assert small.calls == 2


async def test_replay_requests_spend_the_budget_too(nursery, tmp_path):  # replays run in a thread: real time
    running = await start(nursery, data_dir=tmp_path / "data", limits=Limits(budget_rate=1, budget_burst=16))
    async with websocket(running.port) as ws:
        codes = [(await answer(ws, probe("replay", log="t404")))["code"] for _ in range(3)]
        assert codes == ["no_log", "no_log", "over_budget"]


async def test_a_playback_costs_its_logs_size_and_a_request_dearer_than_the_burst_leaves_a_debt(nursery, tmp_path):
    """red team 8: ``open_playback`` of a large log cost a flat 8 units (its log is read and checked whole, in
    the server's process), and any request's cost was capped at the burst: 16 playbacks of one 30 MB log at once
    from one address froze every table for 15 s and left the server 1.9 GB larger. Both cost their log's size
    now, the part past the burst owed (the address's budget goes below zero)."""
    from server.datadir import DataDir

    running = await start(nursery, data_dir=tmp_path / "data", limits=Limits(budget_rate=1, budget_burst=16))
    log = DataDir(tmp_path / "data").find_table_log("t77")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"x" * (32 * 64 * 1024))  # 32 units of log (no log at all: what it costs is what matters)
    async with websocket(running.port) as ws:
        first = await answer(ws, probe("open_playback", log="t77"))
        assert first["code"] != "over_budget"
        second = await answer(ws, probe("open_playback", log="t77"))
        assert second["code"] == "over_budget"
        assert second["retry_ms"] >= (8 + 32) * 1000 - 500, "the whole cost, 40 units at 1 a second, is owed"


def test_a_bucket_refills_at_its_rate():
    buckets = Buckets(rate=2, burst=2)
    assert buckets.take("a", 1, 0.0) == 0 and buckets.take("a", 1, 0.0) == 0
    assert buckets.take("a", 1, 0.0) == pytest.approx(0.5)
    assert buckets.take("b", 1, 0.0) == 0
    assert buckets.take("a", 1, 0.5) == 0


# ------------------------------------------------------------------ tournaments


async def test_tournament_creation_and_registrations_are_rate_limited_per_address(nursery, autojump_clock):
    running = await start(nursery, limits=Limits(tournaments_per_minute=2, registrations_per_minute=3))
    async with open_client(running.url) as organiser:
        made = [await organiser.create_tournament(name=f"cup {n}") for n in range(2)]
        with pytest.raises(ServerError) as refused:
            await organiser.create_tournament(name="one too many")
        assert refused.value.code == "rate_limited" and "--tournaments-per-minute" in refused.value.message
        tid = made[0].tournament.tournament
        for name in ("ann", "ben", "cy"):
            await organiser.register(tid, name)
        with pytest.raises(ServerError) as refused:
            await organiser.register(tid, "dot")
        assert refused.value.code == "rate_limited" and "--registrations-per-minute" in refused.value.message
        async with websocket(running.port, source="127.0.0.2") as other:
            registered = await answer(other, probe("register", tournament=tid, name="eve"))
            assert registered["type"] == "registered"
        await trio.sleep(30)  # half a minute: room for one more of each
        await organiser.register(tid, "dot")
        await organiser.create_tournament(name="later")


async def test_many_connections_of_one_address_share_its_message_rate_and_another_address_is_untouched(
        nursery, autojump_clock):
    """The connections of one address are read no faster than --address-rate together: past the burst each
    message waits its turn (costing the server nothing), none is lost; another address is not slowed."""
    running = await start(nursery, limits=Limits(address_rate=1, address_burst=6))
    async with websocket(running.port) as a, websocket(running.port) as b:
        begin = trio.current_time()
        answers = [await answer(ws, probe()) for ws in (a, b, a, b, a, b, a, b, a, b)]
        assert [m["type"] for m in answers] == ["games"] * 10, "slowed, never dropped"
        assert trio.current_time() - begin >= 4 - 0.01, "4 messages past the burst of 6 at 1 a second"
        async with websocket(running.port, source="127.0.0.2") as other:
            begin = trio.current_time()
            assert (await answer(other, probe()))["type"] == "games"
            assert trio.current_time() - begin < 0.5


async def test_a_connection_waiting_for_its_addresss_turn_longer_than_the_idle_timeout_is_not_taken_for_idle(
        nursery, autojump_clock):
    """Its frames wait unread for their turn (20 s each here), which is the server's doing, not the client's
    silence: every one is answered, none is cut off as ``no_answer``."""
    running = await start(nursery, limits=Limits(address_rate=0.05, address_burst=1, idle_timeout=10))
    async with websocket(running.port) as ws:
        for n in range(3):
            await ws.send_message(msgspec.json.encode({"type": "list_games", "id": f"p{n}"}).decode())
        begin, answered = trio.current_time(), []
        with trio.fail_after(120):
            while len(answered) < 3:
                message = msgspec.json.decode(await ws.get_message())
                assert message["type"] != "closing", message
                if message.get("ref", "").startswith("p"):
                    answered.append(message["type"])
        assert answered == ["games"] * 3 and trio.current_time() - begin >= 40 - 0.01


def test_serve_raises_its_open_file_limit_and_says_how_many_connections_that_allows():
    import resource

    from server.app import limit_line
    from server.gateway import Gateway
    from server.limits import raise_file_limit

    before, now = raise_file_limit()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert now == soft >= before and (soft == hard or hard == resource.RLIM_INFINITY)
    gateway = Gateway(lobby=None, directory=LocalDirectory(), limits=Limits(fd_reserve=256))
    assert gateway.admission.total == max(16, soft - 256)
    line = limit_line((before, now), gateway)
    assert f"{now} open files" in line and f"at most {soft - 256} connections in all" in line
    assert "64 from one address" in line


async def test_a_large_list_of_tables_costs_more_of_the_budget(nursery, autojump_clock):
    running = await start(nursery, limits=Limits(budget_rate=1, budget_burst=24))
    for n in range(330):  # about 175 KB of JSON: 1 + 10 units an answer
        await running.lobby.create(CreateTable(name=f"table {n:04}"))
    async with websocket(running.port) as ws:
        answers = [await answer(ws, probe("list_tables")) for _ in range(3)]
        assert [a["type"] for a in answers] == ["tables", "tables", "error"] and answers[0]["total"] == 330
        assert answers[2]["code"] == "over_budget"


async def test_a_bug_on_one_connection_stops_that_connection_only(nursery, monkeypatch, capsys):
    """An error no connection should raise, outside what its reader catches (closing it, here), prints its
    traceback and ends that connection; the server and every other connection go on (it once stopped serve)."""
    from server.gateway import accept as gateway

    running = await start(nursery)
    real, raised = gateway.Gateway._close, trio.Event()

    async def buggy(self, conn):
        if not raised.is_set():
            raised.set()
            raise RuntimeError("a bug on this path")
        return await real(self, conn)

    monkeypatch.setattr(gateway.Gateway, "_close", buggy)
    async with websocket(running.port, source="127.0.0.2") as other:
        async with websocket(running.port) as victim:
            await victim.send_message("not json")
            await victim.get_message()
        with trio.fail_after(10):
            await raised.wait()
        assert (await answer(other, probe()))["type"] == "games", "the other connection plays on"
    async with websocket(running.port) as again:
        assert (await answer(again, probe()))["type"] == "games", "the server is still up"
    assert "RuntimeError: a bug on this path" in capsys.readouterr().err


@pytest.mark.parametrize("leaves_after", [0, 1])
async def test_a_refused_client_that_goes_away_at_once_costs_no_traceback(leaves_after):
    """Red team: a client over its cap that reset its connection as the refusal was said had the server print
    a traceback (the ``ConnectionClosed`` of a nursery's body, out of the nursery an ExceptionGroup that
    ``Gateway._refuse`` took for a bug); from many addresses, or forwarded ones, a flood of them on stderr."""
    from server.gateway.accept import refuse
    from server.http import Site

    ours, theirs = trio.testing.memory_stream_pair()
    upgrade = (b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    await ours.send_all(upgrade)

    async def client_leaves() -> None:
        if leaves_after:
            await ours.receive_some()  # it reads the handshake's answer, then goes
        await ours.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client_leaves)
        with trio.fail_after(10):
            await refuse(theirs, Site(), "too_many_connections", "over the cap", Limits())  # returns, raises nothing


# ------------------------------------------------------------------ seats


async def test_seats_at_tables_still_playing_are_limited_per_connection_and_per_address(nursery):
    """A red team sat at lockstep tables and never played: each waits for its turn for ever, counted nowhere,
    and one address filled the server's 2,000 tables in seconds. Seats at tables still playing are limited;
    one left, or at a finished table, counts no more; another address still sits down."""
    running = await start(nursery, limits=Limits(seats_per_connection=2, seats_per_address=3))
    lobby = running.lobby
    tables = [await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2, bots=[BotSeat(1)]))
              for _ in range(6)]

    def take(table) -> str:
        return probe("take_seat", table=table.id, seat=0)

    async with websocket(running.port) as first, websocket(running.port) as second:
        for table in tables[:2]:
            assert (await answer(first, take(table)))["type"] == "seated"
        refused = await answer(first, take(tables[2]))
        assert refused["code"] == "too_many_seats" and "--seats-per-connection" in refused["message"]
        assert (await answer(second, take(tables[2])))["type"] == "seated"  # the address's third
        refused = await answer(second, take(tables[3]))
        assert refused["code"] == "too_many_seats" and "--seats-per-address" in refused["message"]
        async with websocket(running.port, source="127.0.0.2") as elsewhere:  # another address sits down
            assert (await answer(elsewhere, take(tables[4])))["type"] == "seated"
        assert (await answer(first, probe("leave", table=tables[0].id)))["type"] == "left"
        assert (await answer(second, take(tables[3])))["type"] == "seated"  # one left: its place is free
        await tables[1].halt("time_limit")
        await tables[1].over.wait()  # a finished table's seat counts no more
        assert (await answer(first, take(tables[5])))["type"] == "seated"
