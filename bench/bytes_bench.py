"""Bytes per move per receiver: updates with the whole view and legal list against updates with their patch.

One table per game of three server bots that asked for patches (``hello`` ``patches``) and three spectators
that did too, played to its end in virtual time (no sockets, no clock: bytes do not depend on the machine), with
a receipt on every entry as a table with a log file has (a SHA-256 in hex, as the log's chain). Each receiver
counts, for every message it is sent, the bytes of the frame the server writes (one message a frame,
``encodeonce.frame``) three ways, all from the very same play: ``whole``, the message as the table built it (what
a connection without patches gets); ``patched``, with only the view's patch and ``legal_same`` (patches as they
were first: ``to_act``, ``pings`` and receipts repeated in every update); and ``sent``, what the server sends now
(also leaving out an unchanged ``to_act`` and ``pings``, and the receipt of an update without a view). A move is
an accepted action of a seat (a system's deal or window close is not one, though its updates are counted).

Besides the whole frames, ``view B`` is the view alone against the patch alone: the figure Colyseus's 33 bytes
of binary schema patch per move stands for (its envelope and headers are not in it either).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from typing import Any

import msgspec
import trio
import trio.testing

from rules import GAMES, make_setup
from server import encodeonce
from server.protocol import CODECS, BotSeat, Snapshot, Update, Watch
from server.protocol.viewpatch import Views
from server.table import apply, arbiter, intents, patching
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
    """What one receiver was sent, in bytes per encoding: whole, patched as before, and as sent now."""

    patches = True
    built: Any = None  # the message as the table built it, before ``patching.outgoing`` (set by ``_outgoing``)

    def __init__(self) -> None:
        self.views = Views()
        self.bytes = {(way, name): 0 for way in ("whole", "patched", "sent", "view", "patch") for name in CODECS}

    def count(self, message: Any) -> Any:
        built, mended = self.built, self.views.whole(message)
        patched = message
        if type(message) is Update:  # patches as they were first: only the view's patch and legal_same
            patched = msgspec.structs.replace(message, to_act=built.to_act, pings=built.pings, receipt=built.receipt)
        for name, codec in CODECS.items():
            for way, what in (("whole", built), ("patched", patched), ("sent", message)):
                self.bytes[way, name] += len(encodeonce.frame(codec, [what]))
            if type(message) is Update and message.view_patch is not None:
                self.bytes["patch", name] += len(codec.encoder.encode(message.view_patch))
                self.bytes["view", name] += len(codec.encoder.encode(mended.view))
        return mended


def _outgoing(real):
    def outgoing(table, receiver, message):
        receiver.built = message
        return real(table, receiver, message)
    return outgoing


def _receipt(table, seq: int) -> str | None:
    """A receipt of the length a log file's chain gives (SHA-256 in hex)."""
    return hashlib.sha256(f"{table.id} {seq}".encode()).hexdigest() if seq > 0 else None


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

    real = arbiter.LocalBot, patching.outgoing, apply.receipt
    arbiter.LocalBot, patching.outgoing, apply.receipt = bot, _outgoing(real[1]), _receipt
    try:
        table = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    finally:
        arbiter.LocalBot, patching.outgoing, apply.receipt = real
    moves = sum(1 for entry in table.log.accepted_after(0) if entry.actor >= 0)
    row: dict[str, Any] = {"game": name, "mode": mode, "moves": moves}
    for who, receivers in (("seat", bots), ("spectator", spectators)):
        per = len(receivers) * moves
        for way in ("whole", "patched", "sent", "view", "patch"):
            for name_ in CODECS:
                row[f"{who} {name_} {way} B"] = round(sum(r.bytes[way, name_] for r in receivers) / per, 1)
    return row


def run() -> list[dict]:
    return [play(name, mode) for name, mode in ROWS]


def print_table(rows: list[dict]) -> None:
    print(f"Bytes per move per receiver, one table of {SEATS} bot seats and {SPECTATORS} spectators "
          f"(frames' payload; Colyseus: {COLYSEUS_PATCH_B} B of patch per move)")
    for who in ("seat", "spectator"):
        print(f"\n{who}s | game | mode | moves | json whole B | json patched B | json sent B | sent / whole | "
              f"msgpack whole B | msgpack patched B | msgpack sent B | view B json | patch B json | "
              f"patch B msgpack | msgpack sent / Colyseus")
        for row in rows:
            w = {way: {name: row[f"{who} {name} {way} B"] for name in CODECS}
                 for way in ("whole", "patched", "sent", "view", "patch")}
            print(f"| {row['game']} | {row['mode']} | {row['moves']} | {w['whole']['json']:.0f} | "
                  f"{w['patched']['json']:.0f} | {w['sent']['json']:.0f} | "
                  f"{w['sent']['json'] / max(w['whole']['json'], 0.1):.2f} | {w['whole']['msgpack']:.0f} | "
                  f"{w['patched']['msgpack']:.0f} | {w['sent']['msgpack']:.0f} | {w['view']['json']:.0f} | "
                  f"{w['patch']['json']:.0f} | {w['patch']['msgpack']:.0f} | "
                  f"{w['sent']['msgpack'] / COLYSEUS_PATCH_B:.1f}x |")


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
