"""Fault-injection points for the kill -9 tests: the process kills itself (SIGKILL, no cleanup, exactly as
``kill -9``) when it reaches a named point.

``PHOTOFINISH_CRASH_AT=NAME[@N]`` kills it the Nth time (default the first) ``reached(NAME)`` is called. Points
are named ``<part>:<what>``: ``tournament:<record kind>`` once a tournament's record is durable in its log and
before anything else (the store, the ratings, the answer) follows it. Unset, as it always is outside the
tests, a point costs one comparison.
"""

from __future__ import annotations

import os
import signal

_SPEC = os.environ.get("PHOTOFINISH_CRASH_AT", "")
_NAME, _, _NTH = _SPEC.partition("@")
_left = int(_NTH) if _NTH.isdigit() else 1


def reached(name: str) -> None:
    """Die here if the tests asked for it (see the module's text)."""
    global _left
    if _NAME and name == _NAME:
        _left -= 1
        if _left <= 0:
            os.kill(os.getpid(), signal.SIGKILL)
