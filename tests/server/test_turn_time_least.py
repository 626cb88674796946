"""A lockstep turn clock shorter than ``TURN_TIME_LEAST`` is refused: with ``turn_time_ms`` 1, one idle person seat
and two zero-delay bots, a table played itself through its timeouts (11,000 logged in a minute, 2.4 MB, red11),
as fast as a table of bots alone, yet never ended below the free-disk floor since a person holds a seat."""

import pytest

from clients.client import ServerError, open_client
from server.app import run_server
from server.table.settings import TURN_TIME_LEAST


async def test_a_turn_clock_shorter_than_a_person_can_act_is_refused(nursery, tmp_path):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 durability="never", task_status=task_status))
    async with open_client(running.url) as client:
        for wrong in (1, TURN_TIME_LEAST - 1):
            with pytest.raises(ServerError) as refused:
                await client.create_table(game="flag_finish", mode="lockstep", seats=3, turn_time_ms=wrong,
                                          bots=[{"seat": 1, "policy": "random"}, {"seat": 2, "policy": "random"}])
            assert refused.value.code == "bad_option" and "turn_time_ms" in refused.value.message
            with pytest.raises(ServerError) as refused:
                await client.create_tournament(game="flag_finish", turn_time_ms=wrong)
            assert refused.value.code == "bad_settings" and "turn_time_ms" in refused.value.message
        for right in (0, TURN_TIME_LEAST):
            await client.create_table(game="flag_finish", mode="lockstep", seats=2, turn_time_ms=right)
    await running.shutdown()
