"""``Limits``: every figure a websocket connection meets, with its default; each has a `serve` flag
(docs/operators.md, "The server")."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network


@dataclass(frozen=True)
class Limits:
    """Every limit a connection meets, with its default; each has a `serve` flag (docs/operators.md, "The server")."""

    max_frame: int = 64 * 1024  # bytes; larger frames close the connection (1009)
    outbox: int = 1024  # messages queued for one connection before it counts as too slow
    rate: float = 200.0  # messages per second a connection may send on average
    burst: int = 400  # ... and at once
    flood: int = 1000  # messages refused for rate before the connection is closed
    hello_timeout: float = 10.0
    close_timeout: float = 5.0  # seconds a closing client has to take its last frame, then `closing`
    handshake_timeout: float = 10.0  # seconds for a websocket upgrade's handshake
    ping_every: float = 1.0  # seconds between round-trip pings (and one at once when a seat is asked for)
    kernel_rtt: str = "direct"  # kernel round trip read: "direct" (not loopback/a trusted proxy), "always", "never"
    unverified_credit_ms: int = 0  # fair ordering's credit for a seat whose round trip the kernel did not measure
    address_rate: float = 500.0  # messages a second the connections of one IP address are read at, together
    address_burst: int = 1000  # ... and at once
    max_conns_per_address: int = 64  # connections open at once from one IP address (a LAN behind one NAT)
    seats_per_connection: int = 8  # seats one connection holds at tables not over (take_seat, resume)
    seats_per_address: int = 64  # ... all the connections of one IP address
    max_connections: int | None = None  # in all; None: the open-file limit less ``fd_reserve``
    fd_reserve: int = 256  # file descriptors kept for logs, journals and refusals when the cap is derived
    refuse_timeout: float = 2.0  # seconds a refused connection has to read its reason before it is cut
    idle_timeout: float = 60.0  # seconds after hello without one whole frame from the client (pinged at half)
    max_depth: int = 32  # containers nested in one frame, checked before it is decoded
    budget_rate: float = 40.0  # request-cost units a second per address (list_tables, replay, ...)
    budget_burst: float = 120.0  # ... and at once
    tables_cache: float = 0.25  # seconds a list_tables answer is reused, encoded
    tournaments_per_minute: float = 10.0  # tournaments one address may create a minute
    registrations_per_minute: float = 60.0  # tournament registrations one address may make a minute
    trusted_proxies: tuple[IPv4Network | IPv6Network, ...] = ()  # peers whose X-Forwarded-For names the client
