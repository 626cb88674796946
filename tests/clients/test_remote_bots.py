"""Bots over the wire keep playing through refusals that no update follows (a take refused as too early):
before, such a bot waited for a message that never came, and a Challenge table whose every seat was refused
stood still for good (a tournament arena hung on it about one run in four)."""

import trio

from clients.client import open_client
from clients.remote_bots import play_seat
from server.app import run_server
from server.protocol import Update
import server.table.fair as fair


async def test_challenge_bots_take_again_after_a_too_early_refusal_and_finish(nursery, monkeypatch):
    real_floor = fair.early_floor
    refused = []

    def floor(rtt):  # every take in the game's first second is refused as too early, whatever its timing
        if not refused or trio.current_time() < refused[0] + 1.0:
            refused.append(trio.current_time())
            return float("inf")
        return real_floor(rtt)

    monkeypatch.setattr(fair, "early_floor", floor)
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as admin:
        info = await admin.create_table(game="flag_finish", mode="challenge", seats=3, options={})
        await admin.watch(info.table)
        with trio.fail_after(60):
            async with trio.open_nursery() as bots:
                for seat in range(3):
                    bots.start_soon(lambda s=seat: play_seat(running.url, info.table, "heuristic", 11 + s, seat=s))
            async for message in admin.messages:
                if type(message) is Update and message.result is not None:
                    break
    assert len(refused) >= 3, "the test refused the first takes as too early"
    assert running.lobby.find(info.table).session.result() is not None
