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

from server.protocol import CODECS, Batch
from server.protocol.rows import ROW_TAGS, ROW_TYPES, to_row
from server.protocol.codes import codes_js
from server.protocol.viewpatch import diff, split

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


def put_js(folder: Path, script: str) -> None:
    """``folder`` made a place to run ``script`` (run.mjs) against the browser's protocol.js and its codes."""
    (folder / "protocol.js").write_text(JS.read_text())
    (folder / "msgpack.js").write_text((JS.parent / "msgpack.js").read_text())
    (folder / "codes.js").write_text(codes_js())
    (folder / "run.mjs").write_text(script)


@pytest.mark.skipif(NODE is None, reason="needs node")
@settings(max_examples=5, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=20, max_size=40))
def test_the_browser_applies_each_patch_to_give_the_new_view(tmp_path_factory, pairs):
    folder = tmp_path_factory.mktemp("js")
    put_js(folder, RUN)
    moved = [({"legal": list("abcdef")}, {"legal": list("bcxdefy")}), (list("abcdefg"), list("gabcdefx"))]  # inserts
    cases = [[old, diff(old, new), new] for old, new in [*pairs, *moved]]
    assert sum(len(op) == 3 for _, patch, _ in cases for op in patch) >= 2
    done = subprocess.run([NODE, "run.mjs"], cwd=folder, input=json.dumps(cases), capture_output=True, text=True,
                          check=True, timeout=60)
    for view, want in json.loads(done.stdout):  # ``want`` as the browser reads it (0.0 is 0 there)
        assert sorted_json(view) == sorted_json(want)


CLIENT = """import { Client } from "./protocol.js";
const seen = [];
const client = new Client("ws://unused/", { onMessage: (m) => seen.push(m) });
let closed = 0;
const ws = { send() {}, close() { closed += 1; } };
const update = (seq, patch, extra = {}) => ({ type: "update", table: "t1", seq, actor: 0, events: [], to_act: [0],
                                             view_patch: patch, ...extra });
client.take({ type: "snapshot", table: "t1", seq: 3, view: { hand: ["a", "b"], turn: 0 }, to_act: [0],
              legal: [{ type: "draw" }] }, ws);
client.take({ type: "batch", messages: [update(4, [[["hand", 0]], [["turn"], 1]], { legal_same: true }),
                                        update(5, [[["hand", 1], "c"]], { legal: [] })] }, ws);
client.take(update(6, [[["turn"], 0]], { legal: [{ type: "draw" }, { type: "pass" }] }), ws);
client.take(update(7, [], { legal: [] }), ws);
client.take(update(9, [[["turn"], 1]], { legal_patch: [[[1, "type"], "play"]], events: ["a", "b", "c"],
                                         entries: [[8, -1, 1], [9, 0, 2]] }), ws);
client.take(update(10, [[["hand", 5], 1]]), ws);
client.take(update(11, []), ws);
process.stdout.write(JSON.stringify({ seen, closed, last: client.lastSeq.get("t1") }));
"""


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_hands_on_whole_views_and_resyncs_when_a_patch_does_not_fit(tmp_path):
    put_js(tmp_path, CLIENT)
    done = subprocess.run([NODE, "run.mjs"], cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60)
    out = json.loads(done.stdout)
    views = [(m["seq"], m.get("view"), m.get("legal"), "view_patch" in m) for m in out["seen"]]
    assert views == [(3, {"hand": ["a", "b"], "turn": 0}, [{"type": "draw"}], False),
                     (4, {"hand": ["b"], "turn": 1}, [{"type": "draw"}], False),  # legal_same: the last list
                     (5, {"hand": ["b", "c"], "turn": 1}, [], False),
                     (6, {"hand": ["b", "c"], "turn": 0}, [{"type": "draw"}, {"type": "pass"}], False),
                     (7, {"hand": ["b", "c"], "turn": 0}, [], False),
                     (8, None, None, False),  # a group of two entries, one update each
                     (9, {"hand": ["b", "c"], "turn": 1}, [{"type": "draw"}, {"type": "play"}], False)]  # patched
    # from the last non-empty list
    assert [(m["actor"], m["events"]) for m in out["seen"][-2:]] == [(-1, ["a"]), (0, ["b", "c"])]
    assert out["closed"] == 1 and out["last"] == 9  # the bad patch drops the socket; nothing after it is taken


TAKE_ALL = """import { Client } from "./protocol.js";
import { readFileSync } from "node:fs";
const seen = [];
const client = new Client("ws://unused/", { onMessage: (m) => seen.push(m) });
const ws = { send() {}, close() { throw new Error("the client dropped the socket"); } };
for (const message of JSON.parse(readFileSync(0, "utf8"))) client.take(message, ws);
process.stdout.write(JSON.stringify(seen));
"""
SAME = ("type", "table", "seq", "actor", "events", "to_act", "legal", "result", "pings", "view")


def rowed(message):
    """A message as a rows connection is sent it (a batch's messages each in its row form)."""
    if type(message) is Batch:
        return Batch(messages=[to_row(inner) for inner in message.messages])
    return to_row(message)


@pytest.mark.skipif(NODE is None, reason="needs node")
@pytest.mark.parametrize("form", ["maps", "rows"])
def test_the_browser_rebuilds_whole_updates_from_what_a_real_table_sent(tmp_path, monkeypatch, form):
    import trio
    import trio.testing

    from ..server.test_patched_tables import play_recorded

    played = trio.run(play_recorded, monkeypatch, clock=trio.testing.MockClock(autojump_threshold=0))
    put_js(tmp_path, TAKE_ALL)
    encode = CODECS["json"].encoder.encode
    for pairs in played.values():
        parts = [(part, b is s) for b, s in pairs if b.type in ("update", "snapshot") for part in split(b)]
        built = [json.loads(encode(part)) for part, _ in parts]  # a group of entries: one update each
        sent = [json.loads(encode(s if form == "maps" else rowed(s))) for _, s in pairs]
        if form == "rows":  # every update and snapshot went as a row
            assert not [m for m in sent if type(m) is dict and m["type"] in ("update", "snapshot", "accepted")]
        done = subprocess.run([NODE, "run.mjs"], cwd=tmp_path, input=json.dumps(sent), capture_output=True,
                              text=True, check=True, timeout=60)
        seen = [m for m in json.loads(done.stdout) if m["type"] in ("update", "snapshot")]
        assert len(seen) == len(built) > 10
        whole = [untouched for _, untouched in parts]
        for got, want, untouched in zip(seen, built, whole):
            assert {k: got.get(k) for k in SAME} == {k: want.get(k) for k in SAME}
            kept = untouched or want.get("result") is not None
            assert got.get("receipt") == (want.get("receipt") if kept else None)


ROWS_TABLE = """import { ROWS } from "./protocol.js";
process.stdout.write(JSON.stringify(ROWS));
"""


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browsers_table_of_rows_is_the_protocols(tmp_path):
    """protocol.js reads a row by the places and defaults of its fields: those of server/protocol/rows.py."""
    put_js(tmp_path, ROWS_TABLE)
    done = subprocess.run([NODE, "run.mjs"], cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60)
    want = {}
    for kind, tag in ROW_TAGS.items():
        fields = []
        for info in msgspec.structs.fields(ROW_TYPES[kind]):
            if info.default is not msgspec.NODEFAULT:
                fields.append([info.name, info.default])
            elif info.default_factory is not msgspec.NODEFAULT:
                fields.append([info.name, info.default_factory()])
            else:
                fields.append([info.name])
        want[str(tag)] = [kind.__struct_config__.tag, fields]
    assert json.loads(done.stdout) == want


ROW_VIEW = """import { Client } from "./protocol.js";
const seen = [];
let closed = 0;
const client = new Client("ws://unused/", { onMessage: (m) => seen.push(m) });
const ws = { send() {}, close() { closed += 1; } };
client.take([2, "t1", 3, ["flag_finish", null, "lockstep"], [0]], ws);
process.stdout.write(JSON.stringify({ seen, closed }));
"""


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_refuses_a_view_as_a_row_and_drops_the_socket(tmp_path):
    """protocol.js reads rows' messages but not views as rows (the browser asks for JSON maps): a snapshot whose
    view is a row is not handed on, and the socket is dropped as for a patch that does not fit."""
    put_js(tmp_path, ROW_VIEW)
    done = subprocess.run([NODE, "run.mjs"], cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == {"seen": [], "closed": 1}
