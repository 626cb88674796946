"""Tables played with real cards, in Chromium: three phones (browser contexts at 390 px, each a registered player)
are told to play their table with cards and report its places instead of being sent to a table that never
opens; they report from their pages (a refused report shows the server's reason and changes nothing), see each
other's reports, and the result stands when they agree, the standings following. When they disagree the
organiser's page shows both reports and settles it with a reason; it also changes how many tables play with
cards from the next round. The organise form sends the scoring and seeding choices, and the organiser page shows
the Swiss rounds the registered field needs.
"""

from __future__ import annotations

import json
import re

import trio

from clients.client import open_client
from .logged_server import call

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}
CALL = "Play this table with real cards, then report the places."


def create(url: str, **settings) -> tuple[str, str]:
    """A lockstep Flag Finish tournament of one 3-seat table a round, played with real cards."""

    async def main():
        async with open_client(url) as organiser:
            created = await organiser.create_tournament(**{
                "name": "Cards Night", "game": "flag_finish", "mode": "lockstep", "seats": 3, "rounds": 1,
                "reported_tables": 1, "no_show_ms": 600_000, "options": {"races": 1}, **settings})
            return created.tournament.tournament, created.secret

    return trio.run(main)


def pages(browser, count: int, viewport: dict) -> list:
    made = []
    for _ in range(count):
        page = browser.new_context(viewport=viewport).new_page()
        page.set_default_timeout(15_000)
        page.errors = []
        page.on("pageerror", lambda error, page=page: page.errors.append(str(error)))
        made.append(page)
    return made


def register(page, url: str, tournament: str, name: str) -> None:
    page.goto(f"{url}#/tournament/{tournament}")
    page.fill("[data-key=register-name]", name)
    page.click("form.register button[type=submit]")
    page.wait_for_selector(f".me p:has-text('You are {name}')")


def pick(page, form: str, places: dict[str, int]) -> None:
    """Choose each player's place in ``form`` by the player's name."""
    for name, place in places.items():
        page.select_option(f"{form} select[aria-label=\"{name}'s place\"]", str(place))


def standings(page) -> dict[str, str]:
    rows = page.locator(".standings tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    return {cells[1]: cells[2] for cells in rows}


def seat_order(page) -> list[str]:
    return page.locator(".reported-table .place-row .who strong").all_text_contents()


def test_three_phones_report_the_same_places_and_the_result_stands(browser, logged, shots):
    tournament, secret = create(logged.ws_url)
    phones = pages(browser, 3, PHONE)
    ana, bob, cy = phones
    for phone, name in zip(phones, ("Ana", "Bob", "Cy")):
        register(phone, logged.url, tournament, name)
    call(logged.ws_url, "start_tournament", tournament, secret)

    for phone in phones:  # told to play with cards, on the tournament's page: never sent to a table that never opens
        assert phone.wait_for_selector(".reported-table .report-call").text_content() == CALL
    for phone in phones:
        assert "#/play/" not in phone.url and phone.url.endswith(f"#/tournament/{tournament}")
        assert phone.locator(".your-table").count() == 0
    names = seat_order(ana)
    assert sorted(names) == ["Ana", "Bob", "Cy"]
    ana.screenshot(path=shots / "reported_phone_form.png", full_page=True)

    # Usable on a phone: nothing wider than the screen, every control a touch target of 24 px or more.
    assert ana.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for box in ana.locator(".reported-table select, .reported-table button").evaluate_all(
            "(els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.width, r.height, r.right])"):
        assert box[0] >= 24 and box[1] >= 24 and box[2] <= PHONE["width"], box

    # A report that is not places is refused with the server's reason and changes nothing.
    pick(ana, ".report-form", {"Ana": 1, "Bob": 3, "Cy": 3})
    ana.click(".report-form button[type=submit]")
    notice = ana.wait_for_selector(".notice").text_content()
    assert notice.startswith("Refused: ") and "are not places for table" in notice
    assert ana.locator(".reports li.mine").count() == 0
    others = [n for n in names if n != "Ana"]
    assert ana.text_content(".report-waiting") == f"Waiting for you, {others[0]} and {others[1]}."


    # Ana reports; Bob agrees with one tap; Cy picks the same places (what he picked before Ana's report came
    # stays picked through the page's redraw).
    pick(cy, ".report-form", {"Ana": 1})
    pick(ana, ".report-form", {"Ana": 1, "Bob": 2, "Cy": 3})
    ana.click(".report-form button[type=submit]")
    ana.wait_for_selector(".reports li.mine:has-text('You reported: ')")
    assert ana.text_content(".report-waiting") == f"Waiting for {others[0]} and {others[1]}."
    said = ", ".join(f"{n} {dict(Ana='1st', Bob='2nd', Cy='3rd')[n]}" for n in names)
    assert ana.text_content(".reports li.mine") == f"You reported: {said}."
    bob.wait_for_selector(".reports li:has-text('Ana reported: ')")
    assert bob.text_content(".report-waiting") == "Waiting for you and Cy."
    bob.screenshot(path=shots / "reported_phone_one_report.png", full_page=True)
    bob.click("button.agree:has-text('Report the same as Ana')")
    bob.wait_for_selector(".reports li.agrees:has-text('Ana agrees.')")
    cy.wait_for_selector(".report-waiting:has-text('Waiting for you.')")
    assert cy.input_value("select[aria-label=\"Ana's place\"]") == "1"
    pick(cy, ".report-form", {"Ana": 1, "Bob": 2, "Cy": 3})
    cy.click(".report-form button[type=submit]")

    for phone in phones:
        assert phone.wait_for_selector(".report-result").text_content() == f"The result stands: {said}."
        phone.wait_for_function("() => [...document.querySelectorAll('.standings tbody tr')]"
                                ".some((r) => r.cells[1].textContent === 'Ana' && r.cells[2].textContent === '3')")
        assert phone.locator(".report-form").count() == 0
    assert standings(cy) == {"Ana": "3", "Bob": "1", "Cy": "0"}
    cy.screenshot(path=shots / "reported_phone_result.png", full_page=True)
    assert '"kind":"reported"' in call(logged.ws_url, "tournament_log", tournament).log
    for phone in phones:
        assert "#/play/" not in phone.url
        assert not phone.errors


def test_phones_that_disagree_are_settled_by_the_organiser(browser, logged, shots):
    tournament, secret = create(logged.ws_url, rounds=2)
    (organiser,) = pages(browser, 1, DESK)
    phones = pages(browser, 3, PHONE)
    ana, bob, cy = phones
    organiser.goto(f"{logged.url}#/organise/{tournament}")
    organiser.fill("input[name=secret]", secret)
    for phone, name in zip(phones, ("Ana", "Bob", "Cy")):
        register(phone, logged.url, tournament, name)
    organiser.wait_for_selector(".players li:has-text('Cy')")
    organiser.click("[data-key=start]")
    for phone in phones:
        phone.wait_for_selector(".reported-table .report-call")
    first = ana.get_attribute(".reported-table", "data-table")

    pick(ana, ".report-form", {"Ana": 1, "Bob": 2, "Cy": 3})
    ana.click(".report-form button[type=submit]")
    ana.wait_for_selector(".reports li.mine")
    pick(bob, ".report-form", {"Ana": 2, "Bob": 1, "Cy": 3})
    bob.click(".report-form button[type=submit]")
    assert ana.wait_for_selector(".reports li.differs").text_content().startswith("Bob reported differently: ")
    assert bob.wait_for_selector(".reports li.differs").text_content().startswith("Ana reported differently: ")
    assert ana.text_content(".report-waiting") == "Waiting for Cy."
    ana.wait_for_selector(".report-disagree")
    ana.screenshot(path=shots / "reported_phone_disagree.png", full_page=True)
    ana.set_viewport_size(DESK)
    ana.screenshot(path=shots / "reported_desk_disagree.png", full_page=True)

    # The organiser sees both reports and that they disagree.
    row = organiser.wait_for_selector(".reported-panel li.reported.disagree")
    assert "they disagree" in row.text_content()
    reports = organiser.locator(".reported-panel .reports li").all_text_contents()
    assert any(r.startswith("Ana reported: ") for r in reports) and any(r.startswith("Bob reported: ") for r in reports)

    # The count of tables played with cards, from the next round.
    organiser.fill("[data-key=reported-count]", "2")
    organiser.click("form.reported-count button[type=submit]")
    organiser.wait_for_selector(".settings:has-text('2 tables a round played with real cards')")

    # A settlement that is not places is refused and changes nothing; then one with a reason stands.
    pick(organiser, "form.settle", {"Ana": 1, "Bob": 1, "Cy": 1})
    organiser.fill("form.settle input[name=reason]", "x")
    pick(organiser, "form.settle", {"Cy": 2})
    organiser.click("form.settle button[type=submit]")
    assert "are not places for table" in organiser.wait_for_selector(".notice").text_content()
    assert organiser.locator("form.settle").count() == 1
    assert organiser.input_value("form.settle input[name=reason]") == "x"  # what was typed stays
    organiser.screenshot(path=shots / "reported_organiser_disagree.png", full_page=True)
    organiser.set_viewport_size(PHONE)
    organiser.screenshot(path=shots / "reported_organiser_phone.png", full_page=True)
    assert organiser.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    organiser.set_viewport_size(DESK)
    cy.evaluate("location.hash = '#/'")  # Cy goes to the lobby meanwhile: the header will call him back
    cy.wait_for_selector("section.lobby")
    pick(organiser, "form.settle", {"Ana": 2, "Bob": 1, "Cy": 3})
    organiser.fill("form.settle input[name=reason]", "the judge saw the last hand")
    organiser.click("form.settle button[type=submit]")

    # The result stands: round 2 is seated at once, again a table played with cards (the count is now 2), and
    # the phones stay on the tournament's page for it.
    organiser.wait_for_selector(".round-tables h2:has-text('Round 2')")
    round_2 = organiser.get_attribute(".reported-panel li.reported", "data-table")
    assert round_2 != first
    call_back = cy.wait_for_selector(".tournament-call a")
    assert call_back.text_content() == "Report its places" and "played with real cards" in cy.text_content(
        ".tournament-call")
    call_back.click()
    for phone in phones:
        phone.wait_for_selector(f".reported-table[data-table={round_2}] .report-call")
        assert "#/play/" not in phone.url
    cy.wait_for_function("() => [...document.querySelectorAll('.standings tbody tr')]"
                         ".some((r) => r.cells[1].textContent === 'Bob' && r.cells[2].textContent === '3')")
    assert standings(cy) == {"Bob": "3", "Ana": "1", "Cy": "0"}
    # Round 1, folded below, says the organiser settled it and why.
    organiser.click(".round-history details[data-round='1'] summary")
    settled = organiser.wait_for_selector(f".round-history li[data-table={first}]").text_content()
    assert "with real cards" in settled and "settled: the judge saw the last hand" in settled
    assert "Replay" not in settled  # nothing was played on the server
    organiser.screenshot(path=shots / "reported_organiser_settled.png", full_page=True)
    log = call(logged.ws_url, "tournament_log", tournament).log
    assert '"reason":"the judge saw the last hand"' in log and '"kind":"reported_count"' in log
    for page in (organiser, *phones):
        assert not page.errors


def test_the_organise_form_sends_the_scoring_and_seeding_choices(browser, logged, shots):
    (organiser,) = pages(browser, 1, DESK)
    organiser.goto(f"{logged.url}#/organise")
    organiser.fill("input[name=name]", "Settings Cup")
    organiser.fill("input[name=reported_tables]", "2")
    organiser.select_option("select[name=tiebreaks]", "share,opponents")
    organiser.check("input[name=by_ratings]")
    organiser.click("details.points-by-size summary")
    organiser.fill("input[name=points_at_2]", "0 2")  # rising: refused by the server, nothing created
    organiser.click("[data-key=create]")
    assert organiser.wait_for_selector(".notice").text_content().startswith("Could not create it: ")
    assert organiser.url.endswith("#/organise")
    organiser.fill("input[name=points_at_2]", "2 0")
    organiser.screenshot(path=shots / "reported_organise_form.png", full_page=True)
    organiser.click("[data-key=create]")
    organiser.wait_for_url(re.compile(r"#/organise/T\d+$"))
    tournament = organiser.url.rsplit("/", 1)[1]
    settings = organiser.wait_for_selector(".settings").text_content()
    assert "tiebreaks: game share, then opponents' %, then lot" in settings
    assert "round 1 seated by ratings" in settings and "2 tables a round played with real cards" in settings

    created = json.loads(call(logged.ws_url, "tournament_log", tournament).log.splitlines()[0].split(" ", 1)[1])
    assert created["kind"] == "created"
    chosen = created["settings"]
    assert chosen["points"]["2"] == [2, 0] and chosen["seeding"] == "ratings", chosen
    assert chosen["tiebreaks"] == ["share", "opponents"] and chosen["reported_tables"] == 2, chosen

    # The Swiss rounds the registered field needs, from the tournament's info.
    for name in ("Ana", "Bob", "Cy", "Dee"):
        call(logged.ws_url, "register", tournament, name)
    organiser.wait_for_selector("[data-key=suggested]:has-text('suggested for 4 players: 2 rounds (set: 3)')")
    assert not organiser.errors
