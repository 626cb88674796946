"""What a newcomer at a LAN event meets in the web client, each found by using it as one (a real browser against a
real server): yes/no game options set from the lobby's form, the join box of a server only this machine can open,
finished tables in the lobby, score lists that say whose score is which when two seats share a name, feed lines
that start as sentences, and the keyboard focus kept on the board after a move takes its button away.
Every wait is for a page element, with a timeout; nothing sleeps."""

from __future__ import annotations

import trio

from .test_browser import create_table, lobby


def server_state(live_server, table):
    return trio.from_thread.run_sync(lambda: live_server.running.lobby.find(table).session.state,
                                     trio_token=live_server.token)


def create_with_a_yes_no_option(page, live_server, game, option, checked_by_default):
    """The lobby's form for ``game`` against one server bot, with the checkbox of ``option`` turned over."""
    lobby(page, live_server)
    page.select_option("select[name=game]", game)
    page.select_option("select[name=bot-1]", "heuristic")
    page.click("details summary")
    box = page.locator(f"input[type=checkbox][name={option}]")
    assert box.is_checked() is checked_by_default  # the game's default
    box.set_checked(not checked_by_default)
    page.click("button[type=submit]")
    page.wait_for_selector(".table-page .board section, .lobby .notice")
    assert not page.locator(".notice").count(), page.text_content(".notice")
    return page.get_attribute(".table-page", "data-table")


def test_a_yes_no_game_option_is_a_checkbox_and_reaches_the_table(page, live_server):
    """Finish Line's play_on and Flush's double_last are booleans: typed into a text box, 'true' was refused."""
    table = create_with_a_yes_no_option(page, live_server, "finish_line", "play_on", False)
    assert server_state(live_server, table).options["play_on"] is True
    table = create_with_a_yes_no_option(page, live_server, "flush", "double_last", True)
    assert server_state(live_server, table).options["double_last"] is False
