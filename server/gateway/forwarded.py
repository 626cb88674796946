"""Who a connection's client is when it comes through a reverse proxy the operator trusts (`serve
--trusted-proxy`): every per-address limit is keyed by the address decided here.

A connection whose TCP peer is no trusted proxy is its peer, whatever headers it sends: a client must never
pick its own address. A trusted proxy's connection is the client its request head names: ``X-Forwarded-For``
(else RFC 7239 ``Forwarded``'s ``for=``) read from the right, each trusted proxy's own entry skipped, the
first other entry taken (entries further left are whatever the client sent: anyone can write them). No such
header, or an entry that is no address where the client's should be: the proxy's own address.

Through a trusted proxy the kernel's round trip is the proxy's path, not the client's: ``direct`` says whose
is the client's (``Limits.kernel_rtt``, ``server/latency.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

Network = IPv4Network | IPv6Network
LOOPBACK = IPv4Network("127.0.0.0/8"), IPv6Network("::1/128")


@dataclass
class Client:
    """The address a connection is counted against (``Admission``), and whether it is counted there yet: a
    trusted proxy's connection is counted in all at accept, and against its client once its head is read."""

    address: str
    counted: bool
    refusal: tuple[str, str] | None = None  # (code, message) when its client was over the per-address cap
    proxy: str = ""  # a trusted proxy's own address (its requests name their clients; each may name another)


def parse_ip(text: str) -> IPv4Address | IPv6Address | None:
    """An address as a header or a socket gives it (an IPv6 one maybe in brackets, either maybe with a port;
    an IPv4-mapped IPv6 one as its IPv4 address), or None where it is none."""
    text = text.strip()
    if text.startswith("["):  # [2001:db8::1]:4711
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # 192.0.2.1:4711
        text = text.partition(":")[0]
    try:
        found = ip_address(text.partition("%")[0])  # fe80::1%eth0: one host whatever its zone (as counted)
    except ValueError:
        return None
    mapped = getattr(found, "ipv4_mapped", None)
    return mapped if mapped is not None else found


def trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    """Whether the peer ``address`` is one of the trusted ``proxies`` (never "", nor what is no address)."""
    return bool(proxies) and _within(parse_ip(address), proxies)


def direct(address: str, proxies: tuple[Network, ...]) -> bool:
    """Whether a connection from ``address`` reaches this server with no proxy between: not from loopback (a
    local client or a local proxy) nor from a trusted proxy, where the kernel measures the proxy's path."""
    found = parse_ip(address)
    return found is not None and not _within(found, LOOPBACK + tuple(proxies))


def _within(found: IPv4Address | IPv6Address | None, networks: tuple[Network, ...]) -> bool:
    return found is not None and any(found in network for network in networks)


def forwarded_for(headers) -> list[str]:
    """The entries of a request's ``X-Forwarded-For`` lines, in order, or else the ``for=`` of each element of
    its ``Forwarded`` lines ("" for an element without one); [] where it has neither."""
    lines = [value for name, value in headers if name == b"x-forwarded-for"]
    if lines:
        return [entry.strip() for entry in b",".join(lines).decode("latin-1").split(",")]
    lines = [value for name, value in headers if name == b"forwarded"]
    return [_for(element) for element in b",".join(lines).decode("latin-1").split(",")] if lines else []


def _for(element: str) -> str:
    for pair in element.split(";"):
        name, _, value = pair.strip().partition("=")
        if name.strip().lower() == "for":
            return value.strip().strip('"')
    return ""


def client_address(headers, proxy: str, proxies: tuple[Network, ...]) -> str:
    """The client a trusted proxy's request (``headers``: h11's, names in lower case) is forwarded for: walking
    its forwarded entries from the right, the first that is not itself a trusted proxy (every one is: the
    leftmost); ``proxy`` (the peer's own address) where there are none or that entry is no address."""
    found = None
    for entry in reversed(forwarded_for(headers)):
        found = parse_ip(entry)
        if found is None:
            return proxy
        if not _within(found, proxies):
            return str(found)
    return proxy if found is None else str(found)
