"""One connection's round trip, measured with protocol pings: no I/O here, the caller passes the times.

The server sends ``ping`` (a number) about once a second and at once after a seat joins; the client answers
``pong`` with the same number. Each answered ping is a round-trip sample; the estimate is the median of the
last ``KEEP`` samples (``fairness.typical``: the round trip an update and its answer typically take, jitter
and all; the minimum, NTP's rule, is the path with no queueing, which a jittery path seldom is). The numbers
are random (a client cannot answer a ping before it has
it), and a pong for a ping never sent, or already answered, is ignored, so a client cannot make itself look
nearer than it is; it can look farther by answering late, which the fair ordering caps and checks against
the kernel's own measure of the connection and the seat's takes (``server/fairness.py``).

``kernel_min_rtt(sock)``: Linux's ``TCP_INFO`` for a connection, its ``tcpi_min_rtt``: the smallest round
trip the kernel saw on its segments and their acknowledgements, which a client cannot delay without delaying
everything it sends. A connection through a proxy (from loopback, or from a `serve --trusted-proxy`) shows only the
proxy's path, so the gateway reads it only for direct connections (``Limits.kernel_rtt``).
"""

from __future__ import annotations

import secrets
import socket
import struct
from collections import deque
from typing import Callable

from .fairness import typical

KEEP = 8  # samples the estimate looks at: the last 8 s at one ping a second
OUTSTANDING = 4  # pings awaiting their pong; older ones are forgotten (their pongs will be ignored)


class LatencyMeter:
    def __init__(self, keep: int = KEEP) -> None:
        self.samples: deque[float] = deque(maxlen=keep)
        self._sent: dict[int, float] = {}
        self.kernel: Callable[[], float | None] | None = None  # the connection's kernel min round trip, if read
        self.on_sample: Callable[[], None] | None = None  # called after each new sample (tests wait on it)
        self._sorted: tuple[int, list[float]] = (0, [])  # (samples taken then, them sorted and rounded)
        self._shown: tuple[int, float | None] = (0, None)  # (samples taken then, ``ping_ms`` then)
        self._taken = 0  # samples taken so far

    def ping(self) -> int:
        """A new ping's number, random so that no client can answer one it has not received (stamp it with
        ``sent`` when it actually leaves)."""
        while True:
            number = secrets.randbits(31) + 1
            if number not in self._sent:
                return number

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
        self._taken += 1
        if self.on_sample is not None:
            self.on_sample()
        return True

    def sorted_samples(self) -> list[float]:
        """The recent samples sorted, each rounded to the microsecond (as fair ordering logs them), made once
        per new sample: fair ordering reads them for every seat at every contested take. Never change it."""
        if self._sorted[0] != self._taken:
            self._sorted = (self._taken, sorted(round(x, 6) for x in self.samples))
        return self._sorted[1]

    @property
    def rtt(self) -> float | None:
        """The round trip in seconds (the median of the recent samples), or None before the first pong."""
        return typical(list(self.samples)) if self.samples else None

    @property
    def ping_ms(self) -> float | None:
        """The round trip in milliseconds, to a tenth (what players and spectators are shown), worked out once
        per new sample: every update carries every seat's."""
        if self._shown[0] != self._taken:
            rtt = self.rtt
            self._shown = (self._taken, None if rtt is None else round(rtt * 1000, 1))
        return self._shown[1]


TCP_INFO_MIN_RTT = 148  # byte offset of tcpi_min_rtt (microseconds, u32) in Linux's struct tcp_info


def kernel_min_rtt(sock: socket.socket) -> float | None:
    """The connection's smallest round trip the kernel measured, in seconds; None where it cannot tell
    (not Linux, not TCP, a closed socket, an old kernel, no sample yet)."""
    option = getattr(socket, "TCP_INFO", None)
    if option is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, option, TCP_INFO_MIN_RTT + 4)
    except (OSError, ValueError):
        return None
    if len(info) < TCP_INFO_MIN_RTT + 4:
        return None
    (micros,) = struct.unpack_from("I", info, TCP_INFO_MIN_RTT)
    return micros / 1e6 if 0 < micros < 0xFFFFFFFF else None
