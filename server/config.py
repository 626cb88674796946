"""`ServeConfig`: every setting of one server, one frozen value checked when it is built.

`photofinish serve` builds it once from its flags (``clients/cli/serve.py``), and the tests build it through
``run_server``'s keywords; ``server/app.py`` passes it down whole. A value out of range is a ``ConfigError``
whose message names the flag and its range in one line (the command prints it and exits 2); nothing has been
started or touched when it is raised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from .gateway import Limits
from .lan import WILDCARDS
from .protocol.commandline import ConfigError
from .quotas import Quotas

DURABILITIES = ("always", "batch", "never")
MONTH = 30 * 86400  # seconds: the longest any expiry may be


@dataclass(frozen=True)
class ServeConfig:
    """Where the server listens and keeps its data, and every limit it holds its clients to.

    ``data_dir`` None keeps nothing (tests); ``web_root`` is the folder a browser's plain GET is served from
    (None: no files, only the protocol); ``cluster_url`` a Redis whose cluster this server joins as a node,
    whose tables clients reach at ``public_url`` (default ws://HOST:PORT), beating every ``heartbeat``
    seconds and forgetting a dead node's tables ``forget_after`` seconds after it is taken for dead."""

    host: str = "127.0.0.1"
    port: int = 8765
    data_dir: Path | None = None
    demo: bool = False
    durability: str = "batch"
    limits: Limits = field(default_factory=Limits)
    quotas: Quotas = field(default_factory=Quotas)
    web_root: Path | None = None
    cluster_url: str | None = None
    public_url: str | None = None
    heartbeat: float = 1.0
    forget_after: float = 600.0
    workers: int = 1  # processes serving ``port`` together (`serve --workers`: server/workers.py)
    shared_port: bool = False  # a worker: ``port`` is shared (SO_REUSEPORT); it listens on a port of its own too
    own_port: int = 0  # a worker's own port, where the others send clients of its tables (0: any free one)
    announce: bool = True  # print the listening lines (a worker leaves them to the process that started it)

    def __post_init__(self) -> None:
        _check(0 < self.limits.rate < math.inf, "--rate is messages a second per connection, more than 0")
        _check(0.01 <= self.heartbeat <= 60, "--heartbeat is 0.01..60 seconds")
        _check(0 <= self.forget_after <= MONTH, f"--forget-after is 0..{MONTH} seconds (30 days)")
        _check(not self.public_url or bool(self.cluster_url),
               "--public-url is for a cluster node: give --cluster redis://HOST:PORT too")
        _check(1 <= self.workers <= 256, "--workers is 1..256 processes")
        _check(0 <= self.limits.unverified_credit_ms <= 1000, "--unverified-credit-ms is 0..1000 ms")
        _check(self.workers == 1 or not self.cluster_url,
               "--workers share one machine's lobby by themselves: leave out --cluster (or run one node a process)")
        _check(self.workers == 1 or self.data_dir is not None, "--workers keep their lobby in the data directory")
        _check(self.workers == 1 or self.port != 0, "--workers share one port: give it (--port 0 picks one each)")
        _check(not self.cluster_url or bool(self.public_url) or self.host not in WILDCARDS or self.shared_port,
               f"with --host {self.host} say which address other nodes send clients to: "
               f"--public-url ws://THIS-HOST:{self.port}")
        quotas = self.quotas
        for flag, value, most in (("--waiting-per-connection", quotas.waiting_per_connection, 10_000),
                                  ("--waiting-per-address", quotas.waiting_per_address, 100_000),
                                  ("--playbacks-per-address", quotas.playbacks_per_address, 10_000),
                                  ("--waiting-expiry", quotas.waiting_expiry, MONTH),
                                  ("--abandoned-after", quotas.abandoned_after, MONTH),
                                  ("--keep-finished", quotas.keep_finished, MONTH),
                                  ("--registrations-per-connection", quotas.registrations_per_connection, 100_000),
                                  ("--registrations-per-address", quotas.registrations_per_address, 100_000),
                                  ("--min-free-mb", quotas.min_free_mb, 10_000_000)):
            _check(0 <= value <= most, f"{flag} is 0..{most}")
        _check(self.durability in DURABILITIES, f"--durability is one of {', '.join(DURABILITIES)}")
        _check(0 <= self.port <= 65535, "--port is a whole number 0-65535 (0: any free port)")


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def connection_limits(rate: float, address_rate: float, **others) -> Limits:
    """`serve`'s connection limits from its flags: each burst twice its rate, never below the default burst.
    A rate that is no number (``inf``) keeps the default burst: ``ServeConfig`` then refuses the rate itself."""
    defaults = Limits()
    return replace(defaults, rate=rate, burst=_burst(rate, defaults.burst), address_rate=address_rate,
                   address_burst=_burst(address_rate, defaults.address_burst), **others)


def _burst(rate: float, least: int) -> int:
    return max(least, int(2 * rate)) if math.isfinite(rate) else least
