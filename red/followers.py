"""Refusal budget bypass: a held contested take's resends under new message ids become 'followers', each
answered `after` at the release, logged, never counted against the budget. Usage: followers.py PORT N"""
import json, sys, collections, trio
from trio_websocket import open_websocket_url
PORT, N = int(sys.argv[1]), int(sys.argv[2])

async def main():
    codes = collections.Counter()
    async with open_websocket_url(f"ws://127.0.0.1:{PORT}/") as ws:
        await ws.send_message(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        await ws.get_message()
        await ws.send_message(json.dumps({"type": "create_table", "id": 1, "seats": 2, "mode": "challenge",
            "fair_ms": 1000, "bots": [{"seat": 1, "policy": "random"}], "bot_delay_ms": 300}))
        table = None; sent = 0; n = 0
        with trio.move_on_after(20):
            while True:
                m = json.loads(await ws.get_message())
                t = m.get("type")
                if t == "table_created":
                    table = m["table"]["table"]
                    await ws.send_message(json.dumps({"type": "take_seat", "id": 2, "table": table, "seat": 0}))
                elif t == "rejected" or t == "accepted":
                    codes[m.get("code") or t] += 1
                elif t in ("update", "snapshot"):
                    takes = [a for a in (m.get("legal") or []) if a.get("type") == "take"]
                    if takes and sent < 3:
                        sent += 1
                        for i in range(N):
                            n += 1
                            await ws.send_message(json.dumps({"type": "act", "id": f"a{n}", "table": table,
                                                              "action": takes[0], "seen": m.get("seq")}))
        print(table, dict(codes))

trio.run(main)
