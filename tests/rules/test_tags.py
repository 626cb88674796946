"""A bot reads an action's (or an event's) tag as ``action.type`` or ``tag_of(action)``, and it is the
``"type"`` the wire carries: no ``__struct_config__`` in a bot author's code."""

from __future__ import annotations

import msgspec
from hypothesis import given

from rules import SYSTEM, tag_of
from server.protocol import CODECS, Accepted, Hello, Update, decode_server
from tests.rules.test_contract_properties import PROPERTY, random_playout, tables


def wire_type(value) -> str:
    return msgspec.json.decode(msgspec.json.encode(value))["type"]


@PROPERTY
@given(tables())
def test_every_legal_action_and_every_event_reads_its_tag_as_type(table):
    game, setup, seed = table
    seen: set[str] = set()

    def check(session, index):
        turn = session.to_act()
        for actor in list(turn.seats) + ([SYSTEM] if turn.system else []):
            for action in game.legal_actions(session.state, actor):
                assert action.type == tag_of(action) == wire_type(action)
                seen.add(action.type)

    random_playout(game, setup, seed, check)
    assert seen, "a game with no legal action"


def test_events_and_protocol_messages_have_type_too():
    from rules.flag_finish.game import DRAW, Drew, Play

    assert DRAW.type == "draw" and Play("G5").type == "play" and tag_of(Play("G5")) == "play"
    assert Drew(seat=0, card=None).type == "drew" == wire_type(Drew(seat=0, card=None))
    assert Hello(protocol=1).type == "hello"
    frame = CODECS["json"].encode(Accepted(ref=3, table="t1", seq=2))
    assert decode_server(frame, CODECS["json"]).type == "accepted"
    assert Update(table="t1", seq=1, actor=0, events=[], to_act=[]).type == "update"
    assert tag_of({"type": "draw"}) is None and tag_of(None) is None  # only tagged Structs have a tag
