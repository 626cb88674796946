"""Updates that carry what changed (``patches`` in the hello): the patch format's round trip on any values, and,
for every game, seat and spectator over random play, each patched update applied from the snapshot gives exactly
the view (and legal list) the server would have sent whole; one update a group of entries, whose events (for a
receiver that shows them) are every entry's in order, and none for one that does not."""

from __future__ import annotations

from difflib import SequenceMatcher

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from rules import GAMES, Rng, make_setup
from server.protocol import BotSeat, Snapshot, Update, Watch
from server.protocol import viewpatch
from server.protocol.viewpatch import PatchError, Views, apply, diff, split
from server.table import arbiter, intents, patching
from server.table.arbiter import Table
from server.table.bots import LocalBot
from server.table.settings import TableSettings

from ..rules.test_contract_properties import FAST_OPTIONS

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=3))
exact = msgspec.json.Encoder(order="sorted").encode  # equal, and of the same types (1 is not True); key order aside
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=2), inner, max_size=4), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(values, values)
def test_applying_the_diff_of_two_values_gives_the_second_and_leaves_the_first_alone(old, new):
    kept = exact(old)
    patched = apply(old, diff(old, new))
    assert exact(patched) == exact(new)
    assert exact(old) == kept
    assert msgspec.json.decode(msgspec.json.encode(diff(old, new))) == diff(old, new)  # the patch is plain JSON


@settings(max_examples=200, deadline=None)
@given(values, st.lists(values, min_size=1, max_size=4))
def test_a_chain_of_patches_gives_the_last_value(first, later):
    held = first
    for new in later:
        held = apply(held, diff(held, new))
    assert exact(held) == exact(later[-1])


def test_nothing_changed_is_the_empty_patch_a_grown_list_is_appended_to_and_a_lost_item_removed():
    view = {"pile": [1, 2], "turn": 0}
    assert diff(view, view) == []
    assert diff(view, {"pile": [1, 2, 3], "turn": 0}) == [[["pile", 2], 3]]
    assert diff(view, {"pile": [1], "turn": 0}) == [[["pile", 1]]]
    assert diff(view, {"pile": [1, 2]}) == [[["turn"]]]
    assert diff({"hand": ["a", "b", "c"]}, {"hand": ["a", "c"]}) == [[["hand", 1]]]  # a card played from a hand
    assert apply({"hand": ["a", "b", "c"]}, [[["hand", 1]]]) == {"hand": ["a", "c"]}


moved = st.lists(st.sampled_from("abcdef") | st.integers(0, 3), max_size=12)  # lists whose items move about


@settings(max_examples=300, deadline=None)
@given(moved, moved)
def test_lists_whose_items_moved_are_patched_by_removing_and_inserting(old, new):
    patch = diff({"legal": old}, {"legal": new})
    assert exact(apply({"legal": old}, patch)) == exact({"legal": new})
    assert len(patch) <= max(1, len(old), len(new))  # never an operation more than an item gone or come


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 30), unique=True, max_size=14), st.data())
def test_a_hand_that_lost_and_gained_cards_is_matched_as_difflib_matches_it(old, data):
    """Distinct items whose kept ones stay in order (a hand, a legal list): the one-pass match (``_in_order``)
    finds what ``difflib`` finds, at a fraction of its cost."""
    kept = [x for x in old if data.draw(st.booleans())]
    new = list(kept)
    for item in data.draw(st.lists(st.integers(31, 60), unique=True, max_size=6)):
        new.insert(data.draw(st.integers(0, len(new))), item)
    found = SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    assert viewpatch._in_order(old, new) == [code for code in found if code[0] != "equal"]  # (those it skips)
    assert viewpatch._in_order([1, 2, 1], [1]) is None and viewpatch._in_order([1, 2], [2, 1]) is None  # difflib's


def test_an_item_new_in_the_middle_is_inserted_and_one_at_the_end_appended():
    hand = {"hand": ["a", "b", "c", "d", "e", "f"]}
    assert diff(hand, {"hand": ["a", "b", "x", "c", "d", "e", "f", "y"]}) == [[["hand", 6], "y"],
                                                                           [["hand", 2], "x", 1]]
    assert diff(hand, {"hand": ["b", "c", "d", "x", "e", "f"]}) == [[["hand", 4], "x", 1], [["hand", 0]]]
    assert apply(hand, [[["hand", 4], "x", 1], [["hand", 0]]]) == {"hand": ["b", "c", "d", "x", "e", "f"]}


@pytest.mark.parametrize("patch", [[[["nope", 0], 1]], [[["turn"], 1, 1]], [[["pile", 0], 1, 2]], [[["pile", 5], 1]],
                                   [[[]]], [[["turn", 0], 1]], [[1, 2, 3]]])
def test_a_patch_that_does_not_fit_is_a_patch_error(patch):
    with pytest.raises(PatchError):
        apply({"pile": [1, 2], "turn": 0}, patch)


OUTGOING = patching.outgoing  # the real one (each example patches it again)


class PatchingBot(LocalBot):
    """A server bot that asked for patches: it plays on the views it mends from them, and keeps for the test
    what the server would have sent whole (``whole``) and what it made of what was sent (``mended``)."""

    patches = True
    events = True
    rows = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.views, self.whole, self.mended, self.patched, self.parts = Views(), [], [], 0, []
        self.sent = []  # every message as it was sent, before ``Views`` made it whole

    def deliver(self, message):
        self.patched += type(message) is Update and message.view_patch is not None
        self.sent.append(message)
        message = self.views.whole(message)
        self.parts.extend(split(message))
        if type(message) in (Update, Snapshot) and message.view is not None:
            self.mended.append(message)
            game = self.table.game
            message = msgspec.structs.replace(message, view=msgspec.convert(message.view, game.view_type),
                                              legal=msgspec.convert(message.legal, list[game.action_type] | None))
        return super().deliver(message)


class PatchingSpectator:
    """A spectator that asked for patches."""

    patches = True
    events = True
    rows = False
    latency = None

    def __init__(self) -> None:
        self.views, self.whole, self.mended, self.patched, self.parts = Views(), [], [], 0, []
        self.sent = []  # every message as it was sent, before ``Views`` made it whole

    def deliver(self, message) -> bool:
        self.patched += type(message) is Update and message.view_patch is not None
        self.sent.append(message)
        message = self.views.whole(message)
        self.parts.extend(split(message))
        if type(message) in (Update, Snapshot) and message.view is not None:
            self.mended.append(message)
        return True

    def close(self, code, message) -> None:
        pass


def play(game, setup, seed, monkeypatch, events: bool = True, rows: bool = False) -> tuple[Table, list]:
    """A table of patching bots and two patching spectators (that show events, or not; that asked for rows, or
    not), played to its end; the table and every patching receiver."""
    receivers = []

    def bot(*args, **kwargs):
        made = PatchingBot(*args, **kwargs)
        made.events, made.rows = events, rows
        receivers.append(made)
        return made

    def spy(table, receiver, message):
        if type(message) in (Update, Snapshot) and message.view is not None:
            receiver.whole.append(message)
        return OUTGOING(table, receiver, message)

    monkeypatch.setattr(arbiter, "LocalBot", bot)
    monkeypatch.setattr(patching, "outgoing", spy)
    spectators = [PatchingSpectator(), PatchingSpectator()]
    for spectator in spectators:
        spectator.events, spectator.rows = events, rows

    async def main():
        table = Table("t1", game, setup, seed, TableSettings(bots=tuple(BotSeat(s) for s in range(setup.seats)),
                                                                bot_delay_ms=20))
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            await table.submit(intents.Watch(spectators[0], Watch(table="t1")))
            with trio.move_on_after(0.2):
                await table.over.wait()
            await table.submit(intents.Watch(spectators[1], Watch(table="t1")))  # one that comes later
            await table.over.wait()
            nursery.cancel_scope.cancel()
        return table

    table = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return table, receivers + spectators


@pytest.mark.parametrize("rows", [False, True], ids=["maps", "rows"])
@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 6), events=st.booleans())
def test_patched_updates_mend_to_the_views_the_server_would_send_whole(name, rows, seed, seats, events,
                                                                       monkeypatch):
    """Views as maps, or as rows (hello ``rows``: each patch applied to the row held, the row made a map again)."""
    game = GAMES[name]
    seats = max(game.info.min_seats, min(seats, game.info.max_seats))
    mode = Rng(seed).choice(list(game.info.modes))
    setup = make_setup(game.info, seats, mode, FAST_OPTIONS.get(name, [{}])[0])
    table, receivers = play(game, setup, seed, monkeypatch, events, rows)
    for receiver in receivers[:-1]:  # (the spectator who came later may have come at the end)
        assert len(receiver.whole) > 1 and receiver.patched >= len(receiver.whole) // 2  # most came as patches
    sent_lists = 0
    for receiver in receivers:
        views = [m.view for m in receiver.sent if type(m) in (Update, Snapshot) and m.view is not None]
        steps = [step for m in receiver.sent if type(m) is Update and m.view_patch for op in m.view_patch
                 for step in op[0]]
        if rows:  # every view sent a row of this game, every patch's path by places
            assert views and all(type(view) is list and view[0] == name for view in views)
            assert steps and all(type(step) is int for step in steps)
        else:
            assert views and not any(type(view) is list for view in views)
        lists = [m.legal for m in receiver.sent if type(m) in (Update, Snapshot) and m.legal]
        legal_steps = [step for m in receiver.sent if type(m) is Update and m.legal_patch for op in m.legal_patch
                       for step in op[0]]
        if rows:  # a seat's every action sent a row (its tag, then its fields), every legal patch by places
            assert all(type(action) is list and type(action[0]) is str for listed in lists for action in listed)
            assert all(type(step) is int for step in legal_steps)
        else:
            assert not any(type(action) is list for listed in lists for action in listed)  # structs, as maps
        sent_lists += len(lists)
        assert len(receiver.mended) == len(receiver.whole)
        for whole, mended in zip(receiver.whole, receiver.mended):
            assert mended.seq == whole.seq
            assert exact(mended.view) == exact(whole.view)
            assert exact(mended.legal) == exact(whole.legal)
        start = next(m.seq for m in receiver.parts if type(m) in (Update, Snapshot) and m.view is not None)
        updates = [m for m in receiver.parts if type(m) is Update and m.seq > start]
        seat = getattr(receiver, "seat", None)
        if events:  # every entry after its first view, one update each once split, with its events in order
            entries = table.log.accepted_after(start)
            assert [(m.seq, m.actor) for m in updates] == [(e.seq, e.actor) for e in entries]
            assert exact([m.events for m in updates]) == exact([[game.redact(e, seat) for e in entry.events]
                                                               for entry in entries])
        else:  # no events, and only updates that carry a view (or the result)
            assert all(not m.events and (m.view is not None or m.result is not None) for m in updates)
        assert updates[-1].seq == table.log.accepted_seq  # the last entry's update, with the game's end
    assert sent_lists  # the seats were sent legal lists whole


def test_a_short_list_with_two_items_changed_is_sent_whole_and_one_changed_in_place():
    """An action's row (``["take", "G5"]``) that became another is one operation, not matched item by item."""
    assert diff({"a": ["take", "G5"]}, {"a": ["play", "R3"]}) == [[["a"], ["play", "R3"]]]
    assert diff({"a": ["take", "G5"]}, {"a": ["take", "R3"]}) == [[["a", 1], "R3"]]
    assert diff([["take", "G5"], ["draw"]], [["play", "R3"], ["draw"]]) == [[[0], ["play", "R3"]]]



def whole_where_disjoint(name: str, seed: int, moves: int) -> int:
    """Random play of ``name``: wherever a seat's new legal list shares no action with its last (``disjoint``), the
    patch ``diff`` works out is the whole list, as maps and as rows. Returns how many such lists it checked."""
    from rules import Session
    from server.protocol.legalrows import to_rows
    game = GAMES[name]
    mode = game.info.modes[seed % len(game.info.modes)]
    session = Session(game, make_setup(game.info, game.info.min_seats, mode, FAST_OPTIONS.get(name, [{}])[0]), seed)
    session.run_chance()
    rng = Rng(seed)
    last: dict[int, list] = {}
    checked = 0
    for _ in range(moves):
        for seat in range(game.info.min_seats):
            legal = game.legal_actions(session.state, seat)
            if not legal:
                continue
            before = last.get(seat)
            if patching.disjoint(before, legal):
                checked += 1
                for form in (lambda actions: msgspec.to_builtins(actions, str_keys=True),
                             lambda actions: to_rows(name, actions)):
                    old, new = form(before), form(legal)
                    assert diff(old, new) == [[[], new]], (name, before, legal)
            last[seat] = legal
        seats = [s for s in session.to_act().seats if game.legal_actions(session.state, s)]
        if session.result() is not None or not seats:
            break
        seat = rng.choice(seats)
        session.act(seat, rng.choice(game.legal_actions(session.state, seat)))
    return checked


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32), moves=st.integers(5, 120))
def test_a_legal_list_sharing_no_action_with_the_last_is_patched_whole_so_its_patch_need_not_be_worked_out(
        name, seed, moves):
    """``patching.disjoint`` skips working out a legal list's patch where it would be the whole list (a seat that
    drew or discarded: most of its updates); for every game, in random play."""
    whole_where_disjoint(name, seed, moves)


def test_a_flag_finish_seat_drawing_and_discarding_gets_legal_lists_sharing_nothing():
    assert whole_where_disjoint("flag_finish", 1, 120) > 10
