"""Dependencies run one way: clients -> server -> rules. No module of a lower layer imports a higher one."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("rules", "server", "clients")  # each may import only itself and the layers before it


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


SOURCES = [(layer, path) for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))]


def test_every_layer_has_sources():
    assert {layer for layer, _ in SOURCES} == set(LAYERS)


@pytest.mark.parametrize(("layer", "path"), SOURCES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_imports_run_one_way(layer, path):
    higher = set(LAYERS[LAYERS.index(layer) + 1:])
    assert not (_imports(path) & higher), f"{path.relative_to(ROOT)} imports {sorted(_imports(path) & higher)}"
