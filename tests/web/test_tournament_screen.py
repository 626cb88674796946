"""The tournament pages for a room: the venue screen at a projector's 1920x1080 with 40 players (every name with
its table and seat on one screen, the round clock, the standings, the join QR code, views that move on by
themselves or stay pinned), the printed pairings and standings, a field that keeps what a person types through
live updates, every earlier round on the page, and the page's numbers rounded exactly as the terminal's.
"""

from __future__ import annotations

import json
import re
import unicodedata
import urllib.request

import trio
from hypothesis import HealthCheck, given, settings, strategies as st


from clients.client import open_client
from clients.tournament_text import fixed, points_text, standings_text
from server.protocol.tournament import scoring_places
from .logged_server import call

FIRST = ["Ada", "Bram", "Chiara", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kaito", "Lena", "Mateo",
         "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq"]
NAMES = [f"{first} {last}" for last in ("Okafor", "Lindqvist") for first in FIRST]  # 40, every first name twice
NAMES[7] = "Zoë Müller"  # a name a plain byte sort misplaces


def create(url: str, names: list[str], rounds: int = 2, seats: int = 3, round_time_ms: int = 45 * 60_000):
    """A lockstep Flag Finish tournament with ``names`` registered and round 1 seated (nobody comes to the
    tables, whose no-show wait is long: the round stays seated); its id, secret and the players' ids by name."""

    async def main():
        async with open_client(url) as organiser:
            created = await organiser.create_tournament(name="Friday Night Flags", game="flag_finish",
                                                        mode="lockstep", seats=seats, rounds=rounds,
                                                        round_time_ms=round_time_ms, no_show_ms=600_000,
                                                        turn_time_ms=600_000, options={"races": 1})
            tid = created.tournament.tournament
            ids = {}
            for name in names:  # each from a connection of their own, as people register
                async with open_client(url) as player:
                    ids[name] = (await player.register(tid, name)).player
            return tid, created.secret, ids

    return trio.run(main)


def seated_round(url: str, tid: str, round_no: int) -> dict:
    """Round ``round_no`` as the log seats it: player -> (table number, seat), both from 1."""
    log = call(url, "tournament_log", tid).log
    for line in log.splitlines():
        record = json.loads(line.split(" ", 1)[1])
        if record["kind"] == "round_seated" and record["round"] == round_no:
            return {p: (number, seat) for number, t in enumerate(record["tables"], 1)
                    for seat, p in enumerate(t["players"], 1)}
    raise AssertionError(f"no round {round_no} in the log")


def plain(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()


def new_page(browser, width: int, height: int):
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(15_000)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page


def test_the_venue_screen_shows_forty_players_their_tables_on_one_projector_screen(browser, logged, shots):
    tid, secret, ids = create(logged.ws_url, NAMES)
    call(logged.ws_url, "start_tournament", tid, secret)
    where = seated_round(logged.ws_url, tid, 1)
    screen = new_page(browser, 1920, 1080)
    screen.clock.install()
    screen.goto(f"{logged.url}#/tournament/{tid}/screen")

    # Pairings: every player, by name, with their table and seat, all on the screen at once in large type.
    screen.wait_for_function("() => document.querySelectorAll('.venue-list.pairings li').length === 40")
    screen.wait_for_selector(".venue-list.pairings li .table-no")
    rows = screen.locator(".venue-list.pairings li").evaluate_all("""(rows) => rows.map((r) => {
        const box = r.getBoundingClientRect(), name = r.querySelector('.name');
        return { player: r.dataset.player, name: name.textContent, where: r.querySelector('.where').textContent,
                 inside: box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth,
                 clipped: name.scrollWidth > name.clientWidth, font: parseFloat(getComputedStyle(r).fontSize) };
    })""")
    screen.screenshot(path=shots / "venue_pairings_1920.png")
    assert [r["name"] for r in rows] == sorted(NAMES, key=plain)
    for row in rows:
        number, seat = where[ids[row["name"]]]
        assert row["where"] == f"table {number} seat {seat}", row
        assert row["inside"] and not row["clipped"] and row["font"] >= 32, row
    columns = screen.locator(".venue-list.pairings li").evaluate_all(
        "(rows) => new Set(rows.map((r) => Math.round(r.getBoundingClientRect().left))).size")
    assert columns >= 2
    assert re.fullmatch(r"4[45]:\d\d left", screen.text_content(".round-clock")), screen.text_content(".round-clock")
    assert screen.evaluate("() => document.documentElement.scrollHeight <= innerHeight")

    # It moves on by itself: the standings, then the join code, then the pairings again.
    screen.clock.fast_forward("00:21")
    screen.wait_for_selector(".venue-screen[data-view=standings]")
    assert screen.locator(".venue-list.standings li").count() == 40
    screen.screenshot(path=shots / "venue_standings_1920.png")
    screen.clock.fast_forward("00:13")
    screen.wait_for_selector(".venue-screen[data-view=join]")
    screen.wait_for_function("() => { const qr = document.querySelector('img.venue-qr');"
                             " return qr && qr.complete && qr.naturalWidth > 0; }")
    assert screen.text_content(".venue-url") == f"{logged.url}#/tournament/{tid}"
    qr = urllib.request.urlopen(f"{logged.url}join/{tid}.svg").read()
    assert f"<title>{logged.url}#/tournament/{tid}</title>".encode() in qr
    screen.screenshot(path=shots / "venue_join_1920.png")
    screen.clock.fast_forward("00:09")
    screen.wait_for_selector(".venue-screen[data-view=pairings]")

    # A tab pins its view: it stays however long; pressed again, the screen moves on again.
    screen.click(".view-tab[data-view=standings]")
    screen.clock.fast_forward("02:00")
    assert screen.get_attribute(".venue-screen", "data-view") == "standings"
    assert screen.get_attribute(".view-tab[data-view=standings]", "aria-pressed") == "true"
    screen.click(".view-tab[data-view=standings]")
    screen.clock.fast_forward("00:13")
    screen.wait_for_selector(".venue-screen[data-view=join]")

    # An address with the view pins it from the start (a second projector for the standings).
    screen.goto(f"{logged.url}#/tournament/{tid}/screen/standings")
    screen.wait_for_selector(".view-tab[data-view=standings][aria-pressed=true]")
    assert not screen.errors, screen.errors


def test_pairings_and_standings_print_on_paper_without_the_pages_controls(browser, logged, shots):
    names = NAMES[:12]
    tid, secret, ids = create(logged.ws_url, names)
    call(logged.ws_url, "start_tournament", tid, secret)
    where = seated_round(logged.ws_url, tid, 1)
    page = new_page(browser, 1100, 900)
    page.goto(f"{logged.url}#/tournament/{tid}")
    page.wait_for_selector(".standings tbody tr")
    assert not page.is_visible(".print-pairings")  # on the screen: the page as it is
    page.emulate_media(media="print")
    page.wait_for_selector(".print-pairings .pairing")
    rows = page.locator(".print-pairings .pairing").evaluate_all(
        "(rows) => rows.map((r) => [r.querySelector('.name').textContent, r.querySelector('.where').textContent])")
    assert [name for name, _ in rows] == sorted(names, key=plain)
    assert all(text == "table {}, seat {}".format(*where[ids[name]]) for name, text in rows)
    assert page.is_visible(".standings table") and page.locator(".standings tbody tr").count() == 12
    for control in (".top", "form.register", ".side", "button", ".round-tables", "[data-key=venue-screen]"):
        assert not page.locator(control).first.is_visible(), control
    page.screenshot(path=shots / "printed_pairings.png", full_page=True)
    page.emulate_media(media="screen")
    assert page.is_visible(".round-tables") and not page.is_visible(".print-pairings")
    assert not page.errors, page.errors


def test_what_a_person_types_survives_the_updates_that_arrive_meanwhile(browser, logged, shots):
    tid, secret, ids = create(logged.ws_url, ["Ada", "Bram", "Chiara"])
    player = new_page(browser, 390, 844)
    player.goto(f"{logged.url}#/tournament/{tid}")
    player.fill("[data-key=register-name]", "")
    player.type("[data-key=register-name]", "Dan Ro")  # half a name: then someone else registers
    call(logged.ws_url, "register", tid, "Eve")
    player.wait_for_selector(".players li:has-text('Eve')")
    assert player.input_value("[data-key=register-name]") == "Dan Ro"
    assert player.evaluate("() => document.activeElement.dataset.key") == "register-name"
    player.type("[data-key=register-name]", "ss")
    assert player.input_value("[data-key=register-name]") == "Dan Ross"
    player.click("form.register button[type=submit]")
    player.wait_for_selector(".me p:has-text('You are Dan Ross')")

    organiser = new_page(browser, 1100, 900)
    organiser.goto(f"{logged.url}#/organise/{tid}")
    organiser.fill("[data-key=secret]", secret)
    organiser.click("[data-key=start]")
    organiser.wait_for_selector("form.correct")
    organiser.fill("[data-key=correct-places]", "1 2 3")
    organiser.click("[data-key=correct-reason]")
    organiser.keyboard.type("the scorer misread")  # the organiser's reason, half written: a player drops
    call(logged.ws_url, "drop", tid, secret=secret, player=ids["Bram"])
    organiser.wait_for_selector(".players li:has-text('Bram (dropped)')")
    assert organiser.input_value("[data-key=correct-reason]") == "the scorer misread"
    assert organiser.input_value("[data-key=correct-places]") == "1 2 3"
    assert organiser.evaluate("() => document.activeElement.dataset.key") == "correct-reason"
    player.wait_for_url(re.compile(r"#/play/t\d+$"))  # round 1 took Dan to his seat; back to the event's page
    player.goto(f"{logged.url}#/tournament/{tid}")
    player.wait_for_selector(".your-table")
    player.wait_for_selector(".round-tables .table-number")
    player.screenshot(path=shots / "tournament_player_390.png", full_page=True)
    assert not player.errors and not organiser.errors, (player.errors, organiser.errors)


def test_every_round_stays_on_the_page_the_earlier_ones_folded(browser, logged, shots):
    names = ["Ada", "Bram", "Chiara", "Dev", "Elif", "Femi"]
    tid, secret, ids = create(logged.ws_url, names, rounds=3)
    call(logged.ws_url, "start_tournament", tid, secret)
    first = seated_round(logged.ws_url, tid, 1)
    page = new_page(browser, 390, 844)
    page.goto(f"{logged.url}#/tournament/{tid}")
    page.wait_for_selector(".round-tables h2:has-text('Round 1')")
    call(logged.ws_url, "start_tournament", tid, secret, next_round=True)  # round 1 ends as it stands
    page.wait_for_selector(".round-tables h2:has-text('Round 2')")
    earlier = page.wait_for_selector(".round-history details[data-round='1']")
    assert earlier.get_attribute("open") is None  # folded
    assert not page.is_visible(".round-history details[data-round='1'] .table-item")
    page.click(".round-history details[data-round='1'] summary")
    items = page.locator(".round-history details[data-round='1'] .table-item")
    assert items.count() == 2
    shown = items.evaluate_all("(items) => items.map((i) => i.textContent)")
    by_table: dict[int, list[str]] = {}
    for player, (number, seat) in first.items():
        by_table.setdefault(number, []).append(f"{seat}: {next(n for n, p in ids.items() if p == player)}")
    for number, seats in by_table.items():
        text = next(t for t in shown if t.startswith(f"Table {number} · "))
        assert " · over" in text and all(seat in text for seat in seats), (text, seats)
    page.screenshot(path=shots / "tournament_rounds_390.png", full_page=True)
    # the standings read the same on the page as in `photofinish tournament standings`
    state = call(logged.ws_url, "watch_tournament", tid)
    cli = standings_text(state).splitlines()[1:]
    shown = page.locator(".standings tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].slice(1, 5).map((c) => c.textContent))")
    for row, line, cells in zip(state.standings, cli, shown, strict=True):
        assert cells == [row.name, points_text(row.points), fixed(row.opponents_pct * 100, 0) + "%",
                         fixed(row.game_share, 2)]
        assert line.split()[-5:-1] == [points_text(row.points), fixed(row.opponents_pct * 100, 0),
                                       fixed(row.game_share, 2), str(row.tables)], line
    # it stays open through the next update
    call(logged.ws_url, "drop", tid, secret=secret, player=ids["Femi"])
    page.wait_for_selector(".players li:has-text('Femi (dropped)')")
    assert page.get_attribute(".round-history details[data-round='1']", "open") is not None
    assert not page.errors, page.errors


FIGURES = """async ([values, tables]) => {
    const f = await import('./js/figures.js');
    return [values.map((x) => [f.fixed(x, 2), f.fixed(x * 100, 0), f.pointsText(x)]),
            tables.map(([places, standIns]) => f.scoringPlaces(places, standIns))];
}"""


def page_figures(page, values, tables):
    return page.evaluate(FIGURES, [values, tables])


def test_the_page_rounds_a_tie_as_the_terminal_does(page, live_server):
    """The report: the page said 1.13 where the terminal said 1.12 (a share of 1.125, exactly halfway)."""
    page.goto(live_server.url)
    (share, percent, points), = page_figures(page, [1.125], [])[0]
    assert (share, points) == (fixed(1.125, 2), points_text(1.125)) == ("1.13", "1.13")
    ((_, percent, _),), _ = page_figures(page, [0.625], [])
    assert percent == fixed(0.625 * 100, 0) == "63"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.one_of(st.floats(-1000, 1000, allow_nan=False), st.integers(-4000, 4000).map(lambda n: n / 8),
                                 st.fractions(0, 100, max_denominator=12).map(float)), min_size=1, max_size=60),
       tables=st.lists(st.integers(2, 6).flatmap(lambda n: st.tuples(
           st.lists(st.integers(1, n), min_size=n, max_size=n), st.lists(st.booleans(), min_size=n, max_size=n))),
           max_size=10))
def test_the_page_and_the_terminal_say_every_standing_and_place_alike(page, live_server, values, tables):
    if page.url == "about:blank":
        page.goto(live_server.url)
    said, places = page_figures(page, values, tables)
    assert said == [[fixed(x, 2), fixed(x * 100, 0), points_text(x)] for x in values]
    assert places == [list(scoring_places(tuple(p), tuple(s))) for p, s in tables]


def test_before_the_start_the_screen_shows_the_join_code_and_who_has_registered(browser, logged, shots):
    tid, _, _ = create(logged.ws_url, ["Ada", "Bram"])
    screen = new_page(browser, 1920, 1080)
    screen.clock.install()
    screen.goto(f"{logged.url}#/tournament/{tid}/screen")
    screen.wait_for_selector(".venue-screen[data-view=join] .venue-call:has-text('Scan to register')")
    screen.screenshot(path=shots / "venue_registration_1920.png")
    call(logged.ws_url, "register", tid, "Chiara")  # the list grows as people scan and register
    screen.clock.fast_forward("00:09")
    screen.wait_for_selector(".venue-screen[data-view=players]")
    screen.wait_for_function("() => document.querySelectorAll('.venue-list.players li').length === 3")
    assert screen.locator(".venue-list.players .name").all_text_contents() == ["Ada", "Bram", "Chiara"]
    assert not screen.errors, screen.errors


def test_after_the_end_the_page_shows_the_revealed_seed_and_that_it_matches_its_hash(browser, logged):
    """Issue 33: the revealed seed was not shown after the end."""
    tid, secret, _ = create(logged.ws_url, ["Ada", "Bram", "Chiara"], rounds=1)
    call(logged.ws_url, "start_tournament", tid, secret)
    page = new_page(browser, 390, 844)
    page.goto(f"{logged.url}#/tournament/{tid}")
    page.wait_for_selector(".round-tables h2:has-text('Round 1')")
    assert page.locator(".seed").count() == 0  # kept secret while the event runs
    call(logged.ws_url, "start_tournament", tid, secret, next_round=True)  # the table ends as it stands: over
    page.wait_for_selector(".turn:has-text('over')")
    ended = [json.loads(line.split(" ", 1)[1]) for line in call(logged.ws_url, "tournament_log", tid).log.splitlines()]
    seed = next(r["seed"] for r in ended if r["kind"] == "ended")
    shown = page.wait_for_selector(".seed:has-text('✓')")
    assert page.text_content(".seed code") == str(seed)
    assert "is the one published at the start" in shown.text_content()
    assert not page.errors, page.errors


BIG = """([count, length]) => {
    const screen = window.photofinish.page;
    const players = Array.from({ length: count }, (_, i) =>
        ({ player: `p${i}`, name: `${String(i).padStart(3, '0')} Maximilian Oberhauser`.slice(0, length) }));
    const seatings = [];
    for (let i = 0; i < count; i += 4) seatings.push({ table: `t${i / 4 + 1}`, players: players.slice(i, i + 4).map((p) => p.player) });
    screen.error = null;
    screen.pinned = 'pairings';
    screen.data = { tournament: { tournament: 'T', name: 'The big one', status: 'running', round: 1, rounds: 5,
                                  format: 'swiss', commitment: '' },
                    players, seatings, standings: [], byes: [], waitlist: [] };
    screen.show('pairings');
    screen.render();
    return [...document.querySelectorAll('.venue-list.pairings li')].map((r) => {
        const box = r.getBoundingClientRect(), name = r.querySelector('.name');
        return [box.bottom <= innerHeight && box.right <= innerWidth, name.scrollWidth <= name.clientWidth,
                parseFloat(getComputedStyle(r).fontSize)];
    });
}"""


def test_a_field_of_a_hundred_and_more_fits_the_screen_or_takes_turns_a_screen_at_a_time(browser, live_server, shots):
    """128 players with names as long as registration allows fit one 1920x1080 screen (four columns); more take
    turns, a screen of them at a time."""
    screen = new_page(browser, 1920, 1080)
    screen.goto(f"{live_server.url}#/tournament/T999/screen")  # a screen page, given a field made up in the page
    screen.wait_for_selector(".venue-screen")
    rows = screen.evaluate(BIG, [128, 24])
    screen.screenshot(path=shots / "venue_pairings_128_1920.png")
    assert len(rows) == 128 and all(inside and whole and font >= 20 for inside, whole, font in rows), rows
    rows = screen.evaluate(BIG, [200, 24])
    assert len(rows) == 128 and screen.text_content(".venue-page") == "1/2"
