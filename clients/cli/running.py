"""How a command that talks to a server runs: its coroutine under trio, its failures as one line and an exit code.

A server that is not there or cannot be understood is 1, a refusal (``ServerError``) or a bad URL is 2; a closed
stdout, a Ctrl-C or a ``Refused`` go up for `main` to say (``clients/cli/__init__.py``).
"""

from __future__ import annotations

import sys
from functools import partial


def run_client(fn, *args, **kwargs) -> int:
    """``trio.run(fn, *args, **kwargs)``, its return value (None: 0) or its failure's exit code."""
    import trio
    from trio_websocket import HandshakeError

    from ..client import BadUrl, ServerError, connect_reason, single_error

    try:
        return trio.run(partial(fn, *args, **kwargs)) or 0
    except (ConnectionError, ServerError, BadUrl, HandshakeError, BaseExceptionGroup) as raised:
        error = single_error(raised)
        if isinstance(error, BrokenPipeError):  # a ConnectionError too, but of our stdout (`| head`), not the server
            raise error from None  # main stops quietly
        if isinstance(error, ConnectionError):
            print(f"photofinish: {error}", file=sys.stderr)
            return 1
        if isinstance(error, HandshakeError):  # a connection made without the client library (load)
            print(f"photofinish: cannot connect ({connect_reason(error)}): is a photofinish server running there?",
                  file=sys.stderr)
            return 1
        if isinstance(error, ServerError):
            print(f"photofinish: the server refused: {error.message} ({error.code})", file=sys.stderr)
            return 2
        if isinstance(error, BadUrl):
            print(f"photofinish: {error}", file=sys.stderr)
            return 2
        raise  # Ctrl-C, a closed pipe, a Refused: main says it
