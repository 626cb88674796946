"""What the server says to the person running it: stdlib `logging`, one line each, ``photofinish: ...``.

Every module of `server/` logs to its own ``logging.getLogger(__name__)`` (all under the ``server`` logger). The
entry point (`server/commands/`) calls ``configure`` once: from then on INFO lines (what the server did: tables
and tournaments reopened, a cluster joined, files left alone) go to stdout, WARNING and worse (a failure, and
the recovery that ends it) to stderr, each as ``photofinish: <message>``, flushed at once, as the server's
print calls wrote them before. The stream is looked up at each line, so a test capturing stdout reads them.
"""

from __future__ import annotations

import logging
import sys

FORMAT = "photofinish: %(message)s"


class _ToTheConsole(logging.Handler):
    """INFO to stdout, WARNING and worse to stderr, each ``sys.stdout``/``sys.stderr`` as it is at that line."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr if record.levelno >= logging.WARNING else sys.stdout
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # a closed stream: logging's own way of saying it, never a crash of the server
            self.handleError(record)


def configure() -> None:
    """Say the server's lines on the console from now on (once: calling it again changes nothing)."""
    root = logging.getLogger("server")
    if any(isinstance(handler, _ToTheConsole) for handler in root.handlers):
        return
    handler = _ToTheConsole()
    handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False  # the console handler says them; an application's root handler would say them twice


def say_peer_changes(before: dict, now: dict, expiry: float) -> None:
    """The nodes that went down or came up since the last heartbeat, said on the console."""
    for node in sorted(before.keys() - now.keys()):
        logging.getLogger("server.cluster.node").info(f"node {node} is down (no heartbeat for {expiry:g} s): its tables are listed unavailable")
    for node in sorted(now.keys() - before.keys()):
        logging.getLogger("server.cluster.node").info(f"node {node} is up ({now[node].url})")
