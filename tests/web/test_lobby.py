"""The lobby as a player expects it, and the ends of a table (waiting for a second person, playing again), in a
real browser (Debian's Chromium driven by Playwright) against a server of each test's own (an empty lobby):
quick play and the create form first, a few Tabs away; joinable tables first, those in play next, finished ones
folded; tables told apart by who sits there; quick play seating two people at one table; Challenge Mode's bots at
a person's pace by default; a refused name refused before any table exists; "Waiting for 1 more player";
"Play again" and the rematch the others join in one click. Screenshots at 1280 and 390 px under pytest's tmp
dir. Every wait is for a page element, with a timeout; nothing sleeps."""

from __future__ import annotations

import unicodedata

import pytest
import trio

from clients.client import open_client
from server.protocol import BotSeat, CreateTable
from server.protocol.commandline import human_pace_ms
from server.names import PERSON_MOST, check_name
from server.protocol import Refusal
from server.protocol.names import refused

from .conftest import TIMEOUT_MS, LiveServer

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
QUICK = ".quick-buttons button"


@pytest.fixture
def server():
    """A server of this test's own: its lobby holds only what the test puts there."""
    live = LiveServer()
    if isinstance(live.running, BaseException):
        raise live.running
    yield live
    live.stop()


@pytest.fixture
def person(browser, server):
    """open(name, size): a page of a browser of its own (its own seats), in the lobby, with that name typed."""
    contexts, errors = [], []

    def open_page(name: str = "", size: dict = DESKTOP):
        context = browser.new_context(viewport=size)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)
        page.wait_for_selector(f"{QUICK}:not([disabled])")
        if name:
            page.fill("#name", name)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"a page threw: {errors}"


def on_server(server, function, *args):
    return trio.from_thread.run(function, *args, trio_token=server.token)


def open_table(server, **fields):
    return on_server(server, server.running.lobby.create, CreateTable(**fields))


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling


def tabs_to(page, selector: str, most: int = 30) -> int:
    """How many presses of Tab from the top of the page until the focus is on ``selector``."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for count in range(1, most + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return count
    raise AssertionError(f"{selector} not reached in {most} Tabs")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280", "390"])
def test_quick_play_and_the_create_form_come_first_and_a_few_tabs_away(person, server, shots, size):
    for seat_count in range(12):  # a busy lobby: tables in play above the form used to push it 4,000 px down
        open_table(server, game="flag_finish", seats=2, bots=[BotSeat(0), BotSeat(1)], bot_delay_ms=60_000)
    page = person("Ana", size)
    page.wait_for_selector(".playing .table-item >> nth=11")
    titles = page.locator(QUICK).all_inner_texts()
    assert titles == ["Flag Finish", "Flush", "The Race to the Finish", "Checkered Flag", "Finish Line"]
    assert tabs_to(page, QUICK) <= 6  # the brand, three page links, the name, then quick play
    box = page.locator("form.create").bounding_box()
    assert box["y"] < page.locator("#tables").bounding_box()["y"] or box["x"] < page.locator("#tables").bounding_box()["x"]
    assert box["y"] < 1100  # the whole form starts on the first screen or just below, whatever the tables
    fits(page, size["width"])
    page.screenshot(path=shots / f"lobby_busy_{size['width']}.png", full_page=True)


def test_joinable_tables_come_first_then_in_play_then_finished_folded_each_named_by_its_players(person, server, shots):
    over = open_table(server, game="flag_finish", seats=2, options={"races": 1}, bots=[BotSeat(0), BotSeat(1)])
    on_server(server, over.over.wait)
    playing = open_table(server, game="flush", seats=3, bots=[BotSeat(0), BotSeat(1, "random"), BotSeat(2)],
                         bot_delay_ms=60_000)
    ben = person("Ben")
    ben.select_option("select[name=bot-1]", "")  # seat 2 for a person: Ben waits at his table
    ben.click("button[type=submit]")
    ben.wait_for_selector(".waiting")
    waiting = ben.get_attribute(".table-page", "data-table")
    empty = open_table(server, game="finish_line", seats=2)
    page = person("Ana", DESKTOP)
    page.wait_for_selector(f".joinable .table-item[data-table='{empty.id}']")
    order = lambda where: page.locator(f"{where} .table-item").evaluate_all("(items) => items.map((i) => i.dataset.table)")
    assert order(".joinable") == [empty.id, waiting]  # the newest first
    assert order(".playing") == [playing.id]
    assert page.locator(".finished").get_attribute("open") is None  # folded: its count alone shows
    assert page.text_content(".finished summary") == "Finished (1)"
    assert not page.locator(f".table-item[data-table='{over.id}']").is_visible()
    players = lambda table: page.text_content(f".table-item[data-table='{table}'] .players")
    assert players(waiting) == "Ben and 1 free seat"
    assert players(empty.id) == "2 free seats"
    assert players(playing.id) == "2 heuristic bots vs random bot"
    page.screenshot(path=shots / "lobby_sections_1280.png", full_page=True)
    page.click(".finished summary")
    page.wait_for_selector(f".table-item[data-table='{over.id}']")
    assert players(over.id) == "2 heuristic bots"
    page.wait_for_function("() => window.photofinish.page.tables.length === 4")
    page.evaluate("window.photofinish.page.refresh()")  # a refresh of the list keeps the fold as the person left it
    assert page.locator(".finished").get_attribute("open") is not None
    page.set_viewport_size(PHONE)
    fits(page, PHONE["width"])
    page.screenshot(path=shots / "lobby_sections_390.png", full_page=True)


def test_quick_play_seats_two_people_at_one_table_and_the_first_waits_for_the_second(person, server, shots):
    ana = person("Ana", PHONE)
    ana.click("[data-key=quick-flag_finish]")
    ana.wait_for_selector(".waiting")
    table = ana.get_attribute(".table-page", "data-table")
    assert ana.text_content(".turn").strip() == "Waiting for 1 more player."
    assert ana.text_content(".waiting-who") == "Seated: You (seat 1)."
    assert "Race 0" not in ana.text_content(".board") and "dealing" not in ana.text_content(".board")
    ana.screenshot(path=shots / "waiting_390.png", full_page=True)
    fits(ana, PHONE["width"])
    ben = person("Ben", DESKTOP)
    ben.wait_for_selector(f".joinable .table-item[data-table='{table}']")
    assert ben.text_content(f".table-item[data-table='{table}'] .players") == "Ana and 1 free seat"
    ben.click("[data-key=quick-flag_finish]")
    ben.wait_for_selector(".board .seat-row")
    assert ben.get_attribute(".table-page", "data-table") == table  # the waiting table, not a new one
    ana.wait_for_selector(".board .seat-row")  # the game started for Ana too
    assert len(server.running.lobby.tables) == 1
    ben.screenshot(path=shots / "quick_play_started_1280.png", full_page=True)


def test_a_second_person_at_a_table_with_a_bot_is_waited_for_in_plain_words(person, server, shots):
    ana = person("Ana", DESKTOP)
    ana.fill("input[name=seats]", "3")
    ana.select_option("select[name=bot-1]", "")  # seat 2: a person; seat 3: a bot
    ana.click("button[type=submit]")
    ana.wait_for_selector(".waiting")
    assert ana.text_content(".turn").strip() == "Waiting for 1 more player."
    assert ana.text_content(".waiting-who") == "Seated: You (seat 1) and heuristic bot (seat 3)."
    assert "Still free: seat 2." in ana.text_content(".waiting")
    ana.screenshot(path=shots / "waiting_1280.png", full_page=True)
    table = ana.get_attribute(".table-page", "data-table")
    ben = person("Ben", PHONE)
    ben.click(f"[data-key='sit-{table}-1']")
    ana.wait_for_selector(".board .seat-row")  # the game starts: the board replaces the waiting words
    assert ana.locator(".waiting").count() == 0


def test_challenge_mode_from_the_lobbys_defaults_has_bots_at_a_persons_pace(person, server):
    page = person("Ana")
    page.select_option("select[name=mode]", "challenge")
    assert page.input_value("input[name=bot_delay_ms]") == str(human_pace_ms("challenge")) == "2500"
    page.select_option("select[name=mode]", "lockstep")
    assert page.input_value("input[name=bot_delay_ms]") == str(human_pace_ms("lockstep"))
    page.select_option("select[name=mode]", "challenge")
    page.click("button[type=submit]")
    page.wait_for_selector(".table-page .board")
    table = page.get_attribute(".table-page", "data-table")
    assert server.running.lobby.find(table).bot_delay_ms == 2500  # the README's pace, not 300 ms


def test_the_create_form_opens_a_table_its_spectators_see_behind_in_seconds_and_moves(person, server):
    page = person("Ana")
    page.select_option("select[name=bot-0]", "heuristic")
    page.uncheck("input[name=sit]")
    page.click("summary:text(\"Spectators' delay\")")
    page.fill("input[name=spectator_delay_s]", "2.5")
    page.fill("input[name=spectator_delay_entries]", "3")
    page.click("button[type=submit]")
    page.wait_for_selector(".table-page .you")
    table = server.running.lobby.find(page.get_attribute(".table-page", "data-table"))
    assert (table.settings.spectator_delay_ms, table.settings.spectator_delay_entries) == (2500, 3)
    page.wait_for_selector(".you:has-text('behind the table')")  # once the table's info is in
    assert page.text_content(".you") == "You are watching as a spectator, 2.5 s and 3 moves behind the table."


def test_the_create_form_opens_a_broadcast_view_its_creator_is_taken_to_and_never_sits_at(person, server):
    page = person("Ana")  # seat 1 a person, seat 2 a bot, "take the first free seat myself" ticked: as it opens
    page.click("summary:text(\"Spectators' delay\")")
    page.fill("input[name=spectator_delay_entries]", "1")
    page.check("input[name=broadcast]")
    page.click("button[type=submit]")
    page.wait_for_selector(".table-page .you")
    table = server.running.lobby.find(page.get_attribute(".table-page", "data-table"))
    assert page.evaluate("location.hash").startswith(f"#/broadcast/{table.id}/")
    assert table.stream.key_hash is not None and table.slots[0].state == "free"  # it watches: it never sits
    page.wait_for_selector(".you:has-text('behind the table')")  # once the table's info is in
    assert page.text_content(".you") == ("You are watching the broadcast view, every hand shown, 1 move behind the "
                                         "table.")


@pytest.mark.parametrize("name, shown", [("Ana\tBen", "U+0009"), ("Ana\u202eneB", "U+202E")])
def test_a_refused_name_is_refused_before_any_table_is_created(person, server, shots, name, shown):
    page = person()
    page.fill("#name", name)
    assert shown in page.text_content("#name-problem")  # said as it is typed
    page.click("button[type=submit]")
    notice = page.wait_for_selector(".notice")
    assert "Choose another name" in notice.text_content() and shown in notice.text_content()
    page.click("[data-key=quick-flush]")
    page.wait_for_selector(".notice")
    assert server.running.lobby.tables == {}  # no stray table in the lobby
    assert page.locator(".table-item").count() == 0
    page.screenshot(path=shots / f"refused_name_{shown}.png", full_page=True)


def test_the_pages_name_rule_is_the_servers_for_every_character(person, server):
    page = person()
    script = """async () => {
      const { refused } = await import("/js/names.js");
      const out = [];
      for (let code = 0; code <= 0x10ffff; code++) {
        if (code >= 0xd800 && code <= 0xdfff) continue;
        if (refused(String.fromCodePoint(code))) out.push(code);
      }
      return out;
    }"""
    page_refuses = set(page.evaluate(script))
    server_refuses = {code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF and refused(chr(code))}
    # Chromium's Unicode may be a version apart from Python's: only characters both assign may differ by nothing
    assigned = lambda code: unicodedata.category(chr(code)) != "Cn"
    differ = sorted(code for code in page_refuses ^ server_refuses if assigned(code))
    assert [f"U+{code:04X}" for code in differ] == []


def test_the_page_refuses_marks_piled_on_a_letter_in_the_servers_words(person, server):
    page = person()
    names = ["Vi\u1ec7t", "a\u0308\u0301", "Z\u0336\u0336\u0336algo", "\u0301Ana", "A" + "\u0300\u0301" * 4, "Ana"]
    said = page.evaluate("""async (names) => {
      const { nameProblem } = await import("/js/names.js");
      return names.map((name) => nameProblem(name));
    }""", names)
    for name, problem in zip(names, said):
        try:
            check_name(name, "a seat's name", PERSON_MOST)
        except Refusal as refusal:
            assert problem == refusal.message
        else:
            assert problem is None


def test_play_again_opens_a_rematch_the_other_player_joins_in_one_click(person, server, shots):
    """Ana and Ben finish a game (stand-ins play it out while their browsers are away); Ana clicks "Play again",
    Ben's finished page offers the rematch, one click seats him, and the rematch starts with both."""
    old = on_server(server, lambda: server.running.lobby.create(
        CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1}, grace_ms=0),
        stand_in="heuristic"))
    tokens = {}

    async def sit_and_go():
        async with open_client(server.ws_url, reconnect=False) as ana, \
                open_client(server.ws_url, reconnect=False) as ben:
            for seat, (name, client) in enumerate([("Ana", ana), ("Ben", ben)]):
                tokens[name] = (seat, (await client.take_seat(old.id, seat, name)).token)
        with trio.fail_after(60):
            await old.over.wait()  # both gone: the stand-ins played their seats to the end

    on_server(server, sit_and_go)
    pages = {}
    for name, (seat, token) in tokens.items():
        page = pages[name] = person(name, DESKTOP if name == "Ana" else PHONE)
        page.evaluate("([table, seat]) => localStorage.setItem('photofinish.seats', JSON.stringify({[table]: seat}))",
                      [old.id, {"token": token, "seat": seat, "name": name}])
        page.goto(f"{server.url}#/play/{old.id}")
        page.wait_for_selector(".result")
    ana, ben = pages["Ana"], pages["Ben"]
    ben.wait_for_selector("[data-key=play-again]")
    ana.screenshot(path=shots / "play_again_1280.png", full_page=True)
    ana.click("[data-key=play-again]")
    ana.wait_for_selector(".waiting")
    rematch = ana.get_attribute(".table-page", "data-table")
    assert rematch != old.id
    assert ana.text_content(".turn").strip() == "Waiting for 1 more player."
    offer = ben.wait_for_selector(f".rematch[data-rematch='{rematch}']")
    assert offer.text_content().startswith("Ana asks for a rematch")
    ben.screenshot(path=shots / "rematch_offered_390.png", full_page=True)
    fits(ben, PHONE["width"])
    ben.click("[data-key=join-rematch]")
    ben.wait_for_selector(f".table-page[data-table='{rematch}'] .board .seat-row")
    ana.wait_for_selector(".board .seat-row")  # both seated: the rematch is under way
    info = server.running.lobby.find(rematch).info()
    assert [seat.name for seat in info.seats] == ["Ana", "Ben"]  # each in their own seat again
    assert (info.game, info.mode, info.options["races"]) == ("flag_finish", "challenge", 1)
    assert server.running.lobby.find(old.id).rematch == rematch
