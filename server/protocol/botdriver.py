"""Turns one seat's stream of server messages into that seat's actions, for any policy.

The same driver runs a server-side bot and a bot over the wire: it keeps the newest view and legal actions,
acts only when it has legal actions, and keeps at most one action in flight (it waits for that action's
``accepted`` or ``rejected`` before choosing again), so it never acts twice on the same stale view. After
``accepted`` it waits for the update that follows it, with the new view (PROTOCOL.md, "The order of messages"):
the view it holds is from before its own action.
"""

from __future__ import annotations

from typing import Any

from rules import Rng, tag_of


class BotDriver:
    def __init__(self, choose, rng: Rng, prefix: str = "bot") -> None:
        self.choose = choose
        self.prefix = prefix
        self.rng = rng
        self.view: Any = None
        self.legal: list = []
        self.in_flight: Any = None  # the id of the action awaiting its answer
        self.over = False
        self.sent = 0
        self.seen: int | None = None  # the seq of the last update or snapshot taken in (what an action saw)

    def observe(self, kind: str, *, view: Any = None, legal: list | None = None, ref: Any = None,
                over: bool = False, seq: int | None = None) -> None:
        """Take in one message: ``kind`` is its type (update, snapshot, accepted, rejected); ``seq``, an
        accepted entry's."""
        if kind in ("update", "snapshot") and view is not None:
            self.view, self.legal = view, legal or []
        elif kind in ("accepted", "rejected") and ref == self.in_flight:
            self.in_flight = None
            if kind == "accepted" and seq is not None and (self.seen or 0) < seq:
                self.legal = []  # its update, with the view after it, is still to come: choose from that
        self.over = self.over or over

    def take(self, message: Any) -> None:
        """Take in one protocol message (``server.protocol`` types); others are ignored."""
        tag = tag_of(message)
        if tag in ("update", "snapshot"):
            self.seen = max(self.seen or 0, message.seq)
            self.observe(tag, view=message.view, legal=message.legal, over=message.result is not None)
        elif tag in ("accepted", "rejected"):
            self.observe(tag, ref=message.ref, seq=message.seq if tag == "accepted" else None)
        elif tag == "table_ended":
            self.over = True

    def next_action(self) -> tuple[Any, Any] | None:
        """``(message_id, action)`` to send now, or None (nothing to do, or an action is in flight)."""
        if self.in_flight is not None or self.over or not self.legal:
            return None
        self.sent += 1
        self.in_flight = f"{self.prefix}-{self.sent}"
        return self.in_flight, self.choose(self.view, self.legal, self.rng)
