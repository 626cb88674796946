"""The server's entry point: what the `photofinish` command line (``clients/cli/``) runs on the server's side.

The only module of `server/` that `clients/` imports besides ``server.protocol``. The command line parses what
the person typed; the commands that need the server's own code run here: ``serve`` (one ``ServeConfig``,
built from `serve`'s flags, with ``connection_limits``, ``Quotas`` and ``default_workers``), ``replay_log``, ``verify_log`` and
``export_log`` (a table's log), ``verify_tournament_log``. What the command line shares with them that is not a
command (the mistakes ``BadInput`` and ``ConfigError``, ``human_pace_ms``, ``settle_gc``) is in
``server.protocol`` (``commandline``, ``gctune``).
"""

from ..config import ServeConfig, connection_limits
from ..gateway import Limits
from ..quotas import Quotas
from .logs import export_log, replay_log, verify_log
from .serve import serve
from .tournament import verify_tournament_log
from ..workers import default_workers

__all__ = ["Limits", "Quotas", "ServeConfig", "connection_limits", "default_workers", "export_log", "replay_log", "serve", "verify_log",
           "verify_tournament_log"]
