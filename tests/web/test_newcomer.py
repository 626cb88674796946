"""What a newcomer at a LAN event meets in the web client, each found by using it as one (a real browser against a
real server): yes/no game options set from the lobby's form, the join box of a server only this machine can open,
finished tables in the lobby, score lists that say whose score is which when two seats share a name, feed lines
that start as sentences with verbs that agree ("You start", "Ana starts" in a replay), and the keyboard focus kept
on the board after a move takes its button away.
Every wait is for a page element, with a timeout; nothing sleeps."""

from __future__ import annotations

import pytest
import trio

from server.http import load_site

from .conftest import WEB_ROOT
from .logged_server import LoggedServer
from .test_browser import create_table, lobby, next_flag_finish_click, play_to_the_end


def server_state(live_server, table):
    return trio.from_thread.run_sync(lambda: live_server.running.lobby.find(table).session.state,
                                     trio_token=live_server.token)


def create_with_a_yes_no_option(page, live_server, game, option, checked_by_default):
    """The lobby's form for ``game`` against one server bot, with the checkbox of ``option`` turned over."""
    lobby(page, live_server)
    page.select_option("select[name=game]", game)
    page.select_option("select[name=bot-1]", "heuristic")
    page.click("details summary")
    box = page.locator(f"input[type=checkbox][name={option}]")
    assert box.is_checked() is checked_by_default  # the game's default
    box.set_checked(not checked_by_default)
    page.click("button[type=submit]")
    page.wait_for_selector(".table-page .board section, .lobby .notice")
    assert not page.locator(".notice").count(), page.text_content(".notice")
    return page.get_attribute(".table-page", "data-table")


def test_a_yes_no_game_option_is_a_checkbox_and_reaches_the_table(page, live_server):
    """Finish Line's play_on and Flush's double_last are booleans: typed into a text box, 'true' was refused."""
    table = create_with_a_yes_no_option(page, live_server, "finish_line", "play_on", False)
    assert server_state(live_server, table).options["play_on"] is True
    table = create_with_a_yes_no_option(page, live_server, "flush", "double_last", True)
    assert server_state(live_server, table).options["double_last"] is False


def test_the_join_box_offers_a_qr_code_only_for_an_address_other_devices_can_open(browser, page, live_server):
    lobby(page, live_server)  # the test server listens on 127.0.0.1 only, as `make run` does
    page.wait_for_selector(".join")
    text = page.text_content(".join")
    assert "only on this machine" in text and "--host 0.0.0.0" in text
    assert page.text_content(".join-url") == live_server.url
    assert page.locator(".join img").count() == 0  # no QR code of an address no phone can reach

    gateway = live_server.running.gateway
    loopback = gateway.site
    lan = f"http://192.0.2.7:{live_server.running.port}/"  # what `serve --host 0.0.0.0` would find (a doc address)
    gateway.site = load_site(WEB_ROOT, (lan,))
    other = browser.new_context()  # new connections: a kept-alive one serves the site it started with
    try:
        phone = other.new_page()
        lobby(phone, live_server)
        phone.wait_for_selector(".join img")
        phone.wait_for_function("() => document.querySelector('.join img').naturalWidth > 0")
        assert phone.text_content(".join-url") == lan
        assert "only on this machine" not in phone.text_content(".join")
    finally:
        gateway.site = loopback
        other.close()


@pytest.mark.parametrize("game, options, show", [
    ("flag_finish", {"races": 1}, str),
    ("finish_line", {"turn_limit": 12}, lambda place: {1: "1st", 2: "2nd", 3: "3rd"}[place])])
def test_scores_say_whose_they_are_when_seats_share_a_name(page, live_server, game, options, show):
    """Three server bots are 'heuristic bot 1', '... 2', '... 3': 'heuristic bot 2 7' read as one number too many."""
    lobby(page, live_server)
    create_table(page, game=game, mode="lockstep" if game == "flag_finish" else None, seats=3, bots=(0, 1, 2),
                 options=options, sit=False)
    page.wait_for_selector(".result", timeout=30_000)
    scores = page.evaluate("window.photofinish.page.state.result.scores")
    listed = ", ".join(f"heuristic bot {seat + 1}: {score}" for seat, score in enumerate(scores))
    if game == "flag_finish":
        assert f"Final scores: {listed} (" in page.text_content(".result")  # the race's line in the feed and the races under the board
        assert page.locator(".feed li", has_text=f"Scores {listed}.").count() == 1
        assert page.text_content(".race-scores") == f"Races: #1 {listed}"
    else:  # places, in the board's line and the feed's last line
        places = ", ".join(f"heuristic bot {seat + 1}: {show(place)}" for seat, place in enumerate(scores))
        assert f"Places: {places}." in page.text_content(".result")  # Finish Line's scores are its places
        assert page.text_content(".fline-places") == f"Places: {places} (lower is better: 1st wins)."
        assert page.locator(".feed li", has_text=places).count() == 1


ON_A_MOVE = "() => document.activeElement.matches('.board .move:not([disabled]):not(.pending)')"
MY_LINES = "() => window.photofinish.page.state.feed.filter((line) => line.words.startsWith('You ')).length"


def test_a_keyboard_player_tabs_to_a_move_once_then_plays_on_with_enter(page, live_server):
    """The move a player pressed Enter on goes away (the draw taken, a card played): the focus goes to the next
    move offered, not to the page's top, from where it took seven Tabs to come back each time."""
    lobby(page, live_server)
    create_table(page, mode="lockstep", options={"races": 1}, delay=0)
    page.wait_for_selector(".board .move:not([disabled])")
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate(ON_A_MOVE):
            break
    else:
        raise AssertionError("Tab never reached a move")
    for _ in range(6):
        mine = page.evaluate(MY_LINES)
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => ({MY_LINES})() > {mine}")  # the move was made
        page.wait_for_function(ON_A_MOVE)  # and the focus waits on the next one (after the bot's turn)


@pytest.fixture
def logged_server(tmp_path):
    server = LoggedServer(tmp_path)  # with a data directory, as `serve` always has: finished tables replay
    if isinstance(server.running, BaseException):
        raise server.running
    yield server
    server.stop()


def test_a_finished_table_in_the_lobby_offers_its_replay_and_no_seat(page, logged_server):
    """A person who left a finished table frees the seat: the lobby offered 'Sit in seat 1' at a game that is
    over, and no way to its replay."""
    lobby(page, logged_server)
    table = create_table(page, mode="lockstep", options={"races": 1})
    play_to_the_end(page, next_flag_finish_click)
    page.click("button.leave")
    page.click(".finished summary")  # finished tables are folded under their count
    row = page.locator(f".finished .table-item[data-table='{table}']")
    row.wait_for()
    page.wait_for_function(f"() => document.querySelector(\".table-item[data-table='{table}']\").textContent"
                           ".match(/1: Ana/)")  # who played it, once she has left (issue 33: not "free")
    assert row.get_attribute("data-status") == "over" and "1: free" not in row.text_content()
    assert row.locator("button", has_text="Sit in seat").count() == 0
    row.locator("a", has_text="Replay").click()
    page.wait_for_selector(".replay-controls")  # the table's frames, loaded
    assert page.url.endswith(f"#/replay/{table}") and f"table {table}" in page.text_content(".replay-page .game-title")


def test_every_line_of_the_feed_starts_as_a_sentence(page, live_server):
    """Server bots are named 'heuristic bot': their lines read 'heuristic bot played green 0.'"""
    lobby(page, live_server)
    create_table(page, mode="lockstep", seats=3, bots=(1, 2), options={"races": 1})
    play_to_the_end(page, next_flag_finish_click)
    lines = page.locator(".feed li").all_text_contents()
    assert any(line.startswith("Heuristic bot 2 ") for line in lines)
    assert [line for line in lines if not line[0].isupper()] == []


# Each game's opening line of the feed, as the table page words it for you (seat 0, "you") and as a replay does
# (every seat by name, seen by seat 0): the verb agrees with its subject either way.
OPENINGS = """async () => {
  const words = await import("/js/sentences.js");
  await words.loadWords();
  const live = { me: 0, name: (seat) => "Ben", seats: 2 };
  const replay = { me: null, name: (seat) => ["Ana", "Ben"][seat], seats: 2 };
  const lines = (reader) => [
    words.sayEvent("flag_finish", { type: "race_dealt", race: 1, starter: 0, flips: ["G3"] }, reader),
    words.sayEvent("race_to_the_finish", { type: "dealt", deal: 1, dealer: 1, leader: 0 }, reader),
    words.sayEvent("flush", { type: "round_dealt", round: 1, mimic: null, leader: 0 }, reader),
  ].map(words.line);
  return { live: lines(live), replay: lines(replay) };
}"""


def test_the_feed_says_you_start_to_you_and_ana_starts_in_a_replay(page, live_server):
    lobby(page, live_server)
    said = page.evaluate(OPENINGS)
    assert said["live"] == ["Race 1 dealt: flipped green 3 onto the discard pile; you start.",
                            "Deal 1: Ben dealt; you lead.", "Round 1 dealt: a Flush card was turned, no Mimic; you lead."]
    assert said["replay"] == ["Race 1 dealt: flipped green 3 onto the discard pile; Ana starts.",
                              "Deal 1: Ben dealt; Ana leads.",
                              "Round 1 dealt: a Flush card was turned, no Mimic; Ana leads."]