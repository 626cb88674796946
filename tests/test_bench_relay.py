"""bench/echo_server.py's bare relay (server_bench's reference for what a table's frames cost at the least): a
message goes to every connection of its sender's table of three, and to no other table."""

import sys
from contextlib import AsyncExitStack

import trio
from trio_websocket import open_websocket_url

from bench.server_bench import free_port, start_process, stop


async def test_a_message_reaches_its_tables_three_and_no_other_table():
    port = free_port()
    server = await start_process([sys.executable, "-m", "bench.echo_server", str(port), "--relay", "3"])
    try:
        with trio.fail_after(30):
            async with AsyncExitStack() as stack:
                seats = [await stack.enter_async_context(open_websocket_url(f"ws://127.0.0.1:{port}"))
                         for _ in range(6)]  # opened one after another: tables [0, 1, 2] and [3, 4, 5]
                await seats[0].send_message("from seat 0")
                assert [await seat.get_message() for seat in seats[:3]] == ["from seat 0"] * 3
                await seats[4].send_message("from seat 4")  # the other table's first message is its own
                assert [await seat.get_message() for seat in seats[3:]] == ["from seat 4"] * 3
    finally:
        await stop(server)
