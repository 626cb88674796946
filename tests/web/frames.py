"""A websocket frame between a page and the server, read: the page asks for msgpack (binary frames from the
server) and sends JSON text, so a test that looks into frames reads each by its kind, as the server does."""

from __future__ import annotations

import json

import msgspec


def read_frame(frame: str | bytes) -> dict:
    return msgspec.msgpack.decode(frame) if isinstance(frame, (bytes, bytearray)) else json.loads(frame)
