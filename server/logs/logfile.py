"""The action log file's write side: how a record becomes a chained line, and a whole log's bytes.

The format itself (its records, the chain, reading a file back) is ``server/protocol/logformat.py``, shared
with the clients that read logs; this module takes its names from there, so the server's modules read and
write logs through one import. ``server/LOG-FORMAT.md`` documents the format.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..protocol.logformat import (FORMAT_VERSION, GENESIS, Chain, End, Entry, Fair, Header, LogError, ReadLog,
                                 Record, Reopened, SeatTaken, StandIn, chain, read_chain, read_log, seed_commitment)

__all__ = ["FORMAT_VERSION", "GENESIS", "Chain", "End", "Entry", "Fair", "Header", "LogError", "ReadLog", "Record",
           "Reopened", "SeatTaken", "StandIn", "chain", "encode_line", "encode_log", "read_chain", "read_log",
           "seed_commitment"]

_encoder = msgspec.json.Encoder()


def encode_line(prev: str, record: Any) -> tuple[bytes, str]:
    """The line for ``record`` after a line whose hash is ``prev``; returns (line, its hash)."""
    body = _encoder.encode(record)
    digest = chain(prev, body)
    return digest.encode() + b" " + body + b"\n", digest


def encode_log(records: list) -> bytes:
    """A whole log file's bytes: the header and each record after it, one chained line each."""
    prev, lines = GENESIS, []
    for record in records:
        line, prev = encode_line(prev, record)
        lines.append(line)
    return b"".join(lines)
