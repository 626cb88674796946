"""Flush and The Race to the Finish in a real browser (Debian's Chromium driven by Playwright) against a real
server with server bots.

A person's whole game of each by clicking only what the page offers (Flush in both formats, its declarations
built by selecting cards and confirmed; the two-seat Race with its piece choices), the result read in words;
a spectator's page holding exactly the table's face-up cards and none of the hidden ones (compared with the
server's real state); screenshots of the tables at several moments and on a phone-sized screen, saved under
pytest's tmp dir. Every wait is for a page element, with a timeout; nothing sleeps.
"""

from __future__ import annotations

from collections import Counter

import trio

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # conftest's fixtures skip (or fail, under CI) with the reason
    PlaywrightError = Exception

PHONE = {"width": 390, "height": 844}


def create(page, live_server, game, seats, options=None, choices=None, name="Ana"):
    """From the lobby: a table of ``game`` with a person in seat 1 (this page) and heuristic server bots in
    the other seats with no pause; returns the table's id once its page shows."""
    page.goto(live_server.url)
    page.wait_for_selector("form.create button[type=submit]")
    page.fill("#name", name)
    page.select_option("select[name=game]", game)
    page.fill("input[name=seats]", str(seats))
    for seat in range(1, seats):
        page.select_option(f"select[name=bot-{seat}]", "heuristic")
    page.select_option("select[name=bot-0]", "")
    page.fill("input[name=bot_delay_ms]", "0")
    if options or choices:
        page.click("details summary")
    for option, value in (options or {}).items():
        page.fill(f"[name={option}]", str(value))
    for option, value in (choices or {}).items():
        page.select_option(f"select[name={option}]", value)
    page.click("button[type=submit]")
    page.wait_for_selector(".table-page .board section")
    assert page.text_content(".you") == f"You are {name} (seat 1)."
    return page.get_attribute(".table-page", "data-table")


def server_state(live_server, table):
    """The table's real game state, read in the server's own thread."""
    return trio.from_thread.run_sync(lambda: live_server.running.lobby.find(table).session.state,
                                     trio_token=live_server.token)


def shown_cards(page, selector="main"):
    return Counter(page.locator(f"{selector} [data-card]").evaluate_all("(cards) => cards.map((c) => c.dataset.card)"))


def play(page, choose, ready, max_clicks=600, shots=None, moments=()):
    """Click what ``choose`` (a script run in the page, returning a data-key or null) picks among the offered
    moves until the result shows; ``ready`` is the selector of the page's "your move" area. Screenshots are
    taken after the clicks numbered in ``moments``. Returns the number of clicks."""
    clicks = 0
    for _ in range(3 * max_clicks):
        page.wait_for_selector(f".result, {ready}")
        if page.locator(".result").count():
            return clicks
        page.wait_for_selector("button.move.pending", state="detached")
        key = page.evaluate(choose)
        if key is None:
            continue
        try:
            page.locator(f"[data-key='{key}']").first.click(timeout=1000)
        except PlaywrightError:  # the move went away (the table moved on) before the click: choose again
            continue
        clicks += 1
        if shots and clicks in moments:
            page.screenshot(path=shots / f"{moments[clicks]}.png", full_page=True)
    raise AssertionError(f"the game did not end after {clicks} clicks")


def feed(page):
    return page.evaluate("window.photofinish.page.state.feed.map((line) => line.words)")


# ---------------------------------------------------------------- Flush

# Pass a Base; else confirm a selection the page accepts (a release that keeps the pile, if there is one);
# else add a second card of the value selected; else start a selection with the lowest card that does not pick
# the pile up; else stop after a Blind card, or flip one.
CHOOSE_FLUSH = """() => {
  const all = (s) => [...document.querySelectorAll(s)];
  const pass = all(".fl-pass:not(.pending)")[0];
  if (pass) return pass.dataset.key;
  const selected = all(".fl-mine button.fl-pick.selected");
  const open = all(".fl-mine button.fl-pick:not(.selected):not(:disabled)");
  const value = (b) => b.dataset.card.replace(/[SB]$/, "");
  if (selected.length) {
    const more = selected.length < 2 && open.find((b) => value(b) === value(selected[0]));
    if (more) return more.dataset.key;
    const releases = all(".fl-declare button.fl-release:not(:disabled)");
    const keep = releases.find((b) => !b.classList.contains("fl-pickup")) || releases[0];
    if (keep) return keep.dataset.key;
    return all(".fl-clear")[0].dataset.key;
  }
  const start = open.find((b) => !b.classList.contains("fl-up")) || open[0];
  if (start) return start.dataset.key;
  const other = all(".fl-stop, .fl-flip").filter((b) => !b.classList.contains("pending"))[0];
  return other ? other.dataset.key : null;
}"""


def test_a_person_plays_a_whole_flush_arena_game_by_selecting_and_confirming(page, live_server, shots):
    create(page, live_server, "flush", 2, options={"rounds": 2, "turn_limit": 24})
    page.wait_for_selector(".fl-declare")  # the table waits for Ana
    assert "Arena: 2 rounds, lowest total wins" in page.text_content(".fl-info")
    page.screenshot(path=shots / "flush_arena_start.png", full_page=True)
    clicks = play(page, CHOOSE_FLUSH, ".fl-declare", shots=shots, moments={1: "flush_arena_selected",
                                                                             9: "flush_arena_mid"})
    page.screenshot(path=shots / "flush_arena_over.png", full_page=True)
    result = page.text_content(".result")
    assert "Final scores: You" in result and "(lower is better)" in result
    assert "won" in result or "share the win" in result
    assert page.locator(".board button.move").count() == 0  # nothing is offered once it is over
    assert page.locator(".fl-scores tbody tr").count() == 2  # the points of both rounds, per seat
    lines = feed(page)
    assert any(line.startswith("You released") for line in lines) and clicks > 0
    assert any(line.startswith("Round 2 over") for line in lines) and lines[-1].startswith("Game over")


def test_a_person_plays_a_whole_flush_elimination_game(page, live_server, shots):
    create(page, live_server, "flush", 2, options={"limit": 40, "turn_limit": 20, "max_rounds": 3},
           choices={"format": "elimination"})
    page.wait_for_selector(".fl-declare")
    assert "Elimination: out at 40 points" in page.text_content(".fl-info")
    play(page, CHOOSE_FLUSH, ".fl-declare")
    page.screenshot(path=shots / "flush_elimination_over.png", full_page=True)
    assert "(lower is better)" in page.text_content(".result")
    assert feed(page)[-1].startswith("Game over")


def test_a_flush_declaration_can_be_confirmed_only_when_it_is_legal(page, live_server):
    table = create(page, live_server, "flush", 2)
    page.wait_for_selector(".fl-declare")
    assert page.locator(".fl-release").first.is_disabled()  # nothing selected: nothing to confirm
    legal = page.evaluate("window.photofinish.page.state.legal")
    hand = server_state(live_server, table).hands[0]
    # a declaration of two cards of one value in the hand, if Ana holds one: select them, the other first
    pairs = [a for a in legal if a["type"] == "release" and len(a["hand"]) == 2 and not a["bases"]
             and a["hand"][0] != a["hand"][1]]
    if pairs:
        wanted = pairs[0]
        for card in reversed(wanted["hand"]):  # order does not matter
            page.locator(f".fl-mine .hand button.fl-pick[data-card='{card}']:not(.selected)").first.click()
        confirm = page.locator(".fl-release:not(:disabled)")
        assert confirm.count() >= 1 and f"Release 2 × {wanted['value']}" in confirm.first.text_content()
        page.click(".fl-clear")
    # every card that is in no legal release is not a button; one that is selects and unselects
    buttons = page.locator(".fl-mine .hand button.fl-pick")
    in_some = {c for a in legal if a["type"] == "release" for c in a["hand"]}
    assert {b for b in buttons.evaluate_all("(bs) => bs.map((b) => b.dataset.card)")} == in_some
    assert sorted(shown_cards(page, ".fl-mine .hand").elements()) == sorted(hand)
    first = buttons.first
    first.click()
    assert first.get_attribute("aria-pressed") == "true"
    # cards that cannot join it are disabled: a selection never grows past the legal declarations
    for other in buttons.all()[1:]:
        if other.is_disabled():
            continue
        other.click()
        assert page.locator(".fl-release:not(:disabled)").count() + page.locator(
            ".fl-mine button.fl-pick:not(.selected):not(:disabled)").count() > 0
        break
    # the keyboard works too: focus stays on the card after it re-renders
    page.locator(".fl-mine button.fl-pick.selected").first.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.key").startswith("fl-hand-")


def test_a_flush_spectator_sees_exactly_the_face_up_cards(browser, page, live_server, shots):
    table = create(page, live_server, "flush", 3)
    page.wait_for_selector(".fl-declare")  # Ana to act: the table stands still until she does
    watcher = browser.new_page()
    watcher.goto(f"{live_server.url}#/watch/{table}")
    watcher.wait_for_selector(".flush .fl-seat")
    assert watcher.text_content(".you") == "You are watching as a spectator."
    assert watcher.locator(".fl-mine").count() == 0
    state = server_state(live_server, table)
    face_up = Counter(c for tops in state.tops for c in tops if c is not None)
    face_up.update(c for play in state.pile for c in play.cards)
    face_up[state.mimic_card] += 1
    assert shown_cards(watcher) == face_up  # every face-up card, and nothing else
    assert watcher.locator(".fl-back").count() == sum(b is not None for bl in state.blinds for b in bl)
    assert sorted(shown_cards(page, ".fl-mine .hand").elements()) == sorted(state.hands[0])
    watcher.screenshot(path=shots / "flush_spectator.png", full_page=True)
    watcher.set_viewport_size(PHONE)
    watcher.screenshot(path=shots / "flush_spectator_phone.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=shots / "flush_phone.png", full_page=True)
    watcher.close()


# ---------------------------------------------------------------- The Race to the Finish

# A piece choice: the first offered; else play the highest playable card of the hand.
CHOOSE_RACE = """() => {
  const choice = document.querySelector(".rf-choice button.move:not(.pending)");
  if (choice) return choice.dataset.key;
  const cards = [...document.querySelectorAll(".hand button.move:not(.pending)")];
  return cards.length ? cards[cards.length - 1].dataset.key : null;
}"""


def test_a_person_plays_a_whole_two_seat_race_to_the_finish_by_clicking(page, live_server, shots):
    table = create(page, live_server, "race_to_the_finish", 2)
    page.wait_for_selector(".race-finish .rf-track")
    assert page.locator(".rf-track-card").count() == 12
    assert page.locator(".rf-piece[data-seat]").count() == 4  # two pieces each, on the track
    page.wait_for_selector(".hand button.move, .rf-choice button.move")
    page.screenshot(path=shots / "race_two_seats_start.png", full_page=True)
    play(page, CHOOSE_RACE, ".hand button.move, .rf-choice button.move", shots=shots,
         moments={25: "race_two_seats_mid"})
    page.screenshot(path=shots / "race_two_seats_over.png", full_page=True)
    result = page.text_content(".result")
    assert "Final scores: You" in result and "(higher is better)" in result
    state = server_state(live_server, table)
    winner = "You won!" if state.winner == 0 else "Ben won." if False else "won."
    assert winner in result
    assert page.locator(".board button.move").count() == 0
    assert page.locator(".rf-finish .rf-piece").count() >= 2  # the winner's two pieces are at the Finish
    assert feed(page)[-1].endswith("game over. You win!" if state.winner == 0 else "wins!") or "Finish" in feed(page)[-1]
