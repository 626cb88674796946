"""Opening a table again from its log (the server stopped or died mid-game): its settings from the log's
header, and the seats, answers, fair-ordering counters and budgets of logged refusals from its records, all
through the table's own public path (``seats.move``), never by setting its fields from outside.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rules import Game, Session, Setup

from ..logs.actionlog import MemoryLog
from ..logs.logfile import Entry, ReadLog, SeatTaken, StandIn
from ..logs.logstore import FileLog
from ..protocol import BotSeat
from . import fair, refusals, seats
from .arbiter import Table
from .settings import TableSettings


def settings_of(name: str, options: dict[str, Any], expire_after: float | None,
                abandon_after: float | None = None) -> TableSettings:
    """A reopened table's settings, from its log header's ``table_options`` (and the server's limits now)."""
    return TableSettings(
        name=name, bots=tuple(msgspec.convert(b, BotSeat) for b in options.get("bots", [])),
        turn_time_ms=options.get("turn_time_ms", 0), grace_ms=options.get("grace_ms", 60_000),
        bot_delay_ms=options.get("bot_delay_ms", 0), stand_in=options.get("stand_in"),
        ordering=options.get("ordering", "arrival"), fair_ms=options.get("fair_ms", 50),
        unverified_credit_ms=options.get("unverified_credit_ms"),
        expire_after=expire_after, abandon_after=abandon_after, chosen_seed=options.get("chosen_seed"),
        practice=options.get("practice", False), spectator_delay_ms=options.get("spectator_delay_ms", 0),
        spectator_delay_entries=options.get("spectator_delay_entries", 0),
        broadcast_key_hash=options.get("broadcast_key_hash"))


def reopen(read: ReadLog, game: Game, setup: Setup, seed: int, settings: TableSettings, *, session: Session,
           log: MemoryLog, store: FileLog | None) -> Table:
    """The table of log ``read``, its game rebuilt (``session`` and ``log``), going on in ``store``: every
    seat as its records left it (a player's seat away, waiting for their token), each seat's answers to the
    message ids it sent (a resend after the restart is answered as before), the lots already drawn."""
    entries = read.entries()
    table = Table(read.header.table, game, setup, seed, settings, store=store, session=session, log=log,
                  receipts=read.receipts())
    fair.skip_lots(table, sum(e.fair is not None and e.fair.lot is not None for e in entries))
    table.groups = max((e.fair.group or 0 for e in entries if e.fair is not None), default=0)
    for record in read.records:
        if type(record) is SeatTaken:
            slot = table.slots[record.seat]
            if record.token_hash:
                seats.take(slot, record.name, record.token_hash, None, seats.AWAY)
                slot.answers = {}
            else:
                seats.free(slot)
        elif type(record) is StandIn:
            slot = table.slots[record.seat]
            slot.stood_in = True
            seats.move(slot, seats.STAND_IN if record.active else seats.AWAY)
        elif type(record) is Entry and record.ref is not None and 0 <= record.actor < len(table.slots):
            table.slots[record.actor].answers[record.ref] = table.answer_for(table.log.entries[record.seq - 1])
    refusals.restore(table, entries)  # each seat's budget of logged refusals, as its log spent it
    table.seated_ever = any(type(r) is SeatTaken and r.token_hash for r in read.records)
    return table
