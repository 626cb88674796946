"""PROTOCOL.md is the bot author's whole manual: it names every message both ways with every field, every
error code the server can send (each member of ``server.protocol.Code``, in its "Error codes" section) and every
code of a game's rules, and `photofinish schema` prints the types it describes."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import msgspec

from clients.cli import main
from server.protocol import ClientMessageType, Code, ServerMessageType

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "server" / "PROTOCOL.md").read_text()
RULES_CODE = re.compile(r'RulesError\(\s*"([a-z_]+)"')  # a game's refusal: the rules' own vocabulary
INTERNAL_RULES_CODES = {"bad_history"}  # a log whose chance does not follow from its seed: replay and restore say so


def structs(union) -> list[type]:
    """The message types of a union and every Struct they hold, each once."""
    seen: list[type] = []
    todo = list(typing.get_args(union))
    while todo:
        kind = todo.pop()
        if kind in seen:
            continue
        seen.append(kind)
        for hint in typing.get_type_hints(kind).values():
            for inner in [hint, *typing.get_args(hint), *(a for h in typing.get_args(hint) for a in typing.get_args(h))]:
                if isinstance(inner, type) and issubclass(inner, msgspec.Struct) and inner not in seen:
                    todo.append(inner)
    return seen


def test_every_message_and_field_is_in_protocol_md():
    missing = []
    for union in (ClientMessageType, ServerMessageType):
        for kind in structs(union):
            tag = kind.__struct_config__.tag
            if isinstance(tag, str) and f"`{tag}`" not in DOC:
                missing.append(f"message {tag}")
            missing += [f"{kind.__name__}.{name}" for name in kind.__struct_fields__ if f"`{name}`" not in DOC]
    assert not missing, f"PROTOCOL.md does not name: {', '.join(missing)}"


def test_every_error_code_a_client_can_meet_is_in_protocol_md():
    section = DOC.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    missing = {f"{code} (server.protocol.Code)" for code in Code if f"`{code}`" not in section}
    for path in (ROOT / "rules").rglob("*.py"):
        for match in RULES_CODE.finditer(path.read_text()):
            if f"`{match.group(1)}`" not in DOC and match.group(1) not in INTERNAL_RULES_CODES:
                missing.add(f"{match.group(1)} ({path.relative_to(ROOT)})")
    assert not missing, f"PROTOCOL.md does not name these codes: {', '.join(sorted(missing))}"


def test_schema_prints_the_json_schema_of_every_message_and_of_each_games_actions_and_views(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    client = {kind.__struct_config__.tag for kind in typing.get_args(ClientMessageType)}
    server = {kind.__struct_config__.tag for kind in typing.get_args(ServerMessageType)}
    assert client <= set(schema["client_messages"]["tags"]) and server <= set(schema["server_messages"]["tags"])
    assert set(schema["games"]) == {"flag_finish", "flush", "race_to_the_finish", "checkered_flag", "finish_line"}
    for game in schema["games"].values():
        assert game["actions"]["$defs"] and game["view"]["$defs"]
