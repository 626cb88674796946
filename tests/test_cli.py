"""The commands a newcomer runs first."""

import pytest

from server.cli import main


def test_match_prints_every_race_and_the_score_table(capsys):
    assert main(["match", "--seed", "5", "--option", "races=3", "--policies", "heuristic", "random"]) == 0
    out = capsys.readouterr().out
    assert "seed 5" in out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("race ")] == \
        ["race 1", "race 2", "race 3"]
    assert "winner" in out and "heuristic" in out


def test_a_bad_option_is_a_clear_error_not_a_traceback(capsys):
    assert main(["match", "--option", "hand_size=5"]) == 2
    err = capsys.readouterr().err
    assert "hand_size" in err and "at least 12" in err


def test_games_lists_flag_finish_with_its_options(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "flag_finish" in out and "window_ms" in out and "challenge" in out


def test_clients_say_plainly_when_no_server_answers(capsys):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["watch", f"ws://127.0.0.1:{port}", "demo"]) == 1
    assert main(["bots", f"ws://127.0.0.1:{port}", "--table", "t1"]) == 1
    err = capsys.readouterr().err
    assert err.count("cannot connect") == 2 and "Traceback" not in err and "ExceptionGroup" not in err


def test_replay_of_an_unreadable_log_names_the_line_and_fails(tmp_path, capsys):
    bad = tmp_path / "t1.log"
    bad.write_text("this is not a log\n")
    assert main(["replay", str(bad)]) == 1
    assert main(["verify", str(bad)]) == 1
    assert "line 1" in capsys.readouterr().out


async def test_create_opens_a_flush_table_with_server_bots_and_a_bot_over_the_wire_plays_it_out(nursery, capsys):
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    created = await trio.to_thread.run_sync(main, [
        "create", running.url, "--game", "flush", "--seats", "3", "--bot", "1", "--bot", "2:random",
        "--option", "rounds=1", "--bot-delay-ms", "0"])
    table = capsys.readouterr().out.strip()
    assert created == 0 and running.lobby.find(table).game.info.name == "flush"
    played = await trio.to_thread.run_sync(main, ["bots", running.url, "--table", table, "--seed", "3"])
    assert played == 0 and "to the end" in capsys.readouterr().out
    assert running.lobby.find(table).session.result() is not None


def test_create_refuses_a_bad_bot_seat_spec(capsys):
    with pytest.raises(SystemExit):
        main(["create", "ws://127.0.0.1:1", "--bot", "one"])
    assert "SEAT or SEAT:POLICY" in capsys.readouterr().err
