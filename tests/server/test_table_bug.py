"""A bug in one table (here: its rules raising what no rule should) stops that table with a reason to its
seats, never the server: the other tables play on and new ones open."""

from __future__ import annotations

import trio

from server.lobby import Lobby
from server.protocol import Act, Update
from server.table import intents

from .helpers import seated_against_a_bot


async def test_a_bug_in_one_tables_rules_stops_that_table_only(tmp_path, nursery, autojump_clock, capsys):
    lobby = Lobby(nursery, tmp_path, "never")
    broken, ana = await seated_against_a_bot(lobby)
    healthy, ben = await seated_against_a_bot(lobby)

    def act(seat, action):
        raise ZeroDivisionError("a bug in the rules")

    broken.session.act = act
    await broken.submit(intents.Act(ana, Act(table=broken.id, action={"type": "draw"}, id="a1")))
    with trio.fail_after(10):
        await broken.stopped.wait()
    code, message = ana.closed
    assert code == "internal_error" and "ZeroDivisionError" in message
    assert f"table {broken.id} stopped on an internal error" in capsys.readouterr().err

    before = len(ben.of(Update))
    await healthy.submit(intents.Act(ben, Act(table=healthy.id, action={"type": "draw"}, id="b1")))
    with trio.fail_after(10):
        while len(ben.of(Update)) == before:
            await ben.arrived.wait()
    assert not healthy.stopped.is_set()
    assert (await seated_against_a_bot(lobby))[0].id not in (broken.id, healthy.id)
