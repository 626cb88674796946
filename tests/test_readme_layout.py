"""docs/developers.md's "Module by module" shows the tree as it is: one line for every module of rules/, server/ and clients/ (and
the browser's scripts), and no line for a module that is gone."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def layout_paths() -> set[str]:
    text = (ROOT / "docs" / "developers.md").read_text()
    section = text.split("## Module by module", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    return {m.group(1) for m in re.finditer(r"^(\S+\.(?:py|js))\s", block, re.M)}


def modules() -> set[str]:
    found = {str(p.relative_to(ROOT)) for top in ("rules", "server", "clients") for p in (ROOT / top).rglob("*.py")}
    return found | {str(p.relative_to(ROOT)) for p in (ROOT / "clients" / "web").rglob("*.js")}


def test_the_readme_layout_has_a_line_for_every_module_and_none_for_a_module_that_is_gone():
    listed, present = layout_paths(), modules()
    assert sorted(present - listed) == [], "modules missing from docs/developers.md's Module by module"
    assert sorted(listed - present) == [], "docs/developers.md's Module by module lists modules that are gone"
