"""The organiser's actions in Chromium (js/organiser.js): an evening with pairings first, where the organiser
re-pairs round 1 keeping two players apart (chosen by name), swaps two, begins it, penalises a late player and
ends the round early, while a player's phone and the venue screen follow the new pairings and standings and every
page lists each decision with its reason; the log verifies. Then a player's actions (a penalty refused and then a
game loss, a disqualification confirmed, a drop undone, a re-entry) and the cancellation of the event, each
confirmed where it cannot be undone; and the organise form's "pairings first" and "re-entry" (Swiss only).
"""

from __future__ import annotations

import json
import re

from clients.tournament_text import points_text
from server.tournament.verify import verify_tournament

from .test_reported_tables import call, pages, register, standings

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}
NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"]


def create(url: str, **settings) -> tuple[str, str]:
    """A lockstep Flag Finish Swiss of 3-seat tables that wait for their players (nobody plays: the organiser
    ends each round as it stands)."""
    created = call(url, "create_tournament", **{
        "name": "Friday Night", "game": "flag_finish", "mode": "lockstep", "seats": 3, "rounds": 2,
        "no_show_ms": 600_000, "options": {"races": 1}, **settings})
    return created.tournament.tournament, created.secret


def state(url: str, tournament: str):
    return call(url, "watch_tournament", tournament)


def where(st, round_no: int) -> dict[str, str]:
    """player -> table in that round of the history."""
    found = {}
    for r in st.rounds:
        if r.round == round_no:
            for t in r.tables:
                for p in t.players:
                    found[p] = t.table
    return found


def organiser_page(browser, url: str, tournament: str, secret: str):
    page = pages(browser, 1, DESK)[0]
    page.goto(f"{url}#/organise/{tournament}")
    page.wait_for_selector(".organiser")
    page.fill("input[name=secret]", secret)
    return page


def decisions(page, scope: str = "") -> list[str]:
    return page.locator(f"{scope} .decisions li".strip()).all_text_contents()


def test_an_evening_with_pairings_first(browser, logged, shots):
    tournament, secret = create(logged.ws_url, pairings_first=True)
    phone = pages(browser, 1, PHONE)[0]
    register(phone, logged.url, tournament, "Ana")
    ids = {"Ana": phone.evaluate(f"JSON.parse(localStorage['photofinish.tournaments'])['{tournament}'].player")}
    for name in NAMES[1:]:
        ids[name] = call(logged.ws_url, "register", tournament, name).player
    names = {v: k for k, v in ids.items()}
    screen = pages(browser, 1, {"width": 1920, "height": 1080})[0]
    screen.goto(f"{logged.url}#/tournament/{tournament}/screen/pairings")
    org = organiser_page(browser, logged.url, tournament, secret)
    assert org.locator("[data-key=waiting-round]").count() == 0

    # The first start seats round 1 and publishes it: it waits for the organiser.
    org.click("[data-key=start]")
    org.wait_for_selector("[data-key=waiting-round] h2:has-text('Round 1 is seated and waits')")
    assert org.locator("[data-key=next-round]").count() == 0
    phone.wait_for_selector(".round-tables h2:has-text('waiting to begin')")
    assert "#/play/" not in phone.url
    seated = where(state(logged.ws_url, tournament), 1)
    tables = sorted(set(seated.values()))
    a, b = [p for p in seated if seated[p] == tables[0]][:2]  # two players at one table: keep them apart

    # A swap of two players at one table is refused with the server's reason and changes nothing; what was
    # typed stays.
    org.select_option("[data-key=swap-a]", label=names[a])
    org.select_option("[data-key=swap-b]", label=names[b])
    org.fill("[data-key=swap-reason]", "they came in one car")
    org.click("[data-key=swap-send]")
    assert org.wait_for_selector(".notice").text_content().startswith("Refused: ")
    assert where(state(logged.ws_url, tournament), 1) == seated
    assert org.input_value("[data-key=swap-reason]") == "they came in one car"

    # Re-pair keeping those two apart (chosen by name); the half-typed swap survives the update.
    org.select_option("[data-key=apart-a]", label=names[a])
    org.select_option("[data-key=apart-b]", label=names[b])
    org.click("[data-key=apart-add]")
    assert org.text_content(".apart-pairs li") == f"{names[a]} and {names[b]} ×"
    org.fill("[data-key=repair-reason]", "they are siblings")
    org.click("[data-key=repair-send]")
    org.wait_for_selector(".decision[data-kind=repaired]")
    repaired = where(state(logged.ws_url, tournament), 1)
    assert repaired[a] != repaired[b]
    assert org.locator(".apart-pairs").count() == 0 and org.input_value("[data-key=repair-reason]") == ""
    assert org.input_value("[data-key=swap-reason]") == "they came in one car"
    assert org.text_content(".decision[data-kind=repaired]") == (
        f"Round 1 re-paired, keeping apart {names[a]} and {names[b]} · “they are siblings”")

    # Swap two players of different tables; every page follows.
    tables = sorted(set(repaired.values()))
    c = next(p for p in repaired if repaired[p] == tables[0] and p != ids["Ana"])
    d = ids["Ana"] if repaired[ids["Ana"]] == tables[1] else next(p for p in repaired if repaired[p] == tables[1])
    org.select_option("[data-key=swap-a]", label=names[c])
    org.select_option("[data-key=swap-b]", label=names[d])
    org.click("[data-key=swap-send]")
    org.wait_for_selector(".decision[data-kind=swapped]")
    swapped = where(state(logged.ws_url, tournament), 1)
    assert (swapped[c], swapped[d]) == (repaired[d], repaired[c])
    org.screenshot(path=shots / "organiser_waiting_round_1280.png", full_page=True)
    for page in (phone, org):  # the round's tables on the pages: the new seating, still waiting
        for table in tables:
            at = sorted(names[p] for p in swapped if swapped[p] == table)
            page.wait_for_function("([t, names]) => { const s = document.querySelector(`.round-tables [data-table=${t}] .table-seats`);"
                                   " return s && names.every((n) => s.textContent.includes(n)); }", arg=[table, at])
    number = {t: i + 1 for i, t in enumerate(tables)}  # the log numbers tables in seating order
    for p in (c, d):
        screen.wait_for_function("([p, text]) => { const r = document.querySelector(`.venue-list.pairings li[data-player=${p}] .where`);"
                                 " return r && r.textContent.startsWith(text); }", arg=[p, f"table {number[swapped[p]]} "])
    ana = ids["Ana"]
    seat = next(t.players.index(ana) + 1 for t in state(logged.ws_url, tournament).rounds[0].tables if ana in t.players)
    phone.wait_for_selector(f".waiting-seat:has-text('table {number[swapped[ana]]} ({swapped[ana]}), seat {seat}')")
    phone.screenshot(path=shots / "player_waiting_round_390.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # No round clock on the screen until the round begins.
    assert "starts soon" in screen.text_content(".venue-round")
    assert screen.locator("[data-key=clock]").count() == 0

    # Begin the round: its tables open, the fixes are over; a late player is penalised.
    org.click("[data-key=begin-round]")
    org.wait_for_selector("form.end-round")
    screen.wait_for_selector("[data-key=clock]")
    assert "starts soon" not in screen.text_content(".venue-round")
    assert org.locator("[data-key=waiting-round]").count() == 0
    phone.wait_for_url(re.compile(r"#/play/t\d+$"))  # the round begun takes the player to their seat
    assert phone.url.endswith(f"#/play/{swapped[ids['Ana']]}")
    phone.goto(f"{logged.url}#/tournament/{tournament}")
    late = ids["Cy"]
    org.select_option("[data-key=act-player]", label="Cy")
    org.fill("[data-key=act-reason]", "late to the table")
    org.fill("[data-key=pen-points]", "1")
    org.click("[data-key=penalise]")
    org.wait_for_selector(".decision[data-kind=penalised]")
    phone.wait_for_function("() => [...document.querySelectorAll('.standings tbody tr')].some((r) =>"
                            " r.cells[1].textContent === 'Cy' && r.cells[2].textContent === '-1')")

    # End the round now: its tables end as they stand, round 2 is seated and waits.
    org.fill("[data-key=end-reason]", "the venue closes at ten")
    org.click("[data-key=end-send]")
    org.wait_for_selector("[data-key=waiting-round] h2:has-text('Round 2')")
    st = state(logged.ws_url, tournament)
    assert st.tournament.waiting_round == 2 and st.rounds[0].ended_early
    expected = {r.name: points_text(r.points) for r in st.standings}  # as the terminal prints them
    phone.wait_for_selector(".round-tables h2:has-text('Round 2')")
    phone.wait_for_function("(n) => document.querySelectorAll('.standings tbody tr').length === n", arg=len(expected))
    assert standings(phone) == expected
    seated2 = where(st, 2)
    screen.wait_for_function("(n) => document.querySelectorAll('.venue-list.pairings li .where').length === n",
                             arg=len(seated2))
    screen.screenshot(path=shots / "screen_round_2_1920.png")

    # Every decision of round 1 is in its fold of the history on the player's phone, the latest first.
    phone.click("details[data-round='1'] summary")
    assert decisions(phone, "details[data-round='1']") == [
        "Round 1 ended early · “the venue closes at ten”",
        "Cy: 1 point off · “late to the table”",
        "Round 1 began",
        f"{names[c]} and {names[d]} swapped places · “they came in one car”",
        f"Round 1 re-paired, keeping apart {names[a]} and {names[b]} · “they are siblings”"]
    assert "ended early" in phone.text_content("details[data-round='1'] summary")
    phone.screenshot(path=shots / "player_history_390.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert late in names

    # Round 2: begun and ended; the event is over and its log verifies, every decision in it.
    org.click("[data-key=begin-round]")
    org.wait_for_selector("form.end-round")
    org.fill("[data-key=end-reason]", "last round, time is up")
    org.click("[data-key=end-send]")
    org.wait_for_selector(".turn:has-text('over')")
    org.screenshot(path=shots / "organiser_over_1280.png", full_page=True)
    log = logged.data_dir / "tournaments" / f"{tournament}.log"
    report = verify_tournament(log, logged.data_dir / "tables")
    assert report.ok, report.problem
    kinds = [json.loads(line.split(" ", 1)[1])["kind"] for line in log.read_text().splitlines()]
    for kind in ("repaired", "swapped", "round_begun", "penalised", "round_ended"):
        assert kind in kinds
    for page in (phone, screen, org):
        assert not page.errors, page.errors


def test_a_players_penalty_disqualification_drop_undone_reentry_and_cancel(browser, logged, shots):
    tournament, secret = create(logged.ws_url, reentry=True)
    ids = {name: call(logged.ws_url, "register", tournament, name).player for name in NAMES}
    call(logged.ws_url, "start_tournament", tournament, secret)
    for name in ("Eve", "Fay"):
        call(logged.ws_url, "drop", tournament, secret=secret, player=ids[name])
    org = pages(browser, 1, PHONE)[0]  # the organiser on a phone
    org.goto(f"{logged.url}#/organise/{tournament}")
    org.wait_for_selector(".organiser")
    org.fill("input[name=secret]", secret)
    assert org.locator("[data-key=waiting-round]").count() == 0  # no pairings first: nothing waits

    def choose(name: str, reason: str) -> None:
        org.select_option("[data-key=act-player]", label=name)
        org.fill("[data-key=act-reason]", reason)

    # A penalty of nothing is refused with the server's reason; nothing changes and the form keeps its text.
    choose("Ben", "slow play")
    org.click("[data-key=penalise]")
    assert org.wait_for_selector(".notice").text_content().startswith("Refused: ")
    assert not state(logged.ws_url, tournament).actions[2:]  # the two drops only
    assert org.input_value("[data-key=act-reason]") == "slow play"

    # Undo a drop; re-enter a dropped player as a new entry (its token shown to give to the player).
    choose("Eve", "her train was late, she is here")
    assert org.text_content(".player-state") == f"Eve ({ids['Eve']}) has dropped."
    org.click("[data-key=undo-drop]")
    org.wait_for_selector(".decision[data-kind=undropped]")
    assert org.text_content(".player-state") == f"Eve ({ids['Eve']}) is playing."
    choose("Fay", "paid the entry again")
    org.click("[data-key=reenter]")
    notice = org.wait_for_selector(".notice:has-text('Fay #2')").text_content()
    assert re.search(r"give the player this token to play with: [\w-]{20,}", notice), notice  # token_urlsafe: - too
    org.wait_for_selector(".players li:text-is('Fay #2')")

    # A disqualification asks for a confirmation first: nothing changes until it is given.
    choose("Dee", "abusive to another player")
    org.click("[data-key=disqualify]")
    assert "It cannot be undone" in org.wait_for_selector(".player-actions .confirm").text_content()
    org.screenshot(path=shots / "organiser_player_actions_390.png", full_page=True)
    assert org.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not any(p.disqualified for p in state(logged.ws_url, tournament).players)
    org.click("[data-key=disqualify-yes]")
    org.wait_for_selector(".players li:text-is('Dee (disqualified)')")
    assert org.locator("[data-key=disqualify]").count() == 0  # no second time

    # The round ends now; a game loss at a finished table: Ben placed last there, the others closing up.
    org.fill("[data-key=end-reason]", "a fire drill")
    org.click("[data-key=end-send]")
    org.wait_for_selector(".round-tables h2:has-text('Round 2')")
    choose("Ben", "marked cards")
    table = where(state(logged.ws_url, tournament), 1)[ids["Ben"]]
    org.select_option("[data-key=pen-table]", table)
    assert org.is_disabled("[data-key=pen-points]")
    org.click("[data-key=penalise]")
    org.wait_for_selector(f".decision[data-kind=penalised]:has-text('Ben: a game loss at {table}')")
    history = state(logged.ws_url, tournament).rounds[0]
    counted = next(t for t in history.tables if t.table == table)
    seat = counted.players.index(ids["Ben"])
    assert counted.counted[seat] == len(counted.players)
    org.click("details[data-round='1'] summary")
    seats = org.text_content(f"details[data-round='1'] [data-table={table}] .table-seats")
    assert f"{seat + 1}: Ben · {len(counted.players)}" in seats  # 3rd: the places that count

    # Cancelling asks for a confirmation ("it cannot be undone"); "no" keeps the event running.
    org.click("[data-key=cancel-fold] summary")
    org.fill("[data-key=cancel-reason]", "a power cut")
    org.click("[data-key=cancel-send]")
    assert "cannot be undone" in org.wait_for_selector(".cancel-event .confirm").text_content()
    org.click("[data-key=cancel-no]")
    assert org.locator(".cancel-event .confirm").count() == 0
    assert state(logged.ws_url, tournament).tournament.status == "running"
    org.click("[data-key=cancel-send]")
    org.click("[data-key=cancel-yes]")
    org.wait_for_selector(".turn:has-text('over')")
    assert org.locator(".org-actions").count() == 0
    assert org.text_content(".decision[data-kind=cancelled]") == "The event was cancelled · “a power cut”"
    assert verify_tournament(logged.data_dir / "tournaments" / f"{tournament}.log", logged.data_dir / "tables").ok
    assert not org.errors, org.errors


def test_the_organise_form_offers_pairings_first_and_reentry_for_swiss_only(page, logged):
    page.goto(f"{logged.url}#/organise")
    page.wait_for_selector("[data-key=pairings_first]")
    page.select_option("[data-key=format]", "arena")
    assert page.locator("[data-key=pairings_first], [data-key=reentry]").count() == 0
    page.select_option("[data-key=format]", "swiss")
    page.fill("[data-key=name]", "Checked")
    page.check("[data-key=pairings_first]")
    page.check("[data-key=reentry]")
    page.click("[data-key=create]")
    page.wait_for_url(re.compile(r"#/organise/T\d+$"))
    log = call(logged.ws_url, "tournament_log", page.url.rsplit("/", 1)[1]).log
    settings = json.loads(log.splitlines()[0].split(" ", 1)[1])["settings"]
    assert settings["pairings_first"] is True and settings["reentry"] is True
