"""One error vocabulary: every error code the server or a client writes is a member of ``server.protocol.Code``,
each member says what it means, and the browser gets them from the same list (``tests/test_protocol_doc.py``
checks that PROTOCOL.md lists every one)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from server.http import load_site
from server.protocol import NO_RECONNECT, Code
from server.protocol.codes import codes_js

ROOT = Path(__file__).resolve().parent.parent
CODE_WORD = r'"([a-z]+(?:_[a-z]+)*)"'
# Where Python source writes an error code: raising or building a refusal, an error, a closing, a table's own
# failure, comparing a received code. Each is a literal the enum must hold (the integrator's conversion of the
# modules still saying strings is checked by this as much as the modules that say Code.X already).
POSITIONS = [
    r"\b(?:RulesError|TournamentError|OverQuota|Refusal|ServerError|ActionRejected)\(\s*" + CODE_WORD,
    r"\b\w*code(?::\s*\w+)?\s*(?:=|==|!=)\s*" + CODE_WORD,  # code="...", failed_code == "...", code: str = "..."
    r"\b_error\([^,()]+,[^,()]+,\s*" + CODE_WORD,
    r"\.close(?:_all)?\(\s*" + CODE_WORD,
    r"\brefuse\([^,()]+,\s*" + CODE_WORD,
    r"\brefusal=\(\s*" + CODE_WORD,
    r"\b_(?:finish|write)\(\s*" + CODE_WORD,
    r"\b_fail\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?,\s*" + CODE_WORD + r"\)",  # a message of lines and calls
    r"\bclosing(?:\s*=\s*[\w.]+\s+or|\s*=)\s*\(\s*" + CODE_WORD,
    r"\breturn\s+\(\s*" + CODE_WORD + r",\s*f?\"",  # limits: (code, message) of a refused connection
]
IN_TUPLE = re.compile(r"\bcode\s+(?:not\s+)?in\s+\(([^)]*)\)")
JS_POSITION = re.compile(r"\bcode\s*[!=]==?\s*" + CODE_WORD)
RULES_CODE = re.compile(r"\bRulesError\(\s*(?:f?)" + CODE_WORD)


def python_sources() -> list[Path]:
    return sorted(p for top in ("server", "clients") for p in (ROOT / top).rglob("*.py"))


def codes_written(text: str) -> set[str]:
    found = {m.group(1) for pattern in POSITIONS for m in re.finditer(pattern, text)}
    for group in IN_TUPLE.finditer(text):
        found |= set(re.findall(CODE_WORD, group.group(1)))
    return found


def test_the_scan_finds_codes_in_every_position_it_names():
    sample = '''raise RulesError("a_one", "x"); raise Refusal("b_two", "x"); Error(ref=1, code="c", message="")
if table.failed_code == "d": pass
self._error(receiver, message.id, "e", "x"); receiver.close("f", "x"); refuse(action, "g", "x")
return self._finish("h", "x"); self.closing = ("i", "x"); conn.closing = conn.closing or ("j", "x")
return ("k", f"x"); if message.code in ("l", "m"): pass
def _fail(self, message: str, code: str = "n"): pass
self._fail(f"table {t} stopped ({type(e).__name__}: {e})"
           "and more", "o")'''
    assert codes_written(sample) == set("abcdefghijklmno") - {"a", "b"} | {"a_one", "b_two"}


@pytest.mark.parametrize("path", python_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_error_code_the_server_or_a_client_writes_is_a_code(path):
    strangers = codes_written(path.read_text()) - set(Code)
    assert not strangers, f"{path.relative_to(ROOT)} writes codes not in server.protocol.Code: {sorted(strangers)}"


def test_the_browser_compares_only_codes_it_can_receive():
    rules_codes = {m.group(1) for p in (ROOT / "rules").rglob("*.py") for m in RULES_CODE.finditer(p.read_text())}
    strangers = set()
    for path in sorted((ROOT / "clients" / "web" / "js").rglob("*.js")):
        strangers |= {f"{m.group(1)} ({path.name})" for m in JS_POSITION.finditer(path.read_text())
                      if m.group(1) not in set(Code) | rules_codes}
    assert not strangers, f"the web client compares codes nobody sends: {sorted(strangers)}"


def test_every_code_says_what_it_means():
    source = (ROOT / "server" / "protocol" / "codes.py").read_text()
    tree = ast.parse(source)
    enum = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Code")
    lines = source.split("\n")
    silent = [target.id for node in enum.body if isinstance(node, ast.Assign) for target in node.targets
              if "#" not in lines[node.lineno - 1]]
    assert not silent, f"codes without a comment saying what they mean: {silent}"
    assert len(set(Code)) == len(Code), "two members share one code"


def test_the_browser_takes_its_codes_and_no_reconnect_from_the_server_generated_module():
    site = load_site(ROOT / "clients" / "web")
    served = site.find("js/codes.js")
    assert served is not None and served.body.decode() == codes_js()
    assert served.content_type.startswith("text/javascript")
    text = codes_js()
    assert all(f'"{code.name}": "{code.value}"' in text for code in Code)
    assert all(f'"{code}"' in text.split("NO_RECONNECT", 1)[1] for code in NO_RECONNECT)
    assert not (ROOT / "clients" / "web" / "js" / "codes.js").exists(), "codes.js is generated, never written"
    for path in (ROOT / "clients" / "web" / "js").rglob("*.js"):  # the list is written once, in Python
        assert "new Set([" not in path.read_text() or "NO_RECONNECT" not in path.read_text(), path.name
