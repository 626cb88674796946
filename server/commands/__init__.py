"""The server's entry point: what the `photofinish` command line (``clients/cli/``) runs on the server's side.

The only module of `server/` that `clients/` imports besides ``server.protocol``. The command line parses what
the person typed; the commands that need the server's own code run here: ``serve`` (one ``ServeConfig``,
built from `serve`'s flags, with ``connection_limits`` and ``Quotas``), ``replay_log``, ``verify_log`` and
``export_log`` (a table's log), ``verify_tournament_log``; with the few values the client commands share with
the server (``human_pace_ms``: server bots' default pace; ``settle_gc`` for `load`). ``BadInput`` and
``ConfigError`` are mistakes in what was typed: one line, exit 2.
"""

from ..app import human_pace_ms
from ..config import ConfigError, ServeConfig, connection_limits
from ..gateway import Limits
from ..gctune import settle_gc
from ..quotas import Quotas
from .bad_input import BadInput
from .logs import export_log, replay_log, verify_log
from .serve import serve
from .tournament import verify_tournament_log

__all__ = ["BadInput", "ConfigError", "Limits", "Quotas", "ServeConfig", "connection_limits", "export_log",
           "human_pace_ms", "replay_log", "serve", "settle_gc", "verify_log", "verify_tournament_log"]
