"""`photofinish serve`, run: the checks made before anything starts, then the server until a signal.

``serve(config)`` checks that the host and port can be listened on and that the data directory can be written
(a ``BadInput`` before any table is reopened), says the server's lines on the console (``server/notices.py``),
runs ``server.app.serve_until_signal`` and turns what stops it into one line on stderr and an exit code: 1 for
a data directory in use or unusable, a damaged tournament store, or a socket that cannot be listened on.
"""

from __future__ import annotations

import socket
import sys
import tempfile
from pathlib import Path

import trio

from ..protocol import Refusal
from .. import app, notices
from ..config import ServeConfig
from ..datalock import DataDirInUse
from ..protocol.commandline import BadInput


def serve(config: ServeConfig) -> int:
    """Serve with ``config`` until Ctrl-C or SIGTERM; the exit code."""
    check_listen(config.host, config.port)  # before any table is reopened from the data directory
    if config.data_dir is not None:
        check_data_dir(config.data_dir)
    if config.workers > 1:
        from ..workers import serve_workers

        check_workers(config)
        return serve_workers(config)
    if config.data_dir is not None and not config.shared_port:
        for line in workers_left(config.data_dir):
            print(f"photofinish serve: {line}", file=sys.stderr)
    notices.configure()
    try:
        trio.run(app.serve_until_signal, config)
    except (OSError, Refusal, DataDirInUse, BaseExceptionGroup) as raised:
        error = _single(raised)
        if isinstance(error, (Refusal, DataDirInUse)):  # another server's data directory; a bad store
            print(f"photofinish serve: {error.message}", file=sys.stderr)
            return 1
        if not isinstance(error, OSError):
            raise
        if error.filename is not None:  # the data directory, not the socket
            print(f"photofinish serve: cannot use the data directory {config.data_dir}: {error.filename}: "
                  f"{error.strerror or error}", file=sys.stderr)
        else:
            print(f"photofinish serve: cannot listen on {config.host}:{config.port}: {error.strerror or error}",
                  file=sys.stderr)
        return 1
    return 0


def check_workers(config: ServeConfig) -> None:
    """Before any worker starts: every worker's own port can be listened on, and the data directory is not in
    the layout of an earlier version (worker 0 in ``DATA/worker-0``, now in ``DATA`` itself)."""
    from ..workers import worker_ports

    for index, port in enumerate(worker_ports(config)):
        try:
            check_listen(config.host, port)
        except BadInput as error:
            raise BadInput(f"{error} (worker {index}'s own port: --workers N listens on --port and on the "
                           f"N ports after it, {config.port + 1}..{config.port + config.workers}; pick another "
                           "--port, or fewer --workers)") from None
    earlier = Path(config.data_dir) / "worker-0"
    if any(earlier.glob("tables/*.log")) or any(earlier.glob("tournaments/*.log")):
        raise BadInput(f"{earlier} holds worker 0's tables as an earlier version kept them; worker 0 now keeps "
                       f"them in {config.data_dir} itself: with no server running, move what is in {earlier} "
                       f"into {config.data_dir}")


def workers_left(data_dir: Path) -> list[str]:
    """What one process says of the tables that workers of an earlier `serve --workers N` keep in
    ``DATA/worker-<i>/``: it does not open them (their worker does)."""
    lines = []
    for folder in sorted(Path(data_dir).glob("worker-*")):
        logs = len(list(folder.glob("tables/*.log")))
        if logs and folder.name.removeprefix("worker-").isdigit():
            index = int(folder.name.removeprefix("worker-"))
            lines.append(f"{folder} holds {logs} table log(s) of worker {index} of `serve --workers`; this one "
                         f"process does not open them: start with --workers {index + 1} or more to open them")
    return lines


def _single(error: BaseException) -> BaseException:
    """The one error inside (nested) exception groups of one error each, or the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def check_data_dir(folder: Path) -> Path:
    """The data directory, created if missing, after checking a file can be written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise BadInput(f"the data directory {folder} is a file, not a directory") from None
    except OSError as error:
        raise BadInput(f"cannot create the data directory {folder}: {error.strerror or error}") from None
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise BadInput(f"cannot write in the data directory {folder}: {error.strerror or error}") from None
    return folder


def check_listen(host: str, port_number: int) -> None:
    """Resolve ``host`` and bind every address it names on ``port_number`` (then let go), so that a host or
    port the server cannot listen on is refused before any table is reopened."""
    if not host:
        raise BadInput("--host is an address to listen on, e.g. 127.0.0.1 (0.0.0.0 for a LAN)")
    try:
        addresses = socket.getaddrinfo(host, port_number, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, socket.gaierror) else str(error)
        raise BadInput(f"cannot listen on {host}: no such host ({reason})") from None
    for family, kind, proto, _, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server's listener does
                probe.bind(address)
        except OSError as error:
            raise BadInput(f"cannot listen on {host}:{port_number}: {error.strerror or error}") from None
