"""The browser's protocol client applies view patches as the server makes them: ``applyPatch`` in
``clients/web/js/protocol.js``, run by Node on patches from ``viewpatch.diff`` (skipped without Node)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from server.protocol.codes import codes_js
from server.protocol.viewpatch import diff

from ..server.test_view_patches import values

NODE = shutil.which("node")
JS = Path(__file__).resolve().parents[2] / "clients" / "web" / "js" / "protocol.js"
RUN = """import { applyPatch } from "./protocol.js";
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(([old, patch, want]) => { const kept = JSON.stringify(old); const got = applyPatch(old, patch);
  if (JSON.stringify(old) !== kept) throw new Error("the view given was changed"); return [got, want]; });
process.stdout.write(JSON.stringify(out));
"""
sorted_json = msgspec.json.Encoder(order="sorted").encode


@pytest.mark.skipif(NODE is None, reason="needs node")
@settings(max_examples=5, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=20, max_size=40))
def test_the_browser_applies_each_patch_to_give_the_new_view(tmp_path_factory, pairs):
    folder = tmp_path_factory.mktemp("js")
    (folder / "protocol.js").write_text(JS.read_text())
    (folder / "codes.js").write_text(codes_js())
    (folder / "run.mjs").write_text(RUN)
    cases = [[old, diff(old, new), new] for old, new in pairs]
    done = subprocess.run([NODE, "run.mjs"], cwd=folder, input=json.dumps(cases), capture_output=True, text=True,
                          check=True, timeout=60)
    for view, want in json.loads(done.stdout):  # ``want`` as the browser reads it (0.0 is 0 there)
        assert sorted_json(view) == sorted_json(want)
