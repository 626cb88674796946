"""Remembered seats: the token of each seat `play` holds, so that `play` again resumes it after Ctrl-C or a crash.

One small JSON file, ``$XDG_STATE_HOME/photofinish/seats.json`` (``~/.local/state/photofinish/seats.json``
when XDG_STATE_HOME is unset), readable by its owner only, mapping ``"<server URL> <table>"`` to the seat, its
token and the table's id. A token is forgotten when its game is over or the server no longer knows it. A
file that cannot be read or written is treated as empty: remembering is a convenience, never an error.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Remembered:
    seat: int
    token: str
    table: str  # the table's id (the name typed may be an alias such as "open")


def state_file() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "photofinish" / "seats.json"


def _key(url: str, table: str) -> str:
    return f"{url.rstrip('/')} {table}"


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=1, sort_keys=True)
        os.replace(temporary, path)
    except OSError:
        pass


def recall(url: str, table: str, path: Path | None = None) -> Remembered | None:
    entry = _load(path or state_file()).get(_key(url, table))
    try:
        return Remembered(seat=int(entry["seat"]), token=str(entry["token"]), table=str(entry["table"]))
    except (TypeError, KeyError, ValueError):
        return None


def remember(url: str, table: str, seat: Remembered, path: Path | None = None) -> None:
    path = path or state_file()
    data = _load(path)
    data[_key(url, table)] = {"seat": seat.seat, "token": seat.token, "table": seat.table}
    _save(path, data)


def forget(url: str, table: str, path: Path | None = None) -> None:
    path = path or state_file()
    data = _load(path)
    if data.pop(_key(url, table), None) is not None:
        _save(path, data)
