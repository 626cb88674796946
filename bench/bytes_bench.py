"""Bytes per move per receiver: updates with the whole view and legal list against what the server sends now.

One table per game of three server bots and three spectators, every one a receiver that asked for patches
(``hello`` ``patches``), played to its end in virtual time (no sockets, no clock: bytes do not depend on the
machine), with a receipt on every entry as a table with a log file has (a SHA-256 in hex, as the log's chain).
Each game is played twice, alike (the bots read no events): once with receivers that show events (the
browser's and the terminal's choice: ``events`` true), once with receivers that do not (``events`` false: a bot,
a compact spectator). Each receiver counts, for every message it is sent, the bytes of the frame the server
writes (one message a frame, ``encodeonce.frame``) two ways from the very same play: ``whole``, the message as
the table built it (what a connection without patches gets, but in one update per group of entries), and
``sent``, what the server sends (``patching.py``). A move is an accepted action of a seat (a system's deal or
window close is not one, though its updates are counted).

Every way is counted in three forms: ``json``, ``msgpack`` (maps, as the message's Struct encodes) and ``msgpack
rows`` (hello ``rows``: ``update``, ``snapshot`` and ``accepted`` as arrays, ``server/protocol/rows.py``, and the
views in them as rows too, ``server/protocol/viewrows.py``, so their patches step by places, and a seat's legal
actions, ``server/protocol/legalrows.py``). A rows receiver is
sent other views and patches than a map one, so the rows form is counted in a third play of the same game, alike,
whose receivers all said ``rows`` (the plays must have as many moves: the bots see the same views).

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
from server.wire import encodeonce
from server.protocol import CODECS, ROWS, BotSeat, Snapshot, Update, Watch
from server.protocol.viewpatch import Views
from server.table import apply, arbiter, intents, patching
from server.table.arbiter import Table
from server.table.bots import LocalBot
from server.table.settings import TableSettings

WAYS = ("whole", "sent", "view", "patch")
COLYSEUS_PATCH_B = 33  # Colyseus 0.18's binary schema patch per move (issue 35, ../shared/anchors/)
SPECTATORS = 3
SEATS = 3
OPTIONS = {"flag_finish": {"races": 2}, "flush": {"rounds": 2}}
FORMS = {**CODECS, ROWS.name: ROWS}  # json, msgpack, msgpack rows
PLAYS = [("checkered_flag", "lockstep"), ("finish_line", "lockstep"), ("flag_finish", "lockstep"),
        ("flag_finish", "challenge"), ("flush", "lockstep"), ("race_to_the_finish", "lockstep")]


class Counter:
    """What one receiver was sent, in bytes per encoding: whole, patched as before, and as sent now."""

    patches = True
    events = True  # set per play: the receiver shows events (the browser) or not (a bot, a compact spectator)
    rows = False  # set per play: the receiver said ``rows`` (and is counted in that form alone)
    built: Any = None  # the message as the table built it, before ``patching.outgoing`` (set by ``_outgoing``)

    def __init__(self) -> None:
        self.views = Views()
        self.bytes = {(way, name): 0 for way in WAYS for name in FORMS}

    def forms(self) -> dict:
        return {ROWS.name: ROWS} if self.rows else CODECS

    def count(self, message: Any) -> Any:
        built, mended = self.built, self.views.whole(message)
        for name, codec in self.forms().items():
            for way, what in (("whole", built), ("sent", message)):
                self.bytes[way, name] += len(encodeonce.frame(codec, [what]))
            if type(message) is Update and message.view_patch is not None:
                self.bytes["patch", name] += len(codec.encoder.encode(message.view_patch))
                self.bytes["view", name] += len(codec.encoder.encode(mended.view))
        return mended


def _outgoing(real):
    def outgoing(table, receiver, message):
        receiver.built = message
        sent = real(table, receiver, message)
        if sent is None:  # nothing sent: only what a connection without patches would have got is counted
            for name, codec in receiver.forms().items():
                receiver.bytes["whole", name] += len(encodeonce.frame(codec, [message]))
        return sent
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
            game = self.table.game
            mended = msgspec.structs.replace(mended, view=msgspec.convert(mended.view, game.view_type),
                                             legal=msgspec.convert(mended.legal, list[game.action_type] | None))
        return LocalBot.deliver(self, mended)


class CountingSpectator(Counter):
    latency = None

    def deliver(self, message: Any) -> bool:
        self.count(message)
        return True

    def close(self, code: str, message: str) -> None:
        pass


def play(name: str, mode: str, seed: int = 7, events: bool = False, rows: bool = False) -> dict:
    game = GAMES[name]
    setup = make_setup(game.info, SEATS, mode, OPTIONS.get(name, {}))
    bots: list[CountingBot] = []
    spectators = [CountingSpectator() for _ in range(SPECTATORS)]
    for spectator in spectators:
        spectator.events, spectator.rows = events, rows

    def bot(*args, **kwargs):
        bots.append(CountingBot(*args, **kwargs))
        bots[-1].events, bots[-1].rows = events, rows
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
    row: dict[str, Any] = {"game": name, "mode": mode, "events": events, "moves": moves}
    for who, receivers in (("seat", bots), ("spectator", spectators)):
        per = len(receivers) * moves
        for way in WAYS:
            for name_ in receivers[0].forms():
                row[f"{who} {name_} {way} B"] = round(sum(r.bytes[way, name_] for r in receivers) / per, 1)
    return row


def run() -> list[dict]:
    rows = []
    for events in (False, True):
        for name, mode in PLAYS:
            maps, arrays = play(name, mode, events=events), play(name, mode, events=events, rows=True)
            assert maps["moves"] == arrays["moves"], f"{name} {mode}: the rows play went otherwise"
            rows.append({**arrays, **maps})
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"Bytes per move per receiver, one table of {SEATS} bot seats and {SPECTATORS} spectators "
          f"(frames' payload; Colyseus: {COLYSEUS_PATCH_B} B of patch per move)")
    print("\n| receiver | events | game | mode | moves | json whole B | json sent B | msgpack whole B | "
          "msgpack sent B | msgpack rows sent B | patch B (msgpack) | rows patch B | "
          "msgpack rows sent / Colyseus 33 B |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for who in ("seat", "spectator"):
        for row in rows:
            w = {way: {name: row[f"{who} {name} {way} B"] for name in FORMS} for way in WAYS}
            rows_sent = w["sent"][ROWS.name]
            print(f"| {who} | {'shown' if row['events'] else 'none'} | {row['game']} | {row['mode']} | "
                  f"{row['moves']} | {w['whole']['json']:.0f} | {w['sent']['json']:.0f} | "
                  f"{w['whole']['msgpack']:.0f} | {w['sent']['msgpack']:.0f} | {rows_sent:.0f} | "
                  f"{w['patch']['msgpack']:.0f} | {w['patch'][ROWS.name]:.0f} | {rows_sent / COLYSEUS_PATCH_B:.1f}x |")


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
