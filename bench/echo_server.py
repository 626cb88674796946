"""The floor: a bare trio-websocket echo server (`python -m bench.echo_server PORT`), nothing else.

With ``--prompt`` it sends as photofinish does (server/sendpath.py), to show what that send path is worth alone.
"""

import sys

import trio
from trio_websocket import ConnectionClosed, serve_websocket

from server.sendpath import send_promptly

PROMPT = "--prompt" in sys.argv[2:]


async def echo(request) -> None:
    ws = await request.accept()
    if PROMPT:
        send_promptly(ws)
    try:
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
