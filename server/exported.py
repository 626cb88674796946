"""An exported log (``photofinish export``) turned back into the log file it came from.

The export holds the log's header and every record as the log decoded them. Encoding each again as its
record type gives the very bytes the server wrote (msgspec writes a record one way), so chaining them again
gives the same line hashes: ``replay``, ``verify`` and a player's receipt check an export as they check the
file. An export that was edited rebuilds a different chain, and the checks find what they find in a file.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from .logfile import Header, Record, encode_log


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
