"""The relay's names in the presence store and the frame it publishes (``server/cluster/relay.py``): a table's channel,
the marks and counts of the nodes that follow it and the channel their counts go by (``relaycount.py``), the
snapshot kept for a node that starts following, and ``Frame``, what the table's node publishes on the channel."""

from __future__ import annotations

import msgspec

from ..protocol import CODECS

PREFIX = "pf:"
JSON = CODECS["json"]


def channel(name: str) -> str:
    return f"{PREFIX}relay:{name}"


def followed_key(name: str) -> str:
    return f"{PREFIX}followed:{name}"


def snapshot_key(name: str) -> str:
    return f"{PREFIX}relaysnap:{name}"


def watchers_key(name: str, node: str) -> str:
    """How many spectators of table (or alias) ``name`` node ``node`` serves (renewed with its mark)."""
    return f"{PREFIX}watchers:{name}:{node}"


def counts_channel(node: str) -> str:
    """Where the counts of the tables that live on ``node`` are published (``server/cluster/relaycount.py``)."""
    return f"{PREFIX}counts:{node}"


NO_SNAPSHOT = msgspec.Raw(b"null")


class Frame(msgspec.Struct):
    """What a table's node publishes: its spectators' messages (JSON), the snapshot they lead to, if any."""

    table: str
    game: str
    messages: list[msgspec.Raw]
    snapshot: msgspec.Raw = NO_SNAPSHOT
    counted: dict[str, int] = {}  # each following node's spectators in its ``presence`` counts, by its key
    node: str = ""  # the table's node: where a following node publishes its count (``relaycount``)

