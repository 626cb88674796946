"""A player cap with a waitlist, and how many players one connection or one address may register.

- pure ``state`` properties with hypothesis over register/withdraw sequences: never more than the cap hold a
  place, the places go to the first players in registration order, the waitlist keeps its order, and the fold
  recomputes every ``waitlisted`` the log says (a wrong one is refused);
- the director in memory (autojump clock): a withdrawal before the start promotes the first waiting player,
  the waitlist is never seated nor ranked, and the log verifies;
- over real websockets with a scripted client: the registrant is told they wait (and where), and a connection
  (or an address) past its registrations is refused with ``too_many_registrations``, changing nothing."""

from __future__ import annotations

from functools import partial

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from clients.client import ServerError, open_client
from rules.rng import Rng
from server.app import run_server
from server.quotas import Quotas
from server.protocol import Refusal
from server.tournament.model import Settings, Sizes
from server.tournament.state import Tournament, fold
from server.tournament.tlog import Dropped, Ended, Registered

from .test_rules import SEED, created, finish_round, open_director, over, seat_round


def holding(state: Tournament) -> list[str]:
    gone = set(state.dropped)
    return [p for p in state.entered() if p not in gone]


steps = st.lists(st.one_of(st.just("register"), st.integers(0, 30)), max_size=40)  # an int: drop that index


@hsettings(max_examples=150, deadline=None)
@given(st.integers(2, 5), steps, st.booleans())
def test_never_more_than_the_cap_hold_a_place_and_registration_order_is_kept(cap, script, start):
    settings = Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=2, max_players=cap)
    state, records, count = Tournament(created=created(settings), seed=SEED), [], 0
    for step in script:
        if step == "register":
            record = Registered(player=f"p{count}", name=f"P{count}", waitlisted=state.full())
            count += 1
        else:
            left = [p for p in state.players if p not in state.dropped]
            if not left:
                continue
            record = Dropped(player=left[step % len(left)])
        state.apply(record)
        records.append(record)
        remaining = [p for p in state.players if p not in state.dropped]
        assert len(holding(state)) <= cap
        assert holding(state) == remaining[:cap]  # the first registered hold the places ...
        assert state.waitlist == remaining[cap:]  # ... and the rest wait, in their order
    again = fold(created(settings), SEED, records)  # the log alone gives the same places and waitlist
    assert (again.waitlist, holding(again)) == (state.waitlist, holding(state))
    for index, record in enumerate(records):  # a flipped waitlisted flag does not fold
        if type(record) is Registered:
            forged = fold(created(settings), SEED, records[:index])
            with pytest.raises(Refusal) as refused:
                forged.apply(Registered(player=record.player, name=record.name, waitlisted=not record.waitlisted))
            assert refused.value.code == "wrong_waitlist"
    if not start or len(state.active()) < 2:
        return
    rng = Rng(7)
    while (why := state.end_reason()) is None:
        seated = seat_round(state)
        assert {p for t in seated.tables for p in t.players} | set(seated.byes) <= set(holding(state))
        finish_round(state, rng)
    rows = state.standings()
    assert {row.player for row in rows} == set(state.entered())  # nobody waiting has a row
    assert [row.rank for row in rows] == list(range(1, len(rows) + 1))
    state.apply(Ended(seed=SEED, standings=tuple(row.player for row in rows), reason=why[0], note=why[1]))


def test_a_cap_is_checked_when_the_tournament_is_created():
    for cap in (-1, 1, 100_001):
        with pytest.raises(Refusal) as refused:
            Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=1, max_players=cap).check_new()
        assert refused.value.code == "bad_settings"
    Settings(format="swiss", sizes=Sizes(2, 3, 3), rounds=1, max_players=2).check_new()


async def test_a_withdrawal_before_the_start_promotes_the_first_waiting_player(nursery, autojump_clock, tmp_path):
    director, secret = await open_director(nursery, seats=2, rounds=1, round_time_ms=1000, max_players=2)
    ana, ana_token = await director.register("Ana")
    ben, _ = await director.register("Ben")
    cy, _ = await director.register("Cy")
    dee, _ = await director.register("Dee")
    snapshot = director.snapshot()
    assert snapshot.waitlist == [cy, dee] and snapshot.tournament.waitlisted == 2
    assert snapshot.tournament.players == 2 and snapshot.tournament.max_players == 2
    assert [p.waitlisted for p in snapshot.players] == [False, False, True, True]
    await director.drop(ana_token, "", None)
    assert director.snapshot().waitlist == [dee]  # Cy took Ana's place
    await director.start(secret, False)
    seated = {p for _, players in director.state.tables.values() for p in players}
    assert seated == {ben, cy}
    await director.drop("", secret, dee)  # leaving the waitlist after the start: nothing else changes
    await over(director)
    assert [row.player for row in director.snapshot().standings] == list(director.log.records[-1].standings)
    assert {row.player for row in director.snapshot().standings} == {ana, ben, cy}  # Ana dropped, keeps a row
    report = director.log.verify(tmp_path)
    assert report.ok, report.problem


async def start_server(nursery, quotas: Quotas = Quotas()):
    return await nursery.start(partial(run_server, "127.0.0.1", 0, None, durability="never", quotas=quotas))


async def test_the_registrant_past_the_cap_is_told_they_wait_and_where(nursery):
    running = await start_server(nursery)
    async with open_client(running.url) as organiser:
        created_ = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1,
                                                     max_players=2)
        tid = created_.tournament.tournament
        assert created_.tournament.max_players == 2
        answers = []
        for name in ("Ana", "Ben", "Cy", "Dee"):
            async with open_client(running.url) as player:
                answers.append(await player.register(tid, name))
        assert [(a.waitlisted, a.waitlist_position) for a in answers] == [(False, 0), (False, 0), (True, 1),
                                                                           (True, 2)]
        state = await organiser.watch_tournament(tid)
        assert state.waitlist == [answers[2].player, answers[3].player]
        assert state.tournament.players == 2 and state.tournament.waitlisted == 2
        with pytest.raises(ServerError) as refused:
            await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=1, max_players=1)
        assert refused.value.code == "bad_settings"


async def test_one_connection_cannot_register_more_than_its_share(nursery):
    running = await start_server(nursery, Quotas(registrations_per_connection=4))
    async with open_client(running.url) as script:
        tid = (await script.create_tournament(game="flag_finish", mode="challenge", seats=2)).tournament.tournament
        other = (await script.create_tournament(game="flag_finish", mode="challenge", seats=2)).tournament.tournament
        for i in range(4):
            await script.register(tid, f"name {i}")
        for name in ("name 4", "name 5"):
            with pytest.raises(ServerError) as refused:
                await script.register(tid, name)
            assert refused.value.code == "too_many_registrations"
            assert "--registrations-per-connection" in refused.value.message
        await script.register(other, "name 4")  # the count is per tournament
        state = await script.watch_tournament(tid)
        assert len(state.players) == 4  # the refusals changed nothing
        async with open_client(running.url) as second:  # another connection has its own share
            await second.register(tid, "name 4")


async def test_one_address_cannot_register_more_than_its_share_over_many_connections(nursery):
    running = await start_server(nursery, Quotas(registrations_per_connection=0, registrations_per_address=3))
    async with open_client(running.url) as organiser:
        tid = (await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2)).tournament.tournament
        for i in range(3):
            async with open_client(running.url) as player:
                await player.register(tid, f"name {i}")
        async with open_client(running.url) as player:
            with pytest.raises(ServerError) as refused:
                await player.register(tid, "name 3")
        assert refused.value.code == "too_many_registrations"
        assert "--registrations-per-address" in refused.value.message
        assert len((await organiser.watch_tournament(tid)).players) == 3
