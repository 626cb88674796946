"""rules/ stays pure: no clock, no trio, no global randomness, no I/O, so every game replays exactly."""

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = {"trio", "trio_websocket", "time", "random", "secrets", "socket", "asyncio", "threading",
             "datetime", "os", "io", "pathlib", "subprocess", "uuid"}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


SOURCES = sorted(RULES.rglob("*.py"))


def test_rules_has_sources():
    assert len(SOURCES) >= 5


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(RULES)))
def test_no_forbidden_imports(path):
    assert not (_imports(path) & FORBIDDEN), f"{path} imports {_imports(path) & FORBIDDEN}"
