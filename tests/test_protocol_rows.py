"""Rows (hello ``rows``: ``update``, ``snapshot`` and ``accepted`` as msgpack arrays): every server message read
from its row form is exactly the message its map form gives, alone or inside a batch; the rows keep the map
Structs' fields, in their order, and today's places never move (a field is only ever appended); a row is smaller.
Views as rows (``viewrows.py``): every game's view of every seat, a spectator and a broadcast read back from its
row is the view; their places never move either. Legal actions as rows (``legalrows.py``): every seat's list read
back from its rows is the list; an action's places never move."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from rules import GAMES
from rules.flush.game import Play, View as FlushView
from server.protocol import (CODECS, ROWS, Accepted, Batch, BroadcastView, Error, Ping, Snapshot, Update, Welcome,
                             convert_server, decode_server)
from server.protocol.legalrows import LegalRowError, action_places, from_rows, to_rows
from server.protocol.rows import MAP_TYPES, ROW_TAGS, ROW_TYPES, from_row, to_row
from server.protocol.viewpatch import PatchError, Views, apply, diff, diff_row
from server.protocol.viewrows import Each, Places, ViewRowError, from_places, places, to_places

from .rules.test_contract_properties import random_playout, tables

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
    "ref": st.none() | st.integers(min_value=-2**63, max_value=2**63 - 1) | st.text(max_size=8),
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


# Views as rows (``viewrows.py``): each game's view fields in their places after the game's name, and the places of
# the structs inside (by the view's place that holds them; "each": a list of them), as released. Append only.
VIEW_PLACES = {
    "checkered_flag": (("seat", "phase", "track", "order", "turn", "positions", "gears", "lost", "crashes", "plan",
                        "checks", "turns", "turn_limit", "winner"),
                       {2: (("name", "spaces", "laps", "danger", "narrow", "kinds", "zone", "curve"), {}),
                        9: (("start", "move", "end", "stops", "forced"), {}),
                        10: ("each", (("reason", "crash_on", "at"), {}))}),
    "finish_line": (("seat", "phase", "board", "wings", "markers", "turn", "dice", "used", "stop", "moved", "choice",
                     "finished", "turns", "turn_limit", "places"),
                    {10: (("kind", "marker", "candidates"), {})}),
    "flag_finish": (("seat", "mode", "phase", "race", "races", "hand", "drawn", "hand_counts", "rows", "discard",
                     "draw_count", "must_discard", "turn", "to_act", "finishers", "actions", "action_limit",
                     "race_scores", "totals", "winners"), {}),
    "flush": (("seat", "phase", "format", "round", "rounds", "hand", "hand_counts", "tops", "blinds", "pile",
               "top_value", "run", "flushed", "unused", "mimic_card", "mimic", "turn", "flipped", "pickup", "passing",
               "previous", "turns", "turn_limit", "active", "round_scores", "totals", "winners"),
              {9: ("each", (("seat", "value", "cards"), {}))}),
    "race_to_the_finish": (("seat", "phase", "hand", "hand_counts", "trick", "trick_seats", "leader", "turn",
                            "chooser", "mover", "dealer", "deals", "trump", "cuts", "pieces", "sidetracked", "track",
                            "tricks_won", "sidetracked_played", "cards_played", "out_of_play", "winner"), {}),
}


def released(shape, pinned) -> None:
    """``shape`` keeps ``pinned``'s places: its names start with the pinned ones, and so do its structs'."""
    if pinned[0] == "each":
        assert type(shape) is Each
        return released(shape.item, pinned[1])
    names, inner = pinned
    assert type(shape) is Places and shape.names[:len(names)] == names, f"a view field moved: {shape.names}"
    assert set(inner) <= set(shape.inner)
    for place, below in inner.items():
        released(shape.inner[place], below)


def test_released_view_places_never_move_a_field_is_only_appended():
    assert set(VIEW_PLACES) == set(GAMES)  # a new game's places are pinned here once released
    for name, pinned in VIEW_PLACES.items():
        released(places(name), pinned)


def sampled(table, every: int, take) -> list:
    """What ``take(state)`` (a list) gives every ``every`` steps of a random playout of ``table``, all together."""
    game, setup, seed = table
    seen = []

    def check(session, index):
        if index % every == 0:
            seen.extend(take(session.state))

    random_playout(game, setup, seed, check)
    return seen


@settings(max_examples=15, deadline=None)
@given(tables())
def test_every_view_of_every_seat_spectator_and_broadcast_made_a_row_and_read_back_is_the_view(table):
    game, setup, _ = table
    name = game.info.name
    seen = sampled(table, 7, lambda state: [[game.view(state, seat) for seat in [None, *range(setup.seats)]]])
    for views in seen:
        for view in views:
            row = to_places(name, view)
            assert row[0] == name and len(row) == 1 + len(view.__struct_fields__)
            assert row == to_places(name, msgspec.to_builtins(view))  # a view's map makes the same row
            read = from_places(msgspec.msgpack.decode(msgspec.msgpack.encode(row)))
            assert exact(read) == exact(view)
        broadcast = BroadcastView(public=views[0], seats=views[1:])
        row = to_places(name, broadcast)
        assert row[0] == "broadcast" and row[1][0] == name and len(row[2]) == setup.seats
        assert exact(from_places(row)) == exact(broadcast)


def test_a_view_row_s_places_are_the_fields_in_order_and_a_struct_inside_an_array():
    view = FlushView(seat=None, phase="play", format="arena", round=1, rounds=3, hand=None, hand_counts=[5, 6],
                     tops=[["3", None, "5"], ["F", "2", "8"]], blinds=[[True] * 3, [True, False, True]],
                     pile=[Play(seat=0, value="4", cards=["4", "4"])], top_value="4", run=2, flushed=0, unused=20,
                     mimic_card="9", mimic="9", turn=1, flipped=False, pickup=False, passing=False, previous=0,
                     turns=1, turn_limit=200, active=[0, 1], round_scores=[], totals=[0, 0], winners=[])
    row = to_places("flush", view)
    assert row[:11] == ["flush", None, "play", "arena", 1, 3, None, [5, 6], [["3", None, "5"], ["F", "2", "8"]],
                        [[True] * 3, [True, False, True]], [[0, "4", ["4", "4"]]]]
    grown = msgspec.structs.replace(view, hand_counts=[4, 6], pile=[*view.pile, Play(seat=1, value="5", cards=["5"])])
    assert diff_row(row, to_places("flush", grown)) == [[[7, 0], 4], [[10, 1], [1, "5", ["5"]]]]  # by places
    assert diff(msgspec.to_builtins(view), msgspec.to_builtins(grown)) == [[["hand_counts", 0], 4],
                                                                         [["pile", 1], {"seat": 1, "value": "5",
                                                                                         "cards": ["5"]}]]
    assert from_places([*row, "a newer server's field"]) == from_places(row)  # places past the known: not read


@pytest.mark.parametrize("row", [[], ["no_game", 1], [1, 2], "flush", ["flush", None, "play", "arena", 1, 3, None,
                                                                       [5], [], [], [7]], ["broadcast", ["flush"]]])
def test_a_view_row_that_is_none_is_a_view_row_error_and_a_client_s_patch_error(row):
    with pytest.raises(ViewRowError):
        from_places(row)
    views = Views()
    with pytest.raises(PatchError):
        views.whole(Snapshot(table="t1", seq=1, view=row if type(row) is list else [[row]], to_act=[]))


view_rows = st.builds(lambda tag, places: [tag, *places], st.sampled_from(["flush", "broadcast"]),
                      st.lists(values, max_size=5))


@settings(max_examples=200, deadline=None)
@given(view_rows, view_rows)
def test_the_patch_of_two_rows_place_by_place_gives_the_second(old, new):
    assert exact(apply(old, diff_row(old, new))) == exact(new)
    if len(old) == len(new) and old[0] == new[0]:  # a row is patched place by place, never replaced whole
        assert all(op[0] and 1 <= op[0][0] < len(new) for op in diff_row(old, new))


def test_a_broadcast_row_is_patched_in_its_public_and_seat_rows_place_by_place():
    old = ["broadcast", ["flush", 1, [2, 3]], [["flush", 0, [2, 3]], ["flush", 1, [4]]]]
    new = ["broadcast", ["flush", 1, [2, 4]], [["flush", 0, [2, 4]], ["flush", 1, [4]]]]
    assert diff_row(old, new) == [[[1, 2, 1], 4], [[2, 0, 2, 1], 4]]


# Legal actions as rows (``legalrows.py``): each game's actions by tag, their fields' places after the tag, as
# released. Append only.
ACTION_PLACES = {
    "checkered_flag": {"shift": ("gear",), "go": (), "brake": ("stop",), "timeout": ("seat",),
                       "start_spins": ("a", "b"), "spin": ("a", "b")},
    "finish_line": {"move": ("marker", "die"), "pick": ("seat", "marker"), "timeout": ("seat",), "deal": ("order",),
                    "roll": ("red", "black")},
    "flag_finish": {"draw": (), "take": ("card",), "discard": ("card",), "play": ("card",), "close_window": (),
                    "timeout": ("seat",), "deal": ("order", "first")},
    "flush": {"release": ("value", "hand", "bases"), "blind": ("base",), "stop": (), "pass_base": ("base",),
              "timeout": ("seat",), "deal": ("order", "first")},
    "race_to_the_finish": {"play": ("card",), "move": ("piece",), "sidetrack": ("piece",), "timeout": ("seat",),
                           "cut": ("cards",), "deal": ("order",)},
}


def test_released_action_places_never_move_a_field_is_only_appended():
    assert set(ACTION_PLACES) == set(GAMES)  # a new game's actions are pinned here once released
    for name, pinned in ACTION_PLACES.items():
        shapes = action_places(name)
        assert set(pinned) <= set(shapes), f"an action of {name} went: {set(pinned) - set(shapes)}"
        for tag, names in pinned.items():
            assert shapes[tag].names[:len(names)] == names, f"a field of {name}'s {tag} moved: {shapes[tag].names}"


@settings(max_examples=15, deadline=None)
@given(tables())
def test_every_seat_s_legal_list_made_rows_and_read_back_is_the_list(table):
    game, setup, _ = table
    name = game.info.name
    seen = sampled(table, 3, lambda state: [game.legal_actions(state, seat) for seat in range(setup.seats)])
    assert any(seen)
    for legal in seen:
        rows = to_rows(name, legal)
        assert rows == to_rows(name, msgspec.to_builtins(legal))  # the actions' maps make the same rows
        assert all(row[0] == action.type for row, action in zip(rows, legal))
        read = from_rows(name, msgspec.msgpack.decode(msgspec.msgpack.encode(rows)))
        assert exact(read) == exact(legal)
        assert msgspec.convert(read, list[game.action_type]) == legal


def test_an_action_row_is_its_tag_then_its_fields_and_a_patch_of_rows_steps_by_places():
    old = to_rows("flag_finish", [{"type": "draw"}, {"type": "take", "card": "G5"}, {"type": "take", "card": "R2"}])
    assert old == [["draw"], ["take", "G5"], ["take", "R2"]]
    new = [["draw"], ["take", "R2"], ["take", "B7"]]
    patch = diff(old, new)
    assert all(type(step) is int for op in patch for step in op[0])
    assert apply(old, patch) == new


@pytest.mark.parametrize("rows", [[["fly", "G5"]], [{"type": "take", "card": "G5"}], [[]], "take", [[5]]])
def test_a_legal_row_that_is_none_is_a_row_error_and_a_client_s_patch_error(rows):
    with pytest.raises(LegalRowError):
        from_rows("flag_finish", rows)
    with pytest.raises(PatchError):  # (a rows seat's: its view a row)
        Views().whole(Snapshot(table="t1", seq=1, view=["flag_finish"], to_act=[], legal=rows))
