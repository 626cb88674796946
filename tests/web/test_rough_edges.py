"""Rough edges a newcomer's walkthrough of the web client found, each checked in a real browser (Chromium driven
by Playwright) against a real server: every game's table readable on a phone 390 px wide (no text clipped or
running out of its box: The Race to the Finish's piece labels, sidetracked or not, and its Sidetracked cards;
Finish Line's jokers), a seat whose browser closed mid-game shown as away in the lobby, and the yes/no game
options of a tournament's create form reaching the tournament's tables as booleans.
Every wait is for a page element, with a timeout; nothing sleeps."""

from __future__ import annotations

import re

import pytest
import trio

from .test_browser import create_table, lobby
# seeded_table: Ana in seat 1, heuristic bots (no pause) in the others; CHOOSE_RACE: a piece, else the highest card
from .test_card_games import CHOOSE_RACE, seeded_table

PHONE = {"width": 390, "height": 844}

# The elements of the table page whose content is wider than their box (clipped, or running over a neighbour),
# as "tag.class: text". Inline boxes have no width of their own (their block is measured); the Checkered Flag
# track is an SVG never drawn below one px a unit (its spaces stay 24 px touch targets): wider than a phone, it
# scrolls sideways in its own frame (overflow-x auto), which is not clipping.
OVERFLOWING = """() => [...document.querySelectorAll(".table-page, .table-page *")].filter((e) => {
  if (e.closest("svg")) return false;
  if (e.matches(".cf-track") && getComputedStyle(e).overflowX === "auto") return false;
  const display = getComputedStyle(e).display;
  if (display === "inline" || display === "contents" || e.clientWidth === 0) return false;
  return e.scrollWidth > e.clientWidth;
}).map((e) => `${e.localName}.${e.className}: ${e.textContent.slice(0, 40)}`)"""


def fits_the_phone(page) -> None:
    assert page.evaluate(OVERFLOWING) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling


# Seeds whose first deal shows what used to overflow: Finish Line's board holds two jokers (seed 1), the Race's
# hands hold Sidetracked cards (seed 3).
@pytest.mark.parametrize("game, seats, seed", [("flag_finish", 3, 1), ("flush", 3, 1), ("race_to_the_finish", 4, 3),
                                               ("checkered_flag", 3, 1), ("finish_line", 3, 1)])
def test_every_games_table_fits_a_phone_with_no_clipped_text(page, live_server, shots, game, seats, seed):
    page.set_viewport_size(PHONE)
    seeded_table(page, live_server, game, seats, seed)
    page.wait_for_selector(".board button:not([disabled])")  # Ana's turn: the table waits for her
    page.screenshot(path=shots / f"{game}_phone.png", full_page=True)
    fits_the_phone(page)
    if game == "finish_line":
        assert page.locator(".fline-card.joker").count() >= 1


def test_the_races_sidetracked_pieces_and_cards_are_readable_on_a_phone(page, live_server, shots):
    """The two-seat game's labels ("You 1", "heu 2") on the track, a sidetracked piece beside its card, and the
    Sidetracked card's name, all whole at 390 px."""
    page.set_viewport_size(PHONE)
    seeded_table(page, live_server, "race_to_the_finish", 2, 3)  # Ana holds Sidetracked cards; one is played soon
    page.wait_for_selector(".hand button.move")
    assert page.locator(".hand .rf-ST").count() >= 1
    assert page.locator(".rf-track .rf-piece").all_inner_texts() == ["You 1", "You 2", "heu 1", "heu 2"]
    fits_the_phone(page)
    for _ in range(40):  # play the highest playable card (or the first piece offered) until a piece is sidetracked
        page.wait_for_selector(".hand button.move:not(.pending), .rf-choice button.move:not(.pending), .result")
        if page.locator(".rf-track-card .rf-aside .rf-piece").count() or page.locator(".result").count():
            break
        key = page.evaluate(CHOOSE_RACE)
        if key is not None:
            page.locator(f"[data-key='{key}']").first.click()
            page.wait_for_selector("button.move.pending", state="detached")
    beside = page.locator(".rf-track-card .rf-aside .rf-piece")
    assert beside.count() == 1 and "sidetracked beside track card" in beside.get_attribute("aria-label")
    page.screenshot(path=shots / "race_sidetracked_phone.png", full_page=True)
    fits_the_phone(page)


def test_a_seat_whose_browser_closed_mid_game_shows_as_away_in_the_lobby(browser, page, live_server, shots):
    ana = browser.new_context()
    ana_page = ana.new_page()
    ana_page.set_default_timeout(10_000)
    lobby(ana_page, live_server, name="Ana")
    table = create_table(ana_page, mode="lockstep", seats=2, bots=(1,))
    ana_page.wait_for_selector(".board button.move")
    page.goto(live_server.url)
    seats = f".table-item[data-table='{table}'] .table-seats"
    page.wait_for_selector(f"{seats} .seat.taken")
    assert page.locator(f"{seats} .seat").all_inner_texts() == ["1: Ana", "2: heuristic bot (bot)"]
    ana.close()  # the browser goes away mid-game; the seat stays Ana's for the table's grace period
    page.wait_for_selector(f"{seats} .seat.away", timeout=10_000)  # the lobby's list refreshes by itself
    assert page.locator(f"{seats} .seat").all_inner_texts() == ["1: Ana (away)", "2: heuristic bot (bot)"]
    page.screenshot(path=shots / "lobby_away_seat.png", full_page=True)
    assert page.locator(f".table-item[data-table='{table}'] button").count() == 0  # held for Ana: no one else sits


def server_options(live_server, table):
    return trio.from_thread.run_sync(lambda: dict(live_server.running.lobby.find(table).session.state.options),
                                     trio_token=live_server.token)


@pytest.mark.parametrize("game, option, default", [("flush", "double_last", True), ("finish_line", "play_on", False)])
def test_a_tournaments_yes_no_game_options_are_checkboxes_and_reach_its_tables(page, live_server, shots, game, option,
                                                                               default):
    page.goto(f"{live_server.url}#/organise")
    page.fill("input[name=name]", "Yes-no Cup")
    page.select_option("select[name=game]", game)
    page.fill("input[name=seats]", "2")
    page.fill("input[name=no_show_ms]", "3600000")  # the players stay away: no stand-in plays while the suite runs
    page.click("details summary")
    box = page.locator(f"input[type=checkbox][name={option}]")
    assert box.is_checked() is default  # the game's default
    box.set_checked(not default)
    page.screenshot(path=shots / f"tournament_form_{game}.png", full_page=True)
    page.click("[data-key=create]")
    page.wait_for_url(re.compile(r"#/organise/T\d+$"))
    tournament = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(".organiser [data-key=start]")
    page.evaluate("""async (tournament) => {
      for (const name of ["Ana", "Ben"]) await window.photofinish.client.request({ type: "register", tournament, name });
    }""", tournament)
    page.click("[data-key=start]")
    page.wait_for_selector(".round-tables .table-item")
    tables = page.locator(".round-tables .table-item").evaluate_all("(items) => items.map((i) => i.dataset.table)")
    assert len(tables) == 1
    assert server_options(live_server, tables[0])[option] is (not default)
