"""The action log's format: its records, the hash chain, and how a file is read back and checked.

One file per table, one record per line: ``<hash> <json>\\n``, where ``<json>`` is the record (msgspec JSON,
tagged by ``"kind"``) and ``<hash>`` is hex sha256 of the previous line's hash (64 zeros for the first)
followed by the JSON bytes exactly as written. Change, add or remove any byte of any line and the chain
breaks at that line. ``server/LOG-FORMAT.md`` documents the format and why it is JSON lines. The log is a
protocol like the wire's: a player reads it (``photofinish replay``, ``verify``) with this module alone; the
server writes it with ``server/logs/logfile.py``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import msgspec

FORMAT_VERSION = 1
GENESIS = "0" * 64


class Header(msgspec.Struct, tag_field="kind", tag="header", frozen=True):
    format: int
    table: str
    name: str
    game: str
    rules_version: str
    protocol: int
    seats: int
    mode: str
    options: dict[str, Any]
    table_options: dict[str, Any]  # turn_time_ms, grace_ms, bot_delay_ms, bots; alias (a kept table)
    commitment: str  # sha256 of the seed (see seed_commitment); the seed itself is in the end record
    started: str  # wall-clock start, ISO 8601 UTC


class Fair(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """What a fair ordering decision used (on the entry of every contested action at a ``fair`` table).

    ``rule``: ``reaction`` (its group went in order of reaction), ``lot`` (tied within epsilon: the seeded
    ``lot`` ordered the tie), ``guess`` (the seat asked for this card before it was offered: ordered after
    every real reaction), ``too_early`` (refused: it arrived sooner after the card was first sent to the seat
    than the seat's round trip allows, or was chosen on a view from before the card), ``after`` (the seat's
    second ask for the same item: answered right after its first), ``arrival`` (logs of format 1: no usable
    ``seen``). Times are server seconds like the entry's ``time``; ``sent`` is when the update that offered
    the card first left for this seat (never stamped again by a resume), ``rtt`` the round trip credited
    (``fairness.credited`` of ``pings`` and ``path``), ``reaction`` is ``arrival - sent - min(rtt, fair_ms)``,
    ``until`` when it was due at the latest, ``group`` the release it went in (its members in ``rank`` order
    of arrival), ``lost_to`` the seat whose same action went first."""

    rule: str
    arrival: float
    seen: int | None = None
    sent: float | None = None
    rtt: float | None = None
    reaction: float | None = None
    until: float | None = None
    group: int | None = None
    rank: int | None = None
    lot: int | None = None
    lost_to: int | None = None
    pings: list[float] | None = None  # the seat's ping samples then (seconds): the estimate is their median
    path: float | None = None  # the quickest of its recent takes' arrival - first send (or, if less, its replies'
    # median + 5 ms: uncontested actions sent on the update that offered them): rtt is at most this less 5 ms
    kernel: float | None = None  # the kernel's smallest round trip of its connection (direct connections)


class Entry(msgspec.Struct, tag_field="kind", tag="entry", frozen=True, omit_defaults=True):
    seq: int
    time: float  # server seconds since the table started
    actor: int  # a seat, -1 the system, -2 chance
    action: Any
    accepted: bool
    code: str | None = None  # why a refused intent was refused
    digest: str | None = None  # the state digest after this entry (every N entries and the last)
    ref: int | str | None = None  # the client's message id: a resend after a restart is still answered once
    fair: Fair | None = None  # a contested action at a fair table: what ordered it


class SeatTaken(msgspec.Struct, tag_field="kind", tag="seat", frozen=True):
    """A seat was taken (or freed, ``token_hash`` None): what a restarted server needs to let it resume."""

    seat: int
    name: str
    token_hash: str | None
    time: float


class StandIn(msgspec.Struct, tag_field="kind", tag="stand_in", frozen=True):
    """A server bot started (``active``) or stopped playing ``seat`` for its absent player (a tournament's
    no-show): it is marked in every seat list, and a tournament places a seat it played for last."""

    seat: int
    active: bool
    time: float


class Reopened(msgspec.Struct, tag_field="kind", tag="reopened", frozen=True):
    """The server restarted and reopened this table from its log (after a crash, say)."""

    seq: int
    started: str


class End(msgspec.Struct, tag_field="kind", tag="end", frozen=True, omit_defaults=True):
    seq: int
    seed: int  # revealed: `photofinish verify` checks every shuffle and die against it
    digest: str
    reason: str  # "over" (the game ended), "time_limit", "abandoned" or "disk_low" (halted: places as it stood),
    # "expired" (nobody sat at it: no places)
    scores: list[int] | None = None
    winners: list[int] | None = None
    places: list[int] | None = None  # each seat's place (1 = first, ties share): the game's, or as it stood


Record = Union[Header, Entry, SeatTaken, StandIn, Reopened, End]
_decoder = msgspec.json.Decoder(Record)


def seed_commitment(seed: int) -> str:
    """sha256 of the seed's 8 bytes, big-endian: published at the start, checked against the revealed seed."""
    return hashlib.sha256(seed.to_bytes(8, "big")).hexdigest()


def chain(prev: str, body: bytes) -> str:
    return hashlib.sha256(prev.encode() + body).hexdigest()


class LogError(Exception):
    """A log that does not read back as written: ``line`` is the 1-based line of the first problem."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class ReadLog:
    """A log file read back and its chain checked."""

    path: Path
    header: Header
    records: list[Any]  # everything after the header, in order
    head: str  # the hash of the last whole line
    good_bytes: int  # where the last whole, valid line ends
    torn: str | None = None  # what was wrong with an unfinished last line, if any
    hashes: list[str] = field(default_factory=list)  # the hash of each record's line (a player's receipt)

    @property
    def end(self) -> End | None:
        """The end record (refused intents that came after the game ended may follow it)."""
        return next((r for r in reversed(self.records) if type(r) is End), None)

    def entries(self) -> list[Entry]:
        return [r for r in self.records if type(r) is Entry]

    def receipts(self) -> list[str]:
        """The hash of every entry's line, in seq order: the receipts the server gave for them."""
        return [h for r, h in zip(self.records, self.hashes) if type(r) is Entry]


@dataclass
class Chain:
    """Any hash-chained file of records read back (a table's log, a tournament's): its first record, the
    records after it with the hash of each one's line, the last whole line's hash, where the last whole line
    ends, and what was wrong with a torn last line."""

    first: Any
    records: list[Any]
    hashes: list[str]
    head: str
    good_bytes: int
    torn: str | None


OTHER_KINDS = {  # the first record of each kind of log, and the command that reads that kind
    "header": "this is a table's log: check it with photofinish replay or photofinish verify",
    "created": "this is a tournament's log: check it with photofinish tournament verify",
}


def _other_kind(line: bytes, first: type) -> str | None:
    """What a first line that did not read as a ``first`` record is, where it starts the other kind of log."""
    try:
        kind = msgspec.json.decode(line[65:]).get("kind")
    except (ValueError, AttributeError):  # not JSON, not UTF-8, not an object
        return None
    if not isinstance(kind, str) or kind == first.__struct_config__.tag:
        return None
    return OTHER_KINDS.get(kind)


def read_chain(path: Path | str, decoder: msgspec.json.Decoder, first: type, what: str,
               data: bytes | None = None) -> Chain:
    """Read a file of chained lines (``data``: its bytes, already read) and check the chain; its first line
    must be a ``first`` record (named ``what`` in errors) and no other line may be. Raises ``LogError`` at the
    first broken line; a last line cut short (the process died mid-write) is reported in ``torn`` and left out."""
    lines = (Path(path).read_bytes() if data is None else data).split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    prev, records, hashes, offset, head_record = GENESIS, [], [], 0, None
    for number, line in enumerate(lines, start=1):
        try:
            record = _check_line(number, line, prev, decoder)
        except LogError as error:
            if number == 1 and (hint := _other_kind(line, first)):
                raise LogError(1, f"{error.message} ({hint})") from None
            raise
        prev = line[:64].decode()
        offset += len(line) + 1
        if number == 1:
            if type(record) is not first:
                raise LogError(1, f"the first line is not {what}")
            head_record = record
        elif type(record) is first:
            raise LogError(number, f"a second {what}")
        else:
            records.append(record)
            hashes.append(prev)
    torn = None
    if tail:
        torn = f"the last line ({len(tail)} bytes) was cut short: the process stopped mid-write"
        try:
            _check_line(len(lines) + 1, tail, prev, decoder)
        except LogError as error:
            torn = f"{torn} ({error.message})"
    if head_record is None:
        raise LogError(1, f"no {what}: the log is empty or cut inside its first line")
    return Chain(first=head_record, records=records, hashes=hashes, head=prev, good_bytes=offset, torn=torn)


def read_log(path: Path | str, data: bytes | None = None) -> ReadLog:
    """Read a table's log (``data``: its bytes, already read) and check its hash chain (``read_chain``)."""
    read = read_chain(path, _decoder, Header, "a header", data)
    return ReadLog(path=Path(path), header=read.first, records=read.records, head=read.head,
                   good_bytes=read.good_bytes, torn=read.torn, hashes=read.hashes)


def _check_line(number: int, line: bytes, prev: str, decoder: msgspec.json.Decoder = _decoder) -> Any:
    if len(line) < 66 or line[64:65] != b" ":
        raise LogError(number, "not a '<hash> <json>' line")
    digest, body = line[:64], line[65:]
    if chain(prev, body).encode() != digest:
        raise LogError(number, "the hash chain is broken here: this line or the one before it was changed")
    try:
        return decoder.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise LogError(number, f"not a log record: {error}") from None
