"""A live server with a data directory (table logs, tournaments' store), for the replay and tournament page
tests, and a way to run client-library code in its trio loop from a synchronous browser test."""

from __future__ import annotations

import trio

from clients.client import open_client
from server.app import run_server
from server.gateway import Limits

from .conftest import WEB_ROOT, LiveServer


# every person of a test's room registers from 127.0.0.1: the per-address rates of an anonymous LAN would refuse
# a module's worth of them within a minute (on a quick machine; a slow one spreads them out)
ROOM = Limits(registrations_per_minute=100_000, tournaments_per_minute=100_000, budget_rate=100_000,
              budget_burst=100_000)  # (every page of the room reads the log at each decision: 8 units each)


class LoggedServer(LiveServer):
    def __init__(self, data_dir) -> None:
        self.data_dir = data_dir
        super().__init__()

    async def _main(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                running = await nursery.start(lambda task_status: run_server(
                    "127.0.0.1", 0, data_dir=self.data_dir, web_root=WEB_ROOT, limits=ROOM, task_status=task_status))
                self.ready.put((running, trio.lowlevel.current_trio_token()))
        except BaseException as error:
            self.ready.put((error, None))
            raise

    def run(self, async_fn, *args, **kwargs):
        """Run ``async_fn(*args, **kwargs)`` in the server's trio loop and return its value."""
        return trio.from_thread.run(lambda: async_fn(*args, **kwargs), trio_token=self.token)


async def bot_table(lobby, game: str = "flag_finish", seats: int = 3, **options) -> str:
    """A table of server bots only (in the server's loop), played at once to its end; returns its id once its
    log's end record is on disk."""
    from server.protocol import BotSeat, CreateTable

    table = await lobby.create(CreateTable(game=game, mode="lockstep", seats=seats, options=options,
                                           bots=[BotSeat(s) for s in range(seats)], bot_delay_ms=0))
    with trio.fail_after(30):
        await table.over.wait()
        await table.wait_end_durable()
    return table.id


def call(url: str, method: str, *args, **kwargs):
    """One client call to the server at ``url`` (a fresh connection), from a test's thread."""
    async def main():
        async with open_client(url) as client:
            return await getattr(client, method)(*args, **kwargs)

    return trio.run(main)
