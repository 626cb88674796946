"""CPU per move at 100 tables against the 300-connection echo and the bare relay, alternated in rounds.

`python -m bench.relay_rounds [--rounds N] [--seconds S]`: each round measures the bare trio-websocket echo at
300 connections, one `serve --durability never` at 100 Flag Finish tables of three (fair ordering, the
default), the bare relay (`bench/echo_server.py --relay 3`: 300 connections in tables of three, each message
sent to its table's three) and the same server's tables with arrival ordering, one after another, and prints
server CPU per round trip, per message relayed and per answer with their ratios. Alternating puts the four in
the same minutes: the machine's speed moves between runs more than the differences measured.
"""

from __future__ import annotations

import argparse

import trio

from bench.server_bench import ARRIVAL_LOAD, MANY_CONNECTIONS, floor, measure, photofinish_server
from clients.load import FLAG_FINISH_LOAD
from server.protocol.gctune import settle_gc


async def rounds(count: int, seconds: float) -> list[dict]:
    found = []
    async with photofinish_server("never") as (server, url):
        for _ in range(count):
            echo = (await floor(MANY_CONNECTIONS, seconds))["server_cpu_us_per_rt"]
            default = (await measure(server, url, 100, seconds, table=FLAG_FINISH_LOAD))["server_cpu_us_per_action"]
            relay = (await floor(MANY_CONNECTIONS, seconds, relay=3))["server_cpu_us_per_rt"]
            arrival = (await measure(server, url, 100, seconds, table=ARRIVAL_LOAD))["server_cpu_us_per_action"]
            found.append({"echo": echo, "relay": relay, "default": default, "arrival": arrival})
    return found


def print_rounds(found: list[dict]) -> None:
    print("Server CPU: the 300-connection echo (us per round trip), the bare relay (us per message), 100 tables "
          "(us per answer)")
    print("round   echo  relay  x echo   default  x echo  x relay   arrival  x echo  x relay")
    for number, r in enumerate(found):
        e, rl = r["echo"], r["relay"]
        print(f"{number:5d}  {e:5.0f}  {rl:5.0f}  {rl / e:6.2f}   {r['default']:7.0f}  {r['default'] / e:6.2f}  "
              f"{r['default'] / rl:7.2f}   {r['arrival']:7.0f}  {r['arrival'] / e:6.2f}  {r['arrival'] / rl:7.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="CPU per move against the echo and the bare relay, alternated")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=4.0, help="each run's length")
    options = parser.parse_args()
    settle_gc()
    print_rounds(trio.run(rounds, options.rounds, options.seconds))
