"""What a red team did to a tournament's reported tables and check-in, and what the director now refuses (in
memory, under the autojump clock): a result reported before its round has begun (it followed its table through
the organiser's swap, and a round whose every table reported was followed by the next without ever beginning),
report after report filling the log, and a check-in after the start as a late entry past registration."""

from __future__ import annotations

import pytest
import trio

from server.protocol import Refusal
from server.tournament import organiser, reported
from server.tournament.reporting import Reported
from server.tournament.tlog import CheckedIn

from .test_rules import open_director


async def refused(call, code: str) -> None:
    with pytest.raises(Refusal) as error:
        await call
    assert error.value.code == code, error.value.message


def records(director, kind) -> list:
    return [r for r in director.log.records if type(r) is kind]


async def test_a_waiting_rounds_table_takes_no_report_nor_settlement_until_the_round_begins(nursery,
                                                                                         autojump_clock):
    director, secret = await open_director(nursery, seats=2, rounds=2, pairings_first=True, reported_tables=3)
    tokens = {}
    for name in ("Ana", "Ben", "Cy", "Dee"):
        player, tokens[player] = await director.register(name)
    await director.start(secret, False)
    state = director.state
    assert state.org.held == 1
    first, second = state.seatings[0].tables
    table = next(t for t, (r, players) in state.tables.items() if players == first)
    for player in first:  # the two at a table agree on a result before anyone has played
        await refused(reported.report(director, tokens[player], table, [1, 2]), "round_not_begun")
    await refused(reported.settle(director, secret, table, [1, 2], "x"), "round_not_begun")
    assert not records(director, Reported) and not state.results and state.round == 1
    await organiser.swap(director, secret, first[0], second[0], "came together")  # the seating may still change
    await director.start(secret, True)  # the round begins: now its results are reported
    table_players = state.tables[table][1]
    for player in table_players:
        await reported.report(director, tokens[player], table, [1, 2])
    assert state.results[table].players == table_players  # the result of those who sat there, and played


async def test_the_same_report_again_logs_nothing_and_a_player_changing_theirs_endlessly_is_stopped(
        nursery, autojump_clock):
    director, secret = await open_director(nursery, seats=2, rounds=1, reported_tables=3)
    tokens = {}
    for name in ("Ana", "Ben"):
        player, tokens[player] = await director.register(name)
    await director.start(secret, False)
    (table,) = director.state.tables
    ana, ben = director.state.tables[table][1]
    for _ in range(5):
        await reported.report(director, tokens[ana], table, [1, 2])
    assert len(records(director, Reported)) == 1
    for flip in range(reported.CHANGES_MOST - 1):  # disagreeing with Ben over and over
        await reported.report(director, tokens[ana], table, [2, 1] if flip % 2 == 0 else [1, 2])
    await refused(reported.report(director, tokens[ana], table, [1, 2]), "too_many_reports")  # a change
    assert len(records(director, Reported)) == reported.CHANGES_MOST
    await reported.report(director, tokens[ben], table, [1, 2])  # the other player still reports ...
    await reported.settle(director, secret, table, [1, 2], "the judge saw it")  # ... and the organiser settles
    assert director.state.results[table].places == (1, 2)


async def test_a_check_in_after_the_start_is_refused_as_registration_is(nursery, autojump_clock):
    director, secret = await open_director(nursery, seats=2, rounds=2, check_in=True)
    tokens = {}
    for name in ("Ana", "Ben", "Late"):
        player, tokens[player] = await director.register(name)
    late = player
    for player in list(tokens)[:2]:
        await director.check_in(tokens[player])
    await director.start(secret, False)
    await refused(director.check_in(tokens[late]), "registration_closed")
    assert late not in director.state.checked_in and len(records(director, CheckedIn)) == 2
    assert late not in director.state.active()


async def test_finished_tournaments_no_longer_count_toward_the_servers_cap_and_creates_at_once_keep_to_it(
        nursery, autojump_clock, monkeypatch):
    from server.tournament import hub as hub_module

    monkeypatch.setattr(hub_module, "MAX_TOURNAMENTS", 3)
    director, secret = await open_director(nursery, seats=2, rounds=1)
    hub = director.hub
    results = []

    async def create() -> None:
        try:
            results.append(await hub.create(director.request))
        except Refusal as refusal:
            results.append(refusal.code)

    async with trio.open_nursery() as together:  # four at once against the two places left
        for _ in range(4):
            together.start_soon(create)
    assert sorted(r if isinstance(r, str) else "created" for r in results) == [
        "created", "created", "too_many_tournaments", "too_many_tournaments"]
    await organiser.cancel(director, secret, "nobody came")  # over: it stays, watchable, and counts no more
    assert director.over.is_set() and director.id in hub.directors
    await hub.create(director.request)
