"""The fair-ordering cheat table: one scripted cheater against an honest seat at the same distance, each
racing for the newest discard card as in ``bench/fairness_bench.py`` (reactions 5-60 ms, ``fair`` ordering).

Both seats straight to the server with `serve --kernel-rtt always` (every bench connection is from loopback,
which the default `direct` would treat as a proxy), then the pong cheats again with both seats through equal
proxies (+10 ms each way) and `--kernel-rtt never`: a path hidden from the kernel, credited at most
`--unverified-credit-ms` (default 0); and once more with `--unverified-credit-ms 50` (an operator who opts in to
believing such a path's pings: no target, the rows say what it risks).
The cheats (seat 1; seat 0 is honest):

1. ``no_seen``: every take without ``seen``.
2. ``future_seen``: every take's ``seen`` names a seq 1,000 ahead.
3. ``pong10``, ``pong25``, ``pong60``: pongs held back 10 / 25 / 60 ms (to look farther and win a larger
   credit; 10 ms stays under the ``too_early`` floor, which is three quarters of the ping estimate).
   ``floor30``: the cheat that knows the rules: pongs held back 30 ms (a credit of the cap, 50 ms, behind
   the +10 ms proxies) and every take held to at least 35 ms after its update, so that no take is quicker than
   its pongs allow (never caught) and its takes' bound never lowers its credit: its reactions, as the server
   credits them, are max(r - 30, 5) ms. ``floor30all``: the same, and its discards (its replies to the update
   that gave it a card) held back 30 ms too, so that they do not show its path either.
4. ``ping_guess``: a pong every 5 ms for a ping not yet received, its number guessed (counting up, or drawn
   at random); its real pongs 25 ms late, so that a guess the server took would show as a smaller ping.
5. ``resume``: resumes its own seat every 10 ms (to re-stamp when its updates were sent).
6. ``guess_next``: every 10 ms asks for the honest seat's next discard (read from its script: the card it
   has held longest) before it is on the pile.
7. ``bogus``: with each real take, at once, a take of the card that just left the pile (not legal now).

Per row: the contested cards, the cheater's share and its gain over 50% in points (target: at most 5; the
+- is the 95% interval of a fair coin over that many cards), `guesses` per seat from `list_tables`, the seats'
`ping_ms`, the cheater's refusals by code, and what the cheat did.
"""

from __future__ import annotations

import math
import random
from contextlib import AsyncExitStack

import trio
from trio_websocket import ConnectionClosed

from clients.client import ServerError
from rules.flag_finish.game import TakeDiscard
from server.protocol import Pong

from .fairness_bench import LOOP_MOST, Seat, Tally, loaded, one_run, say_load, start_proxy
from .server_bench import photofinish_server

CHEATS = [
    (None, "honest vs honest"),
    ("no_seen", "(1) act with no seen"),
    ("future_seen", "(2) seen = future seq"),
    ("pong10", "(3) pongs 10 ms late"),
    ("pong25", "(3) pongs 25 ms late"),
    ("pong60", "(3) pongs 60 ms late"),
    ("floor30", "(3') pongs 30, takes >=35"),
    ("floor30all", "(3'') + discards 30 late"),
    ("ping_guess", "(4) pongs before pings"),
    ("resume", "(5) resume every 10 ms"),
    ("guess_next", "(6) ask next card/10 ms"),
    ("bogus", "(7) bogus take with real"),
]
PROXIED = [None, "pong10", "pong25", "pong60", "floor30", "floor30all"]  # again through equal proxies, the kernel's measure unused
PROXY_MS = 10.0
TRUSTED_MS = 50  # the second proxied run: `serve --unverified-credit-ms 50`, an operator who believes pings
GAIN_MOST = 5.0  # points over 50%


async def guess_pings(client, table: str, seat: int, tally: Tally, stop: trio.Event, hands: dict, mine: dict) -> None:
    """A pong every 5 ms for a ping it has not received: numbers counting up, and drawn at random."""
    rng = random.Random(seat)
    for turn in range(LOOP_MOST):
        if stop.is_set():
            return
        ws = client._ws  # the seat's own connection: a pong counts only there
        if ws is not None:
            guess = turn // 2 + 1 if turn % 2 else rng.randrange(1, 2**31)
            try:
                await ws.send_message(client.codec.encode(Pong(ping=guess)))
                tally.extra["pongs guessed"] += 1
            except ConnectionClosed:
                pass
        await trio.sleep(0.005)


async def resume_often(client, table: str, seat: int, tally: Tally, stop: trio.Event, hands: dict,
                       mine: dict) -> None:
    """Resume its own seat (same connection, its token) every 10 ms: a snapshot each time."""
    for _ in range(LOOP_MOST):
        if stop.is_set():
            return
        held = client.seats.get(table)
        if held is not None:
            try:
                await client.resume(table, held.token, client.last_seq.get(table, 0))
                tally.extra["resumes"] += 1
            except ServerError as error:
                tally.codes[seat]["resume " + error.code] += 1
        await trio.sleep(0.010)


async def guess_next(client, table: str, seat: int, tally: Tally, stop: trio.Event, hands: dict,
                     mine: dict) -> None:
    """Every 10 ms, ask for the other seat's next discard (its card held longest) while it is not on the pile."""
    for _ in range(LOOP_MOST):
        if stop.is_set():
            return
        other = hands.get((table, 1 - seat))
        pile = mine["pile"]
        if other and pile is not None and other[0] not in pile:
            card = other[0]
            tally.extra["early asks"] += 1
            try:
                await client.act(table, TakeDiscard(card))
                tally.win(table, card, seat)
                tally.extra["early asks won"] += 1
            except ServerError as error:
                tally.codes[seat]["ask " + error.code] += 1
        await trio.sleep(0.010)


async def bogus_take(client, table: str, card: str, seq: int, tally: Tally, seat: int) -> None:
    tally.extra["bogus"] += 1
    try:
        await client.act(table, TakeDiscard(card), seen=seq)
        tally.extra["bogus accepted"] += 1
    except ServerError as error:
        tally.codes[seat]["bogus " + error.code] += 1


SIDE_TASKS = {"ping_guess": guess_pings, "resume": resume_often, "guess_next": guess_next}


async def cheat_rows(contests: int, direct: bool = True) -> list[dict]:
    """Every cheat straight to the server, then the pong cheats through proxies (only those: ``direct`` False)."""
    rows = []
    async with photofinish_server(extra=("--kernel-rtt", "always")) as (_, url):
        for index, (cheat, label) in enumerate(CHEATS if direct else []):
            row = await one_run(url, [Seat(url), Seat(url, cheat)], "fair", 100 + index, contests)
            rows.append({"cheat": cheat, "label": label, "path": "direct, kernel", **row})
    for credit, path, trusted in ((None, f"+{PROXY_MS:g} ms proxies", False),
                                  (TRUSTED_MS, f"proxies, {TRUSTED_MS} ms", True)):
        extra = ("--kernel-rtt", "never") + (() if credit is None else ("--unverified-credit-ms", str(credit)))
        async with photofinish_server(extra=extra) as (_, url), AsyncExitStack() as stack:
            proxy = await start_proxy(stack, int(url.rsplit(":", 1)[1]), PROXY_MS)
            for index, cheat in enumerate(PROXIED):
                label = dict(CHEATS)[cheat]
                row = await one_run(url, [Seat(proxy), Seat(proxy, cheat)], "fair", 200 + 10 * trusted + index,
                                    contests)
                rows.append({"cheat": cheat, "label": label, "path": path, "trusted": trusted, **row})
    return rows


def print_cheats(rows: list[dict]) -> None:
    print("Fair ordering cheats: seat 1 cheats, seat 0 is honest, both at the same distance; reactions 5-60 ms; "
          "target: the cheater gains at most 5 points over 50%")
    print(f"{'cheat':<26}{'path':<17}{'contests':>8}{'cheater':>9}{'gain':>7}{'+-95%':>7}{'guesses':>9}"
          f"{'ping ms':>12}  {'result':<12}{'the cheater refused / what it did'}")
    print(f"{'':<26}{'':<17}{'':>8}{'share':>9}{'pts':>7}{'':>7}{'hon/cheat':>9}{'hon/cheat':>12}")
    for row in rows:
        n = max(1, row["contests"])
        share = row["shares"][1]
        gain = (share - 0.5) * 100
        margin = 1.96 * math.sqrt(0.25 / n) * 100
        pings = "/".join("-" if p is None else f"{p:.1f}" for p in row["ping_ms"])
        guesses = "/".join(str(g) for g in row["guesses"])
        codes = row["codes"][1]
        said = ", ".join(f"{code} {count}" for code, count in sorted(codes.items(), key=lambda kv: -kv[1])[:4])
        did = ", ".join(f"{what} {count}" for what, count in sorted(row["extra"].items()))
        result = "" if row["cheat"] is None else ("PASS" if gain <= GAIN_MOST else "FAIL")
        if row.get("trusted") and row["cheat"] is not None:
            result = "(opt-in)"  # no target: what an operator who raises the bound risks
        if loaded(row):
            result += f"*{row['load']:.1f}"
        print(f"{row['label']:<26}{row['path']:<17}{row['contests']:>8}{share:>9.1%}{gain:>+7.1f}{margin:>7.1f}"
              f"{guesses:>9}{pings:>12}  {result:<12}{'; '.join(x for x in (said, did) if x) or '-'}")
    print("gain: the cheater's share - 50%, in points; +-95%: a fair coin's 95% interval over that many cards; "
          "guesses: list_tables' SeatInfo.guesses summed over the run's tables; ping ms: the seats' ping_ms (median); "
          "result*N.N: run at that load average (over 2); proxies, 50 ms: `--unverified-credit-ms 50` (opt-in: the "
          "pings of a path the kernel did not measure believed up to 50 ms), no target: what raising it risks")
    say_load(rows)
