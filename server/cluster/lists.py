"""A cluster node's lists of the other nodes' tables and tournaments (``server/cluster/node.py``): what each other node
published with its heartbeat, read from the store in three round trips, ``unavailable`` where that node is down."""

from __future__ import annotations

import msgspec

from .keys import NODES, PREFIX
from .presence import Presence, PresenceError


async def published(presence: Presence, node: str, directory: str) -> list[tuple[bool, dict[str, str]]]:
    """Every other node's (than ``node``) published ``directory`` hash, with whether that node is alive; a node
    neither alive nor known (dead for longer than its ``forget_after``) is left out."""
    nodes = sorted(other for other in await presence.hgetall(NODES) if other != node)
    states = await presence.get_many([f"{PREFIX}{state}:{other}" for state in ("alive", "known") for other in nodes])
    alive = states[:len(nodes)]
    found = [(other, raw is not None) for other, raw, known in zip(nodes, alive, states[len(nodes):])
             if raw is not None or known is not None]
    hashes = await presence.hgetall_many([f"{PREFIX}{directory}:{other}" for other, _ in found])
    return [(live, entries) for (_, live), entries in zip(found, hashes)]


async def listed(presence: Presence, node: str, directory: str, local: list, decode) -> list:
    """``local`` (this node's, as they are), then every other node's from the store (only ``local`` while the
    store cannot be reached)."""
    found = list(local)
    try:
        others = await published(presence, node, directory)
    except PresenceError:
        return found
    for alive, entries in others:
        for raw in entries.values():
            info = decode(raw)
            found.append(info if alive else msgspec.structs.replace(info, status="unavailable"))
    return found
