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


def test_photofinish_alone_lists_its_commands_and_version_says_the_version(capsys):
    import pytest as _pytest

    from clients.cli import main

    assert main([]) == 2
    said = capsys.readouterr()
    assert "play" in said.out and "watch" in said.out and "tables" in said.out and "tournament" in said.out
    assert said.err.strip() == "photofinish: a command is required: one of the above (photofinish COMMAND --help " \
                               "says more)"
    with _pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("photofinish ")
    assert main(["tournament"]) == 2 and "verify" in capsys.readouterr().out


def test_hints_print_the_command_as_the_person_runs_it(monkeypatch):
    import shutil

    from clients.words import command_name

    monkeypatch.setattr(shutil, "which", lambda name: None)  # not on PATH: the path they typed
    assert command_name(".venv/bin/photofinish") == ".venv/bin/photofinish"
    assert command_name("/usr/lib/python3/clients/cli.py") == "photofinish"
