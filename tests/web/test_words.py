"""One source of words for people: the browser says what the terminal says, in the same words, seats from 1.

The terminal's sentences (clients/sentences.py) and the browser's (js/sentences.js) come from the same data
(rules/words.py, rules/<game>/words.py, served as /words.json). Here every event of a whole seeded game of
each game, as a seat and as a spectator, and the results, are said by both and compared; and a live table's
feed, line by line, is what the terminal says for the same updates off the wire.
"""

from __future__ import annotations

import json

import msgspec

from clients.feed import _tag, say_event, say_result
from clients.moves import action_words
from clients.sentences import Reader
from rules import GAMES, Session, get_game, make_setup
from tests.clients.test_feed import _played_events

from .frames import read_frame
from .test_browser import create_table, lobby, play_until_it_waits

NAMES = ["Ana", "Ben", "Cy", "Di", "Ed", "Flo"]

SAY_ALL = """async (cases) => {
  const words = await import("/js/sentences.js");
  const small = await import("/js/words.js");
  await words.loadWords();
  const names = %s;
  return cases.map((c) => {
    const reader = { me: c.me, name: (seat) => names[seat], seats: c.seats, extra: { now: c.now } };
    if (c.action) return words.sayAction(c.game, c.action, reader) ?? small.describeAction(c.action);
    return c.event ? words.sayEvent(c.game, c.event, reader) : words.sayResult(c.result, reader, c.game);
  });
}""" % json.dumps(NAMES)


def test_the_browser_says_every_event_of_every_game_as_the_terminal_does(page, live_server):
    cases, said = [], []
    for name in sorted(GAMES):
        game, events = _played_events(name, 5)
        kinds = set()
        for event in events:
            for me in (0, None):
                seen = game.redact(event, me)
                reader = Reader(me=me, name=lambda seat: NAMES[seat], seats=2 if name == "race_to_the_finish" else 3)
                cases.append({"game": name, "event": msgspec.to_builtins(seen), "me": me, "seats": reader.seats})
                said.append(say_event(name, seen, reader))
                kinds.add(_tag(seen))
        assert len(kinds) > 3, f"{name}: a whole game shows more kinds of events"
    for result in ({"scores": [0, 12, 11], "winners": [0], "lower_is_better": True},
                   {"scores": [4, 4, 9], "winners": [0, 1], "lower_is_better": True},
                   {"scores": [2, 1, 3], "winners": [1], "lower_is_better": False}):
        for me in (0, 2, None):
            for name in ("flag_finish", "finish_line"):
                cases.append({"game": name, "result": result, "me": me, "seats": 3})
                said.append(say_result(result, Reader(me=me, name=lambda seat: NAMES[seat]), name))
    for name in sorted(GAMES):  # the moves of the first turns, as the terminal lists them
        for view, legal in _first_turns(name):
            gears = getattr(view, "gears", None)
            now = gears[view.seat] if gears is not None else None
            for action in legal:
                cases.append({"game": name, "action": msgspec.to_builtins(action), "me": view.seat, "seats": 3,
                              "now": now})
                said.append(action_words(name, action, view))
    lobby(page, live_server)
    browser = page.evaluate(SAY_ALL, cases)
    different = [(case, terminal, seen) for case, terminal, seen in zip(cases, said, browser) if terminal != seen]
    assert not different, different[:5]


def _first_turns(name: str, turns: int = 30):
    """(view, legal) of the seat to act at each of a seeded game's first turns (its first legal action taken)."""
    game = get_game(name)
    session = Session(game, make_setup(game.info, 3, game.info.modes[-1], {}), 11)
    for _ in range(turns):
        turn = session.to_act()
        if turn.over:
            return
        if turn.chance:
            session.run_chance()
            continue
        seat = turn.seats[0] if turn.seats else -1
        legal = game.legal_actions(session.state, seat)
        if seat >= 0:
            yield game.view(session.state, seat), legal
        session.act(seat, legal[0])


def test_a_live_feed_line_is_what_the_terminal_says_for_the_same_update(page, live_server):
    """Each update the page was sent, said by the terminal's code as the same reader (seat 1 is "you", the
    others by the names the page shows), is the page's feed line for it: capitalised, with its full stop."""
    updates = []

    def frames(socket):
        def take(payload):
            message = read_frame(payload)
            for inner in message["messages"] if message.get("type") == "batch" else [message]:
                if inner.get("type") == "update":
                    updates.append(inner)
        socket.on("framereceived", take)

    page.on("websocket", frames)
    lobby(page, live_server)
    create_table(page, mode="lockstep", seats=2, bots=(1,), options={"races": 1})
    play_until_it_waits(page, 6)
    lines = page.evaluate("window.photofinish.page.state.feed.map((line) => [line.seq, line.words])")
    names = page.evaluate("window.photofinish.page.state.info.seats.map((seat) => seat.name)")
    reader = Reader(me=0, name=lambda seat: names[seat] or f"Seat {seat + 1}", seats=len(names))
    terminal = []
    for update in sorted({u["seq"]: u for u in updates}.values(), key=lambda u: u["seq"]):
        for event in update["events"]:
            if event["type"] != "turn":
                said = say_event("flag_finish", event, reader)
                said = said[0].upper() + said[1:]
                terminal.append([update["seq"], said if said.endswith((".", "!", "?")) else said + "."])
    assert lines and any(words.startswith("You ") for _, words in lines)
    assert [line for line in terminal if line[0] >= lines[0][0]] == lines


def test_a_spectator_of_a_delayed_table_is_told_how_far_behind_in_the_servers_and_terminals_words(page,
                                                                                                  live_server):
    import trio

    from server.protocol import CreateTable, delay_behind

    cases = [(0, 0), (30_000, 0), (1_500, 0), (0, 1), (0, 2), (30_000, 2), (3_600_000, 10_000)]
    lobby(page, live_server)
    said = page.evaluate("""async (cases) => {
      const words = await import("/js/words.js");
      return cases.map(([ms, entries]) => words.behind(ms, entries));
    }""", cases)
    assert said == [delay_behind(ms, entries) for ms, entries in cases]
    assert said[5] == "30 s and 2 moves"
    table = trio.from_thread.run(lambda: live_server.running.lobby.create(CreateTable(
        game="flag_finish", seats=2, spectator_delay_ms=30_000, spectator_delay_entries=2)),
        trio_token=live_server.token)
    page.goto(f"{live_server.url}#/watch/{table.id}")
    page.wait_for_selector(".you")
    page.wait_for_selector(".you:has-text('behind the table')")  # once the table's info is in
    assert page.text_content(".you") == "You are watching as a spectator, 30 s and 2 moves behind the table."


def test_a_flag_finish_race_is_named_as_the_terminal_names_it_a_tiebreak_past_the_last(page, live_server):
    from clients.render import race_words

    page.goto(live_server.url)
    page.wait_for_selector("form.create")
    cases = [(1, 3), (3, 3), (4, 3), (12, 3)]
    said = page.evaluate("""async (cases) => {
      const flag = await import("/js/games/flag_finish.js");
      return cases.map(([race, races]) => flag.raceWords({ race, races }));
    }""", cases)
    assert said == [race_words(*case).capitalize() for case in cases]
    assert said[2] == "Race 4, a tiebreak after 3"
