"""Refusal budget bypass through fair ordering's followers. Seat 0 (us) and a slow server bot, Challenge Mode,
fair_ms 1000. Each cycle: take card C before it is in the discard pile (one counted refusal: a guess, C
remembered), discard C, then take C (rule `guess`: held fair_ms, ~1 s) and resend that take under N new message
ids while it is held. Every resend is a follower, answered `after` at the release: logged, never counted.
Usage: followers.py PORT N CYCLES"""
import json, sys, collections, trio
from trio_websocket import open_websocket_url
PORT, N, CYCLES = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

async def main():
    codes = collections.Counter()
    async with open_websocket_url(f"ws://127.0.0.1:{PORT}/") as ws:
        await ws.send_message(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        await ws.get_message()
        await ws.send_message(json.dumps({"type": "create_table", "id": 1, "seats": 2, "mode": "challenge",
            "fair_ms": 1000, "bots": [{"seat": 1, "policy": "random"}], "bot_delay_ms": 60000}))
        table, n, cycles, want = None, 0, 0, None
        async def send(action, seen):
            nonlocal n
            n += 1
            await ws.send_message(json.dumps({"type": "act", "id": f"a{n}", "table": table, "action": action, "seen": seen}))
        with trio.move_on_after(30):
            while cycles <= CYCLES:
                m = json.loads(await ws.get_message())
                t = m.get("type")
                if t == "table_created":
                    table = m["table"]["table"]
                    await ws.send_message(json.dumps({"type": "take_seat", "id": 2, "table": table, "seat": 0}))
                elif t in ("rejected", "accepted"):
                    codes[m.get("code") or t] += 1
                elif t in ("update", "snapshot") and m.get("legal"):
                    legal = m["legal"]
                    if want is not None and {"type": "take", "card": want} in legal:
                        for _ in range(N):  # the first is held (a guess); the rest follow it
                            await send({"type": "take", "card": want}, m.get("seq"))
                        want, cycles = None, cycles + 1
                        continue
                    if want is None:
                        discards = [a for a in legal if a.get("type") == "discard"]
                        if discards:
                            want = discards[0]["card"]
                            await send({"type": "take", "card": want}, m.get("seq"))  # a guess: refused, counted
                            await send(discards[0], m.get("seq"))
                            continue
                        draws = [a for a in legal if a.get("type") == "draw"]
                        if draws:
                            await send(draws[0], m.get("seq"))
        print(table, dict(codes))

trio.run(main)
