"""While the disk is below the floor, a stand-in plays a person's seat at a person's pace
(``bots.STAND_IN_LEAST_MS``), whatever the table's ``bot_delay_ms``: an arena of absent players (``no_show_ms`` 0, ``bot_delay_ms`` 0) was played by its stand-ins at
bot speed, 1.6 MB of log a second for as long as its clock ran (up to a day), and a tournament's tables are never
ended below the free-disk floor (red11)."""

from __future__ import annotations

import trio

from server.protocol import TakeSeat
from server.table import intents
from server.table.bots import STAND_IN_LEAST_MS

from .helpers import Sink, new_table, settle


async def test_while_the_disk_is_low_stand_ins_of_absent_players_act_no_faster_than_a_person(nursery,
                                                                                             autojump_clock):
    table = new_table(seats=2, stand_in="heuristic", grace_ms=0, bot_delay_ms=0)
    table.disk_low = lambda: True  # (the lobby's DiskRoom below --min-free-mb)
    await nursery.start(table.run)
    players = Sink(), Sink()
    for index, player in enumerate(players):
        await table.submit(intents.TakeSeat(player, TakeSeat(table=table.id, seat=index)))
    await settle()
    for player in players:  # both gone: every seat a stand-in
        await table.submit(intents.Disconnect(player))
    await trio.sleep(60)
    assert [slot.state for slot in table.slots] == ["stand_in", "stand_in"]
    for seat in (0, 1):
        times = [e.time for e in table.log.entries if e.accepted and e.actor == seat]
        assert len(times) >= 10, "the stand-in plays the seat"
        quickest = min(b - a for a, b in zip(times, times[1:]))
        assert quickest >= STAND_IN_LEAST_MS / 1000 / 2 - 1e-6, f"seat {seat}: two actions {quickest:.3f} s apart"
