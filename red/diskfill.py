"""Fill the disk through tables of one person seat (idle) and two zero-delay bots, lockstep, turn_time_ms=1:
the person's turns time out in 1 ms, so the table plays itself; it is not 'bots alone', so diskroom never ends it,
and once started it is no longer counted as waiting. Usage: diskfill.py PORT SECONDS [CONNS]"""
import json, sys, collections, trio
from trio_websocket import open_websocket_url

PORT, SECONDS = int(sys.argv[1]), float(sys.argv[2])
CONNS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
stats = collections.Counter()

async def one_conn(k):
    async with open_websocket_url(f"ws://127.0.0.1:{PORT}/") as ws:
        await ws.send_message(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        await ws.get_message()
        seated = 0
        async def drain():
            nonlocal seated
            while True:
                m = json.loads(await ws.get_message())
                t = m.get("type")
                if t == "error":
                    stats["error:" + str(m.get("code"))] += 1
                elif t == "table_created":
                    stats[t] += 1
                    await ws.send_message(json.dumps({"type": "take_seat", "id": "s" + m["table"]["table"] if isinstance(m["table"], dict) and "table" in m["table"] else "s", "table": m["table"].get("id") or m["table"].get("table"), "seat": 0}))
                elif t in ("seated", "table_ended", "closing"):
                    stats[t] += 1
                    if t == "seated": seated += 1
                    if t == "table_ended": seated -= 1; stats["ended:" + m.get("reason", "")] += 1
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain)
            end = trio.current_time() + SECONDS
            n = 0
            while trio.current_time() < end:
                if True:
                    n += 1
                    await ws.send_message(json.dumps({"type": "create_table", "id": f"c{k}-{n}", "seats": 3,
                        "bots": [{"seat": 1, "policy": "random"}, {"seat": 2, "policy": "random"}],
                        "turn_time_ms": 1, "bot_delay_ms": 0, "mode": "lockstep"}))
                await trio.sleep(0.25)
            nursery.cancel_scope.cancel()

async def report():
    while True:
        await trio.sleep(5)
        print(dict(stats), flush=True)

async def main():
    async with trio.open_nursery() as n:
        n.start_soon(report)
        async with trio.open_nursery() as m:
            for k in range(CONNS):
                m.start_soon(one_conn, k)
        n.cancel_scope.cancel()
    print("final", dict(stats))

trio.run(main)
