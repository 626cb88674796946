"""The terminal clients over a real loopback server: `watch` shows a table to its end (or says whom it waits
for), and a person `play`s whole games against server bots, reading the screen and typing moves."""

import re

import pytest
import trio
import trio.testing

from clients import tokens
from clients.client import open_client
from clients.moves import describe_action
from clients.terminal import Terminal, parse_action, play, watch
from rules.flag_finish.game import DrawPile, Play, TakeDiscard
from server.app import DEMO_ALIAS, run_server
from server.protocol import BotSeat, CreateTable


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


async def _server(nursery):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))


class Person:
    """A person at a terminal: reads each new screen (frames written as a pipe gets them) and types what the
    screen offers, by a simple rule per game. ``quit_after`` moves, types ``q``."""

    def __init__(self, quit_after: int | None = None) -> None:
        self.frames: list[str] = []
        self.typed: list[str] = []
        self.quit_after = quit_after
        self.terminal = Terminal(write=self._write, tty=False)
        self._new = trio.Event()
        self._answered: str | None = None

    def _write(self, text: str) -> None:
        self.frames.append(text)
        self._new.set()
        self._new = trio.Event()

    @property
    def text(self) -> str:
        return "\n".join(self.frames)

    async def wait_for(self, words: str) -> None:
        while not any(words in frame for frame in self.frames):
            await self._new.wait()

    def choose(self, screen: str) -> str | None:
        moves = screen[screen.index("Your moves:"):]
        if "discard a card from your hand" in moves:
            return re.search(r"your hand: (\S+)", screen).group(1)
        for pattern in (r"^  play: (\S+)",
                        r"e\.g\. '([^']+)'", r"type (b\d)", r"(b\d) flips", r"'(draw)'"):
            found = re.search(pattern, moves, re.M)
            if found:
                return found.group(1)
        return None

    async def read_line(self) -> str:
        while True:
            screen = self.frames[-1] if self.frames else ""
            key = re.sub(r"^! .*$", "", screen, flags=re.M)  # a refusal alone is no new position
            if "Your moves:" in screen and key != self._answered:
                self._answered = key
                if self.quit_after is not None and len(self.typed) >= self.quit_after:
                    return "q\n"
                line = self.choose(screen)
                if line is not None:
                    self.typed.append(line)
                    await trio.lowlevel.checkpoint()
                    return line + "\n"
            await self._new.wait()


async def test_a_person_plays_a_whole_flag_finish_challenge_game_against_server_bots(nursery):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=3, seed=7, practice=True,
                                                  options={"races": 2}, bots=[BotSeat(1), BotSeat(2, "random")]))
    person = Person()
    with trio.fail_after(60):
        assert await play(running.url, table.id, name="ann", read_line=person.read_line,
                          terminal=person.terminal) == 0
    screens, last = person.text, person.frames[-1]
    assert "You are seat 1 (ann) - table t1, Flag Finish, Challenge Mode" in screens
    assert " 1 YOU ann " in screens and " 2 heuristic bot " in screens and " 3 random bot " in screens
    assert re.search(r"seat [23] (played|took|discarded) ", screens) and "race 1: " in screens
    assert re.search(r"^you (played|took|drew|discarded) ", screens, re.M), "the feed never said what you did"
    said = " ".join(line.strip() for line in last.splitlines()[-2:])  # the result may wrap onto a second line
    assert re.search(r"Game over\. (You won|Seat \d won)! Final scores: you: \d+, seat 2: \d+, seat 3: \d+ "
                     r"\(lower is better\)\.$", said)
    assert "Waiting" not in last and "Your moves" not in last
    assert tokens.recall(running.url, table.id) is None  # the game is over: nothing to resume


async def test_a_person_plays_a_whole_flush_game_with_a_turn_clock(nursery):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flush", mode="lockstep", seats=2, seed=3, practice=True,
                                                  options={"rounds": 1, "turn_limit": 12}, bots=[BotSeat(1)],
                                                  turn_time_ms=600_000))
    person = Person()
    with trio.fail_after(60):
        assert await play(running.url, table.id, name="ann", read_line=person.read_line,
                          terminal=person.terminal) == 0
    screens, last = person.text, person.frames[-1]
    assert "You are seat 1 (ann), 600 s left to move - table t1, Flush, lockstep" in screens
    assert "type the cards to release, any order" in screens and "values to declare:" in screens
    assert re.search(r"^you (released|flipped) ", screens, re.M) and re.search(r"^seat 2 (released|flipped|skip)",
                                                                              screens, re.M)
    assert "round 1 over: " in screens and len(person.typed) >= 5
    assert "lower is better" in last and last.rstrip().splitlines()[-1].startswith("Game over.")


async def test_play_again_resumes_your_own_seat_after_you_left(nursery, capsys):
    running = await _server(nursery)
    await running.lobby.create(CreateTable(game="flush", mode="lockstep", seats=2, seed=3, practice=True,
                                           options={"rounds": 1, "turn_limit": 10}, bots=[BotSeat(0)]), alias="mine")
    leaving = Person(quit_after=2)
    with trio.fail_after(60):
        assert await play(running.url, "mine", read_line=leaving.read_line, terminal=leaving.terminal) == 0
    assert "took seat 2 at table t1" in leaving.text and tokens.recall(running.url, "mine").seat == 1
    assert "the same `play` command resumes your seat" in capsys.readouterr().err
    back = Person()
    with trio.fail_after(60):
        assert await play(running.url, "mine", read_line=back.read_line, terminal=back.terminal) == 0
    assert "resumed seat 2 at table t1" in back.text and "You are seat 2 " in back.text
    assert "you released" in back.text  # the game went on from where it was
    assert "Game over." in back.frames[-1] and tokens.recall(running.url, "mine") is None


async def test_play_with_a_token_the_server_does_not_know_says_so(nursery, capsys):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flush", seats=2, bots=[BotSeat(0)]))
    person = Person()
    assert await play(running.url, table.id, token="not-a-token", read_line=person.read_line,
                      terminal=person.terminal) == 2
    assert "photofinish play: " in capsys.readouterr().err


async def test_ctrl_c_in_play_leaves_quietly_and_the_seat_can_be_resumed(nursery, capsys):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flush", seats=2, bots=[BotSeat(1)]))
    person = Person()

    async def interrupted() -> str:
        await person.wait_for("Your moves:")
        raise KeyboardInterrupt

    with trio.fail_after(30):
        assert await play(running.url, table.id, read_line=interrupted, terminal=person.terminal) == 130
    assert "the same `play` command resumes your seat" in capsys.readouterr().err
    assert tokens.recall(running.url, table.id).seat == 0


async def test_play_at_a_table_still_waiting_says_whom_it_waits_for(nursery):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2))
    person = Person(quit_after=0)
    with trio.fail_after(30):
        async with trio.open_nursery() as inner:
            inner.start_soon(lambda: play(running.url, table.id, name="ann", read_line=person.read_line,
                                          terminal=person.terminal))
            await person.wait_for("Waiting for seat 2 (free) to sit down")
            async with open_client(running.url, name="bob") as bob:
                await bob.take_seat(table.id)
                await person.wait_for(" 2 bob ")  # the game started: the names come with the table's info
    assert f"photofinish play {running.url} --table t1" in person.text


async def test_watch_of_a_table_still_waiting_says_so(nursery):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flush", seats=3, bots=[BotSeat(2)]))
    person = await _watch_until(running, table.id, "Waiting for seat 1 (free), seat 2 (free) to sit down")
    assert person.frames[0].lstrip("\n-").startswith("Watching table t1, Flush, lockstep as a spectator")


async def test_watch_of_a_delayed_table_says_how_far_behind_it_is_shown(nursery):
    running = await _server(nursery)
    table = await running.lobby.create(CreateTable(game="flush", seats=3, bots=[BotSeat(2)],
                                                   spectator_delay_ms=30_000, spectator_delay_entries=1))
    person = await _watch_until(running, table.id, "Shown 30 s and 1 move behind the table (a broadcast delay)")
    assert "Watching table t1, Flush, lockstep as a spectator" in person.frames[-1]


async def test_watch_with_the_broadcast_key_shows_every_seats_hand_and_without_it_none(nursery):
    running = await _server(nursery)
    async with open_client(running.url) as creator:
        created = await creator.request(CreateTable(game="flag_finish", seats=2, bots=[BotSeat(0), BotSeat(1)],
                                                    bot_delay_ms=50, spectator_delay_entries=1, broadcast=True))
    table = created.table.table
    commentator = await _watch_until(running, table, "seat 2 (heuristic bot) hand: ", created.broadcast_key)
    screen = commentator.frames[-1]
    assert "seat 1 (heuristic bot) hand: " in screen and "your hand" not in screen
    assert "the broadcast view, every hand shown" in screen.split("\n", 3)[2]  # its header says so
    plain = await _watch_until(running, table, "as a spectator")
    assert not any(" hand: " in frame for frame in plain.frames)  # a spectator without the key: no hand


async def _watch_until(running, table_id: str, words: str, broadcast_key: str = "") -> Person:
    """`photofinish watch` of a table (its broadcast view with ``broadcast_key``), until its screen says ``words``."""
    person = Person()
    with trio.fail_after(30):
        async with trio.open_nursery() as inner:
            inner.start_soon(lambda: watch(running.url, table_id, terminal=person.terminal,
                                           broadcast_key=broadcast_key))
            await person.wait_for(words)
            inner.cancel_scope.cancel()
    return person


async def test_watch_shows_the_demo_table_race_by_race_to_the_winner(nursery):
    running = await _server(nursery)
    await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                           bots=[BotSeat(0), BotSeat(1, "random")]), alias=DEMO_ALIAS)
    person = Person()
    assert await watch(running.url, DEMO_ALIAS, terminal=person.terminal, follow_alias=0) == 0
    assert "Flag Finish Challenge - race 1 of 1" in person.text and "discard pile" in person.text
    assert "race 1: seat " in person.text and "Game over." in person.frames[-1]


async def test_watch_names_a_missing_table(nursery, capsys):
    running = await _server(nursery)
    assert await watch(running.url, "nope") == 2
    assert "no table 'nope'" in capsys.readouterr().err


async def test_tables_a_person_plays_get_a_bot_pace_a_person_can_follow(nursery, capsys):
    from clients.cli import main
    from server.app import OPEN_ALIAS
    from server.protocol.commandline import human_pace_ms

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, demo=True,
                                                                 task_status=task_status))
    await trio.testing.wait_all_tasks_blocked()
    open_table = running.lobby.find(OPEN_ALIAS)
    assert open_table.setup.mode == "challenge" and open_table.bot_delay_ms == human_pace_ms("challenge") >= 1500
    assert [seat.state for seat in open_table.info().seats].count("free") == 1  # a person alone can play it
    for mode, game in (("challenge", "flag_finish"), ("lockstep", "flush")):
        assert await trio.to_thread.run_sync(main, ["create", running.url, "--game", game, "--mode", mode,
                                                    "--bot", "2"]) == 0
        table = running.lobby.find(capsys.readouterr().out.strip())
        assert table.bot_delay_ms == human_pace_ms(mode) > 0
    assert human_pace_ms("lockstep") < human_pace_ms("challenge")


def test_play_accepts_a_flag_finish_move_by_its_card_or_its_words():
    legal = [Play("G0"), DrawPile(), TakeDiscard("R5")]
    assert parse_action("draw", legal) == DrawPile()
    assert parse_action("take R5", legal) == TakeDiscard("R5") == parse_action("r5", legal)
    assert parse_action(" PLAY g0 ", legal) == Play("G0")
    assert parse_action("play G1", legal) is None and parse_action("9", legal) is None
    assert describe_action(TakeDiscard("R5")) == "take R5"


def test_every_flush_move_has_words_that_play_understands_back():
    from rules import Rng, Session, get_game, make_setup

    flush = get_game("flush")
    session = Session(flush, make_setup(flush.info, 3, "lockstep"), 11)
    session.run_chance()
    rng = Rng(4)
    for _ in range(40):
        seat = session.to_act().seats[0]
        legal = flush.legal_actions(session.state, seat)
        words = [describe_action(action) for action in legal]
        assert len(set(words)) == len(words), "two moves share their words"
        assert all(parse_action(text, legal) == action for text, action in zip(words, legal))
        session.act(seat, rng.choice(legal))


def test_the_flush_screen_shows_the_mimic_the_pile_and_only_your_own_hand():
    from clients.render import render
    from rules import Session, get_game, make_setup

    flush = get_game("flush")
    session = Session(flush, make_setup(flush.info, 3, "lockstep"), 2)
    session.run_chance()
    view = flush.view(session.state, 1)
    screen = render("flush", view)
    assert f"Mimic {view.mimic}" in screen and "pile: empty" in screen
    assert "your hand: " in screen and all(card in screen.split("your hand: ")[1] for card in view.hand)
    assert "your hand" not in render("flush", flush.view(session.state, None))


def test_a_flag_finish_race_the_tied_totals_added_is_called_a_tiebreak_not_race_4_of_3():
    import msgspec

    from clients.render import render
    from rules import Session, get_game, make_setup

    game = get_game("flag_finish")
    session = Session(game, make_setup(game.info, 3, "challenge", {"races": 3}), 5)
    session.run_chance()
    view = game.view(session.state, None)
    assert "race 1 of 3," in render("flag_finish", view)
    extra = render("flag_finish", msgspec.structs.replace(view, race=4))
    assert "race 4, a tiebreak after 3," in extra and "4 of 3" not in extra


async def test_watch_quits_on_q_and_follows_the_demo_alias_to_its_next_table(nursery):
    from server.app import keep_table

    running = await _server(nursery)
    quick = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1}, bot_delay_ms=0,
                        bots=[BotSeat(0), BotSeat(1, "random")])
    nursery.start_soon(keep_table, running.lobby, quick, DEMO_ALIAS, 0.2)
    await trio.testing.wait_all_tasks_blocked()
    person, pressed = Person(), trio.Event()

    async def keys() -> str:
        await pressed.wait()
        return "q"

    with trio.fail_after(60):
        async with trio.open_nursery() as inner:
            async def watching() -> None:
                assert await watch(running.url, DEMO_ALIAS, terminal=person.terminal, read_key=keys) == 0
            inner.start_soon(watching)
            await person.wait_for("Watching table t1")
            await person.wait_for("Watching table t2")  # the demo's next game, followed by itself
            pressed.set()  # q: watch ends (else it would follow the demo for ever)
    assert "Game over." in person.text


async def test_playback_names_who_played_each_seat(nursery, tmp_path):
    from clients.terminal import playback

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, tmp_path / "data",
                                                                 task_status=task_status))
    table = await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, bot_delay_ms=0,
                                                   options={"races": 1}, bots=[BotSeat(0), BotSeat(1, "random")]))
    person = Person()
    with trio.fail_after(60):
        await table.over.wait()
        assert await playback(running.url, table.id, 1000.0, terminal=person.terminal) == 0
    assert " 1 heuristic bot " in person.text and " 2 random bot " in person.text
    assert "(free)" not in person.text and "to sit down" not in person.text
