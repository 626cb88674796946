"""A table's page as a player expects it (issue 33, Browser), in Debian's Chromium against a real server.

What the other seats just did is marked on each game's board (the card played, taken or discarded, the piece,
car or marker moved) and said beside its name; the latest line of the feed stands beside the turn banner, in
the first screen of a phone; the game's rules open in a panel (from its RULES.md, drawn as text, never as
markup); every clickable thing of every board is at least 24 x 24 px on a phone; the seat list follows who
is at the table (a spectator come and gone, a player whose browser closed); a finished table names who played
each seat and shows its revealed seed. Every wait is for a page element, with a timeout; nothing sleeps.
"""

from __future__ import annotations

import pytest
import trio

from rules.words import game_words

from .test_board_games import checkered_flag_click, finish_line_clicks
from .test_browser import CHOOSE_FLAG_FINISH, create_table, lobby
from .test_card_games import CHOOSE_FLUSH, CHOOSE_RACE

GAMES = ["flag_finish", "flush", "race_to_the_finish", "checkered_flag", "finish_line"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# What each board marks of another seat's last move, and how the marked element names its seat.
LAST_MOVE = {
    "flag_finish": ".seat-row .row-cards .last-move, .discard .last-move",
    "flush": ".fl-play.last-move",
    "race_to_the_finish": ".rf-trick li.last-move, .rf-piece.last-move",
    "checkered_flag": ".cf-car.last-move",
    "finish_line": ".fline-marker.last-move",
}


def table_info(live_server, table):
    return trio.from_thread.run_sync(lambda: live_server.running.lobby.find(table).info(), trio_token=live_server.token)


def play(page, click, moves: int) -> None:
    """Up to ``moves`` of this seat's moves, each clicked by ``click`` once the last was answered; it stops at the
    result. A click that misses (the board redrawn under it) counts as one of them, and the board is read again."""
    for _ in range(moves):
        page.wait_for_selector(".result, .board .move:not(.pending)")
        if page.locator(".result").count():
            return
        page.wait_for_selector(".move.pending", state="detached")
        try:
            click(page)
        except Exception:
            continue


def bots_table(page, live_server, game, delay=300, options=None):
    """A table of heuristic bots only, watched by this page (created from the lobby, not sat at)."""
    lobby(page, live_server)
    return create_table(page, game=game, seats=2, bots=(0, 1), sit=False, delay=delay, options=options)


# ---------------------------------------------------------------- the last move, and the latest line


# Reads the board and the page's state in one go, once the board marks a move and says a seat's last turn
# (null until then): the bots keep moving, and a mark seen by one call may be gone by the next (a Flush's flush
# takes the pile, with the marked play, out of the game).
READ_MARKED = """(selector) => {
  const page = window.photofinish.page, s = page.state;
  const marked = [...document.querySelectorAll(`.board :is(${selector})`)];
  if (!marked.length || !document.querySelector(".board .last-note")) return null;
  const seatOf = (el) => Number((el.closest("[data-seat]") || el).dataset.seat);
  return {
    marked: marked.map((el) => ({ seat: seatOf(el),
                                  card: (el.querySelector("[data-card]") || el).dataset.card || null,
                                  position: el.dataset.position ? Number(el.dataset.position) : null,
                                  marker: el.dataset.marker ? Number(el.dataset.marker) : null,
                                  piece: el.dataset.piece ? Number(el.dataset.piece) : null })),
    last: [...s.lastBy].map(([seat, last]) => [seat, last.events, last.words]),
    notes: [...document.querySelectorAll(".board .last-note")].map((n) => [Number(n.dataset.seat), n.textContent]),
    latest: document.querySelector(".turn-bar .latest").textContent,
    feed: s.feed[s.feed.length - 1].words,
    bottom: document.querySelector(".turn-bar .latest").getBoundingClientRect().bottom,
  };
}"""


@pytest.mark.parametrize("game", GAMES)
def test_the_board_marks_what_each_other_seat_just_did_and_a_phone_shows_the_latest_line_at_the_top(
        page, live_server, shots, game):
    page.set_viewport_size(PHONE)
    bots_table(page, live_server, game)
    seen = page.wait_for_function(READ_MARKED, arg=LAST_MOVE[game]).json_value()  # times out if nothing is marked
    last = {seat: events for seat, events, _ in seen["last"]}
    words = {seat: " ".join(said) for seat, _, said in seen["last"]}
    for mark in seen["marked"]:  # each mark is a move of the seat's (or, moved by it, another's) last turn
        events = [e for turn in last.values() for e in turn]
        if game == "flag_finish":
            assert any(e["type"] in ("played", "discarded") and e["card"] == mark["card"] for e in events)
        elif game == "flush":
            assert any(e["type"] in ("released", "blind_flipped") for e in last[mark["seat"]])
        elif game == "race_to_the_finish":
            assert any((e["type"] == "played" and e["card"] == mark["card"]) or
                       (e["type"] == "piece_moved" and e["seat"] == mark["seat"] and e["piece"] == mark["piece"])
                       for e in events)
        elif game == "checkered_flag":
            assert any(e["type"] == "moved" and e["seat"] == mark["seat"] and e["end"] == mark["position"]
                       for e in events)
        else:
            assert any(e["type"] == "marker_moved" and e["seat"] == mark["seat"] and e["marker"] == mark["marker"]
                       for e in events)
    for seat, note in seen["notes"]:
        assert note == f" · last: {words[seat]}"  # the seat's last turn, in the feed's words
    assert seen["latest"] == seen["feed"]  # the newest line of the feed, beside the turn banner ...
    assert seen["bottom"] <= PHONE["height"]  # ... in a phone's first screen, not 1,000 px down
    page.screenshot(path=shots / f"{game}_last_move_phone.png")


def test_a_players_own_moves_are_not_marked_only_the_others(page, live_server):
    lobby(page, live_server)
    create_table(page, game="checkered_flag", seats=2, bots=(1,), delay=0)
    click = checkered_flag_click(None, {"plan"})
    for _ in range(40):  # until the bot's car has moved (a turn in Neutral or lost to a crash moves nothing)
        page.wait_for_selector(".board .move:not(.pending)")
        page.wait_for_selector(".move.pending", state="detached")
        assert page.locator(".cf-car[data-seat='0'].last-move").count() == 0  # never Ana's own
        assert page.locator(".cf-cars .last-note[data-seat='0']").count() == 0
        if page.locator(".cf-car[data-seat='1'].last-move").count() and len(page.evaluate(
                "[...window.photofinish.page.state.lastBy.keys()]")) == 2:
            return  # both have moved; only the bot's move is marked
        try:
            click(page)
        except Exception:
            continue
    raise AssertionError("the bot's car never moved")


# ---------------------------------------------------------------- the rules


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_of_the_game_open_in_a_panel_on_the_table_page(page, live_server, shots, game):
    from pathlib import Path

    rules = (Path(__file__).resolve().parents[2] / "rules" / game / "RULES.md").read_text()
    heading = next(line for line in rules.splitlines() if line.startswith("## "))[3:].strip()
    lobby(page, live_server)
    create_table(page, game=game)
    page.click("button.rules-button")
    page.wait_for_selector(".rules-panel .rules-text")
    panel = page.text_content(".rules-panel")
    assert heading.replace("**", "") in panel  # the game's own RULES.md, drawn
    assert page.locator(".rules-panel table td").count() > 4  # its tables as tables
    assert "**" not in panel and "| ---" not in panel  # Markdown read, not shown raw
    page.screenshot(path=shots / f"{game}_rules.png")
    page.click("button.rules-close")
    page.wait_for_selector(".rules-panel", state="detached")
    assert page.locator(".board").count() == 1  # still at the table


def test_rules_markdown_is_drawn_as_text_never_as_markup(page, live_server):
    lobby(page, live_server)
    drawn = page.evaluate("""async () => {
      const { markdown } = await import("/js/rules.js");
      const { mount } = await import("/js/dom.js");
      const box = document.createElement("div");
      document.body.append(box);
      mount(box, markdown("# <b>Title</b>\\n\\nA <img src=x onerror=\\"window.hit=1\\"> and **bold** " +
                          "`<i>code</i>`\\n\\n" +
                          "| a | <script>window.hit=2</script> |\\n| --- | --- |\\n| [x](javascript:alert(1)) | y |"));
      return { html: box.innerHTML, text: box.textContent, hit: window.hit || 0,
               tags: [...box.querySelectorAll("*")].map((e) => e.localName) };
    }""")
    assert drawn["hit"] == 0 and not {"img", "script", "b", "i", "a"} & set(drawn["tags"])
    assert "<img src=x" in drawn["text"] and "<script>" in drawn["text"]  # shown as what it says
    assert {"strong", "code", "table", "td"} <= set(drawn["tags"])


# ---------------------------------------------------------------- touch targets

CLICKABLE = """() => [...document.querySelectorAll(
    '.board button:not([disabled]), .board [role=button], .board summary, .board a[href], .board input, .board select')]
  .map((el) => { const r = el.getBoundingClientRect(), round = (n) => Math.round(n * 10) / 10;
                 return [el.className.baseVal ?? el.className, round(r.width), round(r.height)]; })"""


def small_targets(page) -> list:
    return [(name, w, h) for name, w, h in page.evaluate(CLICKABLE) if w < 24 or h < 24]


def click_by_key(script):
    def click(page):
        key = page.evaluate(script)
        if key is not None:
            page.locator(f"[data-key='{key}']").first.click(timeout=1000)
    return click


CLICKS = {
    "flag_finish": lambda: click_by_key(CHOOSE_FLAG_FINISH),
    "flush": lambda: click_by_key(CHOOSE_FLUSH),
    "race_to_the_finish": lambda: click_by_key(CHOOSE_RACE),
    "checkered_flag": lambda: checkered_flag_click(None, {"plan"}),
    "finish_line": finish_line_clicks,
}


@pytest.mark.parametrize("game", GAMES)
def test_every_clickable_thing_on_a_phone_is_at_least_24_px_square(page, live_server, shots, game):
    """Measured at every one of a person's first decisions (Checkered Flag's until its track offers a space to
    brake on): buttons, cards, markers, dice, track spaces, folds."""
    page.set_viewport_size(PHONE)
    lobby(page, live_server)
    create_table(page, game=game, seats=2, bots=(1,), delay=0)
    click = CLICKS[game]()
    measured = track_spaces = 0
    for _ in range(60):
        page.wait_for_selector(".result, .board .move:not(.pending)")
        if page.locator(".result").count():
            break
        page.wait_for_selector(".move.pending", state="detached")
        small = small_targets(page)
        assert not small, f"smaller than 24 x 24 px: {small}"
        measured += 1
        if page.locator("svg .cf-target.move").count():
            track_spaces += 1
            page.screenshot(path=shots / f"{game}_track_targets_phone.png")
        if measured >= 12 and (game != "checkered_flag" or track_spaces):
            break
        try:
            click(page)
        except Exception:  # the page moved on between reading and clicking: measure again
            continue
    assert measured >= 5
    if game == "checkered_flag":
        assert track_spaces, "no space on the track was offered to click"


# ---------------------------------------------------------------- the seat list


def test_the_seat_list_follows_spectators_and_a_player_whose_browser_closed(browser, page, live_server):
    lobby(page, live_server)
    table = create_table(page, game="flag_finish", mode="lockstep", seats=2, bots=(), delay=0)
    page.wait_for_selector(".seats .spectators")
    assert page.text_content(".seats .spectators") == "0 watching"
    other = browser.new_context(viewport=DESKTOP)
    bo = other.new_page()
    bo.goto(live_server.url)
    bo.wait_for_selector("form.create")
    bo.evaluate(f"""async () => {{ await window.photofinish.client.takeSeat("{table}", 1, "Bo");
                                  location.hash = "#/play/{table}"; }}""")
    bo.wait_for_selector(".board section")
    page.wait_for_selector(".seats li[data-seat='1'][data-state='taken']")
    assert "Bo" in page.text_content(".seats li[data-seat='1']")
    watcher = browser.new_page()
    watcher.goto(f"{live_server.url}#/watch/{table}")
    watcher.wait_for_selector(".board section")
    page.wait_for_function("() => document.querySelector('.seats .spectators').textContent === '1 watching'")
    watcher.close()
    page.wait_for_function("() => document.querySelector('.seats .spectators').textContent === '0 watching'")
    other.close()  # Bo's browser closes: his seat is away at once, with no ping
    page.wait_for_selector(".seats li[data-seat='1'][data-state='away']")
    assert page.locator(".seats li[data-seat='1'] .ping").count() == 0
    assert "(away)" in page.text_content(".seats li[data-seat='1']")


# ---------------------------------------------------------------- a finished table


def test_a_finished_table_names_who_played_and_shows_its_revealed_seed(page, live_server, shots):
    lobby(page, live_server)
    table = create_table(page, game="checkered_flag", seats=2, bots=(1,), delay=0, options={"turn_limit": 10})
    play(page, checkered_flag_click(None, {"plan"}), moves=100)
    page.wait_for_selector(".seed-revealed")
    info = table_info(live_server, table)
    assert info.revealed_seed is not None
    assert f"revealed now the game is over: {info.revealed_seed}." in page.text_content(".seed-revealed")
    page.screenshot(path=shots / "finished_seed.png", full_page=True)
    page.click("button.leave")  # a finished game is left at once
    page.wait_for_selector("form.create")
    page.goto(f"{live_server.url}#/watch/{table}")
    page.wait_for_selector(".seats li[data-seat='0']")
    page.wait_for_selector(".seats li[data-seat='0'][data-state='left']")
    assert page.text_content(".seats li[data-seat='0']") == "Ana (played, has left)"  # not "free"
    assert page.locator(".seed-revealed").count() == 1


# ---------------------------------------------------------------- screenshots


@pytest.mark.parametrize("game", GAMES)
def test_screenshots_of_each_games_table_at_desktop_and_phone_width(page, live_server, shots, game):
    lobby(page, live_server)
    seats = 2 if game == "flag_finish" else 3
    create_table(page, game=game, seats=seats, bots=tuple(range(1, seats)), delay=0)
    play(page, CLICKS[game](), moves=6)  # a few moves in, so the others have moved too
    page.wait_for_selector(".board .move:not(.pending), .result")
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=shots / f"{game}_table_1280.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.wait_for_function("() => new Promise((done) => requestAnimationFrame(() => done(true)))")
    if game == "checkered_flag":  # a track wider than a phone scrolls in its frame to what matters now
        page.wait_for_function("""() => {
          const frame = document.querySelector('.cf-track').getBoundingClientRect();
          const spot = document.querySelector('.cf-target.move, .cf-car.acting');
          if (!spot) return true;
          const box = spot.getBoundingClientRect();
          return box.left >= frame.left && box.right <= frame.right;
        }""")
    page.screenshot(path=shots / f"{game}_table_390.png")
    page.screenshot(path=shots / f"{game}_table_390_full.png", full_page=True)
    print(f"{game}: {shots}")


OVER = "() => !!(window.photofinish.page && window.photofinish.page.state.result)"  # the page shows a result


def test_a_page_watching_a_tables_alias_goes_on_to_its_next_table_when_the_game_is_over(page, live_server):
    """The room's projector left on the demo (``#/watch/demo``) goes on to the demo's next game by itself, as
    `photofinish watch demo` does; before, it stayed on the result until someone reloaded it. A page opened by a
    table's id stays on that table."""
    from functools import partial

    from server.protocol import BotSeat, CreateTable

    lobby, token = live_server.running.lobby, live_server.token

    def create(bot_delay_ms: int):  # a kept table's next game, as ``app.keep_table`` makes it: the alias names it
        quick = CreateTable(game="flag_finish", mode="challenge", seats=2, options={"races": 1},
                            bot_delay_ms=bot_delay_ms, bots=[BotSeat(0), BotSeat(1, "random")])
        return trio.from_thread.run(partial(lobby.create, quick, alias="featured"), trio_token=token)

    first = create(0)
    trio.from_thread.run(first.over.wait, trio_token=token)
    page.goto(live_server.url + "#/watch/featured")
    page.wait_for_function(OVER)  # the first game's end
    by_id = page.context.new_page()
    by_id.goto(live_server.url + f"#/watch/{first.id}")
    by_id.wait_for_function(OVER)
    second = create(200)  # (bots at a watchable pace: playing while the page looks for it)
    page.wait_for_function(f"() => (window.photofinish.page || {{state: {{}}}}).state.table === {second.id!r}")
    page.wait_for_function("() => !!window.photofinish.page.state.view")  # the new game, shown
    assert by_id.evaluate("window.photofinish.page.state.table") == first.id
    trio.from_thread.run(second.stop, trio_token=token)


# The broadcast page's Hands panel read in one go with the hands the page was sent (its state is what the
# server's last view carried; a redraw follows each message before another script runs): each seat's entry, the
# name in bold, and the cards drawn (each one element with its data-card, its class and its title).
READ_HANDS = """() => {
  const sent = window.photofinish.page.state.hands;
  return [...document.querySelectorAll(".hands li[data-seat]")].map((li) => {
    const cards = [...li.querySelectorAll(".card[data-card]")];
    return { seat: Number(li.dataset.seat), name: li.querySelector(":scope > b").textContent,
             sent: sent[Number(li.dataset.seat)], cards: cards.map((c) => c.dataset.card),
             classes: cards.map((c) => c.className), titles: cards.map((c) => c.title) };
  });
}"""

# The class a card of each game's own hand carries (its colour in Flag Finish), by the card.
CARD_LOOK = {"flag_finish": lambda card: f"c-{card[0]}", "flush": lambda card: "fl-card",
             "race_to_the_finish": lambda card: "rf-card"}


def broadcast_table(live_server, game: str, seats: int, **options):
    """A table of bots only with a broadcast view one move behind, and the key that opens it."""
    from server.protocol import BotSeat, CreateTable
    from server.table.seats import token_hash

    table = trio.from_thread.run(lambda: live_server.running.lobby.create(CreateTable(
        game=game, seats=seats, bot_delay_ms=400, spectator_delay_entries=1, broadcast=True,
        bots=[BotSeat(seat) for seat in range(seats)], **options)), trio_token=live_server.token)
    key = "the commentator's key"
    table.stream.key_hash = token_hash(key)  # (the key the lobby made is the creator's answer: one of our own)
    return table, key


def assert_hands_drawn_as_cards(page, game: str, seats: int) -> None:
    """Every seat's hand in the Hands panel is the game's cards, one element a card the server sent, each titled
    with the game's card name and drawn as the seat's own hand draws it (its class)."""
    page.wait_for_selector(f".hands li[data-seat='{seats - 1}'] .card")  # the deal, shown
    names = game_words(game)["cards"]  # the game's card names, as the page says them (/words.json)
    hands = page.evaluate(READ_HANDS)
    assert [entry["seat"] for entry in hands] == list(range(seats))
    for entry in hands:
        assert entry["name"].startswith("heuristic bot")
        assert len(entry["cards"]) == len(entry["sent"]) and sorted(entry["cards"]) == sorted(entry["sent"])
        assert all({"card", CARD_LOOK[game](card)} <= set(classes.split())
                   for card, classes in zip(entry["cards"], entry["classes"], strict=True))
        titles = [title.removesuffix(" (Mimic)") for title in entry["titles"]]  # (Flush marks this round's Mimic)
        assert titles == [names[card] for card in entry["cards"]]


def test_the_broadcast_page_shows_every_hand_past_the_delay_and_a_plain_spectator_none(page, live_server):
    """#/broadcast/<table>/<key>: a commentator's screen or a stream's browser source (issue 35)."""
    table, key = broadcast_table(live_server, "flag_finish", 3, mode="challenge")
    page.goto(f"{live_server.url}#/broadcast/{table.id}/{key}")
    page.wait_for_selector(".hands li[data-seat='2']")
    assert page.locator(".hands li").count() == 3
    page.wait_for_selector(".you:has-text('behind the table')")  # once the table's info is in
    assert page.text_content(".you") == ("You are watching the broadcast view, every hand shown, 1 move behind the "
                                         "table.")
    assert_hands_drawn_as_cards(page, "flag_finish", 3)  # cards, as the seat itself sees them
    page.goto(f"{live_server.url}#/watch/{table.id}")
    page.wait_for_selector(".table-page .board section")
    assert page.locator(".hands").count() == 0 and "broadcast" not in page.text_content(".you")
    page.goto(f"{live_server.url}#/broadcast/{table.id}/a-guess")  # a wrong key: said once, no hand shown
    page.wait_for_selector(".table-page .error")
    assert "no broadcast view that key opens" in page.text_content(".table-page .error")
    assert page.locator(".hands").count() == 0


@pytest.mark.parametrize("game", ["flush", "race_to_the_finish"])
def test_the_broadcast_pages_hands_are_drawn_in_each_games_own_cards(page, live_server, game):
    """A stream's browser source shows each hand as its player sees it: the game's cards, not their codes."""
    table, key = broadcast_table(live_server, game, 3)
    page.goto(f"{live_server.url}#/broadcast/{table.id}/{key}")
    assert_hands_drawn_as_cards(page, game, 3)
    trio.from_thread.run(table.stop, trio_token=live_server.token)
