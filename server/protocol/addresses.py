"""The addresses a user types that the server and its clients both read: a cluster's Redis URL."""

from __future__ import annotations

import urllib.parse

REDIS_PORT = 6379


def parse_redis_url(url: str) -> tuple[str, int, int]:
    """``redis://HOST[:PORT][/DB]`` as (host, port, db); ``ValueError`` saying what a good one looks like."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or REDIS_PORT
    except ValueError:
        raise ValueError(f"{url!r} has a bad port; a cluster is redis://HOST:PORT") from None
    if parts.scheme != "redis" or not parts.hostname:
        raise ValueError(f"{url!r} is not a Redis address; one looks like redis://127.0.0.1:6379")
    db = parts.path.strip("/")
    if db and not db.isdigit():
        raise ValueError(f"{url!r}: the database after the port is a number (redis://HOST:PORT/0)")
    return parts.hostname, port, int(db or 0)
