"""rules/ stays pure: no clock, no trio, no global randomness, no I/O, so every game replays exactly."""

from pathlib import Path

import pytest

from tests.imports import imported_packages

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = {"trio", "trio_websocket", "time", "random", "secrets", "socket", "asyncio", "threading",
             "datetime", "os", "io", "pathlib", "subprocess", "uuid"}


SOURCES = sorted(RULES.rglob("*.py"))


def test_rules_has_sources():
    assert len(SOURCES) >= 5


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(RULES)))
def test_no_forbiddenimported_packages(path):
    assert not (imported_packages(path) & FORBIDDEN), f"{path} imports {imported_packages(path) & FORBIDDEN}"
