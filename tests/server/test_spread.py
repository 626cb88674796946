"""Spectators' frames written by one task straight to their sockets (``server/wire/spread.py``), over real loopback
sockets: a player's answer and update are on the wire before any spectator's copy of that update; a spectator
whose socket takes nothing delays neither the table nor the other spectators, and once it reads again it gets
whole frames and is caught up; a connection with messages waiting for the writer sends them before it closes."""

from __future__ import annotations

import os
import socket
import struct

import msgspec
import trio
from wsproto.events import TextMessage

from clients.client import open_client
from rules import get_game
from server.wire import sendpath
from server.app import run_server
from server.gateway import Limits
from server.protocol import BotSeat, CreateTable, Snapshot, Update

from .test_slow_reader import RawClient

FLAG_FINISH = get_game("flag_finish")


class Wire:
    """Every write of the server's send path (``sendpath``'s ``os.write``), in order: (descriptor, bytes)."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, bytes]] = []

    def write(self, fd: int, data: bytes) -> int:
        sent = os.write(fd, data)
        self.writes.append((fd, bytes(data[:sent])))
        return sent

    def __getattr__(self, name: str):
        return getattr(os, name)


def messages_of(data: bytes) -> list[dict]:
    """The messages of the whole server frames at the start of ``data`` (a batch's messages one by one)."""
    found, at = [], 0
    while len(data) - at >= 2:
        length, start = data[at + 1] & 0x7F, at + 2
        if length == 126:
            length, start = struct.unpack_from("!H", data, at + 2)[0], at + 4
        elif length == 127:
            length, start = struct.unpack_from("!Q", data, at + 2)[0], at + 10
        if len(data) < start + length:
            break
        message = msgspec.json.decode(data[start:start + length])
        found += message["messages"] if message["type"] == "batch" else [message]
        at = start + length
    return found


async def start(nursery, tmp_path, limits: Limits = Limits()):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path, limits=limits,
                                                              task_status=task_status))


async def test_a_players_answer_and_update_are_written_before_any_spectators_copy(nursery, tmp_path, monkeypatch):
    wire = Wire()
    monkeypatch.setattr(sendpath, "os", wire)
    running = await start(nursery, tmp_path)
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2,
                                                   bots=[BotSeat(1)]))
    async with open_client(running.url) as player:
        watchers = []
        for _ in range(6):
            watchers.append(await nursery.start(_watch, running.url, table.id))
        await player.take_seat(table.id, seat=0)
        answered = await play_seat_zero(player, table, 12)
        with trio.fail_after(30):
            await watchers[0].reach(answered[-1])  # every spectator's copy of the last is on the wire
    firsts: dict[tuple[str, int], int] = {}  # (who, seq) -> the index of the first write that carried it
    spectators, player_fd = set(), None
    for index, (fd, data) in enumerate(wire.writes):
        for message in messages_of(data):
            if message["type"] == "watching":
                spectators.add(fd)
            elif message["type"] == "accepted":
                player_fd = fd
                firsts.setdefault(("accepted", message["seq"]), index)
            elif message["type"] == "update":
                who = "spectator" if fd in spectators else "player" if fd == player_fd else "other"
                firsts.setdefault((who, message["seq"]), index)
    assert len(spectators) == 6 and len(answered) >= 5
    for seq in answered:
        assert firsts[("accepted", seq)] < firsts[("spectator", seq)], f"a spectator's copy of {seq} went first"
        assert firsts[("player", seq)] < firsts[("spectator", seq)], f"a spectator's update {seq} went first"


async def play_seat_zero(player, table, count: int) -> list[int]:
    """Seat 0 plays its first legal action whenever it may, up to ``count`` times (fewer if the game ends): the
    seqs of its accepted actions."""
    answered = []
    with trio.fail_after(30):
        while len(answered) < count and await my_turn(player, table):
            accepted = await player.act(table.id, FLAG_FINISH.legal_actions(table.session.state, 0)[0])
            answered.append(accepted.seq)
    return answered


async def my_turn(player, table) -> bool:
    """Wait until seat 0 may act (on the player's own updates, not the clock); False once the game is over."""
    while not table.is_over():
        if 0 in table.session.to_act().seats:
            return True
        await player.messages.receive()  # the next update: the table moved on
    return False


class Seen:
    """The seqs of the updates a spectator read, in order, and of the catch-up snapshots it was sent instead of
    updates (it fell behind); ``reach`` waits until it has read ``seq`` by either."""

    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.caught_up: list[int] = []
        self._more = trio.Event()

    def add(self, seq: int, catch_up: bool = False) -> None:
        (self.caught_up if catch_up else self.seqs).append(seq)
        self._more.set()
        self._more = trio.Event()

    async def reach(self, seq: int) -> None:
        while max(self.seqs[-1:] + self.caught_up[-1:], default=-1) < seq:
            await self._more.wait()


async def _watch(url: str, table: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """A spectator through the client library; ``task_status`` gets its ``Seen``."""
    seen = Seen()
    async with open_client(url) as client:
        await client.watch(table)
        task_status.started(seen)
        async for message in client.messages:
            if type(message) is Update:
                seen.add(message.seq)
            elif type(message) is Snapshot and message.skipped:
                seen.add(message.seq, catch_up=True)


async def test_a_spectator_whose_socket_takes_nothing_delays_neither_the_table_nor_the_others(nursery, tmp_path):
    running = await start(nursery, tmp_path, Limits(outbox=64))  # a stuck spectator's outbox fills soon
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=3,
                                                   options={"races": 3}, bot_delay_ms=5,  # (a pace the
                                                   # reading spectators keep up with on a loaded machine too)
                                                   bots=[BotSeat(0), BotSeat(1, "random"), BotSeat(2)]))
    stuck = await RawClient.connect(running.port)
    await stuck.send({"type": "hello", "protocol": 1, "id": 0, "batch": True, "patches": True})
    while not any(type(event) is TextMessage for event in await stuck.events()):
        pass  # the welcome
    (conn,) = running.gateway.connections
    conn.ws._stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # its socket fills at once
    await stuck.send({"type": "watch", "table": table.id, "id": 1})
    others = [await nursery.start(_watch, running.url, table.id) for _ in range(3)]
    with trio.fail_after(120):  # bots race: the stuck spectator reads nothing meanwhile
        await table.over.wait()
        accepted = [entry.seq for entry in table.log.entries if entry.accepted]  # (a refused one has a seq too)
        for seen in others:
            await seen.reach(accepted[-1])
    assert not [seen.caught_up for seen in others if seen.caught_up], "a spectator that reads fell behind"
    for seqs in (seen.seqs for seen in others):  # each got every update from its first on, in order, none skipped
        assert seqs == [seq for seq in accepted if seq >= seqs[0]]
    assert stuck_conn_is_behind(conn, table)
    messages = []
    with trio.fail_after(30):  # it reads again: whole frames (wsproto checks each), then caught up to the end
        while not messages or messages[-1].get("seq") not in (accepted[-1], table.log.seq):  # (a snapshot: the log)
            for event in await stuck.events():
                if type(event) is TextMessage:
                    stuck.parts.append(event.data)
                    if event.message_finished:
                        message = msgspec.json.decode("".join(stuck.parts))
                        messages += message["messages"] if message["type"] == "batch" else [message]
                        stuck.parts = []
    assert [m for m in messages if m["type"] == "snapshot" and m.get("skipped", 0) > 0]  # caught up by a snapshot
    assert not [m for m in messages if m["type"] in ("closing", "error")]


def stuck_conn_is_behind(conn, table) -> bool:
    """The stuck spectator fell behind without being closed: it waits out of the live stream, or its own
    writer holds what the socket would not take."""
    return conn.closing is None and (conn in table.stream.lagging or conn.sending or not conn.outbox.idle())


async def test_a_player_at_many_busy_tables_who_stops_reading_is_closed_and_the_server_goes_on(nursery, tmp_path):
    """A red team's crash: a connection seated at ten Challenge tables, a server bot racing at each, stops
    reading. A frame the socket took only part of leaves its rest for the writer; another table's batch then
    wrote what was queued itself, the rest included, which is no message (a TypeError that stopped the server).
    Now the connection is closed as too slow, or simply left behind, and every table and the server go on."""
    running = await start(nursery, tmp_path, Limits(outbox=64, seats_per_connection=0))  # (ten seats: over 8)
    tables = [await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2,
                                                     options={"races": 3}, bots=[BotSeat(1, "random")]))
              for _ in range(10)]
    stuck = await RawClient.connect(running.port)
    await stuck.send({"type": "hello", "protocol": 1, "id": 0, "batch": True})
    while not any(type(event) is TextMessage for event in await stuck.events()):
        pass  # the welcome
    (conn,) = running.gateway.connections
    conn.ws._stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # its socket fills at once
    for number, table in enumerate(tables):
        await stuck.send({"type": "take_seat", "table": table.id, "seat": 0, "id": number + 1})
    seated = 0
    with trio.fail_after(60):  # read until every seat is taken (each table starts as it is) ...
        while seated < len(tables):
            for event in await stuck.events():
                if type(event) is TextMessage:
                    stuck.parts.append(event.data)
                    if event.message_finished:
                        message = msgspec.json.decode("".join(stuck.parts))
                        stuck.parts = []
                        batch = message["messages"] if message["type"] == "batch" else [message]
                        seated += sum(1 for m in batch if m["type"] == "seated")
    assert all(table.started for table in tables)
    await trio.sleep(2)  # ... then read nothing for two seconds while the bots race: the fault itself
    assert not [table for table in tables if table.failed_code is not None]  # no table stopped on a bug
    async with open_client(running.url) as other:  # and the server answers
        assert len(await other.list_tables()) == len(tables)
