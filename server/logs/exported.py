"""An exported log (``photofinish export``) turned back into the log file it came from: the one export format.

The export holds the log's header and every record as the log decoded them. Encoding each again as its
record type gives the very bytes the server wrote (msgspec writes a record one way), so chaining them again
gives the same line hashes: ``replay``, ``verify``, a player's receipt check and the browser's replay page
check an export as they check the file. An export that was edited rebuilds a different chain, and the checks
find what they find in a file.

The browser's replay page sends the export file as the person has it, gzip-compressed and base64-encoded
(``Replay.export``: a whole game's export is some 200 KiB of JSON, about 20 KiB so, well within a message);
``unpack`` undoes that, reading at most ``MOST_BYTES``, and only one gzip member: the trailer of the last is
what the replay was charged for (``unpacked_size``), and gzip checks that it is the size the member unpacks to.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from pathlib import Path

import msgspec

from .logfile import Header, LogError, ReadLog, Record, encode_log, read_log

MOST_BYTES = 16 * 1024 * 1024  # an export unpacked from a message: at most this (a 24,000-entry game is ~6 MiB)


class ExportError(ValueError):
    """The document is not an export of a log (says why)."""


class _Export(msgspec.Struct):
    header: Header
    records: list[Record]


def looks_exported(path: Path | str) -> bool:
    """Whether the file starts like a JSON document (an export) rather than a log's ``<hash> <json>`` line."""
    try:
        with open(path, "rb") as handle:
            return handle.read(64).lstrip()[:1] == b"{"
    except OSError:
        return False


def log_bytes(document: bytes) -> bytes:
    """The log file an export was made from, byte for byte (``ExportError`` if it is no export)."""
    try:
        export = msgspec.json.decode(document, type=_Export)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise ExportError(f"not an exported log (photofinish export): {error}") from None
    return encode_log([export.header, *export.records])


def read_export(document: bytes, name: str = "export") -> ReadLog:
    """The log an export was made from, read back as its file would be (``ExportError`` if it is no export, or
    what it holds is not a log: a second header, say)."""
    try:
        return read_log(Path(name), log_bytes(document))
    except LogError as error:
        raise ExportError(f"not an exported log: record {error.line - 1}: {error.message}") from None


def unpacked_size(packed: str) -> int:
    """The size an export sent gzip-compressed and base64-encoded says it unpacks to (gzip's trailer), without
    unpacking it: what a replay of it is charged for (0 if it does not say)."""
    try:
        tail = base64.b64decode(packed[-12:].encode("ascii"), validate=True) if len(packed) % 4 == 0 else b""
    except (binascii.Error, ValueError):
        return 0
    return int.from_bytes(tail[-4:], "little") if len(tail) >= 4 else 0


def unpack(packed: str) -> bytes:
    """The export file's bytes from ``packed`` (gzip, then base64); ``ExportError`` if it is not that, or
    unpacks to more than ``MOST_BYTES``, or to more than its last four bytes say (``unpacked_size``: what it was
    charged for; inflated no further, so a second member or a stream cut short costs no more than it paid: red11
    inflated 16 MiB, 50 ms of the replay worker, for an export charged as 0 bytes)."""
    said = unpacked_size(packed)
    try:
        compressed = base64.b64decode(packed.encode("ascii"), validate=True)
        inflater = zlib.decompressobj(wbits=31)  # gzip's header and trailer
        data = inflater.decompress(compressed, min(said, MOST_BYTES) + 1)
    except (binascii.Error, ValueError, zlib.error) as error:
        raise ExportError(f"not an exported log compressed with gzip and encoded in base64: {error}") from None
    if len(data) > MOST_BYTES:
        raise ExportError(f"the exported log unpacks to more than {MOST_BYTES // (1024 * 1024)} MiB")
    if len(data) > said:
        raise ExportError(f"the exported log unpacks to more than the {said} bytes its gzip trailer says: send "
                          "the file gzip-compressed once, whole")
    if not inflater.eof:
        raise ExportError("the exported log was cut short: its gzip stream does not end")
    if inflater.unused_data:  # a second member, or bytes after it: its last trailer is what it was charged for
        raise ExportError("the exported log is more than one gzip stream: send the file gzip-compressed once")
    return data
