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

import pytest
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


def play(page, choose, ready, max_clicks=600, shots=None, moments=(), before=()):
    """Click what ``choose`` (a script run in the page, returning a data-key or null) picks among the offered
    moves until the result shows; ``ready`` is the selector of the page's "your move" area. Screenshots are
    taken after the clicks numbered in ``moments`` and before the first click of a key holding a text of
    ``before``. Returns the data-keys clicked."""
    clicked = []
    before = dict(before)
    for _ in range(3 * max_clicks):
        page.wait_for_selector(f".result, {ready}")
        if page.locator(".result").count():
            return clicked
        page.wait_for_selector("button.move.pending", state="detached")
        key = page.evaluate(choose)
        if key is None:
            continue
        for text, name in list(before.items()):
            if shots and text in key:
                page.screenshot(path=shots / f"{name}.png", full_page=True)
                del before[text]
        try:
            page.locator(f"[data-key='{key}']").first.click(timeout=1000)
        except PlaywrightError:  # the move went away (the table moved on) before the click: choose again
            continue
        clicked.append(key)
        if shots and len(clicked) in moments:
            page.screenshot(path=shots / f"{moments[len(clicked)]}.png", full_page=True)
    raise AssertionError(f"the game did not end after {len(clicked)} clicks")


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
    clicked = play(page, CHOOSE_FLUSH, ".fl-declare", shots=shots, moments={1: "flush_arena_selected",
                                                                             9: "flush_arena_mid"})
    page.screenshot(path=shots / "flush_arena_over.png", full_page=True)
    result = page.text_content(".result")
    assert "Final scores: you: " in result and "(lower is better)" in result
    assert "won" in result or "share the win" in result
    assert page.locator(".board button.move").count() == 0  # nothing is offered once it is over
    assert page.locator(".fl-scores tbody tr").count() == 2  # the points of both rounds, per seat
    lines = feed(page)
    assert any(line.startswith("You released") for line in lines)
    assert any('"type":"release"' in key for key in clicked)  # declarations confirmed after selecting
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


def seeded_table(page, live_server, game, seats, seed, name="Ana"):
    """A table with a chosen seed (so its deal is known), Ana in seat 1 and heuristic bots in the others."""
    page.goto(live_server.url)
    page.wait_for_selector("form.create")
    table = page.evaluate("""async ([game, seats, seed, name]) => {
      const client = window.photofinish.client;
      const bots = [...Array(seats - 1).keys()].map((i) => ({ seat: i + 1, policy: "heuristic" }));
      const table = await client.createTable({ game, seats, bots, seed, practice: true, name: "seeded" });
      await client.takeSeat(table.table, 0, name);
      location.hash = `#/play/${table.table}`;
      return table.table;
    }""", [game, seats, seed, name])
    page.wait_for_selector(".table-page .board section")
    return table


def test_a_flush_declaration_is_built_by_selecting_cards_in_any_order_then_confirmed(page, live_server):
    table = seeded_table(page, live_server, "flush", 2, seed=2)  # Ana leads, holding 2, 2 Skip, 3 ... (Mimic 3)
    page.wait_for_selector(".fl-declare")
    hand = list(server_state(live_server, table).hands[0])
    assert sorted(shown_cards(page, ".fl-mine .hand").elements()) == sorted(hand)
    assert page.locator(".fl-release").first.is_disabled()  # nothing selected: nothing to confirm
    legal = page.evaluate("window.photofinish.page.state.legal")
    releasable = {c for a in legal if a["type"] == "release" for c in a["hand"]}
    buttons = page.locator(".fl-mine .hand button.fl-pick")
    assert set(buttons.evaluate_all("(bs) => bs.map((b) => b.dataset.card)")) == releasable
    pick = lambda card: page.locator(f".fl-mine .hand button.fl-pick[data-card='{card}']:not(.selected)").first
    pick("2S").click()
    assert page.locator(".fl-mine .hand [aria-pressed=true]").count() == 1
    assert pick("10").is_disabled() and not pick("3").is_disabled()  # a 10 cannot join a 2; the Mimic can
    page.locator(".fl-clear").click()
    pick("3").click()  # the Mimic first, then the 2 Skip: declared as 2s
    assert not pick("10").is_disabled()  # the Mimic joins any value
    pick("2S").click()
    confirm = page.locator(".fl-release:not(:disabled)")
    assert confirm.count() == 1 and confirm.text_content() == "Release 2 × 2 (3 as 2)"
    page.locator(".fl-clear").click()
    assert page.locator(".fl-release:not(:disabled)").count() == 0
    # the keyboard: Tab to a card, Enter selects it, and the focus stays on it when the page redraws
    pick("2S").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the next card (a 2, or a 3 as a Mimic) joins it
    assert page.locator(".fl-mine .hand [aria-pressed=true]").count() == 2
    page.locator(".fl-release:not(:disabled)").first.click()
    page.wait_for_selector("button.move.pending", state="detached")
    line = next(words for words in feed(page) if words.startswith("You released"))
    assert line.startswith("You released 2 × 2: ") and "2 Skip" in line
    assert "Heuristic bot is skipped (a Skip card)." in feed(page)
    left = shown_cards(page, ".fl-mine .hand")
    assert sum(left.values()) == len(hand) - 2 and left["2S"] == 0


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


# Seeds whose games are short with this page's choices and the bots' (both are deterministic given the seed);
# the two-seat one asks Ana to choose a piece to move and, once, which of Ben's pieces is sidetracked.
@pytest.mark.parametrize("seats, seed", [(2, 3), (4, 3)])
def test_a_person_plays_a_whole_race_to_the_finish_by_clicking(page, live_server, shots, seats, seed):
    table = seeded_table(page, live_server, "race_to_the_finish", seats, seed)
    page.wait_for_selector(".race-finish .rf-track")
    assert page.locator(".rf-track-card").count() == 12
    pieces = 2 if seats == 2 else 1  # the two-seat game: two pieces each
    assert page.locator(".rf-track .rf-piece").count() == pieces * seats
    ready = ".hand button.move, .rf-choice button.move"
    page.wait_for_selector(ready)
    page.screenshot(path=shots / f"race_{seats}_seats_start.png", full_page=True)
    clicked = play(page, CHOOSE_RACE, ready, shots=shots, moments={12: f"race_{seats}_seats_mid"},
                   before={'"sidetrack"': f"race_{seats}_seats_sidetrack_choice", '"move"': f"race_{seats}_seats_move_choice"})
    page.screenshot(path=shots / f"race_{seats}_seats_over.png", full_page=True)
    if seats == 2:
        assert any('"move"' in key for key in clicked) and any('"sidetrack"' in key for key in clicked)
    result = page.text_content(".result")
    assert "Final scores: you: " in result and "(higher is better)" in result
    winner = server_state(live_server, table).winner
    assert ("You won!" if winner == 0 else " won!") in result
    assert "reached the Finish first" in page.text_content(".rf-info")
    assert page.locator(".board button.move").count() == 0
    assert page.locator(f".rf-finish .rf-piece[data-seat='{winner}']").count() == pieces
    last = feed(page)[-1]
    assert last.startswith("Game over: ") and "the Finish first" in last


def test_a_race_spectator_sees_no_hidden_card(browser, page, live_server, shots):
    table = create(page, live_server, "race_to_the_finish", 3)
    page.wait_for_selector(".hand button.move")  # Ana to play: the table stands still until she does
    watcher = browser.new_page()
    watcher.goto(f"{live_server.url}#/watch/{table}")
    watcher.wait_for_selector(".race-finish .rf-track")
    assert watcher.text_content(".you") == "You are watching as a spectator."
    assert watcher.locator(".hand").count() == 0
    state = server_state(live_server, table)
    assert shown_cards(watcher) == Counter(state.trick)  # the trick in play is the only face-up card
    assert sorted(shown_cards(page, ".hand").elements()) == sorted(state.hands[0])
    offered = page.locator(".hand button.move").evaluate_all("(bs) => bs.map((b) => b.dataset.card)")
    legal = page.evaluate("window.photofinish.page.state.legal")
    assert sorted(offered) == sorted(a["card"] for a in legal)  # one button per legal card, no other
    watcher.screenshot(path=shots / "race_spectator.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=shots / "race_phone.png", full_page=True)
    watcher.close()


def test_the_flush_screen_matches_declarations_in_any_order_and_marks_pickups_as_the_rules_do(page, live_server):
    from rules.flush.deck import VALUES
    from rules.flush.game import is_pickup

    page.goto(live_server.url)
    page.wait_for_selector("form.create")
    checks = page.evaluate("""async (values) => {
      const flush = await import("./js/games/flush.js");
      await (await import("./js/sentences.js")).loadWords();  // as the app does before it shows a game screen
      const releases = [
        { type: "release", value: "4", hand: ["4", "4B"], bases: [] },
        { type: "release", value: "4", hand: ["4", "4B", "7"], bases: [1] },
        { type: "release", value: "4", hand: ["7"], bases: [] },
        { type: "release", value: "7", hand: ["7"], bases: [] },
      ];
      const pickups = {};
      for (const top of [null, ...values]) for (const value of [...values, "F"]) {
        pickups[`${top}/${value}`] = flush.isPickup(top, value);
      }
      const exact = (hand, bases) => flush.analyse(releases, hand, bases).exact.map((r) => r.value);
      const growing = (hand, bases) => flush.analyse(releases, hand, bases).growing.length;
      return { reversed: exact(["4B", "4"], []), lone: exact(["7"], []).sort(), mixed: exact(["7", "4B", "4"], [1]),
               basesMissing: exact(["7", "4B", "4"], []), grows: growing(["4B"], [1]), dead: growing(["4", "4"], []),
               pickups, names: ["7S", "7B", "F", "G", "7"].map(flush.cardName) };
    }""", list(VALUES))
    assert checks["reversed"] == ["4"]  # the order of the selection does not matter
    assert checks["lone"] == ["4", "7"]  # a lone Mimic: one button for each value it may be declared as
    assert checks["mixed"] == ["4"] and checks["basesMissing"] == []  # the Base top is part of the declaration
    assert checks["grows"] == 1 and checks["dead"] == 0  # what a selection may still become
    assert checks["names"] == ["7 Skip", "7 Bonus", "Flush", "Gold Flush", "7"]
    for key, marked in checks["pickups"].items():
        top, value = key.split("/")
        assert marked == is_pickup(None if top == "null" else top, value), key
