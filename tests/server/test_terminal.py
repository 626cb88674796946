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
