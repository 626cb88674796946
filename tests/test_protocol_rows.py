"""Rows (hello ``rows``: ``update``, ``snapshot`` and ``accepted`` as msgpack arrays): every server message read
from its row form is exactly the message its map form gives, alone or inside a batch; the rows keep the map
Structs' fields, in their order, and today's places never move (a field is only ever appended); a row is smaller."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings, strategies as st

from server.protocol import (CODECS, ROWS, Accepted, Batch, Error, Ping, Snapshot, Update, Welcome, convert_server,
                             decode_server)
from server.protocol.rows import MAP_TYPES, ROW_TAGS, ROW_TYPES, from_row, to_row

MSGPACK = CODECS["msgpack"]
exact = msgspec.json.Encoder(order="sorted").encode  # equal and of the same types (1 is not True)

# The places of each row's fields after its tag, as released: a row may grow at its end, never change before it.
PLACES = {
    "update": ("table", "seq", "actor", "events", "to_act", "view", "legal", "result", "receipt", "pings",
               "time_left_ms", "view_patch", "legal_same", "entries", "legal_patch"),
    "snapshot": ("table", "seq", "view", "to_act", "legal", "result", "skipped", "waiting_for", "receipt", "pings",
                 "time_left_ms"),
    "accepted": ("ref", "table", "seq", "duplicate", "receipt"),
}
TAGS = {"update": 1, "snapshot": 2, "accepted": 3}

scalars = (st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64 - 1)  # what msgpack holds
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=2), inner, max_size=4), max_leaves=12)
ints = st.integers(min_value=-1, max_value=2**40)
maybe = st.none().__or__
seats = st.lists(st.integers(min_value=0, max_value=5), max_size=4)
patch = st.lists(st.lists(values, max_size=3), max_size=4)
FIELDS = {  # a strategy for every field of the row messages (a new field without one fails here first)
    "table": st.text(max_size=8), "seq": st.integers(min_value=0, max_value=2**40), "actor": ints,
    "events": st.lists(values, max_size=3), "to_act": maybe(seats), "view": maybe(values),
    "legal": maybe(st.lists(values, max_size=3)), "result": maybe(values), "receipt": maybe(st.text(max_size=64)),
    "pings": maybe(st.lists(maybe(st.floats(allow_nan=False, allow_infinity=False)), max_size=4)),
    "time_left_ms": maybe(st.integers(min_value=0, max_value=10**9)), "view_patch": maybe(patch),
    "legal_same": st.booleans(), "entries": maybe(st.lists(st.lists(ints, min_size=3, max_size=3), max_size=3)),
    "legal_patch": maybe(patch), "skipped": st.integers(min_value=0, max_value=10**6), "waiting_for": maybe(seats),
    "ref": st.none() | st.integers(min_value=-2**63, max_value=2**63) | st.text(max_size=8),
    "duplicate": st.booleans(),
}
OTHERS = [Welcome(ref=0, protocol=1, encoding="msgpack", server="photofinish"), Ping(ping=3),
          Error(ref="a", code="malformed", message="no")]


def message_of(kind: type, **types) -> st.SearchStrategy:
    return st.builds(kind, **{name: types.get(name, FIELDS[name]) for name in kind.__struct_fields__})


messages = (message_of(Update) | message_of(Snapshot, to_act=seats) | message_of(Accepted)
            | st.sampled_from(OTHERS))


def same(got, want) -> None:
    assert type(got) is type(want)
    assert exact(got) == exact(want)


@settings(max_examples=300, deadline=None)
@given(messages)
def test_every_server_message_read_from_its_row_is_what_its_map_gives(message):
    want = decode_server(MSGPACK.encode(message), MSGPACK)
    same(decode_server(ROWS.encode(message), ROWS), want)
    assert decode_server(MSGPACK.encode(message), ROWS) == want  # a rows reader takes a map frame too


@settings(max_examples=100, deadline=None)
@given(st.lists(messages, min_size=1, max_size=5))
def test_a_batch_of_rows_gives_the_messages_its_maps_give(batch):
    frame = ROWS.bytes_of(Batch(messages=[ROWS.wire(m) for m in batch]))
    got = decode_server(frame, ROWS)
    want = decode_server(MSGPACK.bytes_of(Batch(messages=batch)), MSGPACK)
    assert type(got) is Batch
    for row, inner in zip(got.messages, want.messages, strict=True):
        same(convert_server(row), convert_server(inner))


def test_a_row_is_its_tag_then_the_fields_in_order_up_to_the_last_not_at_its_default():
    update = Update(table="t1", seq=35, actor=0, view_patch=[[["turn"], 1]])
    assert msgspec.msgpack.decode(ROWS.bytes_of(update)) == [1, "t1", 35, 0, [], None, None, None, None, None, None,
                                                             None, [[["turn"], 1]]]
    assert (len(ROWS.bytes_of(update)), len(MSGPACK.bytes_of(update))) == (24, 56)  # the keys were half of it
    late = Update(table="t1", seq=35, actor=0, legal_same=True)  # a field near the end: the defaults before it stay
    assert msgspec.msgpack.decode(ROWS.bytes_of(late))[-2:] == [None, True]
    assert msgspec.msgpack.decode(ROWS.bytes_of(Accepted(ref=7, table="t1", seq=35))) == [3, 7, "t1", 35]
    nothing = Snapshot(table="t1", seq=0, view=None, to_act=[])  # its required fields stay, at any value
    assert msgspec.msgpack.decode(ROWS.bytes_of(nothing)) == [2, "t1", 0, None, []]
    assert msgspec.msgpack.decode(ROWS.bytes_of(Snapshot(table="t1", seq=0, view=None, to_act=[], skipped=1)))[-1] == 1


def test_the_row_structs_have_the_map_structs_fields_types_and_defaults():
    for kind, row in ROW_TYPES.items():
        assert MAP_TYPES[row] is kind
        assert row.__struct_config__.array_like and row.__struct_config__.tag == ROW_TAGS[kind]
        mine = [(f.name, f.type, f.default, f.default_factory) for f in msgspec.structs.fields(row)]
        theirs = [(f.name, f.type, f.default, f.default_factory) for f in msgspec.structs.fields(kind)]
        assert mine == theirs


def test_released_places_never_move_a_field_is_only_appended():
    assert set(ROW_TAGS) == {Update, Snapshot, Accepted}  # a new row message needs its strategy above
    for kind, tag in ROW_TAGS.items():
        name = kind.__struct_config__.tag
        assert TAGS[name] == tag
        fields = ROW_TYPES[kind].__struct_fields__
        assert fields[:len(PLACES[name])] == PLACES[name], f"a field of {name} moved: rows are read by place"
    assert set(PLACES) == {kind.__struct_config__.tag for kind in ROW_TAGS}


def test_a_shorter_row_an_older_server_sent_takes_the_defaults_of_the_fields_it_lacks():
    older = msgspec.msgpack.encode([2, "t1", 4, {"turn": 0}, [0]])
    snapshot = decode_server(older, ROWS)
    assert snapshot == Snapshot(table="t1", seq=4, view={"turn": 0}, to_act=[0])
    assert from_row(msgspec.msgpack.decode(msgspec.msgpack.encode(to_row(Accepted(ref=1, table="t", seq=2))),
                                           type=ROW_TYPES[Accepted])) == Accepted(ref=1, table="t", seq=2)
