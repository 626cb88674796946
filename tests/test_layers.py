"""Dependencies run one way: clients -> server -> rules. No module of a lower layer imports a higher one.

Within those layers: ``server/protocol/`` (the messages, codecs, codes and formats the clients share) imports
no trio and nothing of ``server/`` outside itself, only ``rules``, ``msgspec`` and the standard library; and
``clients/`` imports of ``server/`` only ``server.protocol`` and the entry point ``server.commands``."""

import sys
from pathlib import Path

import pytest

from tests.imports import imported_modules, imported_packages

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("rules", "server", "clients")  # each may import only itself and the layers before it


SOURCES = [(layer, path) for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))]
PROTOCOL_SOURCES = sorted((ROOT / "server" / "protocol").rglob("*.py"))
PROTOCOL_MAY_IMPORT = {"rules", "msgspec"}  # besides the standard library and server.protocol itself
ENTRY_POINTS = {"server.commands"}  # what the command line runs on the server's side: `serve`, log checks


def test_every_layer_has_sources():
    assert {layer for layer, _ in SOURCES} == set(LAYERS)


@pytest.mark.parametrize(("layer", "path"), SOURCES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_imports_run_one_way(layer, path):
    higher = set(LAYERS[LAYERS.index(layer) + 1:])
    wrong = imported_packages(path) & higher
    assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


@pytest.mark.parametrize("path", PROTOCOL_SOURCES, ids=lambda p: p.name)
def test_the_protocol_imports_no_trio_and_nothing_else_of_the_server(path):
    wrong = {name for name in imported_modules(path, ROOT)
             if not (name == "server.protocol" or name.startswith("server.protocol."))
             and name.split(".")[0] not in PROTOCOL_MAY_IMPORT | set(sys.stdlib_module_names)}
    assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


@pytest.mark.parametrize("path", sorted((ROOT / "clients").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT / "clients")))
def test_the_clients_import_of_the_server_only_its_protocol_and_entry_point(path):
    wrong = {name for name in imported_modules(path, ROOT) if name.split(".")[0] == "server"
             and not (name == "server.protocol" or name.startswith("server.protocol.")) and name not in ENTRY_POINTS}
    assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)} of the server"


@pytest.mark.parametrize("path", sorted((ROOT / "server").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_of_the_server_is_over_400_lines(path):
    assert len(path.read_text().splitlines()) <= 400, f"{path.relative_to(ROOT)}: one job per module"
