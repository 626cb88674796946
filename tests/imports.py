"""What a source file imports (top-level package names), for the tests that keep layers and purity."""

import ast
from pathlib import Path


def imported_packages(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def imported_modules(path: Path, root: Path) -> set[str]:
    """The dotted names of the modules ``path`` (a file under ``root``) imports, relative imports resolved
    (``from .codes import Code`` in server/protocol/__init__.py is ``server.protocol.codes``; ``from . import x``
    is ``package.x``)."""
    package = list(path.relative_to(root).with_suffix("").parts)[:-1]  # a module's package, or __init__'s own
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names.add(node.module)
                continue
            base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            if node.module:
                names.add(".".join([*base, node.module]))
            else:
                names.update(".".join([*base, alias.name]) for alias in node.names)
    return names
