"""Tournament pages in Chromium: an organiser creates a Flag Finish tournament from the page and starts it behind
the organiser secret (a wrong secret is refused and changes nothing); a player registers by name, checks in, is
taken straight to their seat when round 1 starts, plays it to the end by clicking, is called to their round-2
table from the header; the organiser corrects round 1's result with a reason (the standings change) and drops
a player. Two bots play the other seats over the wire (clients/tournament_bots.py): round 2 is a lockstep
table that waits for the player, so the organiser acts while it runs.
"""

from __future__ import annotations

import queue
import re
import threading

import trio

from clients.tournament_bots import fill_tournament

from .test_browser import next_flag_finish_click, play_to_the_end


def bots_in_a_thread(url: str, tournament: str, players: int) -> list[str]:
    """Register ``players`` bots that play every round (in a thread of their own until the server stops)."""
    registered: queue.Queue = queue.Queue()

    async def main():
        async with trio.open_nursery() as nursery:
            registered.put(await nursery.start(fill_tournament, url, tournament, players, "heuristic", 7))

    threading.Thread(target=trio.run, args=(main,), daemon=True).start()
    return registered.get(timeout=20)


def standings(page) -> dict[str, str]:
    rows = page.locator(".standings tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    return {cells[1]: cells[2] for cells in rows}


def test_organiser_and_player_run_a_tournament_from_their_pages(browser, live_server, shots):
    organiser = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    player = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    errors = []
    for page in (organiser, player):
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda error: errors.append(str(error)))

    organiser.goto(f"{live_server.url}#/organise")
    organiser.fill("input[name=name]", "Spring Cup")
    organiser.select_option("select[name=mode]", "lockstep")
    organiser.fill("input[name=rounds]", "2")
    organiser.click("details summary")
    organiser.fill("input[name=races]", "1")
    organiser.click("[data-key=create]")
    organiser.wait_for_url(re.compile(r"#/organise/T\d+$"))
    tournament = organiser.url.rsplit("/", 1)[1]
    organiser.wait_for_selector(".organiser")
    assert organiser.input_value("input[name=secret]")  # kept in this browser
    organiser.screenshot(path=shots / "tournament_organiser_new.png", full_page=True)

    player.goto(f"{live_server.url}#/tournament/{tournament}")
    player.fill("[data-key=register-name]", "Ana")
    player.click("form.register button[type=submit]")
    player.wait_for_selector(".me")
    assert player.text_content(".me p").startswith("You are Ana (")
    player.click("[data-key=check-in]")
    player.wait_for_selector(".me p:has-text('checked in')")
    assert len(bots_in_a_thread(live_server.ws_url, tournament, 2)) == 2
    player.wait_for_selector(".players li:has-text('bot 2')")
    player.screenshot(path=shots / "tournament_registered.png", full_page=True)

    # A wrong secret is refused and changes nothing.
    secret = organiser.input_value("input[name=secret]")
    organiser.fill("input[name=secret]", "not-the-secret")
    organiser.click("[data-key=start]")
    assert organiser.wait_for_selector(".notice").text_content().startswith("Refused: ")
    assert "registration open" in organiser.text_content(".turn")
    organiser.fill("input[name=secret]", secret)
    organiser.click("[data-key=start]")

    # Round 1: straight to the seat.
    player.wait_for_url(re.compile(r"#/play/t\d+$"))
    first_table = player.url.rsplit("/", 1)[1]
    player.wait_for_selector(".you:has-text('You are Ana')")
    play_to_the_end(player, next_flag_finish_click)
    player.screenshot(path=shots / "tournament_round1_over.png", full_page=True)

    # Round 2 starts by itself: the header calls Ana to her new table.
    call = player.wait_for_selector(".tournament-call a")
    call.click()
    player.wait_for_url(re.compile(r"#/play/t\d+$"))
    assert player.url.rsplit("/", 1)[1] != first_table
    player.wait_for_selector(".you:has-text('You are Ana')")

    # The organiser corrects round 1 while round 2 waits for Ana, and drops a bot.
    organiser.wait_for_selector(".round-tables h2:has-text('Round 2')")
    before = standings(organiser)
    assert before["Ana"]
    ana_first = float(before["Ana"]) < 3
    players_at_first = [player_name for player_name in trio.from_thread.run(
        _seated_names, live_server, first_table, trio_token=live_server.token)]
    places = [1 if name == "Ana" else 2 for name in players_at_first] if ana_first else \
        [3 if name == "Ana" else 1 for name in players_at_first]
    organiser.fill("input[name=table]", first_table)
    organiser.fill("input[name=places]", " ".join(map(str, places)))
    organiser.fill("input[name=reason]", "scoring error at the table")
    organiser.click("form.correct button[type=submit]")
    organiser.wait_for_function("(was) => { const rows = [...document.querySelectorAll('.standings tbody tr')];"
                                " const ana = rows.find((r) => r.cells[1].textContent === 'Ana');"
                                " return ana && ana.cells[2].textContent !== was; }", arg=before["Ana"])
    after = standings(organiser)
    assert float(after["Ana"]) == (3 if ana_first else 0), (before, after)
    organiser.select_option("select[name=player]", label=next(
        o for o in organiser.locator("select[name=player] option").all_text_contents() if o.startswith("bot 2")))
    organiser.click("form.drop-player button[type=submit]")
    organiser.wait_for_selector(".players li:has-text('bot 2 (dropped)')")
    organiser.screenshot(path=shots / "tournament_organiser.png", full_page=True)

    player.goto(f"{live_server.url}#/tournament/{tournament}")
    player.wait_for_selector(".standings tr.mine")
    assert player.text_content(".standings tr.mine td:nth-child(2)") == "Ana"
    assert player.locator(".your-table").count() == 1  # round 2's table, still waiting for her
    player.screenshot(path=shots / "tournament_player.png", full_page=True)
    player.set_viewport_size({"width": 390, "height": 844})
    player.screenshot(path=shots / "tournament_player_phone.png", full_page=True)
    assert not errors, errors


async def _seated_names(live_server, table: str) -> list[str]:
    return [slot.name for slot in live_server.running.lobby.find(table).slots]


def test_a_player_downloads_the_tournaments_log_from_its_page(browser, tmp_path):
    """The tournament page's "Download the log" saves the log as it stands, to check with `tournament verify`."""
    from clients.client import open_client

    from .logged_server import LoggedServer

    server = LoggedServer(tmp_path / "data")

    async def create() -> str:
        async with open_client(server.ws_url) as organiser:
            created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1)
            await organiser.register(created.tournament.tournament, "Ann")
            return created.tournament.tournament

    try:
        tournament = server.run(create)
        page = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True).new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{server.url}#/tournament/{tournament}")
        page.wait_for_selector("button.download-log")
        assert f"photofinish tournament verify {tournament}.log" in page.text_content("p.verify")
        with page.expect_download() as download:
            page.click("button.download-log")
        saved = tmp_path / "saved.log"
        download.value.save_as(saved)
        assert download.value.suggested_filename == f"{tournament}.log"
        assert saved.read_bytes() == (tmp_path / "data" / "tournaments" / f"{tournament}.log").read_bytes()
        assert '"name":"Ann"' in saved.read_text().splitlines()[1]
    finally:
        server.stop()


def test_a_player_past_the_cap_is_told_they_wait_and_every_page_lists_the_waitlist(browser, live_server):
    pages = [browser.new_context(viewport={"width": 1100, "height": 900}).new_page() for _ in range(4)]
    errors = []
    for page in pages:
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
    organiser, *players = pages
    organiser.goto(f"{live_server.url}#/organise")
    organiser.fill("input[name=name]", "Capped Cup")
    organiser.fill("input[name=max_players]", "2")
    organiser.click("[data-key=create]")
    organiser.wait_for_url(re.compile(r"#/organise/T\d+$"))
    tournament = organiser.url.rsplit("/", 1)[1]
    for page, name in zip(players, ("Ana", "Ben", "Cy")):
        page.goto(f"{live_server.url}#/tournament/{tournament}")
        page.fill("[data-key=register-name]", name)
        page.click("form.register button[type=submit]")
        page.wait_for_selector(".me")
    cy = players[2]
    assert "number 1 on its waitlist" in cy.wait_for_selector(".notice").text_content()
    assert "number 1 on the waitlist" in cy.text_content(".me p")
    organiser.wait_for_selector("ol.waitlist li:has-text('Cy')")
    assert "2 players of 2" in organiser.text_content(".turn") and "1 waiting" in organiser.text_content(".turn")
    assert organiser.locator(".players li").all_text_contents() == ["Ana", "Ben"]
    assert not errors
