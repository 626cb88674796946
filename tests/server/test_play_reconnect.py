"""`play` through a server restart: the screen says the connection is lost while it is, and stops saying so
once it is back; `play --tournament` shows the tournament's word on a shutdown at once, at the table."""

from __future__ import annotations

from functools import partial

import pytest
import trio

from clients.client import open_client
from clients.terminal import Terminal, play
from clients.tournament_bots import play_tournament
from clients.tournament_play import follow_tournament
from server.app import run_server
from tests.server.helpers import Said


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


class Screens:
    """A terminal that is a pipe: keeps every screen drawn, and wakes whoever waits for one."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.terminal = Terminal(write=self._write, tty=False)
        self._new = trio.Event()

    def _write(self, text: str) -> None:
        self.frames.append(text)
        self._new.set()
        self._new = trio.Event()

    async def wait_for(self, found, since: int = 0) -> int:
        """The index of the first screen from ``since`` on for which ``found(screen)`` holds."""
        while True:
            for index in range(since, len(self.frames)):
                if found(self.frames[index]):
                    return index
            since = len(self.frames)
            await self._new.wait()


async def test_play_stops_saying_the_connection_is_lost_once_it_is_back(nursery, tmp_path):
    data = tmp_path / "data"
    first = await nursery.start(partial(run_server, "127.0.0.1", 0, data))
    screens = Screens()
    async with open_client(first.url) as ben:
        table = (await ben.create_table(game="flag_finish", mode="lockstep", seats=2)).table
        await ben.take_seat(table, seat=0, name="ben")  # ben never moves: nothing but the reconnect redraws
        async with trio.open_nursery() as inner:
            inner.start_soon(partial(play, first.url, table, seat=1, name="ann", read_line=trio.sleep_forever,
                                     terminal=screens.terminal))
            with trio.fail_after(20):
                await screens.wait_for(lambda screen: "You are seat 2" in screen)  # seat 1 on the wire
                await first.shutdown()
                lost = await screens.wait_for(lambda screen: "connection lost" in screen)
                assert "reconnecting..." in screens.frames[lost]
                back = await nursery.start(partial(run_server, "127.0.0.1", first.port, data))
                await screens.wait_for(lambda screen: "connection lost" not in screen, since=lost + 1)
            inner.cancel_scope.cancel()
    await back.shutdown()


async def test_play_tournament_shows_a_shutdown_at_the_table_when_it_comes(nursery, tmp_path):
    first = await nursery.start(partial(run_server, "127.0.0.1", 0, tmp_path / "data"))
    async with open_client(first.url) as organiser:
        created = await organiser.create_tournament(game="flag_finish", mode="lockstep", seats=2, rounds=1,
                                                    options={"races": 1})
        tid = created.tournament.tournament
        ann = await organiser.register(tid, "ann")
        screens, said = Screens(), Said()
        async with trio.open_nursery() as inner:
            await inner.start(partial(play_tournament, first.url, tid, "bot", "heuristic", 3))
            inner.start_soon(partial(follow_tournament, first.url, tid, ann.token, read_line=trio.sleep_forever,
                                     terminal=screens.terminal, out=said))
            with trio.fail_after(20):
                await said.heard.wait()  # ann follows the tournament
                await organiser.start_tournament(tid, created.secret)
                await screens.wait_for(lambda screen: "You are seat" in screen)  # ann never moves: the table goes on
                await first.shutdown()
                await screens.wait_for(lambda screen: "the server is shutting down; the tournament goes on once it "
                                                      "is back" in screen)
            assert not any(line.startswith("table over") for line in said)
            inner.cancel_scope.cancel()


class FreezingProxy:
    """A TCP relay in front of a server that can fall silent: ``freeze()`` stops relaying both ways and leaves
    every socket open (a server whose machine died, a cable pulled: no close ever arrives). Connections made
    after ``thaw()`` relay again."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.frozen = trio.Event()
        self.listeners = []

    async def start(self, nursery) -> int:
        self.listeners = await nursery.start(partial(trio.serve_tcp, self._relay, 0, host="127.0.0.1"))
        return self.listeners[0].socket.getsockname()[1]

    def freeze(self) -> None:
        self.frozen.set()

    def thaw(self) -> None:
        self.frozen = trio.Event()

    async def _relay(self, client) -> None:
        frozen = self.frozen
        server = await trio.open_tcp_stream("127.0.0.1", self.port)

        async def pump(source, sink, pumps) -> None:
            try:
                async for data in source:
                    if frozen.is_set():
                        await trio.sleep_forever()  # the sockets stay open, silent
                    await sink.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            pumps.cancel_scope.cancel()  # one side closed: so does the relay

        async with server, client, trio.open_nursery() as pumps:
            pumps.start_soon(pump, client, server, pumps)
            pumps.start_soon(pump, server, client, pumps)


async def test_play_says_at_once_when_the_server_falls_silent_and_plays_on_once_it_answers(nursery, monkeypatch):
    monkeypatch.setattr("clients.client.DEAD_AFTER", 1.0)  # a test's patience; 5 s for a person
    server = await nursery.start(partial(run_server, "127.0.0.1", 0))
    proxy = FreezingProxy(server.port)
    url = f"ws://127.0.0.1:{await proxy.start(nursery)}"
    screens = Screens()
    async with open_client(server.url) as ben:
        table = (await ben.create_table(game="flag_finish", mode="lockstep", seats=2)).table
        await ben.take_seat(table, seat=0, name="ben")
        async with trio.open_nursery() as inner:
            inner.start_soon(partial(play, url, table, seat=1, name="ann", read_line=trio.sleep_forever,
                                     terminal=screens.terminal))
            with trio.fail_after(20):
                seated = await screens.wait_for(lambda screen: "your hand:" in screen)
                proxy.freeze()
                frozen_at = trio.current_time()
                lost = await screens.wait_for(lambda screen: "connection lost" in screen, since=seated + 1)
                assert "no word from the server for 1 s" in screens.frames[lost]
                assert trio.current_time() - frozen_at < 4
                proxy.thaw()
                await screens.wait_for(lambda screen: "connection lost" not in screen and "your hand:" in screen,
                                       since=lost + 1)
            inner.cancel_scope.cancel()
    await server.shutdown()


async def test_bots_play_on_through_a_server_restart_and_claim_only_a_real_end(nursery, tmp_path):
    from clients.remote_bots import play_seats
    from server.protocol import BotSeat

    data = tmp_path / "data"
    first = await nursery.start(partial(run_server, "127.0.0.1", 0, data))
    async with open_client(first.url) as organiser:
        table = (await organiser.create_table(game="flag_finish", mode="lockstep", seats=2, bots=[BotSeat(0)],
                                              options={"races": 2}, bot_delay_ms=20)).table
    lost: list[str] = []
    result = []
    done = trio.Event()
    async with trio.open_nursery() as inner:
        async def bots() -> None:
            result.append(await play_seats(first.url, table, 1, "heuristic", seed=5, on_lost=lost.append))
            done.set()

        inner.start_soon(bots)
        with trio.fail_after(60):
            async with open_client(first.url) as spectator:
                await spectator.watch(table)
                async for message in spectator.messages:  # a few moves in, the server stops
                    if getattr(message, "seq", 0) >= 10:
                        break
            await first.shutdown()
            back = await nursery.start(partial(run_server, "127.0.0.1", first.port, data))
            await done.wait()
    ended, missed, stopped = result[0]
    assert ended == [1] and not missed and not stopped
    assert lost, "the bot said it lost the server"
    async with open_client(back.url) as reader:
        info = next(t for t in await reader.list_tables() if t.table == table)
    assert info.status == "over"
    await back.shutdown()


async def test_a_table_stopped_by_a_restart_is_said_until_the_table_is_back_then_dropped():
    """`! table t26 has stopped` stayed on screen after the restart: now it is said as the connection's state
    and goes with the first word from the table again."""
    from types import SimpleNamespace

    from clients.screen import Seen
    from clients.terminal import _Session
    from rules import Session, get_game, make_setup
    from server.protocol import Error, Snapshot

    game = get_game("flag_finish")
    session = Session(game, make_setup(game.info, 2, "lockstep"), 3)
    session.run_chance()
    view = game.view(session.state, 0)
    send, receive = trio.open_memory_channel(10)
    screens = Screens()
    follow = _Session(SimpleNamespace(messages=receive), Seen(game="flag_finish", table="t26", seat=0),
                      screens.terminal).follow
    async with trio.open_nursery() as inner:
        inner.start_soon(follow)
        send.send_nowait(Error(ref=None, code="table_closed", message="table t26 has stopped"))
        with trio.fail_after(5):
            stopped = await screens.wait_for(lambda screen: "! table t26 has stopped; reconnecting..." in screen)
            send.send_nowait(Snapshot(table="t26", seq=4, view=view, to_act=[0], legal=[]))
            await screens.wait_for(lambda screen: "has stopped" not in screen and "race 1" in screen, since=stopped)
        inner.cancel_scope.cancel()


async def test_a_table_ended_early_ends_play_and_says_the_places():
    from types import SimpleNamespace

    from clients.screen import Seen
    from clients.terminal import _Session
    from server.protocol import TableEnded

    send, receive = trio.open_memory_channel(10)
    screens = Screens()
    send.send_nowait(TableEnded(table="t26", seq=9, reason="time_limit", places=[2, 1]))
    with trio.fail_after(5):
        code = await _Session(SimpleNamespace(messages=receive), Seen(game="flag_finish", table="t26", seat=0),
                              screens.terminal).follow()
    said = " ".join(screens.frames[-1].split())  # as one line, whatever the wrapping
    assert code == 0 and "The table was ended before its game's end (time limit). Places as it stood: you 2nd " \
                         "and seat 2 1st." in said


async def test_a_stall_of_this_process_is_not_taken_for_a_dead_server(nursery, monkeypatch, autojump_clock):
    monkeypatch.setattr("clients.client.DEAD_AFTER", 1.0)
    server = await nursery.start(partial(run_server, "127.0.0.1", 0))
    async with open_client(server.url) as client:
        lost: list[str] = []
        client.on_lost = lost.append
        await client.list_games()
        autojump_clock.jump(2.5)  # the whole process stalls (a long computation): no task runs, nobody reads the
        # socket, and every deadline is 2.5 s past when the loop looks again
        with trio.fail_after(10):
            for _ in range(3):
                await client.list_games()
                await trio.sleep(0.6)
        assert not lost, lost
    await server.shutdown()
