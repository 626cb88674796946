"""The Checkered Flag and Finish Line screens in a real browser (Debian's Chromium, Playwright) against a real
server with server bots.

For each game: a person's whole game by clicking only what the page offers (checked against the update's
`legal` list before every click) until the result shows in words; a spectator's page drawn from the server's
real state with nothing to click; screenshots of the table at several moments (under pytest's tmp dir).
Every wait is for a page element, with a timeout; nothing sleeps.
"""

from __future__ import annotations

import json

import trio

from rules.checkered_flag.track import track_for

from .test_browser import PlaywrightError, create_table, feed, lobby

LEGAL = "JSON.stringify(window.photofinish.page.state.legal)"
OFFERED = """() => [...document.querySelectorAll('.board .move[data-key]')].map((b) => b.dataset.key)"""


def offered_are_legal(page) -> None:
    """The moves the board offers (buttons and clickable track spaces) are exactly the last update's legal
    actions: none missing, none made up."""
    legal, offered = page.evaluate("""() => [window.photofinish.page.state.legal,
        [...document.querySelectorAll('.board .move[data-key]')].map((b) => JSON.parse(b.dataset.key))]""")
    def canonical(actions):
        return {json.dumps(action, sort_keys=True) for action in actions}
    assert canonical(offered) == canonical(legal)


def server_state(live_server, table):
    def read():
        return live_server.running.lobby.find(table).session.state

    return trio.from_thread.run_sync(read, trio_token=live_server.token)


def play(page, click_next, max_clicks=400) -> int:
    """Until the result shows: wait for the board to offer a move, check that it offers exactly the legal
    moves, and let ``click_next`` click one. Returns the clicks."""
    clicks = missed = 0
    for _ in range(max_clicks):
        page.wait_for_selector(".result, .board .move:not(.pending)")
        if page.locator(".result").count():
            return clicks
        page.wait_for_selector(".move.pending", state="detached")
        if page.locator(".result").count() or not page.locator(".board .move").count():
            continue
        offered_are_legal(page)
        try:
            click_next(page)
        except PlaywrightError:  # the page moved on between reading and clicking: look again
            missed += 1
            assert missed < 10, f"nothing offered could be clicked: {page.text_content('.board')}"
            continue
        clicks += 1
        missed = 0
    raise AssertionError(f"the game did not end after {clicks} clicks")


# ---------------------------------------------------------------- Checkered Flag


def checkered_flag_click(shots, seen):
    def click(page):
        brake = page.locator("svg .cf-target.brake.move")
        if brake.count():
            if "plan" not in seen:
                seen.add("plan")
                page.screenshot(path=shots / "checkered_flag_brake_choice.png", full_page=True)
            seen.add(f"click{len(seen)}")
            target = brake.first if len(seen) % 2 else page.locator("svg .cf-target.go.move").first
            if not target.count():
                return page.locator(".cf-go").click(timeout=1000)
            if len(seen) % 4 < 2:
                return target.click(timeout=1000)  # on the track itself, with the mouse ...
            target.focus(timeout=1000)
            return page.keyboard.press("Enter")  # ... or with the keyboard
        if page.locator(".cf-go").count():
            return page.locator(".cf-go").click(timeout=1000)
        gears = page.locator(".cf-gear")
        wanted = page.locator(".cf-gear.gear-2")
        (wanted if wanted.count() else gears.last).click(timeout=1000)
    return click


def test_a_person_races_a_whole_checkered_flag_game_by_clicking(page, live_server, shots):
    lobby(page, live_server)
    table = create_table(page, game="checkered_flag", seats=2, bots=(1,), options={"turn_limit": 100})
    page.wait_for_selector(".checkered-flag svg .cf-space")
    track = track_for(server_state(live_server, table).options["track"])
    drawn = page.locator("svg .cf-space").evaluate_all("(spaces) => spaces.map((s) => s.classList[1])")
    assert drawn == track.kinds[1:]  # every space of Travel Oval, of its kind, from the view's track data
    page.screenshot(path=shots / "checkered_flag_start.png", full_page=True)
    seen: set[str] = set()
    clicks = play(page, checkered_flag_click(shots, seen))
    page.screenshot(path=shots / "checkered_flag_over.png", full_page=True)
    result = page.text_content(".result")
    assert "Final scores: you: " in result and "(higher is better)" in result
    winner = page.text_content(".cf-winner")
    assert "crossed the finish line first" in winner or "went furthest before the turn limit" in winner
    assert page.locator(".board .move").count() == 0
    lines = [words for _, words in feed(page)]
    assert clicks > 0 and any(line.startswith("You spun ") for line in lines)
    assert any("won the race" in line or "Turn limit" in line for line in lines)


# ---------------------------------------------------------------- Finish Line


def finish_line_clicks():
    """An activated card's choice: its marker on the board; else a marker on the board, then a die (every other
    move), or a move from the list."""
    turns = iter(range(10_000))

    def click(page):
        pick = page.locator(".fline-pick")
        if pick.count():
            token = page.locator(".fline-board button.fline-marker.pick")
            return (token.first if token.count() else pick.first).click(timeout=1000)
        if next(turns) % 2:
            return page.locator(".fline-move").first.click(timeout=1000)
        page.locator(".fline-board button.fline-marker.mine:not([disabled])").last.click(timeout=1000)
        page.locator("button.fline-die:not([disabled])").first.click(timeout=1000)
    return click


def test_a_person_plays_a_whole_finish_line_game_by_clicking(page, live_server, shots):
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the whole game is played at its size
    lobby(page, live_server)
    # The turn limit (the rules' own end of a game) bounds the test's time; most games end before it.
    table = create_table(page, game="finish_line", seats=2, bots=(1,), options={"turn_limit": 80})
    page.wait_for_selector(".finish-line .fline-card")
    page.screenshot(path=shots / "finish_line_start_phone.png", full_page=True)
    clicks = play(page, finish_line_clicks())
    page.screenshot(path=shots / "finish_line_over_phone.png", full_page=True)
    result = page.text_content(".result")
    places = server_state(live_server, table).places
    ordinal = {1: "1st", 2: "2nd"}
    assert f"Places: you: {ordinal[places[0]]}, heuristic bot: {ordinal[places[1]]}." in result  # places: no scores
    assert page.locator(".board .move").count() == 0
    assert page.text_content(".fline-places") == (f"Places: You: {ordinal[places[0]]}, heuristic bot: "
                                                  f"{ordinal[places[1]]} (lower is better: 1st wins).")
    assert clicks > 0 and any(words.startswith("Game over") for _, words in feed(page))


def test_a_phone_sized_checkered_flag_spectator_sees_the_real_race_and_nothing_to_click(browser, page, live_server,
                                                                                      shots):
    lobby(page, live_server)
    table = create_table(page, game="checkered_flag", seats=3, bots=(1, 2))
    for _ in range(6):  # a few turns, so the cars stand apart: shift up, go on
        page.wait_for_selector(".board .move:not(.pending)")
        page.wait_for_selector(".move.pending", state="detached")
        checkered_flag_click(shots, {"plan"})(page)
    page.wait_for_selector(".board .move:not(.pending)")  # Ana to act: the race stands still until she does
    watcher = browser.new_page(viewport={"width": 390, "height": 844})
    watcher.goto(f"{live_server.url}#/watch/{table}")
    watcher.wait_for_selector(".checkered-flag svg .cf-car")
    assert watcher.text_content(".you") == "You are watching as a spectator."
    state = server_state(live_server, table)
    cars = watcher.locator("svg .cf-car").evaluate_all(
        "(cars) => cars.map((c) => [Number(c.dataset.seat), Number(c.dataset.position)])")
    assert sorted(cars) == [[seat, p] for seat, p in enumerate(state.positions)]
    rows = watcher.locator(".cf-gearbox .on").all_text_contents()
    assert rows == [("N", "1", "2", "3")[gear] for gear in state.gears]
    assert watcher.locator(".board .move, .board button").count() == 0  # a spectator has nothing to click
    watcher.screenshot(path=shots / "checkered_flag_spectator_phone.png", full_page=True)
    watcher.close()


def test_a_finish_line_spectator_sees_the_real_board_and_a_player_moves_with_the_keyboard(browser, page, live_server,
                                                                                        shots):
    lobby(page, live_server)
    table = create_table(page, game="finish_line", seats=3, bots=(1, 2))
    page.wait_for_selector("button.fline-marker.mine:not([disabled])")
    before = len(feed(page))
    page.focus("button.fline-marker.mine:not([disabled])")  # keyboard only: Enter on a marker, Space on a die
    page.keyboard.press("Enter")
    assert page.get_attribute("button.fline-marker.mine[aria-pressed=true]", "data-marker") is not None
    page.focus("button.fline-die:not([disabled])")
    page.keyboard.press(" ")
    page.wait_for_selector(".feed li:has-text('Your marker')")
    assert any(words.startswith("Your marker ") for _, words in feed(page)[before:])
    page.wait_for_selector("button.fline-marker.mine:not([disabled]), .fline-pick")  # Ana's second die, or a choice
    watcher = browser.new_page(viewport={"width": 1100, "height": 900})
    watcher.goto(f"{live_server.url}#/watch/{table}")
    watcher.wait_for_selector(".finish-line .fline-card")
    state = server_state(live_server, table)
    cards = watcher.locator(".fline-card").evaluate_all(
        "(cards) => cards.map((c) => [Number(c.dataset.index), c.dataset.card])")
    assert cards == [[i, card] for i, card in enumerate(state.board) if i > 0]  # the whole dealt board, in place
    markers = watcher.locator(".fline-marker").evaluate_all("""(tokens) => tokens.map((t) => [Number(t.dataset.seat),
        Number(t.dataset.marker), Number(t.closest('[data-index]').dataset.index)])""")
    assert sorted(markers) == [[s, m, p] for s, ms in enumerate(state.markers) for m, p in enumerate(ms)]
    assert watcher.text_content(".fline-stop").startswith(f"Stop value {sum(state.dice)}")
    assert watcher.locator(".board .move, .board button").count() == 0  # a spectator has nothing to click
    watcher.screenshot(path=shots / "finish_line_spectator.png", full_page=True)
    watcher.close()
