"""Dependencies run one way: clients -> server -> rules. No module of a lower layer imports a higher one."""

from pathlib import Path

import pytest

from tests.imports import imported_packages

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("rules", "server", "clients")  # each may import only itself and the layers before it


SOURCES = [(layer, path) for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))]


def test_every_layer_has_sources():
    assert {layer for layer, _ in SOURCES} == set(LAYERS)


@pytest.mark.parametrize(("layer", "path"), SOURCES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_imports_run_one_way(layer, path):
    higher = set(LAYERS[LAYERS.index(layer) + 1:])
    wrong = imported_packages(path) & higher
    assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"
