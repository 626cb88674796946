"""The floor: a bare trio-websocket echo server (`python -m bench.echo_server PORT`), nothing else.

With ``--prompt`` it sends as photofinish does (server/wire/sendpath.py), to show what that send path is worth alone.
With ``--relay N`` it is a bare relay instead: its connections, in the order they came, make tables of ``N``,
and every message one of them sends goes to each of its table's ``N`` connections, the sender too (what a table
does with a move at the least: one frame in, a frame to every seat out; for reference, not the floor).
"""

import sys

import trio
from trio_websocket import ConnectionClosed, serve_websocket

from server.wire.sendpath import send_promptly

PROMPT = "--prompt" in sys.argv[2:]
RELAY = int(sys.argv[sys.argv.index("--relay") + 1]) if "--relay" in sys.argv else 0
tables: list[list] = []


async def echo(request) -> None:
    ws = await request.accept()
    if PROMPT:
        send_promptly(ws)
    try:
        if RELAY:
            if not tables or len(tables[-1]) == RELAY:
                tables.append([])
            table = tables[-1]
            table.append(ws)
            while True:
                message = await ws.get_message()
                for seat in table:
                    await seat.send_message(message)
        while True:
            await ws.send_message(await ws.get_message())
    except ConnectionClosed:
        pass


async def main(port: int) -> None:
    async with trio.open_nursery() as nursery:
        await nursery.start(serve_websocket, echo, "127.0.0.1", port, None)
        print(f"echo listening on ws://127.0.0.1:{port}", flush=True)


if __name__ == "__main__":
    trio.run(main, int(sys.argv[1]))
