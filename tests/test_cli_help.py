"""`photofinish tournament X --help` explains every argument of every subcommand X, and reads as help."""

from __future__ import annotations

import argparse

import pytest

from clients.cli import build_parser


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


TOURNAMENT = _subcommands(_subcommands(build_parser())["tournament"])


@pytest.mark.parametrize("name", sorted(TOURNAMENT))
def test_every_argument_of_every_tournament_subcommand_has_a_help_text(name, capsys):
    parser = TOURNAMENT[name]
    missing = [action.option_strings[0] if action.option_strings else action.dest
               for action in parser._actions if not (action.help or "").strip()]
    assert missing == [], f"photofinish tournament {name}: no help for {', '.join(missing)}"
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--help"])
    shown = capsys.readouterr().out
    assert exit_.value.code == 0 and f"photofinish tournament {name}" in shown
    for action in parser._actions:  # each one is shown, with its words (argparse fills in no %-format left)
        assert (action.option_strings[0] if action.option_strings else action.dest) in shown
    assert "%(" not in shown and "None" not in shown
