"""The command line's checks on what a person typed, made before anything starts: argparse types for the
values (a server URL, a port, a seed, counts and speeds) and files read as text (`serve`'s host, port and data
directory are checked on the server's side: ``server/commands/serve.py``). A mistake is a ``Refused`` with one
line saying what is wrong; `main` prints it and exits 2.
"""

from __future__ import annotations

import argparse
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path

from .client import BadUrl, check_url


class Refused(Exception):
    """What the person typed cannot be done; the message says why in one line. Nothing was changed."""


# ---------------------------------------------------------------------------------------------- argparse types

def server_url(text: str) -> str:
    try:
        return check_url(text)
    except BadUrl as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def redis_url(text: str) -> str:
    """``--cluster``: a Redis address, ``redis://HOST[:PORT][/DB]``, or ``sqlite:PATH`` (a file the processes of
    one machine share)."""
    from server.protocol.addresses import parse_redis_url

    if text.startswith("sqlite:") and len(text) > len("sqlite:"):
        return text
    try:
        parse_redis_url(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def trusted_proxy(text: str) -> IPv4Network | IPv6Network:
    """`serve --trusted-proxy`: a reverse proxy's IP address, or a network of them (``10.0.0.0/8``; bits past
    the prefix are ignored). No host name: what a name resolves to can change under a running server."""
    try:
        return ip_network(text.strip(), strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a trusted proxy is an IP address or network, e.g. 127.0.0.1, ::1 or "
                                         f"10.0.0.0/8, not {text!r}") from None


def _integer(text: str, low: int | None, high: int | None, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}, not {text!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"{what}, not {value}")
    return value


def port(text: str) -> int:
    return _integer(text, 0, 65535, "a port is a whole number 0-65535 (0: any free port)")


def seed(text: str) -> int:
    return _integer(text, 0, 2**64 - 1, "a seed is a whole number from 0 to 2**64-1")


def positive(text: str) -> int:
    return _integer(text, 1, None, "a whole number, 1 or more")


def count(text: str) -> int:
    """A number of things, 0 or more (a final's size, a cap of players, rounds of late entry)."""
    return _integer(text, 0, None, "a whole number, 0 or more")


def seat(text: str) -> int:
    """A seat as a person numbers it (from 1, as every screen shows it), returned as the wire's 0-based seat."""
    return _integer(text, 1, None, "a seat is a whole number from 1 (the first seat is 1)") - 1


def milliseconds(text: str) -> int:
    return _integer(text, 0, None, "a time in milliseconds, 0 or more")


def _number(text: str, what: str, ok) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}, not {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{what}, not {text}")
    return value


def speed(text: str) -> float:
    """A playback speed: more than 0 (0.5 is half speed, 2 twice as fast)."""
    return _number(text, "a speed is a number more than 0 (2: twice as fast)", lambda v: 0 < v < float("inf"))


def amount(text: str) -> float:
    """A rate, a time in seconds or a count of units: a number more than 0."""
    return _number(text, "a number more than 0", lambda v: 0 < v < float("inf"))


def delay_seconds(text: str) -> float:
    """A broadcast delay in seconds: 0 (none) to 3600."""
    return _number(text, "a delay is 0 to 3600 seconds", lambda v: 0 <= v <= 3600)


def delay_entries(text: str) -> int:
    """A broadcast delay in log entries: 0 (none) to 10,000."""
    return _integer(text, 0, 10_000, "a delay is 0 to 10000 entries")


def replay_speed(text: str) -> float:
    """`replay --speed`: 0 (as fast as it goes, the default) or more."""
    return _number(text, "a speed is 0 (no pauses) or a number more than 0 (2: twice as fast)",
                   lambda v: 0 <= v < float("inf"))


# ---------------------------------------------------------------------------------------------- files

def read_text(path: str, what: str = "file") -> str:
    """The text of a UTF-8 file that is not empty, or ``Refused`` naming the problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError:
        raise Refused(f"{path} is a directory, not a {what}") from None
    except UnicodeDecodeError as error:
        raise Refused(f"{path} is not a text file (byte {error.start} is not UTF-8)") from None
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror or error}") from None
    if not text.strip():
        raise Refused(f"{path} is empty")
    return text


def readable_file(path: str, what: str = "log") -> str:
    """``path`` if it is a file that can be opened and is not empty (what is in it is the reader's to judge),
    or ``Refused`` naming the problem: a missing file, a directory, an empty file."""
    target = Path(path)
    try:
        with target.open("rb") as opened:
            first = opened.read(1)
    except IsADirectoryError:
        raise Refused(f"{path} is a directory, not a {what}") from None
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror or error}") from None
    if not first:
        raise Refused(f"{path} is empty")
    return path


def write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path``, or ``Refused`` naming the problem (a missing folder, a directory...)."""
    target = Path(path)
    if not target.parent.is_dir():
        raise Refused(f"cannot write {path}: there is no folder {target.parent}")
    try:
        target.write_text(text, encoding="utf-8")
    except IsADirectoryError:
        raise Refused(f"cannot write {path}: it is a directory") from None
    except OSError as error:
        raise Refused(f"cannot write {path}: {error.strerror or error}") from None
