"""Every command of the README, given bad arguments: a non-zero exit, a message that names the problem, and
never a traceback. In-process through `main` where the process does not matter; a real process where it does
(Ctrl-C, a pipe closed early)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from clients.cli import main
from clients.client import open_client
from server.lobby import Lobby
from server.protocol import BotSeat, CreateTable

ROOT = Path(__file__).resolve().parent.parent


def run(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process: its exit code (argparse's SystemExit included), stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def assert_refused(code, out: str, err: str, *named: str) -> None:
    text = out + err
    assert code not in (0, None), f"exit {code}: {text}"
    assert "Traceback" not in text and "ExceptionGroup" not in text, text
    for word in named:
        assert word.lower() in text.lower(), f"{word!r} not in {text!r}"


def finished_log(folder: Path) -> Path:
    """A short finished Flag Finish game of server bots at a watchable pace, logged in ``folder``, in virtual
    time (played back, it takes a while)."""
    async def play() -> Path:
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, folder, "never")
            table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, seed=3, practice=True,
                                                   options={"races": 1}, bots=[BotSeat(0), BotSeat(1, "random")],
                                                   bot_delay_ms=200))
            await table.over.wait()
            await table.stop()
            nursery.cancel_scope.cancel()
            return table.store.path

    return trio.run(play, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Bad files of every kind (and one good log): the placeholders the cases below use."""
    folder = tmp_path_factory.mktemp("files")
    (folder / "empty").write_text("")
    (folder / "blank").write_text("  \n\n")
    (folder / "binary").write_bytes(b"\xff\xfe\x00name: Loop\n\x80\x81")
    (folder / "dir").mkdir()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    return {"empty": str(folder / "empty"), "blank": str(folder / "blank"), "binary": str(folder / "binary"),
            "dir": str(folder / "dir"), "missing": str(folder / "missing"), "nofolder": str(folder / "no" / "x.json"),
            "log": str(finished_log(tmp_path_factory.mktemp("data"))), "closed": f"ws://127.0.0.1:{closed}"}


# (argv, words the message must contain). {name} is one of the files above.
CASES = [
    # no command, an unknown one
    ([], "required"),
    (["fly"], "invalid choice"),
    # serve (every check runs before anything starts; the test fails if the server starts)
    (["serve", "--port", "99999"], "0-65535"),
    (["serve", "--port", "-1"], "0-65535"),
    (["serve", "--port", "http"], "port"),
    (["serve", "--port", "0", "--data", "{empty}"], "is a file"),  # port 0: the same with 8765 in use
    (["serve", "--port", "0", "--data", "{empty}/tables"], "cannot create the data directory"),
    (["serve", "--host", "192.0.2.1", "--port", "0"], "cannot listen on 192.0.2.1"),
    (["serve", "--host", "", "--port", "0"], "--host"),
    (["serve", "--rate", "0"], "--rate"),
    (["serve", "--rate", "inf"], "--rate"),
    (["serve", "--durability", "sometimes"], "invalid choice"),
    (["serve", "--trusted-proxy", "proxy.lan"], "a trusted proxy is an IP address or network"),
    (["serve", "--trusted-proxy", "10.0.0.0/33"], "a trusted proxy is an IP address or network"),
    (["serve", "--cluster", "http://127.0.0.1:6379"], "not a Redis address"),
    (["serve", "--cluster", "redis://127.0.0.1:x"], "bad port"),
    (["serve", "--public-url", "ws://127.0.0.1:8765"], "--cluster"),
    (["serve", "--cluster", "redis://127.0.0.1:6379", "--host", "0.0.0.0"], "--public-url"),
    (["serve", "--cluster", "redis://127.0.0.1:6379", "--heartbeat", "0"], "--heartbeat"),
    (["serve", "--cluster", "redis://127.0.0.1:6379", "--forget-after", "-1"], "--forget-after"),
    (["serve", "--cluster", "redis://127.0.0.1:6379", "--forget-after", "nan"], "--forget-after"),
    # create
    (["create", "127.0.0.1:8765"], "did you mean ws://127.0.0.1:8765"),
    (["create", "http://127.0.0.1:8765"], "ws://127.0.0.1:8765"),
    (["create", "ws://127.0.0.1:99999"], "out of range"),
    (["create", "ws://"], "no host"),
    (["create", "{closed}", "--seats", "0"], "1 or more"),
    (["create", "{closed}", "--seats", "two"], "'two'"),
    (["create", "{closed}", "--game", "chess"], "invalid choice"),
    (["create", "{closed}", "--bot", "one"], "SEAT or SEAT:POLICY"),
    (["create", "{closed}", "--option", "races"], "NAME=VALUE"),
    (["create", "{closed}", "--turn-time-ms", "-5"], "0 or more"),
    (["create", "{closed}", "--ordering", "fastest"], "invalid choice"),
    (["create", "{closed}", "--fair-ms", "-1"], "0 or more"),
    (["create", "{closed}", "--spectator-delay", "4000"], "0 to 3600 seconds"),
    (["create", "{closed}", "--spectator-delay-entries", "-1"], "0 to 10000 entries"),
    (["create", "{closed}", "--game", "checkered_flag", "--track", "{missing}"], "cannot read"),
    (["create", "{closed}", "--game", "checkered_flag", "--track", "{empty}"], "is empty"),
    (["create", "{closed}", "--game", "checkered_flag", "--track", "{blank}"], "is empty"),
    (["create", "{closed}", "--game", "checkered_flag", "--track", "{binary}"], "not UTF-8"),
    (["create", "{closed}", "--game", "checkered_flag", "--track", "{dir}"], "is a directory"),
    (["create", "{closed}"], "cannot connect"),
    # watch
    (["watch", "{closed}"], "required"),
    (["watch", "localhost:8765", "demo"], "did you mean"),
    (["watch", "ws://[::1", "demo"], "not a server address"),
    (["watch", "{closed}", "demo"], "cannot connect"),
    # bots
    (["bots", "{closed}"], "--table"),
    (["bots", "{closed}", "--table", "t1", "--seats", "-1"], "1 or more"),
    (["bots", "{closed}", "--table", "t1", "--seed", "-5"], "0 to 2**64-1"),
    (["bots", "{closed}", "--table", "t1", "--policy", "genius"], "invalid choice"),
    (["bots", "{closed}", "--table", "t1"], "cannot connect"),
    # play
    (["play", "http://127.0.0.1:8765", "--table", "open"], "ws://127.0.0.1:8765"),
    (["play", "{closed}", "--table", "open"], "cannot connect"),
    (["play", "{closed}", "--table", "open", "--seat", "first"], "'first'"),
    # load
    (["load", "{closed}", "--tables", "0"], "--tables"),
    (["load", "{closed}", "--seconds", "-1"], "--seconds"),
    (["load", "{closed}", "--rate", "nan"], "--rate"),
    (["load", "{closed}", "--seconds", "1"], "cannot connect"),
    (["load", "127.0.0.1:1"], "did you mean"),
    (["load", "{closed}", "--no-events"], "--no-events needs --patches"),
    (["load", "{closed}", "--rows", "--patches"], "--rows needs --patches and --encoding msgpack"),
    (["load", "{closed}", "--encoding", "cbor"], "invalid choice"),
    # replay
    (["replay", "{missing}"], "no such file"),
    (["replay", "{empty}"], "empty"),
    (["replay", "{binary}"], "line 1"),
    (["replay", "{dir}"], "directory"),
    (["replay", "{log}", "--seat", "9"], "seats 1-2"),
    (["replay", "{log}", "--seat", "0"], "from 1"),
    (["replay", "{log}", "--speed", "-1"], "a speed is"),
    (["replay", "{log}", "--speed", "fast"], "a speed is"),
    # playback
    (["playback", "{closed}", "t1", "--speed", "0"], "more than 0"),
    (["playback", "{closed}", "t1", "--speed", "-1"], "more than 0"),
    (["playback", "{closed}", "t1"], "cannot connect"),
    # verify
    (["verify", "{missing}"], "no such file"),
    (["verify", "{empty}"], "empty"),
    (["verify", "{binary}"], "line 1"),
    (["verify", "{dir}"], "directory"),
    # export
    (["export", "{log}", "-o", "{nofolder}"], "no folder"),
    (["export", "{log}", "-o", "{dir}"], "directory"),
    (["export", "{log}", "--format", "xml"], "invalid choice"),
    (["export", "{missing}"], "no such file"),
    # tracks
    (["tracks", "{missing}"], "no such file"),
    (["tracks", "{empty}"], "is empty"),
    (["tracks", "{binary}"], "not UTF-8"),
    (["tracks", "{dir}"], "is a directory"),
    # games
    (["games", "flag_finish"], "unrecognized arguments"),
    # match
    (["match", "--seed", "-5"], "0 to 2**64-1"),
    (["match", "--seed", "five"], "'five'"),
    (["match", "--game", "chess"], "invalid choice"),
    (["match", "--policies", "genius"], "invalid choice"),
    (["match", "--policies", "random"], "2-3"),
    (["match", "--mode", "solo"], "not 'solo'"),
    (["match", "--option", "races=0"], "races"),
    (["match", "--option", "colour=red"], "no option 'colour'"),
    # tournament
    (["tournament"], "required"),
    (["tournament", "create", "localhost:8765"], "did you mean"),
    (["tournament", "create", "{closed}", "--seats", "0"], "1 or more"),
    (["tournament", "create", "{closed}", "--format", "knockout"], "invalid choice"),
    (["tournament", "create", "{closed}", "--points", "3,one"], "points are numbers"),
    (["tournament", "create", "{closed}", "--points", "3,-1,0"], "0 or more"),
    (["tournament", "create", "{closed}", "--points", "1,3,0"], "best first"),
    (["tournament", "create", "{closed}", "--points", "3,nan,0"], "0 or more"),
    (["tournament", "create", "{closed}", "--bye-points", "-2"], "0 or more"),
    (["tournament", "create", "{closed}", "--round-time", "-1"], "0 or more"),
    (["tournament", "create", "{closed}", "--seed", "5"], "unrecognized arguments: --seed"),
    (["tournament", "create", "{closed}"], "cannot connect"),
    (["tournament", "register", "{closed}", "T1"], "--name"),
    (["tournament", "register", "{closed}", "T1", "--name", "Ana"], "cannot connect"),
    (["tournament", "start", "{closed}", "T1"], "--secret"),
    (["tournament", "correct", "{closed}", "T1", "--secret", "s", "--table", "t1", "--places", "1,x",
      "--reason", "r"], "places are whole numbers"),
    (["tournament", "standings", "{closed}", "T1"], "cannot connect"),
    (["tournament", "export", "{closed}", "T1", "-o", "{nofolder}"], "no folder"),
    (["tournament", "export", "{closed}", "T1", "-o", "{dir}"], "directory"),
    (["tournament", "export", "{closed}", "T1", "--format", "xml"], "invalid choice"),
    (["tournament", "bots", "{closed}", "T1", "--players", "0"], "1 or more"),
    (["tournament", "leaderboard", "{closed}", "--game", "chess"], "invalid choice"),
    (["tournament", "verify", "{missing}"], "cannot read"),
    (["tournament", "verify", "{empty}"], "empty"),
    (["tournament", "verify", "{dir}"], "directory"),
    (["play", "{closed}"], "--table"),
    (["play", "{closed}", "--tournament", "T1"], "--token"),
    # tables
    (["tables"], "required"),
    (["tables", "{closed}"], "cannot connect"),
    (["tables", "https://example.invalid"], "wss://example.invalid"),
]


@pytest.mark.parametrize("argv, named", CASES, ids=[" ".join(argv) or "(nothing)" for argv, _ in CASES])
def test_a_bad_argument_is_one_clear_message_and_a_failing_exit(argv, named, files, monkeypatch):
    import server.app

    def never(*args, **kwargs):
        raise AssertionError("the server started despite a bad option")

    monkeypatch.setattr(server.app, "serve_until_signal", never)
    code, out, err = run([arg.format(**files) for arg in argv])
    assert_refused(code, out, err, named)
    if argv and argv[0] not in ("replay", "verify"):  # those two print their report, problem included
        assert len(err.strip().splitlines()) == 1, err


def test_the_serve_checks_come_before_the_data_directory_is_touched(tmp_path, monkeypatch):
    """A host the server cannot listen on is refused before anything in the data directory is opened."""
    import server.app

    started = []

    async def serve(*args, **kwargs):
        started.append(args)

    monkeypatch.setattr(server.app, "serve_until_signal", serve)
    data = tmp_path / "data"
    code, out, err = run(["serve", "--host", "192.0.2.1", "--port", "0", "--data", str(data)])
    assert_refused(code, out, err, "cannot listen")
    assert not started and not data.exists()
    assert run(["serve", "--port", "0", "--data", str(data)])[0] == 0 and started and data.is_dir()


def test_a_damaged_tournament_store_stops_serve_with_one_line_before_any_table_is_reopened(tmp_path):
    """The store file is garbage (a disk fault, a bad copy): serve says which file and what to do, and the
    unfinished tables' logs are left as they were (a reopen would have written to them)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "tournaments.sqlite3").write_bytes(b"this is not a database, it only has the name of one")
    log = data / "tables" / "t1.log"

    async def an_unfinished_table():
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, data, "never")
            await lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
            await lobby.stop_all()
            nursery.cancel_scope.cancel()

    trio.run(an_unfinished_table)
    before = log.read_bytes()
    code, out, err = run(["serve", "--port", "0", "--data", str(data)])
    assert_refused(code, out, err, "tournaments.sqlite3", "not a database", "move it aside")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert log.read_bytes() == before


async def test_a_second_server_on_a_data_directory_in_use_is_refused_and_touches_nothing(tmp_path, nursery):
    """Two servers on one data directory would reopen the same tables and append to the same logs: the second
    is refused in one line naming the first's process, and once the first has stopped the directory is free."""
    from server.app import run_server

    data = tmp_path / "data"
    first = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=data, durability="never",
                                                               task_status=task_status))
    table = await first.lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
    from server.protocol import TakeSeat
    from server.table import intents
    from tests.server.helpers import Sink, settle

    await table.submit(intents.TakeSeat(Sink(), TakeSeat(table=table.id, seat=0)))  # a table nobody sat at
    await settle()  # would not be reopened (it ends as expired at the restart)
    before = table.store.path.read_bytes()
    with trio.fail_after(60):  # a process of its own, as a second `photofinish serve` is
        second = await trio.run_process([sys.executable, "-m", "clients.cli", "serve", "--port", "0", "--data",
                                         str(data)], capture_stdout=True, capture_stderr=True, check=False)
    code, out, err = second.returncode, second.stdout.decode(), second.stderr.decode()
    assert_refused(code, out, err, "in use by another photofinish server", f"process {os.getpid()}", "--data")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert table.store.path.read_bytes() == before
    await first.shutdown()
    again = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=data, durability="never",
                                                               task_status=task_status))
    assert table.id in again.lobby.tables  # the unfinished table reopened by the one server that now holds it
    await again.shutdown()


async def test_mistakes_that_need_a_server_are_refused_plainly_and_change_nothing(nursery):
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=3,
                                                   bots=[BotSeat(2)], name="two free seats"))
    url = running.url
    for argv, named in [
        (["watch", url, "nope"], "no table 'nope'"),
        (["bots", url, "--table", "nope"], "no table 'nope'"),
        (["play", url, "--table", "nope"], "no table 'nope'"),
        (["playback", url, "t1"], "no logs"),
        (["create", url, "--seats", "9"], "not 9"),
        (["create", url, "--game", "flush", "--mode", "challenge"], "lockstep"),
        (["bots", url, "--table", table.id, "--seats", "3"], "2 free seats (seats 1 and 2), too few for 3"),
    ]:
        code, out, err = await trio.to_thread.run_sync(run, argv)
        assert_refused(code, out, err, named)
        assert len(err.strip().splitlines()) == 1, err
    info = table.info()  # `bots --seats 3` seated nobody: the game has not started with a bot abandoned
    assert info.status == "waiting" and [seat.state for seat in info.seats] == ["free", "free", "bot"]


async def test_a_bot_that_finds_its_seat_gone_does_not_abandon_the_one_that_sat(nursery):
    """If someone sits down between `bots`' check and its bots (here: no check), the bots that fit play their
    game to the end and the one that did not fit is reported, not an exception that strands the others."""
    from clients.remote_bots import play_seats
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, bot_delay_ms=0,
                                                   bots=[BotSeat(1, "random")], options={"races": 1}))
    with trio.fail_after(30):
        seats, missed, stopped = await play_seats(running.url, table.id, 2, "heuristic", seed=4)
    assert seats == [0] and not stopped and len(missed) == 1 and "no free seat" in missed[0]
    assert table.session.result() is not None  # the seated bot played to the end


async def test_wss_against_a_plain_server_says_so_instead_of_hanging(nursery, monkeypatch):
    import clients.client
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    monkeypatch.setattr(clients.client, "CONNECT_TIMEOUT", 0.3)
    with trio.fail_after(10):
        code, out, err = await trio.to_thread.run_sync(run, ["watch", running.url.replace("ws://", "wss://"), "t1"])
    assert_refused(code, out, err, "TLS handshake", running.url)


def test_q_quits_replay_step_and_end_of_input_too(files, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nq\n"))
    code, out, err = run(["replay", files["log"], "--step"])
    assert code == 0 and not err
    assert re.findall(r"#(\d+) t=", out) == ["1", "2"] and "OK" not in out  # Enter, then q: two entries shown
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, err = run(["replay", files["log"], "--step"])
    assert code == 0 and not err and re.findall(r"#(\d+) t=", out) == ["1"]


# ------------------------------------------------------------------------------------ a real process

def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "clients.cli", *argv]


ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}


async def interrupt_once_it_shows(argv: list[str]) -> tuple[int, str]:
    """Start ``argv``, wait for its first output, press Ctrl-C (SIGINT); its exit code and stderr."""
    # Ctrl-C as in a terminal: the child's SIGINT at its default, even when the tests run in the background
    # (`make test &`), whose commands inherit it ignored: a client started so could never be interrupted.
    process = await trio.lowlevel.open_process(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE, env=ENV, cwd=ROOT,
                                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    errors = []
    try:
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                async def drain_stderr():
                    async for chunk in process.stderr:
                        errors.append(chunk)

                nursery.start_soon(drain_stderr)
                shown = await process.stdout.receive_some()
                assert shown, b"".join(errors).decode()
                process.send_signal(signal.SIGINT)
                async for _ in process.stdout:
                    pass
                await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
    return process.returncode, b"".join(errors).decode()


@pytest.fixture
async def server_with_a_log(nursery, files, tmp_path):
    """A server whose data directory holds the finished log of table t99, and a table in play (bots that
    wait a minute between moves), for `watch`, `play` and `playback` to be interrupted in."""
    from server.app import run_server

    (tmp_path / "tables").mkdir()
    shutil.copy(files["log"], tmp_path / "tables" / "t99.log")
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, tmp_path, task_status=task_status))
    busy = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, bot_delay_ms=60_000,
                                                  bots=[BotSeat(0), BotSeat(1)]))
    waiting = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2))
    return running.url, busy.id, waiting.id


@pytest.mark.parametrize("which", ["watch", "play", "playback"])
async def test_ctrl_c_in_a_live_client_ends_quietly(which, server_with_a_log):
    url, busy, waiting = server_with_a_log
    argv = {"watch": ["watch", url, busy], "play": ["play", url, "--table", waiting],
            "playback": ["playback", url, "t99"]}[which]
    code, err = await interrupt_once_it_shows(command(*argv))
    assert code == 130 and "Traceback" not in err, err
    # quiet: nothing, or (play) one line saying how to come back to the seat
    assert not err.strip() or (which == "play" and err.strip().count("\n") == 0 and "resumes your seat" in err), err


async def test_ctrl_c_at_the_replay_step_prompt_ends_quietly(files):
    code, err = await interrupt_once_it_shows(command("replay", files["log"], "--step"))
    assert code == 130 and not err.strip(), err


def test_output_into_a_closed_pipe_stops_quietly():
    """`photofinish match | head`: the reader is gone; stop like a Unix tool killed by SIGPIPE, say nothing."""
    process = subprocess.Popen(command("match", "--seed", "5"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=ENV, cwd=ROOT)
    process.stdout.close()  # the reader went away before the first line
    _, err = process.communicate(timeout=20)
    assert process.returncode == 141 and not err.strip(), err.decode()


class _ClosedPipe:
    """A stdout whose reader went away, as `| head` leaves it once it has its lines."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


async def test_a_client_command_into_a_closed_pipe_stops_quietly_too(nursery, capsys, monkeypatch):
    """`photofinish tables URL | head`, `tournament standings ... | head`: the closed pipe is our stdout's,
    not the server's connection: nothing is said about it (exit 141, as `match | head`)."""
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as client:
        created = await client.create_tournament(game="flag_finish", mode="challenge", seats=2)
        await client.create_table(game="flag_finish", mode="challenge", seats=2)
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    for argv in (["tables", running.url], ["tournament", "standings", running.url, created.tournament.tournament],
                 ["tournament", "export", running.url, created.tournament.tournament]):
        assert await trio.to_thread.run_sync(main, argv) == 141, argv
        assert capsys.readouterr().err == "", argv


# ------------------------------------------------------------------------------------ fuzzed arguments

# No NUL: an argument from the operating system cannot hold one.
TOKENS = ["match", "games", "tracks", "replay", "verify", "export", "--seed", "--game", "--mode", "--policies",
          "--option", "--step", "--seat", "-o", "--format", "races=1", "races=x", "=", "flush",
          "flag_finish", "checkered_flag", "random", "heuristic", "lockstep", "challenge", "-1", "0", "1", "2",
          "99999999999999999999999", "nan", "inf", "", " ", "é", "{log}", "{empty}", "{binary}", "{dir}",
          "{missing}", "{nofolder}", "--help"]


@pytest.fixture(scope="module")
def fuzz_files(files, tmp_path_factory) -> dict[str, str]:
    """Copies of the files, in a folder of their own: an `export -o` the fuzz makes up writes only there."""
    folder = tmp_path_factory.mktemp("fuzz")
    copies = {}
    for name, path in files.items():
        if name in ("missing", "nofolder", "closed"):
            copies[name] = path
        elif name == "dir":
            copies[name] = str(folder / "dir")
            (folder / "dir").mkdir()
        else:
            copies[name] = shutil.copy(path, folder / name)
    return copies


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6).filter(lambda argv: "--step" not in argv),
       st.sampled_from(["match", "games", "tracks", "replay", "verify", "export"]))
def test_fuzzed_arguments_never_print_a_traceback(fuzz_files, tail, head):
    argv = [head] + [token.format(**fuzz_files) if "{" in token else token for token in tail]
    if head == "match" or "match" in argv:
        argv += ["--option", "races=1"]  # a match that does run stays short
    try:
        with contextlib.chdir(Path(fuzz_files["log"]).parent):  # `-o 1` writes a file "1": here, not in the repo
            code, out, err = run(argv)
    except Exception as error:  # noqa: BLE001 (the assertion names it)
        raise AssertionError(f"{argv} raised {error!r}") from error
    assert isinstance(code, int) and "Traceback" not in out + err
    assert code == 0 or (out + err).strip(), f"{argv} failed silently"


async def test_a_port_that_accepts_and_never_answers_and_a_host_that_does_not_resolve_are_said_plainly(
        nursery, monkeypatch):
    import clients.client

    async def silent(stream) -> None:
        async with stream:
            await trio.sleep_forever()

    listeners = await nursery.start(lambda task_status: trio.serve_tcp(silent, 0, host="127.0.0.1",
                                                                        task_status=task_status))
    port = listeners[0].socket.getsockname()[1]
    monkeypatch.setattr(clients.client, "CONNECT_TIMEOUT", 0.3)
    with trio.fail_after(10):
        code, out, err = await trio.to_thread.run_sync(run, ["tables", f"ws://127.0.0.1:{port}"])
    assert code == 1 and "no answer within 0.3 s" in err, err
    with trio.fail_after(10):
        code, out, err = await trio.to_thread.run_sync(run, ["tables", "ws://no-such-host.invalid:8765"])
    assert code == 1 and "cannot resolve host no-such-host.invalid" in err and "Unknown error" not in err, err


def test_verify_and_tournament_verify_answer_alike_and_export_of_a_missing_log_writes_nothing(files, tmp_path):
    """Both verifies: a file that is not there (or a directory, or empty) is a mistake in what was typed, one
    line on stderr, exit 2; a file they read that does not verify is exit 1 with the verdict on stdout."""
    for argv in (["verify"], ["tournament", "verify"]):
        code, out, err = run([*argv, files["missing"]])
        assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "cannot read" in err, (argv, err)
        code, out, err = run([*argv, files["binary"]])
        assert code == 1 and "NOT VERIFIED" in out or "PROBLEM" in out, (argv, out, err)
    target = tmp_path / "out.json"
    code, out, err = run(["export", files["missing"], "-o", str(target)])
    assert code == 2 and not out and "cannot read" in err and not target.exists()
    code, out, err = run(["export", files["missing"]])
    assert code == 2 and not out and '"ok"' not in out


def test_replay_step_says_each_entry_in_the_feeds_sentences_with_seats_from_1(files, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 8 + "q\n"))
    code, out, err = run(["replay", files["log"], "--step"])
    assert code == 0 and len(re.findall(r"#(\d+) t=", out)) == 9
    assert '{"type"' not in out and "race 1 dealt: flipped" in out, out
    assert re.search(r"#\d+ t=\S+ seat [12] \(\w+ bot\): seat [12] (took|played|drew|discarded)", out), out
    assert "seat 0" not in out
