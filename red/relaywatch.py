"""Many first watches of many tables through the other worker (serve --workers 2), and an honest player's
action round trip on the tables' worker meanwhile. Usage: relaywatch.py HOSTPORT OTHERPORT SECONDS ATTACK(0/1)"""
import json, sys, time, statistics, collections, trio
from trio_websocket import open_websocket_url, wrap_client_stream
HOST, OTHER, SECONDS, ATTACK = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
stats = collections.Counter()

async def connect(port, source="127.0.0.1"):
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
    ws = await wrap_client_stream(trio.lowlevel.current_root_task().parent_nursery if False else NURSERY, stream, "127.0.0.1", "/")
    await ws.send_message(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
    await ws.get_message()
    return ws

async def make_tables(source, count):
    ws = await connect(HOST, source)
    ids = []
    for i in range(count):
        await ws.send_message(json.dumps({"type": "create_table", "id": i, "seats": 3}))
        while True:
            m = json.loads(await ws.get_message())
            if m.get("ref") == i:
                if m["type"] == "table_created": ids.append(m["table"]["table"])
                else: print("create", m.get("code"), m.get("message"))
                break
    return ws, ids

async def churn(source, tables, end):
    ws = await connect(OTHER, source)
    async def drain():
        while True:
            m = json.loads(await ws.get_message()); stats[m.get("type")] += 1
    NURSERY.start_soon(drain)
    n = 0
    while trio.current_time() < end:
        for t in tables:
            n += 1
            await ws.send_message(json.dumps({"type": "watch", "id": n, "table": t}))
            await ws.send_message(json.dumps({"type": "leave", "id": -n, "table": t}))
            stats["sent"] += 2

async def honest(end, rtts):
    ws = await connect(HOST)
    await ws.send_message(json.dumps({"type": "create_table", "id": 1, "seats": 2, "mode": "lockstep",
                                      "bots": [{"seat": 1, "policy": "heuristic"}], "placed": True}))
    table, sent_at, n = None, None, 0
    while trio.current_time() < end:
        m = json.loads(await ws.get_message())
        t = m.get("type")
        stats["honest:" + str(t)] += 1
        if t == "error":
            sent_at = None; await trio.sleep(0.02)
        if t == "table_created":
            table = m["table"]["table"]
            await ws.send_message(json.dumps({"type": "take_seat", "id": "s", "table": table, "seat": 0}))
        elif t in ("accepted", "rejected") and sent_at is not None and m.get("ref") == f"h{n}":
            rtts.append(time.perf_counter() - sent_at); sent_at = None
            WINDOWS.setdefault(int((trio.current_time() - START) // 5), []).append(rtts[-1])
        elif t in ("update", "snapshot") and m.get("legal") and sent_at is None and "view" in m:
            await trio.sleep(0.02); n += 1; sent_at = time.perf_counter()
            await ws.send_message(json.dumps({"type": "act", "id": f"h{n}", "table": table, "action": m["legal"][0]}))
        elif t == "ping":
            await ws.send_message(json.dumps({"type": "pong", "ping": m["ping"]}))
        elif t == "update" and m.get("result"):
            await ws.send_message(json.dumps({"type": "rematch", "id": "r", "table": table}))

async def main():
    global NURSERY
    async with trio.open_nursery() as nursery:
        NURSERY = nursery
        tables, keep = [], []
        if ATTACK:
            for k in range(2, 6):
                for c in range(4):
                    ws, ids = await make_tables(f"127.0.{k}.{c + 1}", 4); tables += ids; keep.append(ws)
            print("tables", len(tables), flush=True)
        end = trio.current_time() + SECONDS
        rtts = []
        if ATTACK:
            for k in range(20):
                nursery.start_soon(churn, f"127.0.1.{k % 4 + 1}", tables, end)
        if ATTACK == 2:  # the attack alone (run the honest probe, ATTACK 0, in another process)
            await trio.sleep_until(end); print(dict(stats)); nursery.cancel_scope.cancel(); return
        global START, WINDOWS
        START, WINDOWS = trio.current_time(), {}
        await honest(end, rtts)
        for w, xs in sorted(WINDOWS.items()):
            xs.sort(); print(f"  t={w*5:3d}s n={len(xs)} p50={xs[len(xs)//2]*1000:.1f}ms p99={xs[int(len(xs)*.99)]*1000:.1f}ms max={xs[-1]*1000:.1f}ms")
        rtts.sort(); rtts = rtts or [float("nan")]
        print(f"attack={ATTACK} actions={len(rtts)} p50={rtts[len(rtts)//2]*1000:.1f}ms p99={rtts[int(len(rtts)*.99)]*1000:.1f}ms max={rtts[-1]*1000:.1f}ms", dict(stats), flush=True)
        nursery.cancel_scope.cancel()

trio.run(main)
