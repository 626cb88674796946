"""What a table needs from a connection: ``Receiver``. The gateway's connection and the server's own bots
(``bots.LocalBot``) implement it; tests pass in-memory ones.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..latency import LatencyMeter


class Receiver(Protocol):
    """Where a table sends one client's messages, and how far away that client is."""

    latency: LatencyMeter | None
    """The connection's round-trip meter (fair ordering credits a seat's reactions with it; seat lists show
    it as the seat's ping); None where there is no network between (a bot in the server)."""

    # ``patches`` (optional, False when absent): the connection said ``patches`` in its hello, and is sent its
    # updates' views as patches (``patching.py``); ``rows`` (optional, False when absent): it said ``rows`` too, and
    # is sent its views as rows (``protocol/viewrows.py``)

    def deliver(self, message: Any) -> bool:
        """Queue a message without blocking; False when the outbox is full."""

    def close(self, code: str, message: str) -> None:
        """Ask the connection to close with a reason (without blocking)."""
