"""One connection's round trip, measured with protocol pings: no I/O here, the caller passes the times.

The server sends ``ping`` (a number) about once a second and at once after a seat joins; the client answers
``pong`` with the same number. Each answered ping is a round-trip sample; the estimate is the smallest of the
last ``KEEP`` samples (NTP's rule: queueing only ever adds delay, so the minimum is the path itself), and the
one-way delay is taken as half of it. A pong for a ping never sent, or already answered, is ignored, so a
client cannot make itself look nearer than it is; it can look farther by answering late, which the fair
ordering caps (``server/fairness.py``).
"""

from __future__ import annotations

from collections import deque
from typing import Callable

KEEP = 8  # samples the estimate looks at: the last 8 s at one ping a second
OUTSTANDING = 4  # pings awaiting their pong; older ones are forgotten (their pongs will be ignored)


class LatencyMeter:
    def __init__(self, keep: int = KEEP) -> None:
        self.samples: deque[float] = deque(maxlen=keep)
        self._sent: dict[int, float] = {}
        self._next = 0
        self.on_sample: Callable[[], None] | None = None  # called after each new sample (tests wait on it)

    def ping(self) -> int:
        """A new ping's number (stamp it with ``sent`` when it actually leaves)."""
        self._next += 1
        return self._next

    def sent(self, number: int, now: float) -> None:
        """The ping ``number`` left at ``now``."""
        self._sent[number] = now
        while len(self._sent) > OUTSTANDING:
            del self._sent[next(iter(self._sent))]

    def pong(self, number: int, now: float) -> bool:
        """The answer to ping ``number`` arrived at ``now``; False (and nothing kept) for an unknown ping."""
        sent = self._sent.pop(number, None)
        if sent is None or now < sent:
            return False
        self.samples.append(now - sent)
        if self.on_sample is not None:
            self.on_sample()
        return True

    @property
    def rtt(self) -> float | None:
        """The round trip in seconds (the smallest recent sample), or None before the first pong."""
        return min(self.samples) if self.samples else None

    @property
    def ping_ms(self) -> float | None:
        """The round trip in milliseconds, to a tenth (what players and spectators are shown)."""
        rtt = self.rtt
        return None if rtt is None else round(rtt * 1000, 1)
