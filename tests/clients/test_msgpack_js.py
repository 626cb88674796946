"""The browser reads the server's msgpack frames as it reads the same messages in JSON: ``decode`` in
``clients/web/js/msgpack.js``, run by Node on bytes from msgspec's encoder and from the server's own frames
(``encodeonce.frame``: a batch with a message encoded once for many), and refusing what is no whole message
(skipped without Node, as the other tests of the page's scripts are)."""

from __future__ import annotations

import json
import math
import subprocess

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from server.wire import encodeonce
from server.protocol import CODECS, Accepted, Update, Welcome

from .test_protocol_js_patches import NODE, put_js

DECODE = """import { decode } from "./msgpack.js";
import { readFileSync } from "node:fs";
const frames = JSON.parse(readFileSync(0, "utf8"));
const out = frames.map((hex) => { try { return { value: decode(Buffer.from(hex, "hex")) }; }
                                  catch (error) { return { error: String(error.message) }; } });
process.stdout.write(JSON.stringify(out));
"""

scalars = (st.none() | st.booleans() | st.integers(-(2 ** 53), 2 ** 53)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40)
           | st.text(min_size=32, max_size=300))  # long enough for str8 and str16
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=6)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=6), max_leaves=25)


def decoded(tmp_path_factory, frames: list[bytes]) -> list[dict]:
    folder = tmp_path_factory.mktemp("js")
    put_js(folder, DECODE)
    done = subprocess.run([NODE, "run.mjs"], cwd=folder, input=json.dumps([f.hex() for f in frames]),
                          capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def same(got, want) -> bool:
    """``got`` (through JavaScript and JSON) is ``want``: numbers by value (JavaScript has one kind), -0.0 as 0."""
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return got == want and type(got) is type(want)
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(got, want, rel_tol=0,
                                                                                            abs_tol=0)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, got, want))
    return isinstance(got, dict) and got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)


@pytest.mark.skipif(NODE is None, reason="needs node")
@settings(max_examples=5, deadline=None)
@given(st.lists(values, min_size=10, max_size=20))
def test_the_browser_decodes_any_value_as_json_would_give_it(tmp_path_factory, items):
    wide = [list(range(20)), {str(i): i for i in range(20)}, list(range(70_000)), {str(i): i for i in range(70_000)},
            "x" * 70_000, -2 ** 31 - 1, 2 ** 32, 1.5e300]
    items = [*items, *wide]  # (array16, map16, array32, map32, str32, int64, uint64 and float64 each once)
    results = decoded(tmp_path_factory, [msgspec.msgpack.encode(item) for item in items])
    for item, result in zip(items, results):
        assert "error" not in result, result
        assert same(result["value"], item)


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_reads_the_servers_frames_as_their_json(tmp_path_factory):
    """A batch as the server writes it for a ``msgpack`` connection, one message in it encoded once for all its
    spectators (copied into the frame as raw bytes), reads as the same batch in JSON."""
    update = encodeonce.share(Update(table="t1", seq=7, actor=2, to_act=[0, 1], events=[{"type": "drew", "seat": 2}],
                                     view={"hands": [[1, 2], []], "name": "Ana \u00e9\u4e2d", "score": 1.25}))
    queued = [Welcome(ref=0, protocol=1, encoding="msgpack", server="photofinish"), update,
              Accepted(ref="a" * 40, table="t1", seq=7)]
    frames = [encodeonce.frame(CODECS["msgpack"], queued), encodeonce.frame(CODECS["msgpack"], [update])]
    wants = [json.loads(encodeonce.frame(CODECS["json"], sent)) for sent in (queued, [update])]
    results = decoded(tmp_path_factory, frames)
    assert [r.get("value") for r in results] == wants


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_what_is_no_whole_message_is_refused_saying_where(tmp_path_factory):
    whole = msgspec.msgpack.encode({"type": "update", "seq": 300})
    results = decoded(tmp_path_factory, [whole[:-1], whole + b"\x00", b"\xc4\x01x", b"\x81\x01\x02",
                                         b"\xa2\xff\xfe"])
    errors = [r.get("error", "") for r in results]
    assert "ends inside a value" in errors[0]
    assert "1 bytes left" in errors[1]
    assert "0xc4 at 0" in errors[2]  # bytes: the server sends none
    assert "map key that is no string" in errors[3]
    assert errors[4]  # no UTF-8
