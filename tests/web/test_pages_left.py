"""A page left before the server answered it does nothing more: the lobby's table list, its quick play and the
replay page's list, each answered after the person went on to the tournaments page, neither draw over that page
nor take the person anywhere (the table page's own test is in test_browser.py)."""

from __future__ import annotations

from .held import HeldAnswer


def gone_on(page, held: HeldAnswer) -> None:
    """The person goes on to the tournaments page; then the held answer arrives, and all it leads to is done."""
    page.evaluate("location.hash = '#/tournaments'")
    page.wait_for_selector("section.tournaments h1")
    assert held.id is not None, f"the page asked no {held.kind} (nothing was held)"
    held.release()
    page.wait_for_function("() => window.photofinish.client.pending.size === 0")
    page.evaluate("() => new Promise((done) => setTimeout(done))")  # and a task later


def still_on_tournaments(page) -> None:
    """At once (the tournaments page redraws itself at its next update, which would hide a page drawn over it)."""
    drawn = page.evaluate("() => [...document.querySelectorAll('section.lobby, section.replay-page')].length")
    assert drawn == 0, "the page left was drawn over the tournaments page"
    assert page.evaluate("location.hash") == "#/tournaments"
    assert page.text_content("section.tournaments h1") == "Tournaments"


def left_while_listing(page, live_server, hash: str, section: str) -> None:
    """From the tournaments page to ``hash``, whose page asks for the table list; held until the person is back."""
    held = HeldAnswer(page, live_server.ws_url, "list_tables")
    page.goto(f"{live_server.url}#/tournaments")
    page.wait_for_selector("section.tournaments h1")
    held.hold()
    page.evaluate(f"location.hash = '{hash}'")
    page.wait_for_selector(section)
    page.wait_for_function("() => window.photofinish.client.pending.size > 0")  # its list asked for
    gone_on(page, held)
    still_on_tournaments(page)


def test_the_lobbys_table_list_answered_after_it_was_left_is_not_drawn(page, live_server):
    left_while_listing(page, live_server, "#/", "section.lobby")


def test_a_quick_play_answered_after_the_lobby_was_left_does_not_take_the_person_to_a_seat(page, live_server):
    held = HeldAnswer(page, live_server.ws_url, "take_seat")
    page.goto(live_server.url)
    page.wait_for_selector("button.quick")
    page.fill("#name", "Ana")
    held.hold()
    page.click("button.quick[data-game=flag_finish]")
    # quick play asks for the list, creates a table, then takes its seat: that request is the one held
    page.wait_for_function("() => [...window.photofinish.client.pending.values()]"
                           ".some((p) => p.message.type === 'take_seat')")
    gone_on(page, held)
    still_on_tournaments(page)


def test_the_replay_pages_list_answered_after_it_was_left_is_not_drawn(page, live_server):
    left_while_listing(page, live_server, "#/replay", "section.replay-page")
