"""The commands a newcomer runs first."""

import pytest

from clients.cli import main


def test_match_prints_every_race_and_the_score_table(capsys):
    assert main(["match", "--seed", "5", "--option", "races=3", "--policies", "heuristic", "random"]) == 0
    out = capsys.readouterr().out
    assert "seed 5" in out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("race ")] == \
        ["race 1", "race 2", "race 3"]
    assert "winner" in out and "heuristic" in out


@pytest.mark.parametrize("game, options", [
    ("flag_finish", {"races": 2}), ("flush", {"rounds": 2}), ("race_to_the_finish", {}), ("checkered_flag", {}),
    ("finish_line", {}), ("finish_line", {"play_on": True}),
])
def test_match_names_the_winners_and_prints_each_seats_place_and_score_for_every_game(capsys, game, options):
    import json

    from clients.offline import play_game
    from rules import get_game, make_setup
    from rules.bots import get_policy

    policies = ["heuristic", "random", "random"]
    flags = [arg for name, value in options.items() for arg in ("--option", f"{name}={json.dumps(value)}")]
    assert main(["match", "--game", game, "--seed", "11", "--policies", *policies, *flags]) == 0
    out = capsys.readouterr().out
    rules = get_game(game)  # the same match again, straight from the rules: what the table must say
    setup = make_setup(rules.info, 3, rules.info.modes[-1], options)
    session = play_game(rules, setup, 11, [get_policy(game, p) for p in policies])
    result, places = session.result(), rules.placings(session.state)
    assert "None" not in out
    said = next(line for line in out.splitlines() if " wins" in line or "share the win" in line)
    from clients.words import and_list

    assert said.split(" wins")[0].split(" share")[0] == and_list(f"seat {s + 1}" for s in result.winners)
    assert "[" not in out  # no Python lists: "scores 9, 55 and 70"
    header, *rows = out.split("\n\n")[-1].strip().splitlines()
    assert len(rows) == 3
    assert header.split()[:3] == ["seat", "policy", "place"]
    for seat, row in enumerate(rows):
        cells = row.split()
        assert cells[:3] == [str(seat + 1), policies[seat], str(places[seat])]  # seats counted from 1
        if game == "finish_line":  # its result's scores are its places: no second column repeating them
            assert "score" not in header and cells[3:] in ([], ["winner"])
        else:
            assert "score" in header and cells[3] == str(result.scores[seat])
            assert ("lower is better" in header) == result.lower_is_better
        assert (cells[-1] == "winner") == (seat in result.winners)


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
        "create", running.url, "--game", "flush", "--seats", "3", "--bot", "2", "--bot", "3:random",
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


def test_tracks_lists_the_built_in_tracks_and_checks_a_file_naming_its_bad_line(tmp_path, capsys):
    assert main(["tracks"]) == 0
    assert "travel_oval" in capsys.readouterr().out
    good, bad = tmp_path / "good.track", tmp_path / "bad.track"
    good.write_text("name: Tiny\nspaces: 12\ndanger: 3-4\n")
    bad.write_text("name: Tiny\nspaces: 12\ndanger: 3-40\n")
    assert main(["tracks", str(good), str(bad)]) == 1
    captured = capsys.readouterr()
    assert "good.track: ok - Tiny" in captured.out
    assert "bad.track: line 3: range 3-40 is not within spaces 1-12" in captured.err


async def test_a_table_on_a_bad_track_file_is_refused_by_the_server_and_a_good_one_is_raced(nursery, tmp_path,
                                                                                           capsys):
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    bad = tmp_path / "bad.track"
    bad.write_text("name: Loop\nspaces: 20\nnarrow: 5-4\n")
    refused = await trio.to_thread.run_sync(main, ["create", running.url, "--game", "checkered_flag",
                                                   "--track", str(bad)])
    assert refused == 2 and "line 3: range 5-4" in capsys.readouterr().err
    good = tmp_path / "good.track"
    good.write_text("name: Loop\nspaces: 20\nlaps: 2\ndanger: 6-8\nnarrow: 12-14\n")
    created = await trio.to_thread.run_sync(main, ["create", running.url, "--game", "checkered_flag", "--track",
                                                   str(good), "--bot", "1", "--bot", "2:random",
                                                   "--bot-delay-ms", "0"])
    from rules.checkered_flag.game import track_of

    table = running.lobby.find(capsys.readouterr().out.strip())
    track = track_of(table.session.state)
    assert created == 0 and track.name == "Loop" and track.finish == 40


@pytest.fixture
def process_gc():
    """`load` settles the collector for its whole process; give the test session its own settings back."""
    import gc

    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


async def test_load_stops_at_its_count_and_prints_the_table(nursery, capsys, process_gc):
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    code = await trio.to_thread.run_sync(main, ["load", running.url, "--tables", "2", "--actions", "100",
                                                "--seconds", "60"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2 Flag Finish Challenge tables" in out and "accepted/s" in out
    assert main(["load", running.url, "--tables", "0"]) == 2


async def test_load_can_speak_as_a_bot_asking_for_the_smallest_updates(nursery, capsys, process_gc):
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    code = await trio.to_thread.run_sync(main, ["load", running.url, "--tables", "2", "--actions", "100",
                                                "--seconds", "60", "--patches", "--no-events",
                                                "--encoding", "msgpack", "--rows"])
    out = capsys.readouterr().out
    assert code == 0
    assert "patches True, events False, msgpack rows" in out and "accepted/s" in out and "bytes per action" in out


def test_serve_refuses_a_rate_limit_that_would_drop_everything(capsys):
    assert main(["serve", "--rate", "0"]) == 2
    assert "--rate" in capsys.readouterr().err


async def test_tables_lists_every_table_with_its_seats_names_and_states(nursery, capsys):
    import trio

    from clients.client import open_client
    from server.app import run_server
    from server.protocol import BotSeat, CreateTable

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    waiting = await running.lobby.create(CreateTable(game="flush", mode="lockstep", seats=3, name="evening game",
                                                     bots=[BotSeat(2, "random")]))
    async with open_client(running.url) as alice, open_client(running.url) as bob:
        await alice.take_seat(waiting.id, seat=0, name="alice")
        await bob.watch(waiting.id)  # (a seat's own connection does not also watch)
        assert await trio.to_thread.run_sync(main, ["tables", running.url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{waiting.id}  waiting  Flush (flush, lockstep)")
    assert "seats: 1 alice, 2 free, 3 random bot" in lines[0] and "1 watching" in lines[0]
    assert "'evening game'" in lines[0]


async def test_create_sets_a_tables_ordering(nursery, capsys):
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    for extra, ordering, fair_ms in (([], "fair", 50), (["--ordering", "arrival"], "arrival", 50),
                                     (["--fair-ms", "80"], "fair", 80)):
        created = await trio.to_thread.run_sync(main, [
            "create", running.url, "--mode", "challenge", "--bot", "2", *extra])
        table = running.lobby.find(capsys.readouterr().out.strip())
        assert created == 0 and (table.ordering, table.fair_ms) == (ordering, fair_ms)


async def test_create_with_a_spectator_delay_keeps_its_spectators_that_far_behind(nursery, capsys):
    import trio

    from server.app import run_server
    from server.table.seats import token_hash

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    created = await trio.to_thread.run_sync(main, ["create", running.url, "--spectator-delay", "30", "--bot", "1"])
    table = running.lobby.find(capsys.readouterr().out.strip())
    assert created == 0 and table.info().spectator_delay_ms == 30_000 and table.stream.delay == 30.0
    created = await trio.to_thread.run_sync(main, ["create", running.url, "--spectator-delay-entries", "3",
                                                   "--bot", "1"])
    table = running.lobby.find(capsys.readouterr().out.strip())
    assert created == 0 and table.info().spectator_delay_entries == 3 and table.stream.delay_entries == 3
    refused = await trio.to_thread.run_sync(main, ["create", running.url, "--broadcast"])
    assert refused != 0 and "needs --spectator-delay or --spectator-delay-entries" in capsys.readouterr().err
    created = await trio.to_thread.run_sync(main, ["create", running.url, "--spectator-delay", "5", "--broadcast"])
    printed = capsys.readouterr()
    table = running.lobby.find(printed.out.strip())
    key = printed.err.split("--broadcast-key ")[1].split()[0]  # the command that watches it, key and all
    assert created == 0 and table.stream.key_hash == token_hash(key)
    assert f"http://127.0.0.1:{running.port}/#/broadcast/{table.id}/{key}" in printed.err  # and the page
    assert " play " in printed.err  # a free seat: how to take it
    created = await trio.to_thread.run_sync(main, ["create", running.url, "--seats", "2", "--bot", "1", "--bot", "2"])
    printed = capsys.readouterr()
    assert created == 0 and " play " not in printed.err and f"watch {running.url} " in printed.err  # none free


async def test_tournament_create_gives_stand_in_bots_a_pace_people_can_play_against(nursery, capsys):
    """A stand-in plays a no-show's seat against the people at the table: at full speed it would end a
    Challenge race a moment after it sat down, before they could play."""
    import trio

    from server.app import run_server
    from server.protocol.commandline import human_pace_ms

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    for extra, mode, delay in ((["--mode", "challenge"], "challenge", human_pace_ms("challenge")),
                               (["--mode", "lockstep"], "lockstep", human_pace_ms("lockstep")),
                               (["--mode", "challenge", "--bot-delay-ms", "0"], "challenge", 0)):
        created = await trio.to_thread.run_sync(main, ["tournament", "create", running.url, *extra])
        director = running.lobby.tournaments.find(capsys.readouterr().out.strip())
        assert created == 0 and (director.request.mode, director.request.bot_delay_ms) == (mode, delay)
    assert human_pace_ms("challenge") >= 1500


async def test_tournament_drop_takes_a_players_name_and_says_plainly_when_no_player_is_named(nursery, capsys):
    import trio

    from clients.client import open_client
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2)
        tid = created.tournament.tournament
        ana, ben = await client.register(tid, "Ana"), await client.register(tid, "Ben")
    drop = ["tournament", "drop", running.url, tid, "--secret", created.secret]
    assert await trio.to_thread.run_sync(main, drop) == 2
    err = capsys.readouterr().err
    assert "--player" in err and "None" not in err and "Traceback" not in err
    assert await trio.to_thread.run_sync(main, [*drop, "--player", "ana"]) == 0
    assert await trio.to_thread.run_sync(main, [*drop, "--player", ben.player]) == 0
    players = {p.player: p for p in running.lobby.tournaments.find(tid).snapshot().players}
    assert players[ana.player].dropped and players[ben.player].dropped


async def test_tournament_create_keeps_fractional_points_and_refuses_what_a_format_does_not_take(nursery, capsys):
    """The organiser's trial: `--points 2.5,1,0` was stored as 2,1,0; `--top 3` was taken and ignored by an
    arena and a round robin; `--bye-points -1` was taken."""
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    made = await trio.to_thread.run_sync(main, ["tournament", "create", running.url, "--seats", "3",
                                                "--points", "2.5,1,0"])
    tid = capsys.readouterr().out.strip()
    assert made == 0 and running.lobby.tournaments.find(tid).state.settings.points == {3: (2.5, 1, 0)}
    for argv, words in ((["--format", "arena", "--top", "3"], "final follows Swiss"),
                        (["--format", "round_robin", "--top", "3"], "final follows Swiss"),
                        (["--format", "round_robin", "--rounds", "4"], "computes its own")):
        refused = await trio.to_thread.run_sync(main, ["tournament", "create", running.url, *argv])
        said = capsys.readouterr()
        assert refused != 0 and words in said.out + said.err, said
    with pytest.raises(SystemExit) as refused:  # said before connecting
        main(["tournament", "create", running.url, "--bye-points", "-1"])
    assert refused.value.code == 2 and "0 or more" in capsys.readouterr().err
    made = await trio.to_thread.run_sync(main, ["tournament", "create", running.url, "--format", "round_robin"])
    assert made == 0  # (no --rounds: a round robin computes its own)
    assert len(running.lobby.tournaments.directors) == 2


def test_a_bad_option_value_says_what_it_takes_in_words_not_a_type_name(capsys):
    assert main(["match", "--option", "races=x"]) == 2
    err = capsys.readouterr().err
    assert "option 'races' takes a whole number, not 'x'" in err and "int" not in err


async def test_tournament_create_takes_counts_as_typed_and_register_says_a_player_waits(nursery, capsys):
    """`--top 3` is a final of 3 and `--late-rounds 1` one round of late entry (they were read as 0-based
    seats: a final of 2, no late entry); `--max-players 2` caps the places and the third registrant is told
    they are on the waitlist."""
    import trio

    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    made = await trio.to_thread.run_sync(main, ["tournament", "create", running.url, "--seats", "2", "--top", "3",
                                                "--late-rounds", "1", "--max-players", "2"])
    tid = capsys.readouterr().out.strip()
    settings = running.lobby.tournaments.find(tid).state.settings
    assert made == 0 and (settings.top_n, settings.late_until, settings.max_players) == (3, 1, 2)
    for name in ("Ana", "Ben", "Cy"):
        assert await trio.to_thread.run_sync(main, ["tournament", "register", running.url, tid, "--name", name]) == 0
    assert "number 1 on its waitlist" in capsys.readouterr().err
    assert await trio.to_thread.run_sync(main, ["tournament", "standings", running.url, tid]) == 0
    assert "waitlist (2 places): 1. Cy" in capsys.readouterr().out
