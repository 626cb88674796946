"""Messages that many connections send alike, encoded once per encoding instead of once per connection.

A table's update to its spectators is the same message for every one of them (a spectator's view has no
hidden hand): the table marks it with ``share`` and each connection's writer asks ``frame`` for its bytes,
which encodes a shared message the first time a connection of that codec sends it and hands the same
bytes to every other, also inside a batch (as ``msgspec.Raw``, copied into the batch's frame verbatim). The
bytes are kept per codec ``name``: ``json``, ``msgpack`` and ``msgpack rows`` (the per-move messages as arrays,
``protocol/rows.py``) are three forms, each encoded once for all the connections that asked for it.
A message that was not shared is encoded as before. The record of shared messages is bounded (the oldest is
forgotten first: a writer that comes to it later encodes it itself), and it holds each message it records, so
an ``id`` in it is never another message's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..protocol import Batch
from ..protocol.codecs import Codec

MOST = 2048  # shared messages remembered: a few seconds of every table's spectator updates

_shared: dict[int, tuple[Any, dict[str, Any]]] = {}  # id -> (message, its Raw bytes per codec name and its whole
# frame per codec name, "json frame")


def share(message: Any) -> Any:
    """Mark ``message`` as sent alike to many connections; returns it."""
    _shared[id(message)] = (message, {})
    if len(_shared) > MOST:
        del _shared[next(iter(_shared))]
    return message


def shared(message: Any) -> bool:
    """Whether ``message`` is marked as sent alike to many connections (and still remembered)."""
    entry = _shared.get(id(message))
    return entry is not None and entry[0] is message


def encoded(message: Any, codec: Codec) -> msgspec.Raw | None:
    """The bytes of a shared message in ``codec``'s form (encoded now if no connection of that codec has yet);
    None for a message that is not shared (or no longer remembered)."""
    entry = _shared.get(id(message))
    if entry is None or entry[0] is not message:
        return None
    raw = entry[1].get(codec.name)
    if raw is None:
        raw = entry[1][codec.name] = msgspec.Raw(codec.bytes_of(message))
    return raw


def whole_frame(message: Any, codec: Codec) -> bytes | None:
    """A shared message as one whole unmasked websocket frame (``sendpath.frame_header`` and its bytes), made
    once per codec for all the connections it is written to straight (``server/wire/spread.py``); None for a
    message that is not shared."""
    entry = _shared.get(id(message))
    if entry is None or entry[0] is not message:
        return None
    key = codec.name + " frame"
    whole = entry[1].get(key)
    if whole is None:
        from .sendpath import frame_header
        payload = bytes(encoded(message, codec))
        whole = entry[1][key] = frame_header(len(payload), codec.encoding == "json") + payload
    return whole


def frame(codec: Codec, queued: list[Any]) -> bytes:
    """One frame's payload for ``queued`` (a batch when more than one): shared messages by their bytes."""
    if len(queued) == 1:
        raw = encoded(queued[0], codec)
        return bytes(raw) if raw is not None else codec.bytes_of(queued[0])
    parts = [encoded(message, codec) or codec.wire(message) for message in queued]
    return codec.encoder.encode(Batch(messages=parts))


def remembered() -> int:
    """How many shared messages are remembered now (for tests and the bench)."""
    return len(_shared)
