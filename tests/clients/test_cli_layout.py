"""The command line's package, `clients/cli/`: one module per group of commands, each importable on its own,
none in an import cycle, none over 400 lines, and nothing of `server/` imported but the protocol and the
server's entry point (`server.commands`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = sorted(path for path in (ROOT / "clients" / "cli").glob("*.py") if path.name != "__main__.py")  # that one runs
# server.names (printable, skeleton): moving into server.protocol in issue 30's protocol part; then this goes
PENDING: set[str] = set()  # server modules still imported by clients/cli (none left)


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (inside functions too), as absolute dotted names."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            stem = ".".join(base + ([node.module] if node.module else []))
            found.add(stem)
            found.update(f"{stem}.{alias.name}" for alias in node.names)  # a submodule imported by name
    return found


def test_no_module_of_clients_is_in_an_import_cycle_with_the_command_line():
    files = {_module(path): path for path in (ROOT / "clients").rglob("*.py")}
    # a module's own packages are imported before it whatever it says (``from . import values``): no edge
    graph = {name: {other for other in _imports(path) if other in files and not (name + ".").startswith(other + ".")}
             for name, path in files.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            here = todo.pop()
            if here == goal:
                return True
            if here not in seen:
                seen.add(here)
                todo.extend(graph[here])
        return False

    cycles = [(name, other) for name in graph if name.startswith("clients.cli") for other in graph[name]
              if reaches(other, name)]
    assert cycles == []


@pytest.mark.parametrize("path", CLI, ids=lambda path: path.name)
def test_each_module_is_short_imports_alone_and_takes_of_the_server_only_its_protocol_and_entry_point(path):
    assert len(path.read_text().splitlines()) <= 400
    server = {name for name in _imports(path) if name.split(".")[0] == "server"}
    wrong = {name for name in server if not name.startswith(("server.protocol", "server.commands"))
             and name not in PENDING and name.rpartition(".")[0] not in PENDING}
    assert wrong == set()
    alone = subprocess.run([sys.executable, "-c", f"import {_module(path)}"], cwd=ROOT, capture_output=True, text=True)
    assert alone.returncode == 0, alone.stderr
