"""What `tournament standings` (and `list`) print for an organiser: a round's tables with the place each
player scores at their table (a stand-in's seat last, the game's own place beside it where they differ), and
counts in words that agree with their number."""

from __future__ import annotations

from clients.cli import main
from clients.tournament_text import state_text
from server.protocol import PlayerInfo, SeatingInfo, StandingRow, TournamentInfo, TournamentState


def _state(players: list[str], seatings: list[SeatingInfo], **info) -> TournamentState:
    fields = dict(tournament="T1", name="club night", game="flag_finish", mode="challenge", seats=3, options={},
                  format="swiss", rounds=3, round=2, status="running", players=len(players), commitment="ab" * 32)
    fields.update(info)
    return TournamentState(
        tournament=TournamentInfo(**fields),
        players=[PlayerInfo(player=f"T1p{i + 1}", name=name, checked_in=False, dropped=False)
                 for i, name in enumerate(players)],
        standings=[StandingRow(rank=i + 1, player=f"T1p{i + 1}", name=name, points=0.0, opponents_pct=1 / 3,
                               game_share=1.0, tables=1, byes=0, dropped=False) for i, name in enumerate(players)],
        seatings=seatings)


def test_a_player_beaten_only_by_stand_ins_is_shown_first_at_the_table_with_the_games_place_beside_it():
    # Ana finished third in the game, behind two stand-in bots: the standings count her first at her table
    state = _state(["Ana", "Ben", "Cy", "Dan", "Eve", "Fay"], [
        SeatingInfo(table="t4", players=["T1p1", "T1p2", "T1p3"], places=[3, 1, 2], stand_ins=[1, 2]),
        SeatingInfo(table="t5", players=["T1p4", "T1p5", "T1p6"], places=[2, 1, 3]),
    ])
    lines = state_text(state).splitlines()
    round_lines = lines[lines.index("round 2, each player's place at their table (a seat a stand-in played is "
                                    "placed last):") + 1:]
    assert round_lines == [
        "  t4: Ana 1st (3rd in the game), Ben tied 2nd (1st in the game) [stand-in], "
        "Cy tied 2nd [stand-in]",
        "  t5: Dan 2nd, Eve 1st, Fay 3rd",
    ]


def test_a_table_still_playing_lists_its_players_without_places():
    state = _state(["Ana", "Ben"], [SeatingInfo(table="t9", players=["T1p1", "T1p2"])], round=1)
    assert state_text(state).splitlines()[-2:] == ["round 1, each player's place at their table:",
                                                   "  t9: Ana, Ben  (playing)"]


def test_the_header_says_1_player_and_2_players():
    assert state_text(_state(["Ana"], [], round=0, status="registration")).splitlines()[0].endswith(
        "registration, 1 player")
    assert state_text(_state(["Ana", "Ben"], [])).splitlines()[0].endswith("running, 2 players")


async def test_tournament_list_says_1_player_and_2_players(nursery, capsys):
    import trio

    from clients.client import open_client
    from server.app import run_server

    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as client:
        one = (await client.create_tournament(game="flag_finish", mode="challenge", seats=2)).tournament.tournament
        two = (await client.create_tournament(game="flag_finish", mode="challenge", seats=2)).tournament.tournament
        for tid, names in ((one, ["Ana"]), (two, ["Ben", "Cy"])):
            for name in names:
                await client.register(tid, name)
    assert await trio.to_thread.run_sync(main, ["tournament", "list", running.url]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "  1 player  " in lines[one] and "  2 players  " in lines[two]


def test_the_header_says_round_n_of_m_and_an_arena_only_its_round():
    swiss = state_text(_state(["Ana", "Ben", "Cy"], [])).splitlines()[0]
    arena = state_text(_state(["Ana", "Ben", "Cy"], [], format="arena", rounds=0, round=151)).splitlines()[0]
    assert "swiss, round 2 of 3, running" in swiss
    assert "arena, round 151, running" in arena and "?" not in arena


def test_standings_say_the_suggested_rounds_and_who_has_reported_a_table_played_with_cards():
    state = _state(["Ana", "Ben", "Cy", "Dan", "Eve", "Fay"], [
        SeatingInfo(table="t4", players=["T1p1", "T1p2", "T1p3"], reported=True,
                    reports={"T1p1": [1, 2, 3], "T1p2": [2, 1, 3]}),
        SeatingInfo(table="t5", players=["T1p4", "T1p5", "T1p6"], reported=True, reports={"T1p4": [1, 2, 3]}),
    ], rounds=1, suggested_rounds=2)
    text = state_text(state)
    assert "(suggested for 6 players: 2 rounds)" in text.splitlines()[0]
    assert "  t4: Ana, Ben, Cy  (real cards: 2 of 3 reported, they disagree: the organiser settles it)" in text
    assert "  t5: Dan, Eve, Fay  (real cards: 1 of 3 reported)" in text
    assert "suggested" not in state_text(_state(["Ana"], [], rounds=2, suggested_rounds=2)).splitlines()[0]
