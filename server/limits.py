"""The gateway's abuse limits that are more than a number: so that no anonymous client can lock the others out.

It owns the machinery, ``gateway.Limits`` the figures (each with its `serve` flag): nesting depth measured
before a frame is decoded (``too_deep``: nearly free for an ordinary frame), the shape of every id that may
become a file name or a key (``check_ids``: before anything touches the file system), token buckets per
address (``Buckets``: a request-cost budget, tournament and registration rates), connections counted per
address (``Admission``) and the open-file limit raised at start (``raise_file_limit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

import msgspec

from .protocol import (CancelTournament, Disqualify, EndRound, Penalise, Reenter, RepairRound, SwapPlayers,
                       UndoDrop)
from .protocol import (Act, CheckIn, Code, CorrectResult, Drop, Leave, OpenPlayback, Refusal, Register, Rematch,
                       Replay, ReportResult, Resume, SetReportedTables, SettleResult, StartTournament, TakeSeat, Watch,
                       WatchTournament)

# ------------------------------------------------------------------ nesting depth

# msgpack bytes that open a container (fixmap, fixarray, array16/32, map16/32); data bytes may have these values
# too, so their count is only a bound, and the precise scan runs when it exceeds the limit
_MSGPACK_CONTAINER = bytes([*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF])
_NOT_CONTAINER = bytes(b for b in range(256) if b not in _MSGPACK_CONTAINER)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_JSON_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_JSON_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}


def too_deep(frame: str | bytes, limit: int) -> bool:
    """Whether a client frame (JSON text, or msgpack bytes) nests containers deeper than ``limit``. An ordinary
    frame costs one or two C-speed counts (it cannot be deeper than it has openers); only a frame with more
    openers than ``limit`` is scanned precisely. A frame that is no JSON or msgpack may pass: the decoder says so."""
    if isinstance(frame, str):
        if frame.count("[") + frame.count("{") <= limit:
            return False
        return json_depth(frame) > limit
    if len(frame.translate(None, _NOT_CONTAINER)) <= limit:
        return False
    return msgpack_depth(frame, limit) > limit


def json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text, brackets inside strings not counted."""
    brackets = _JSON_NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(_JSON_DELTA[c] for c in brackets), default=0)


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"\s*:?|[\[\]{}]')


def shallow_json_id(text: str):
    """The top-level ``id`` of a JSON object nested too deep for the decoder to read it (None: none found):
    a scan of its strings and brackets, without recursion."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        found = token.group()
        if found in "[{":
            depth += 1
        elif found in "]}":
            depth -= 1
        elif depth == 1 and found.endswith(":") and found[:-1].rstrip() == '"id"':
            value = re.match(r'\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)', text[token.end():])
            return None if value is None else msgspec.json.decode(value.group(1))
    return None


_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2,
          0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}  # bytes after the marker
_SIZED = {0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0), 0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1), 0xD9: (1, 0),
          0xDA: (2, 0), 0xDB: (4, 0)}  # (length bytes, type bytes) before the data
_CONTAINERS = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}  # (count bytes, items per count)


def _header(data: bytes, pos: int) -> tuple[int, int]:
    """Where the msgpack item at ``pos`` ends if it holds no items, else where its first item starts; and how
    many items it holds (a map: keys and values). ``ValueError`` for a byte that starts no item."""
    marker = data[pos]
    pos += 1
    if marker <= 0x7F or marker >= 0xE0:
        return pos, 0
    if marker <= 0x8F:
        return pos, 2 * (marker & 0x0F)
    if marker <= 0x9F:
        return pos, marker & 0x0F
    if marker <= 0xBF:
        return pos + (marker & 0x1F), 0
    if marker in _FIXED:
        return pos + _FIXED[marker], 0
    if marker in _SIZED:
        width, extra = _SIZED[marker]
        return pos + width + extra + int.from_bytes(data[pos:pos + width], "big"), 0
    if marker in _CONTAINERS:
        width, per = _CONTAINERS[marker]
        return pos + width, per * int.from_bytes(data[pos:pos + width], "big")
    raise ValueError("0xc1 starts no msgpack item")


def msgpack_depth(data: bytes, stop: int) -> int:
    """The deepest container nesting in msgpack ``data``, walked without decoding (and without recursion);
    the walk stops once it is deeper than ``stop``. Bytes that are no msgpack end the walk (the decoder says)."""
    pending: list[int] = []  # items still to come in each open container, outermost first
    deepest, pos, size = 0, 0, len(data)
    while pos < size:
        container = data[pos] in _MSGPACK_CONTAINER
        try:
            pos, items = _header(data, pos)
        except ValueError:
            break
        if pending:
            pending[-1] -= 1
        if container:
            deepest = max(deepest, len(pending) + 1)
            if deepest > stop:
                return deepest
            if items:
                pending.append(items)
        while pending and pending[-1] == 0:
            pending.pop()
    return deepest


def _skip(data: bytes, pos: int) -> int:
    """Where the msgpack item at ``pos`` ends, its contents included (without recursion)."""
    left = 1
    while left:
        pos, items = _header(data, pos)
        left += items - 1
    return pos


_MSGPACK_MAP = bytes([*range(0x80, 0x90), 0xDE, 0xDF])


def shallow_msgpack_id(data: bytes):
    """The top-level ``id`` of a msgpack map nested too deep for the decoder to read it (None: none found)."""
    try:
        if data[0] not in _MSGPACK_MAP:
            return None
        pos, items = _header(data, 0)
        for _ in range(items // 2):
            key_end = _skip(data, pos)
            value_end = _skip(data, key_end)
            key = None if data[pos] in _MSGPACK_CONTAINER else msgspec.msgpack.decode(data[pos:key_end])
            if key == "id":
                if data[key_end] in _MSGPACK_CONTAINER:
                    return None
                value = msgspec.msgpack.decode(data[key_end:value_end])
                return value if isinstance(value, (int, str)) else None
            pos = value_end
    except (ValueError, IndexError, msgspec.DecodeError):
        return None
    return None


# ------------------------------------------------------------------ ids


LOG_ID = re.compile(r"t[0-9]{1,24}")  # a table's log: tables/t<n>.log
TOURNAMENT_ID = re.compile(r"T[0-9]{1,24}")
TABLE_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # t<n>, p<n> (a playback), or an alias (demo, open)
TABLE_CALLS = (TakeSeat, Resume, Watch, Act, Leave, Rematch)
TOURNAMENT_CALLS = (Register, CheckIn, Drop, StartTournament, CorrectResult, WatchTournament, ReportResult,
                    SettleResult, SetReportedTables, RepairRound, SwapPlayers, EndRound, CancelTournament, Penalise,
                    Disqualify, UndoDrop, Reenter)


def _shown(text: str) -> str:
    """An id as a message may quote it: a long one cut short, with its length."""
    return repr(text) if len(text) <= 24 else f"{text[:20]!r}... ({len(text)} characters)"


def check_ids(message) -> None:
    """Refuse an id of the wrong shape before anything looks it up or opens a file by it: a table's log is
    ``t`` and 1-24 digits (``no_log``), a tournament ``T`` and 1-24 digits (``no_tournament``), a table 1-64
    letters, digits, ``_``, ``.`` or ``-`` (``no_table``)."""
    kind = type(message)
    if kind is Replay or kind is OpenPlayback:
        if (message.log or kind is OpenPlayback) and not LOG_ID.fullmatch(message.log):
            raise Refusal(Code.NO_LOG, f"no log for table {_shown(message.log)}: a table's log is named t and "
                                       f"1-24 digits")
    elif kind in TABLE_CALLS:
        if not TABLE_ID.fullmatch(message.table):
            raise Refusal(Code.NO_TABLE, f"no table {_shown(message.table)}: a table id is 1-64 letters, digits, "
                                         f"'_', '.' or '-'")
    elif kind in TOURNAMENT_CALLS:
        if not TOURNAMENT_ID.fullmatch(message.tournament):
            raise Refusal(Code.NO_TOURNAMENT, f"no tournament {_shown(message.tournament)}: a tournament "
                                              f"is named T and 1-24 digits")
        if kind in (CorrectResult, ReportResult, SettleResult) and not TABLE_ID.fullmatch(message.table):
            raise Refusal(Code.NO_TABLE, f"no table {_shown(message.table)} in this tournament")


# ------------------------------------------------------------------ per-address buckets and counts


@dataclass
class Bucket:
    tokens: float
    at: float


class Buckets:
    """A token bucket per key (a peer address): ``rate`` tokens a second up to ``burst``. Full buckets are
    forgotten now and then, so the table holds only addresses that spent something lately."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, Bucket] = {}

    def take(self, key: str, cost: float, now: float) -> float:
        """Spend ``cost`` from ``key``'s bucket: 0.0 if it could, else the seconds until it can (nothing spent)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= 4096:
                self._forget_full(now)
            bucket = self.buckets[key] = Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + max(0.0, now - bucket.at) * self.rate)  # (a clock anew: a test's)
        bucket.at = now
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return 0.0
        return (min(cost, self.burst) - bucket.tokens) / self.rate if self.rate > 0 else float("inf")

    def _forget_full(self, now: float) -> None:
        for key, bucket in list(self.buckets.items()):
            if bucket.tokens + (now - bucket.at) * self.rate >= self.burst:
                del self.buckets[key]


class Admission:
    """Connections open, in all and per address: counted at accept, released on close. A trusted proxy's
    connection is counted in all at accept and against its client's address once its request head names it."""

    def __init__(self, per_address: int, total: int | None) -> None:
        self.per_address = per_address
        self.total = total  # None: no total cap (no file limit known)
        self.open: dict[str, int] = {}
        self.count = 0

    def admit(self, address: str | None) -> tuple[str, str] | None:
        """Count a new connection from ``address``, or say why it is refused (then nothing is counted);
        ``address`` None: in all only (``admit_address`` counts it against its address later)."""
        if self.total is not None and self.count >= self.total:
            return ("server_full", f"the server has {self.count} connections open, the most it allows "
                                   f"(serve --max-connections, from its open-file limit); try again later")
        refusal = None if address is None else self.admit_address(address)
        if refusal is None:
            self.count += 1
        return refusal

    def admit_address(self, address: str) -> tuple[str, str] | None:
        """Count a connection against ``address`` only, or say why it is refused (then nothing is counted)."""
        held = self.open.get(address, 0)
        if held >= self.per_address:
            return ("too_many_connections", f"this address has {held} connections open, the most serve "
                                            f"--max-conns-per-address allows")
        self.open[address] = held + 1
        return None

    def release(self, address: str | None) -> None:
        """A connection closed: uncounted in all, and from ``address`` (None: it was counted in all only)."""
        self.count -= 1
        if address is not None:
            self.release_address(address)

    def release_address(self, address: str) -> None:
        """A connection no longer counted against ``address`` (a proxy's next request is another client's)."""
        held = self.open.pop(address, 1) - 1
        if held > 0:
            self.open[address] = held


def raise_file_limit() -> tuple[int, int] | None:
    """Raise this process's open-file soft limit to its hard limit: (soft before, soft now), or None where
    there is no such limit (Windows). Each connection holds a file descriptor."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            return soft, soft
        return soft, wanted
    return soft, soft


def file_limit() -> int | None:
    """The open-file soft limit now (None: none known, or unlimited)."""
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft
