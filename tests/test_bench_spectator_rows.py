"""`python -m bench.spectator_bench --rows`: rows it cannot read against a row with no spectators are refused
in words before any row runs (it crashed with a traceback after running them all, minutes later)."""

from __future__ import annotations

import argparse

import pytest

from bench.spectator_bench import parse_rows


def parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog="spectator_bench")


def test_rows_are_read_with_one_node_unless_said():
    assert parse_rows(parser(), "1:0,1:1000:3,10:0,10:100") == [(1, 0, 1), (1, 1000, 3), (10, 0, 1), (10, 100, 1)]


@pytest.mark.parametrize("rows, said", [("1:1000:3", "add a row with no spectators at 1:0"),
                                        ("1:0,10:100", "add a row with no spectators at 10:0"),
                                        ("1:x", "each row is TABLES:SPECTATORS[:NODES]")])
def test_rows_without_their_alone_row_or_not_numbers_are_refused_in_words(rows, said, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_rows(parser(), rows)
    assert exit_.value.code == 2 and said in capsys.readouterr().err
