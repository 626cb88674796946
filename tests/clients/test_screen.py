"""The `play`/`watch` screen: who you are, what happened, your moves or the result, in 80x24 for every game."""

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients import tokens
from clients.feed import describe_event
from clients.render import render
from clients.screen import Seen, compose, status
from rules import GAMES, Rng, Session, get_game, make_setup
from server.protocol import SeatInfo, Snapshot, TableInfo, Update

FAST = {"flag_finish": {"races": 3, "hand_size": 12}, "flush": {"rounds": 2}}
LONG_NAME = "Bartholomew-the-unusually-named"


def _info(game: str, seats: int, status: str = "playing", states=None, turn_time_ms: int = 0) -> TableInfo:
    states = states or ["taken"] + ["bot"] * (seats - 1)
    names = ["ann"] + [LONG_NAME if s % 2 else "heuristic bot" for s in range(1, seats)]
    return TableInfo(table="t7", name="t7", game=game, mode=GAMES[game].info.modes[-1], options={},
                     seats=[SeatInfo(seat=s, state=states[s], name="" if states[s] == "free" else names[s])
                            for s in range(seats)],
                     seq=0, status=status, spectators=0, turn_time_ms=turn_time_ms, grace_ms=60_000)


@st.composite
def positions(draw):
    """A game some way into seeded random play, and a reader: one of its seats or a spectator."""
    name = draw(st.sampled_from(sorted(GAMES)))
    game = GAMES[name]
    seats = draw(st.integers(game.info.min_seats, game.info.max_seats))
    mode = draw(st.sampled_from(game.info.modes))
    seed = draw(st.integers(0, 2**32))
    steps = draw(st.sampled_from([0, 5, 40, 200, 2000]))
    session = Session(game, make_setup(game.info, seats, mode, FAST.get(name, {})), seed)
    rng = Rng(seed)
    events = []
    for _ in range(steps):
        turn = session.to_act()
        if turn.over:
            break
        if turn.chance:
            done = session.run_chance()
        elif turn.system and not turn.seats:
            done = session.act(-1, game.legal_actions(session.state, -1)[0])
        else:
            seat = rng.choice(list(turn.seats))
            done = session.act(seat, rng.choice(game.legal_actions(session.state, seat)))
        events += [e for step in done for e in step.events]
    reader = draw(st.sampled_from([None, *range(seats)]))
    return name, game, session, seats, reader, events


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=positions(), note=st.sampled_from(["", "refused: " + "a long reason " * 12]),
       connection=st.sampled_from(["", "the server is shutting down; the tournament goes on once it is back "
                                       "(Ctrl-C leaves)"]))
def test_every_games_screen_fits_80x24_at_any_point_of_play(position, note, connection):
    name, game, session, seats, reader, events = position
    seen = Seen(game=name, table="t7", url="ws://127.0.0.1:8765", seat=reader, info=_info(name, seats),
                title="a title", note=note, connection=connection,
                deadline=5.0 if reader is not None else None)
    seen.feed.extend(describe_event(name, game.redact(e, reader), reader) for e in events[-60:])
    seen.view = game.view(session.state, reader)
    seen.legal = game.legal_actions(session.state, reader) if reader is not None else []
    seen.to_act = list(session.to_act().seats)
    seen.result = session.result()
    lines = compose(seen, now=1.0)
    assert len(lines) <= 23, "\n".join(lines)  # the 24th row is the prompt
    assert all(len(line) < 80 for line in lines), max(lines, key=len)
    assert lines[0].startswith("You are seat" if reader is not None else "Watching table t7")
    table = render(name, seen.view, seen.names).split("\n")
    assert lines[1:1 + len(table)] == table, "the table did not fit whole"
    shown = [line for line in status(seen) if line]
    assert all(any(line[:40] in row for row in lines) for line in shown), "the moves or the result did not fit"
    assert not connection or any(row.startswith(f"! {connection[:40]}") for row in lines), "the connection's state"
    if seen.result is not None:
        assert any(line.startswith("Game over.") for line in lines)
        assert not any(line.startswith("Waiting") for line in lines)
    elif seen.legal:
        assert "Your moves:" in lines


def _flag_finish_seen(**changes) -> Seen:
    game = get_game("flag_finish")
    session = Session(game, make_setup(game.info, 3, "challenge"), 9)
    session.run_chance()
    seen = Seen(game="flag_finish", table="t7", seat=1, info=_info("flag_finish", 3), title="Flag Finish",
                view=game.view(session.state, 1), legal=game.legal_actions(session.state, 1),
                to_act=list(session.to_act().seats))
    for key, value in changes.items():
        setattr(seen, key, value)
    return seen


def test_the_screen_says_who_you_are_and_names_every_seat():
    screen = "\n".join(compose(_flag_finish_seen()))
    assert screen.startswith(f"You are seat 2 ({LONG_NAME[:16]}) - table t7, Flag Finish")  # seats count from 1
    assert " 1 ann " in screen and " 2 YOU Bartholo" in screen and " 3 heuristic bot" in screen
    assert "Your moves:" in screen


def test_the_discard_pile_is_shown_sorted():
    seen = _flag_finish_seen()
    seen.view = msgspec.structs.replace(seen.view, discard=["R7", "G0", "F", "B3", "Y10", "P3"])
    assert "discard pile (6): G0 B3 P3 R7 Y10 F" in "\n".join(compose(seen))


def test_a_refusal_stays_on_screen_and_the_turn_clock_counts_down():
    seen = _flag_finish_seen(note="refused: card_not_in_discard", deadline=30.0)
    first, later = compose(seen, now=10.2), compose(seen, now=21.5)
    assert first[-1] == later[-1] == "! refused: card_not_in_discard"
    assert first[0].startswith("You are seat 2 (Bartholomew-the-), 20 s left to move - table t7")
    assert later[0].startswith("You are seat 2 (Bartholomew-the-), 9 s left to move")


def test_after_the_game_the_result_in_words_and_no_waiting():
    seen = _flag_finish_seen(legal=[], result={"scores": [4, 0, 9], "winners": [1], "lower_is_better": True})
    lines = compose(seen)
    said = " ".join(line.strip() for line in lines[-2:])
    assert said.endswith("Game over. You won! Final scores: seat 1: 4, you: 0, seat 3: 9 (lower is better).")
    assert not any("aiting" in line for line in lines)


def test_a_waiting_table_says_whom_it_waits_for():
    seen = Seen(game="flush", table="t7", url="ws://127.0.0.1:1", seat=0,
                info=_info("flush", 3, status="waiting", states=["taken", "free", "bot"]))
    screen = "\n".join(compose(seen))
    assert "Waiting for seat 2 (free) to sit down" in screen
    assert "photofinish play ws://127.0.0.1:1 --table t7" in screen
    spectator = "\n".join(compose(Seen(game="flush", table="t7", info=seen.info)))
    assert spectator.startswith("Watching table t7") and "Waiting for seat 2 (free)" in spectator


def test_updates_fill_the_feed_and_the_newest_view():
    from rules.flag_finish.game import Took

    seen = _flag_finish_seen()
    view = seen.view
    seen.take(Update(table="t7", seq=5, actor=0, events=[Took(seat=0, card="G5")], to_act=[0, 1, 2]))
    seen.take(Snapshot(table="t7", seq=6, view=view, to_act=[0, 1, 2], legal=[]))
    assert list(seen.feed)[-1] == "seat 1 took green 5 from the discard pile" and seen.seq == 6 and seen.legal == []


def test_a_lost_connection_is_said_until_the_table_is_heard_from_again_and_a_refusal_stays():
    seen = _flag_finish_seen(note="refused: card_not_in_discard",
                             connection="connection lost (the server is shutting down); reconnecting...")
    assert compose(seen)[-2:] == ["! connection lost (the server is shutting down); reconnecting...",
                                  "! refused: card_not_in_discard"]
    seen.take(Snapshot(table="t7", seq=6, view=seen.view, to_act=[0, 1, 2], legal=seen.legal))  # resumed
    assert not any("connection lost" in line for line in compose(seen))
    assert compose(seen)[-1] == "! refused: card_not_in_discard"


def test_a_remembered_token_is_kept_per_server_and_table(tmp_path):
    path = tmp_path / "seats.json"
    assert tokens.recall("ws://a", "open", path) is None
    tokens.remember("ws://a", "open", tokens.Remembered(seat=2, token="tok", table="t3"), path)
    tokens.remember("ws://b", "open", tokens.Remembered(seat=0, token="other", table="t1"), path)
    assert tokens.recall("ws://a/", "open", path) == tokens.Remembered(seat=2, token="tok", table="t3")
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    tokens.forget("ws://a", "open", path)
    assert tokens.recall("ws://a", "open", path) is None and tokens.recall("ws://b", "open", path).token == "other"
    path.write_text("{not json")
    assert tokens.recall("ws://b", "open", path) is None  # a damaged file is an empty one, never an error


def test_your_last_turn_stays_on_screen_while_the_others_play_on():
    from rules.finish_line.game import Activation, MarkerMoved, Rolled

    seen = Seen(game="finish_line", table="t7", seat=0)
    mine = [Rolled(seat=0, red=3, black=5, purpose="move", stop=None),
            MarkerMoved(seat=0, marker=0, start=0, end=3, how="red"),
            Activation(seat=0, marker=0, card="5S", activated=False)]
    seen.take(Update(table="t7", seq=1, actor=0, events=mine, to_act=[1]))
    for seq in range(2, 40):  # the bots play on: the feed scrolls
        seen.take(Update(table="t7", seq=seq, actor=1, events=[Rolled(seat=1 + seq % 2, red=1, black=2,
                                                                      purpose="move", stop=None)], to_act=[0]))
    screen = "\n".join(compose(seen))
    assert "Your last turn: you rolled red 3, black 5 (to move); your marker 1 moved from the start to square 3" \
        in " ".join(line.strip() for line in compose(seen))
    seen.take(Update(table="t7", seq=40, actor=0, events=[Rolled(seat=0, red=6, black=6, purpose="move",
                                                                 stop=None)], to_act=[1]))
    assert "Your last turn: you rolled red 6, black 6" in "\n".join(compose(seen)) and screen


def test_a_flag_finish_header_too_long_for_80_columns_goes_on_a_second_line():
    """A tiebreak race with a photo-finish window open and three-digit totals: the header is cut at no column
    (hypothesis found "..., lower wins" cut off at 79)."""
    game = get_game("flag_finish")
    session = Session(game, make_setup(game.info, 3, "challenge"), 9)
    session.run_chance()
    view = msgspec.structs.replace(game.view(session.state, 1), phase="window", race=12, races=10,
                                   totals=[104, 99, 120])
    lines = render("flag_finish", view, None).split("\n")
    assert all(len(line) < 80 for line in lines), max(lines, key=len)
    assert lines[0].endswith("photo-finish window open") and lines[1] == "   totals 104/99/120, lower wins"
