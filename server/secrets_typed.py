"""The secrets the server hands out that a person may paste on a command line (a seat's token, a tournament's
organiser secret, a registration's token): URL-safe and never starting with ``-``, which argparse would take
for an option (``photofinish tournament drop --secret -x...`` failed for about one secret in 64)."""

from __future__ import annotations

import secrets


def new_secret(nbytes: int) -> str:
    """``secrets.token_urlsafe(nbytes)`` with a leading ``-`` turned into ``_`` (the same length and alphabet)."""
    token = secrets.token_urlsafe(nbytes)
    return "_" + token[1:] if token.startswith("-") else token
