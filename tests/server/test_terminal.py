"""The terminal clients: `watch` shows a table to its end; `play` understands what a person types."""

from clients.render import describe_action
from clients.terminal import parse_action, watch
from rules.flag_finish.game import DrawPile, Play, TakeDiscard
from server.app import DEMO_ALIAS, run_server


async def test_watch_shows_the_demo_table_race_by_race_to_the_winner(nursery, capsys):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    from server.protocol import BotSeat, CreateTable

    await running.lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                                           bots=[BotSeat(0), BotSeat(1, "random")]), alias=DEMO_ALIAS)
    assert await watch(running.url, DEMO_ALIAS) == 0
    out = capsys.readouterr().out
    assert "Flag Finish, Challenge Mode" in out and "discard pile" in out and "WINNER" in out


async def test_watch_names_a_missing_table(nursery, capsys):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    assert await watch(running.url, "nope") == 2
    assert "no table 'nope'" in capsys.readouterr().err


def test_play_accepts_a_move_by_number_or_by_its_words():
    legal = [Play("G0"), DrawPile(), TakeDiscard("R5")]
    assert parse_action("2", legal) == DrawPile()
    assert parse_action("take R5", legal) == TakeDiscard("R5")
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
    screen = render("flush", flush.view(session.state, 1))
    assert f"Mimic: {flush.view(session.state, 1).mimic or 'none'}" in screen and "pile: empty" in screen
    assert "your hand: " + " ".join(flush.view(session.state, 1).hand) in screen
    assert "your hand" not in render("flush", flush.view(session.state, None))
