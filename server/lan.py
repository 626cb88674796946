"""Where other machines can reach this server: the machine's own IPv4 addresses, found without sending a packet.

Two sources, both local: what the host name resolves to, and (on Linux) each network interface's address
read with an ``ioctl``. Loopback and link-local addresses are left out; private LAN ranges come first.
"""

from __future__ import annotations

import ipaddress
import socket
import struct

SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
WILDCARDS = ("", "0.0.0.0", "::")


def _from_host_name() -> list[str]:
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return []
    return [info[4][0] for info in infos]


def _from_interfaces() -> list[str]:
    try:
        import fcntl
        names = [name for _, name in socket.if_nameindex()]
    except (ImportError, OSError, AttributeError):
        return []
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # only a handle for the ioctl: never sends
        for name in names:
            try:
                answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # an interface without an IPv4 address
            found.append(socket.inet_ntoa(answer[20:24]))
    return found


def _rank(address: ipaddress.IPv4Address) -> tuple[int, ipaddress.IPv4Address]:
    for rank, network in enumerate(("192.168.0.0/16", "10.0.0.0/8", "172.16.0.0/12")):
        if address in ipaddress.ip_network(network):
            return rank, address
    return 3, address


def lan_addresses(candidates: list[str] | None = None) -> list[str]:
    """This machine's IPv4 addresses another machine could use, best first (``candidates``: for tests)."""
    found = candidates if candidates is not None else _from_host_name() + _from_interfaces()
    addresses = set()
    for text in found:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if not (address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast):
            addresses.add(address)
    return [str(address) for address in sorted(addresses, key=_rank)]


def join_urls(host: str, port: int, addresses: list[str] | None = None) -> tuple[str, ...]:
    """The http URLs to open the server at: for a wildcard host every LAN address (loopback if none), else
    the host itself."""
    if host in WILDCARDS:
        hosts = lan_addresses() if addresses is None else addresses
        hosts = hosts or ["127.0.0.1"]
    else:
        hosts = [host]
    return tuple(f"http://{f'[{h}]' if ':' in h else h}:{port}/" for h in hosts)
