"""Bytes per move per receiver: updates with the whole view and legal list against updates with their patch.

One table per game of three server bots that asked for patches (``hello`` ``patches``) and three spectators
that did too, played to its end in virtual time (no sockets, no clock: bytes do not depend on the machine). Each
receiver counts, for every message it is sent, the bytes of the frame the server writes (one message a frame,
``encodeonce.frame``), and the bytes the same message would have been whole: the update made whole again
(``Views.whole``) and encoded. The two columns come from the very same play. A move is an accepted action of a
seat (a system's deal or window close is not one, though its updates are counted).

Besides the whole frames, ``view B`` is the view alone against the patch alone: the figure Colyseus's 33 bytes
of binary schema patch per move stands for (its envelope and headers are not in it either).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import msgspec
import trio
import trio.testing

from rules import GAMES, make_setup
from server import encodeonce
from server.protocol import CODECS, BotSeat, Snapshot, Update, Watch
from server.protocol.viewpatch import Views
from server.table import arbiter, intents
from server.table.arbiter import Table
from server.table.bots import LocalBot
from server.table.settings import TableSettings

COLYSEUS_PATCH_B = 33  # Colyseus 0.18's binary schema patch per move (issue 35, ../shared/anchors/)
SPECTATORS = 3
SEATS = 3
OPTIONS = {"flag_finish": {"races": 2}, "flush": {"rounds": 2}}
ROWS = [("checkered_flag", "lockstep"), ("finish_line", "lockstep"), ("flag_finish", "lockstep"),
        ("flag_finish", "challenge"), ("flush", "lockstep"), ("race_to_the_finish", "lockstep")]


class Counter:
    """What one receiver was sent, in bytes per encoding: as sent (patched) and as it would have been whole."""

    patches = True

    def __init__(self) -> None:
        self.views = Views()
        self.sent = {name: 0 for name in CODECS}
        self.whole = {name: 0 for name in CODECS}
        self.view_sent = {name: 0 for name in CODECS}
        self.view_whole = {name: 0 for name in CODECS}

    def count(self, message: Any) -> Any:
        mended = self.views.whole(message)
        for name, codec in CODECS.items():
            self.sent[name] += len(encodeonce.frame(codec, [message]))
            if type(message) is Update and message.view_patch is not None:
                whole = msgspec.structs.replace(mended, legal=mended.legal, legal_same=False)
                self.whole[name] += len(codec.encoder.encode(whole))
                self.view_sent[name] += len(codec.encoder.encode(message.view_patch))
                self.view_whole[name] += len(codec.encoder.encode(mended.view))
            else:
                self.whole[name] += len(encodeonce.frame(codec, [message]))
        return mended


class CountingBot(LocalBot, Counter):
    def __init__(self, *args, **kwargs) -> None:
        LocalBot.__init__(self, *args, **kwargs)
        Counter.__init__(self)

    def deliver(self, message: Any) -> bool:
        mended = self.count(message)
        if type(mended) in (Update, Snapshot) and mended.view is not None and type(mended.view) is dict:
            mended = msgspec.structs.replace(mended, view=msgspec.convert(mended.view, self.table.game.view_type))
        return LocalBot.deliver(self, mended)


class CountingSpectator(Counter):
    latency = None

    def deliver(self, message: Any) -> bool:
        self.count(message)
        return True

    def close(self, code: str, message: str) -> None:
        pass


def play(name: str, mode: str, seed: int = 7) -> dict:
    game = GAMES[name]
    setup = make_setup(game.info, SEATS, mode, OPTIONS.get(name, {}))
    bots: list[CountingBot] = []
    spectators = [CountingSpectator() for _ in range(SPECTATORS)]

    def bot(*args, **kwargs):
        bots.append(CountingBot(*args, **kwargs))
        return bots[-1]

    async def main() -> Table:
        table = Table("b1", game, setup, seed, TableSettings(bots=tuple(BotSeat(s) for s in range(SEATS)),
                                                             bot_delay_ms=20))
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            for spectator in spectators:
                await table.submit(intents.Watch(spectator, Watch(table="b1")))
            await table.over.wait()
            nursery.cancel_scope.cancel()
        return table

    real, arbiter.LocalBot = arbiter.LocalBot, bot
    try:
        table = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    finally:
        arbiter.LocalBot = real
    moves = sum(1 for entry in table.log.accepted_after(0) if entry.actor >= 0)
    row: dict[str, Any] = {"game": name, "mode": mode, "moves": moves}
    for who, receivers in (("seat", bots), ("spectator", spectators)):
        for name_, _ in CODECS.items():
            per = len(receivers) * moves
            row[f"{who} {name_} whole B"] = round(sum(r.whole[name_] for r in receivers) / per, 1)
            row[f"{who} {name_} patched B"] = round(sum(r.sent[name_] for r in receivers) / per, 1)
            row[f"{who} {name_} view B"] = round(sum(r.view_whole[name_] for r in receivers) / per, 1)
            row[f"{who} {name_} patch B"] = round(sum(r.view_sent[name_] for r in receivers) / per, 1)
    return row


def run() -> list[dict]:
    return [play(name, mode) for name, mode in ROWS]


def print_table(rows: list[dict]) -> None:
    print(f"Bytes per move per receiver, one table of {SEATS} bot seats and {SPECTATORS} spectators "
          f"(frames' payload; Colyseus: {COLYSEUS_PATCH_B} B of patch per move)")
    for who in ("seat", "spectator"):
        print(f"\n{who}s | game | mode | moves | json whole B | json patched B | ratio | msgpack whole B | "
              f"msgpack patched B | view B json | patch B json | patch B msgpack | patch / Colyseus")
        for row in rows:
            ratio = row[f"{who} json whole B"] / max(row[f"{who} json patched B"], 0.1)
            print(f"| {row['game']} | {row['mode']} | {row['moves']} | {row[f'{who} json whole B']} | "
                  f"{row[f'{who} json patched B']} | {ratio:.1f}x | {row[f'{who} msgpack whole B']} | "
                  f"{row[f'{who} msgpack patched B']} | {row[f'{who} json view B']} | {row[f'{who} json patch B']} | "
                  f"{row[f'{who} msgpack patch B']} | {row[f'{who} msgpack patch B'] / COLYSEUS_PATCH_B:.1f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args()
    rows = run()
    print_table(rows)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
