"""The tournament's own log: its records, and reading a log file back with its hash chain checked.

Same line format and chain as a table's log (``server/logs/logfile.py``, ``server/LOG-FORMAT.md``): one record per
line, ``<hash> <json>``, the hash chaining every line to the one before, written with
``server.logs.logstore.FileLog`` (whose durability policies apply unchanged) and encoded by
``logfile.encode_line``. The records are tagged by ``"kind"``; the first is ``created``, which publishes the
commitment ``sha256(seed)`` (``logfile.seed_commitment``), and ``ended`` reveals the seed. What the records
must say to each other is checked by ``state.Tournament.apply``; ``verify.verify_tournament`` checks a whole
file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import msgspec

from server.logs.logfile import read_chain

from .actions import (Disqualified, Penalised, Reentered, Repaired, RoundBegun, RoundEnded, Swapped,
                      Undropped)
from .model import Seating, Settings, TableResult

FORMAT_VERSION = 3  # 3: seeds derived by hashing (seeds.hashed); 2: seated by seating.py (exact to 12
# players), seeds by the XOR mix (seeds.xor_mixed); 1: seating_v1.py


class Created(msgspec.Struct, tag_field="kind", tag="created", frozen=True):
    """The first line: the tournament, its game and options (fixed for every table), its settings, and the
    commitment to its seed."""

    format: int
    tournament: str
    name: str
    game: str
    options: dict[str, Any]
    settings: Settings
    commitment: str  # logfile.seed_commitment(seed); the seed is in `ended`
    started: str  # wall clock, ISO 8601 UTC
    tables: dict[str, Any] = {}  # how its tables are opened: mode, turn_time_ms, no_show_ms, round_time_ms, ...
    secret: str | None = None  # sha256 of the organiser's secret (never the secret): the log vouches for it


class Registered(msgspec.Struct, tag_field="kind", tag="registered", frozen=True, omit_defaults=True):
    player: str  # the player's public id (their secret token is never logged)
    name: str
    time: float = 0.0  # seconds since the tournament was created
    token: str | None = None  # sha256 of the player's token (never the token): a restart needs nothing else
    waitlisted: bool = False  # past the settings' max_players (or behind others waiting): on the waitlist


class CheckedIn(msgspec.Struct, tag_field="kind", tag="checked_in", frozen=True, omit_defaults=True):
    player: str
    time: float = 0.0


class Dropped(msgspec.Struct, tag_field="kind", tag="dropped", frozen=True, omit_defaults=True):
    """The player is seated no more; their results stay and keep counting for their opponents."""

    player: str
    time: float = 0.0


class SeatedTable(msgspec.Struct, frozen=True):
    table: str  # the table's id on the server: its log is <table>.log
    players: tuple[str, ...]  # seat order


class RoundSeated(msgspec.Struct, tag_field="kind", tag="round_seated", frozen=True, omit_defaults=True):
    """Round ``round``'s seating. For an arena, ``waiting`` is the input: the players waiting, in the order
    they became free; those not seated stay in that order."""

    round: int
    tables: tuple[SeatedTable, ...]
    byes: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()
    note: str = ""  # a final smaller than the settings' top N: why (recomputed by ``verify``)
    time: float = 0.0

    def seating(self) -> Seating:
        tables = tuple(t.players for t in self.tables)
        seated = {p for t in tables for p in t}
        return Seating(tables=tables, byes=self.byes, waiting=tuple(p for p in self.waiting if p not in seated),
                       note=self.note)


class TableFinished(msgspec.Struct, tag_field="kind", tag="table_result", frozen=True, omit_defaults=True):
    """A table's result, read from its log: ``log_hash`` is the hash of that log's ``end`` line."""

    round: int
    table: str
    players: tuple[str, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]
    log_hash: str
    lower_is_better: bool = True
    stand_ins: tuple[bool, ...] = ()
    time: float = 0.0

    def result(self) -> TableResult:
        return TableResult(table=self.table, players=self.players, places=self.places, scores=self.scores,
                           lower_is_better=self.lower_is_better, stand_ins=self.stand_ins)


class Corrected(msgspec.Struct, tag_field="kind", tag="corrected", frozen=True, omit_defaults=True):
    """The organiser corrected a table's result (the table's own log is unchanged)."""

    table: str
    places: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    time: float = 0.0


class Ended(msgspec.Struct, tag_field="kind", tag="ended", frozen=True, omit_defaults=True):
    """The end: the seed revealed, the final standings' order as published, and why it ended (``reason``, with
    ``note`` in words): ``no_more_rounds`` (every round played, or a final skipped for want of players) and
    ``no_table`` (the next round would seat no table) are recomputed by ``verify``; ``time_up`` ends an arena;
    ``stopped`` an event an error stopped while it advanced (``note`` says which); ``cancelled`` the organiser
    cancelled it (``note``: their reason). An old log's has none."""

    seed: int
    standings: tuple[str, ...]
    reason: str = ""
    note: str = ""
    time: float = 0.0


# Records of the organiser's settings and of reported tables, each kept with its fold (``rated.py``, ``reporting.py``)
from .rated import RatingsSeeded  # noqa: E402
from .reporting import ReportedCount, Reported, Settled  # noqa: E402

Record = Union[Created, Registered, CheckedIn, Dropped, RoundSeated, TableFinished, Corrected, Ended,
               RatingsSeeded, Reported, Settled, ReportedCount,
               # the organiser's actions (``actions.py``, folded by ``fixes.py``)
               RoundBegun, Repaired, Swapped, RoundEnded, Penalised, Disqualified, Undropped, Reentered]
_decoder = msgspec.json.Decoder(Record)


@dataclass
class ReadTournamentLog:
    """A tournament log read back, its chain checked: ``records`` follow ``created``; ``lines[i]`` is the
    1-based line of ``records[i]``."""

    path: Path
    created: Created
    records: list[Any]
    lines: list[int]
    head: str
    good_bytes: int
    torn: str | None = None

    @property
    def ended(self) -> Ended | None:
        return next((r for r in self.records if type(r) is Ended), None)


def read_tournament_log(path: Path | str) -> ReadTournamentLog:
    """Read a tournament log and check its chain, as ``logfile.read_log`` does for a table's log: raises
    ``logfile.LogError`` at the first broken line; a torn last line is reported in ``torn`` and left out."""
    read = read_chain(path, _decoder, Created, "a 'created' record")
    return ReadTournamentLog(path=Path(path), created=read.first, records=read.records,
                             lines=list(range(2, len(read.records) + 2)), head=read.head, good_bytes=read.good_bytes,
                             torn=read.torn)
