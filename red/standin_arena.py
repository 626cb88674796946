"""An arena whose every player is absent: no_show_ms 0 and bot_delay_ms 0, so each seat is a stand-in bot at once,
playing at bot speed for arena_ms (up to 24 h). Its tables are a tournament's (people, or stand-ins for them):
never ended below the free-disk floor. Usage: standin_arena.py PORT PLAYERS"""
import json, sys, trio
from trio_websocket import open_websocket_url
PORT, PLAYERS = int(sys.argv[1]), int(sys.argv[2])

async def call(ws, msg):
    await ws.send_message(json.dumps(msg))
    while True:
        m = json.loads(await ws.get_message())
        if m.get("ref") == msg["id"]:
            return m

async def hello(ws):
    await ws.send_message(json.dumps({"type": "hello", "id": 0, "protocol": 1})); await ws.get_message()

async def main():
    async with open_websocket_url(f"ws://127.0.0.1:{PORT}/") as org:
        await hello(org)
        made = await call(org, {"type": "create_tournament", "id": 1, "name": "empty", "format": "arena",
                                "mode": "challenge", "seats": 3, "arena_ms": 600000, "no_show_ms": 0,
                                "bot_delay_ms": 0})
        if made["type"] != "tournament_created":
            print(made); return
        tid, secret = made["tournament"]["tournament"], made["secret"]
        for c in range((PLAYERS + 3) // 4):
            async with open_websocket_url(f"ws://127.0.0.1:{PORT}/") as ws:
                await hello(ws)
                for i in range(4):
                    r = await call(ws, {"type": "register", "id": 10 + i, "tournament": tid, "name": f"p{c}-{i}"})
                    if r["type"] == "error": print(r)
        print(await call(org, {"type": "start_tournament", "id": 2, "tournament": tid, "secret": secret}))
    print("started", tid)

trio.run(main)
