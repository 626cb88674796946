"""server/PROTOCOL-REFERENCE.md states every client message's required fields and defaults and documents each
game's actions and view field by field: it is exactly what `photofinish schema --markdown` prints from the
types, so it cannot drift from them, and every field a bot reads or sends has its meaning written beside it in
``rules/<game>/game.py``."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from clients.cli import main
from rules import GAMES
from server.protocol import json_schema
from server.protocol.gamedoc import SERVER_ONLY, field_meanings, struct_types
from server.protocol.legalrows import action_places
from server.protocol.viewrows import places

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "server" / "PROTOCOL-REFERENCE.md"


def test_the_page_is_what_the_generator_prints(capsys):
    assert main(["schema", "--markdown"]) == 0
    printed = capsys.readouterr().out
    assert PAGE.read_text() == printed, ("server/PROTOCOL-REFERENCE.md is out of date: run "
                                         ".venv/bin/photofinish schema --markdown > server/PROTOCOL-REFERENCE.md")


def test_every_view_field_and_every_field_a_seat_sends_has_a_meaning():
    missing = []
    for name, game in GAMES.items():
        for struct in struct_types(game.view_type):
            meanings = field_meanings(struct)
            missing += [f"{name} {struct.__name__}.{f}" for f in struct.__struct_fields__ if not meanings.get(f)]
        for action in typing.get_args(game.action_type):
            if not action.__doc__:
                missing.append(f"{name} action {action.__name__} (no docstring)")
            elif not action.__doc__.startswith(SERVER_ONLY):
                meanings = field_meanings(action)
                missing += [f"{name} {action.__name__}.{f}" for f in action.__struct_fields__ if not meanings.get(f)]
    assert not missing, f"fields without a meaning beside them: {', '.join(missing)}"


def test_the_page_names_each_field_of_the_flag_finish_view_with_its_meaning():
    page = PAGE.read_text()
    flag_finish = page.split("### `flag_finish`", 1)[1].split("\n### ", 1)[0]
    for field in GAMES["flag_finish"].view_type.__struct_fields__:
        assert f"| `{field}` |" in flag_finish
    assert "| 12 | `must_discard` | [boolean] | for each seat: it drew or took a card and must discard" in flag_finish
    assert '`{"type":"take","card":…}`' in flag_finish and "`close_window`" in flag_finish


def test_the_json_schema_carries_the_meanings_too_and_protocol_md_links_the_page():
    view = json_schema()["games"]["flag_finish"]["view"]["$defs"]["View"]
    assert view["properties"]["hand"]["description"].startswith("your cards")
    assert "(PROTOCOL-REFERENCE.md)" in (ROOT / "server" / "PROTOCOL.md").read_text()


def test_the_page_states_the_required_fields_and_defaults_of_every_client_message():
    page = PAGE.read_text()
    assert "| `hello` | `protocol` (integer) | `encoding` = `\"json\"`" in page
    assert "| `resume` | `table` (string), `token` (string) | `last_seq` = `0` (integer (≥ 0)) |" in page
    assert "`seats` = `2`" in page and "`mode` = `\"lockstep\"`" in page  # create_table's defaults


def test_the_page_gives_each_view_field_the_place_it_has_in_a_view_row():
    """A rows connection reads a view by places (``viewrows.py``): the page's places are the rows' own."""
    page = PAGE.read_text()
    for name in GAMES:
        game = page.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        view = game.split("#### The view", 1)[1].split("\n#####", 1)[0]
        listed = re.findall(r"^\| (\d+) \| `(\w+)` \|", view, re.M)
        assert [(int(place), field) for place, field in listed] == list(enumerate(places(name).names, 1))


def test_the_page_gives_each_action_a_seat_sends_as_the_row_a_rows_seat_is_offered():
    """A rows seat's legal list holds each action as its tag then its fields (``legalrows.py``): the page's rows
    are those."""
    page = PAGE.read_text()
    for name in GAMES:
        game = page.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        listed = re.findall(r'^\| `\{"type":"(\w+)"[^|]*\| `\["\w+"((?:,\w+)*)\]` \|', game, re.M)
        assert listed, name
        shapes = action_places(name)
        for tag, fields in listed:
            assert [f for f in fields.split(",") if f] == list(shapes[tag].names), (name, tag)
