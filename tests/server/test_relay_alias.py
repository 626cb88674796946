"""A kept table's alias (``demo``) watched through a node that does not run it (issue 35: under ``serve
--workers`` half the spectators land on the other worker). When the demo's game ends and the alias names the
next table, a spectator of the old one is shown nothing of the new one under the old one's name, can leave the
old one by its id, and `watch URL demo` goes on to the next game, as it does on the table's own node. Before,
the follower handed the new table's frames to spectators told the old one, refused their leave (``no_table``),
and the terminal's `watch` ended with "the server refused"."""

from __future__ import annotations

import re

import trio

from clients.client import open_client
from server.protocol import BotSeat, CreateTable, Leave, Left, Snapshot, Update, Watch, Watching
from server.protocol import Presence as Present

from .test_cluster import beats, cluster_of

QUICK = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1}, bot_delay_ms=0,
                    bots=[BotSeat(0), BotSeat(1, "random")])


async def test_watch_through_another_node_follows_the_demo_to_its_next_table(tmp_path, monkeypatch):
    """Through the pause between two games `watch` asks for the alias again and again, on one connection (as
    the demo's 15 s between games make it do some 15 times)."""
    from clients import terminal
    from clients.terminal import watch
    from server.app import keep_table

    from .test_terminal import Person

    person, pressed = Person(), trio.Event()

    async def keys() -> str:
        await pressed.wait()
        return "q"

    def watched() -> list[str]:
        return list(dict.fromkeys(re.findall(r"Watching table (t\w+)", person.text)))

    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with trio.open_nursery() as nursery:
                monkeypatch.setattr(terminal, "ALIAS_POLL", 0.05)
                nursery.start_soon(keep_table, a.lobby, QUICK, "demo", 2.0)
                await beats([a, b])  # A has said it holds the demo, and B has heard
                codes: list[int] = []
                async with trio.open_nursery() as inner:
                    async def watching() -> None:
                        codes.append(await watch(b.url, "demo", terminal=person.terminal, read_key=keys))
                        inner.cancel_scope.cancel()
                    inner.start_soon(watching)
                    while len(watched()) < 2:
                        await person._new.wait()
                    assert not a.lobby.find(watched()[1]).spectators  # shown by B, not redirected to A
                    pressed.set()  # q: watch ends (else it would follow the demo for ever)
                    await trio.sleep_forever()
                nursery.cancel_scope.cancel()
    assert codes == [0] and "refused" not in person.text, person.text[-400:]
    first, second = watched()[:2]
    assert first != second and "Game over." in person.text


async def test_a_follower_of_an_alias_keeps_its_spectators_on_the_table_they_were_told(nursery, autojump_clock):
    """The follower of ``demo`` hears the alias's next table: those watching the old one get nothing of it and
    leave it by its id; one who starts watching now is told the new one."""
    from server.cluster import relay
    from server.cluster.presence import LocalPresence

    from .helpers import Sink, settle

    presence = LocalPresence()
    follower = relay.Follower(presence, "demo", 5.0, lambda _: None, "node-b")
    nursery.start_soon(follower.run)
    await settle()

    async def publish(table: str, seq: int, snapshot: bool = True) -> None:
        """A frame as the table's node publishes it: who is at the table and the snapshot (a table just hooked),
        or an update alone."""
        raw = relay.msgspec.Raw
        if snapshot:
            messages = [Present(table=table, seats=[], spectators=0)]
            shown = raw(relay.JSON.encoder.encode(Snapshot(table=table, seq=seq, view=None, to_act=[])))
        else:
            messages, shown = [Update(table=table, seq=seq, actor=0, to_act=[0])], relay.NO_SNAPSHOT
        frame = relay.Frame(table=table, game="flag_finish", snapshot=shown,
                            messages=[raw(relay.JSON.encoder.encode(m)) for m in messages])
        await presence.publish(relay.channel("demo"), relay.JSON.encoder.encode(frame).decode())
        await settle()

    await publish("t1", 40)
    old = Sink()
    follower.submit_nowait(relay.intents.Watch(old, Watch(table="demo", id=1)))
    await settle()
    assert old.of(Watching)[-1].table == "t1"
    await publish("t2", 1)  # the demo's next game
    await publish("t2", 2, snapshot=False)
    assert {m.table for m in old.of(Snapshot) + old.of(Update) + old.of(Present)} == {"t1"}
    assert follower.serves("t1") and follower.serves("t2") and follower.serves("demo")
    new = Sink()
    follower.submit_nowait(relay.intents.Watch(new, Watch(table="demo", id=1)))
    await settle()
    assert new.of(Watching)[-1].table == "t2" and new.of(Snapshot)[-1].seq == 1
    follower.submit_nowait(relay.intents.Leave(old, Leave(table="t1", id=2)))
    await settle()
    assert old.of(Left)[-1].table == "t1" and not follower.serves("t1")
    follower.scope.cancel()


async def test_a_spectator_leaves_an_aliased_table_by_its_id_through_another_node(tmp_path):
    """`watch demo` is answered with the table's id; the client leaves by that id, on any node."""
    from server.app import keep_table

    with trio.fail_after(60):
        async with cluster_of(2, "local", tmp_path) as ([a, b], _):
            async with trio.open_nursery() as nursery:
                slow = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                   bot_delay_ms=1000, bots=[BotSeat(0), BotSeat(1)])
                nursery.start_soon(keep_table, a.lobby, slow, "demo", 0.2)
                await beats([a, b])  # A has said it holds the demo, and B has heard
                async with open_client(b.url, reconnect=False) as spectator:
                    for _ in range(6):  # as `watch demo` asks again and again between two games, on one connection
                        watching = await spectator.watch("demo")
                        assert watching.table == a.lobby.aliases["demo"]
                        await spectator.leave(watching.table)  # before: no_table (B knew it only as "demo")
                        assert not b.directory.relay.followers  # left for good, not through a follower gone before
                nursery.cancel_scope.cancel()
