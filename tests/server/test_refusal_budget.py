"""A seat's budget of logged refusals (``server/table/refusals.py``): a seat sending junk and illegal actions as
fast as it may adds at most its budget to the table's log, gets ``too_many_refused`` past it, and the log still
replays and verifies; over its budget a refusal changes nothing at all (no entry, no counter, no fair-ordering
memory) and no contested card is taken for it; an honest fast game is never throttled."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import msgspec
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from rules import digest
from server.lobby import Lobby
from server.logs.replay import check_log, verify_seed
from server.protocol import Accepted, Act, Code, CreateTable, Rejected, Resume, Seated, Snapshot, TakeSeat, Update
from server.table import intents, refusals
from tests.positions import plain

from .helpers import Sink, force_state, new_table, settle
from .test_fairness import TAKE_G5, Seat, fair_table, offer

RATE = 200  # messages a second: a connection's allowed rate (``serve --rate``)
JUNK = [
    {"type": "take", "card": "x" * 440},  # no card: bad_action, kept whole (under 512 bytes)
    {"type": "take", "card": "B9"},  # a card not on the pile: a contested guess, refused by the rules
    {"type": "play", "card": "R7"},  # a card not in its hand
]


def junk(number: int) -> Act:
    return Act(table="", action=JUNK[number % len(JUNK)], id=f"j{number}",
               expect_seq=10**6 if number % 7 == 0 else None)  # and now and then a seq from the future: stale


def refused_by(entries, seat: int) -> int:
    return sum(not e.accepted and e.actor == seat for e in entries)


async def flood(table, sink: Sink, seconds: float, start: int = 0) -> int:
    """Junk from ``sink``'s seat at ``RATE`` a second for ``seconds`` (virtual); returns how many were sent."""
    count = int(seconds * RATE)
    for number in range(start, start + count):
        message = junk(number)
        await table.submit(intents.Act(sink, Act(table=table.id, action=message.action, id=message.id,
                                                 expect_seq=message.expect_seq)))
        await trio.sleep(1 / RATE)
    await settle()
    return count


async def two_seats(lobby: Lobby, seed: int, races: int) -> tuple:
    """A logged practice Challenge table of two seats, both taken: (the table, seat 0's sink, seat 1's)."""
    table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, seed=seed, practice=True,
                                           options={"races": races}))
    sinks = Sink(), Sink()
    for index, sink in enumerate(sinks):
        await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=index)))
    await settle()
    return table, *sinks


def play_flooded_table(folder: Path, seconds: float) -> tuple[Path, list, list]:
    """A logged Challenge table of two seats: seat 0 floods it with junk for ``seconds``, seat 1 plays a legal
    draw now and then; ended by a time limit. Returns its log's path, its entries and seat 0's answers."""
    async def run():
        async with trio.open_nursery() as nursery:
            table, flooder, player = await two_seats(Lobby(nursery, folder, "never"), seed=5, races=50)
            sent = 0
            for step in range(int(seconds)):
                sent += await flood(table, flooder, 1, start=sent)
                legal = player.last_viewed().legal
                if legal:
                    await table.submit(intents.Act(player, Act(table=table.id, action=msgspec.to_builtins(legal[0]),
                                                               id=f"p{step}")))
                    await settle()
            await table.halt("time_limit")
            await table.over.wait()
            await table.stop()
            nursery.cancel_scope.cancel()
            return table.store.path, table.log.entries, flooder.of(Rejected) + flooder.of(Accepted)

    return trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_seat_flooding_junk_adds_at_most_its_budget_to_the_log_which_still_replays_and_verifies(tmp_path):
    seconds = 60
    path, entries, answers = play_flooded_table(tmp_path, seconds)
    most = refusals.BURST + refusals.PER_SECOND * seconds
    logged = refused_by(entries, 0)
    assert most - 10 <= logged <= most + 1, f"{logged} refused entries of the flooder's logged, its budget {most}"
    assert len(answers) == seconds * RATE, "every junk action answered, logged or not"
    over = [a for a in answers if type(a) is Rejected and a.code == Code.TOO_MANY_REFUSED]
    assert len(over) == len(answers) - logged - len([a for a in answers if type(a) is Accepted]), \
        "each one past the budget said so, by its own code"
    assert "not logged" in over[0].message
    assert path.stat().st_size < (most + 200) * 1024, "the log's bytes bounded by the budget too"
    report = check_log(path)
    assert report.ok, report.problem
    assert report.refused == logged
    assert verify_seed(report) is None


async def test_past_its_budget_a_refusal_changes_nothing_and_no_contested_card_is_taken(nursery, autojump_clock):
    me, other = Seat(0.005), Seat(0.005)
    table = await fair_table(nursery, [me, other])
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["G5", "P10"])
    offer(table)
    await trio.sleep(1)
    for number in range(refusals.BURST):  # the whole budget at once: all logged as ever
        await table.submit(intents.Act(me, Act(table=table.id, action={"type": "take", "card": "B9"},
                                               id=f"g{number}")))
    await settle()
    assert refused_by(table.log.entries, 0) == refusals.BURST
    slot = table.slots[0]
    before = (table.log.seq, slot.guesses, dict(slot.guessed), dict(slot.left), slot.distrust, list(slot.path),
              dict(slot.answers), digest(table.session.state))
    # a guess, a take of the card on the pile (legal), junk, a stale draw, a take too early: none changes a thing
    for number, (action, seen) in enumerate([({"type": "take", "card": "B8"}, None), (TAKE_G5, None),
                                             ({"type": "take", "card": "x"}, None), (TAKE_G5, 0)]):
        await table.submit(intents.Act(me, Act(table=table.id, action=action, id=f"over{number}", seen=seen)))
    await table.submit(intents.Act(me, Act(table=table.id, action={"type": "draw"}, id="stale",
                                           expect_seq=10**6)))
    await settle()
    answers = me.of(Rejected)[-5:]
    assert [a.code for a in answers] == [Code.TOO_MANY_REFUSED] * 5
    assert (table.log.seq, slot.guesses, dict(slot.guessed), dict(slot.left), slot.distrust, list(slot.path),
            dict(slot.answers), digest(table.session.state)) == before
    assert "G5" in table.session.state.discard, "the card on the pile stays for the others"
    await trio.sleep(1 / refusals.PER_SECOND)  # room for one again: its take of the card is judged as ever
    await table.submit(intents.Act(me, Act(table=table.id, action=TAKE_G5, id="again", seen=table.log.seq)))
    await trio.sleep(1)
    assert any(type(m) is Accepted and m.ref == "again" for m in me.messages)
    assert "G5" in table.session.state.hands[0]


async def test_past_its_budget_a_legal_uncontested_action_is_still_applied(nursery, autojump_clock):
    me, other = Seat(0.005), Seat(0.005)
    table = await fair_table(nursery, [me, other])
    for number in range(refusals.BURST + 5):
        await table.submit(intents.Act(me, Act(table=table.id, action={"type": "take", "card": "x"},
                                               id=f"j{number}")))
    await settle()
    assert me.of(Rejected)[-1].code == Code.TOO_MANY_REFUSED
    draw = next(a for a in map(msgspec.to_builtins, me.last_viewed().legal) if a["type"] == "draw")
    await table.submit(intents.Act(me, Act(table=table.id, action=draw, id="draw")))
    await settle()
    assert any(type(m) is Accepted and m.ref == "draw" for m in me.messages)


class FastBot(Seat):
    """An honest fast bot, ``photofinish load``'s closed loop at a distance: it picks a random legal action of
    its newest view a few ms after that view reaches it (``delay`` each way), sends it, waits for its answer,
    and goes again; every seat racing for every card on the pile."""

    def __init__(self, delay: float, rng: random.Random) -> None:
        super().__init__(delay)
        self.rng, self.view, self.fresh, self.answered = rng, None, trio.Event(), trio.Event()

    def deliver(self, message) -> bool:
        super().deliver(message)
        if type(message) in (Update, Snapshot) and message.view is not None:
            self.view = message
            self.fresh.set()
        elif type(message) in (Accepted, Rejected):
            self.answered.set()
        return True

    async def play(self, table) -> None:
        for count in itertools.count():
            await self.fresh.wait()
            await trio.sleep(2 * self.delay + self.rng.uniform(0.001, 0.008))  # its view's way here, its reaction
            self.fresh = trio.Event()
            if not self.view.legal:
                continue
            self.answered = trio.Event()
            await table.submit(intents.Act(self, Act(table=table.id, id=count, seen=self.view.seq,
                                                     action=msgspec.to_builtins(self.rng.choice(self.view.legal)))))
            await self.answered.wait()


async def test_an_honest_fast_game_never_meets_the_budget(nursery, autojump_clock):
    rng = random.Random(3)
    bots = [FastBot(delay, rng) for delay in (0.002, 0.006, 0.012)]
    table = await fair_table(nursery, bots, options={"races": 50, "action_limit": 1_000_000, "extra_races": 0})
    with trio.move_on_after(60):
        async with trio.open_nursery() as players:
            for bot in bots:
                bot.fresh.set()
                players.start_soon(bot.play, table)
    accepted = sum(e.accepted and e.actor >= 0 for e in table.log.entries)
    assert accepted > 3000, f"a fast game: {accepted} moves in 60 s"
    for seat, bot in enumerate(bots):
        assert not [m for m in bot.of(Rejected) if m.code == Code.TOO_MANY_REFUSED]
        immediate = sum(not e.accepted and e.actor == seat and refusals.counts(e.fair) for e in table.log.entries)
        assert immediate < refusals.BURST + refusals.PER_SECOND * 60 / 4, f"seat {seat}: {immediate} refusals"
        assert refusals.room(table.slots[seat], table.now())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=st.lists(st.tuples(st.sampled_from(["junk", "guess", "legal", "stale"]), st.integers(0, 3)),
                       min_size=1, max_size=60))
def test_any_mix_of_junk_and_legal_actions_logs_a_game_that_replays_to_the_same_state(tmp_path_factory, script):
    """Whatever a seat sends, junk past its budget or not, the log rebuilds the state the table holds, with no
    more of the seat's refusals than its budget allows."""
    burst, rate = refusals.BURST, refusals.PER_SECOND
    refusals.BURST, refusals.PER_SECOND = 5, 1.0  # a small budget, met within a short script
    folder = tmp_path_factory.mktemp("mix")
    try:
        async def run():
            async with trio.open_nursery() as nursery:
                table, me, other = await two_seats(Lobby(nursery, folder, "never"), seed=9, races=3)
                for number, (kind, wait) in enumerate(script):
                    legal = me.last_viewed().legal
                    action, expect = {"junk": ({"type": "take", "card": "zz"}, None),
                                      "guess": ({"type": "take", "card": "B9"}, None),
                                      "legal": (msgspec.to_builtins(legal[number % len(legal)]) if legal
                                                else {"type": "draw"}, None),
                                      "stale": ({"type": "draw"}, 10**6)}[kind]
                    await table.submit(intents.Act(me, Act(table=table.id, action=action, id=number,
                                                           expect_seq=expect, seen=table.log.seq)))
                    await trio.sleep(wait / 4)
                await trio.sleep(1)
                state = digest(table.session.state)
                path, seconds = table.store.path, table.now()
                await table.halt("time_limit")
                await table.over.wait()
                await table.stop()
                nursery.cancel_scope.cancel()
                return path, state, seconds

        path, state, seconds = trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))
        report = check_log(path)
        assert report.ok, report.problem
        assert report.read.end.digest == state, "the log rebuilds the state the table held"
        counted = [e for e in report.read.entries() if not e.accepted and e.actor == 0 and refusals.counts(e.fair)]
        assert len(counted) <= 5 + seconds * 1.0 + 1
    finally:
        refusals.BURST, refusals.PER_SECOND = burst, rate


async def test_a_table_reopened_after_a_restart_keeps_each_seats_budget_as_its_log_spent_it(tmp_path,
                                                                                          autojump_clock):
    async with trio.open_nursery() as first:
        lobby = Lobby(first, tmp_path, "never")
        table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, seed=3, practice=True,
                                               options={"races": 1}))
        seats = [Sink(), Sink()]
        for index, seat in enumerate(seats):
            await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
        await settle()
        await flood(table, seats[0], 1)  # its whole budget, and more
        assert seats[0].of(Rejected)[-1].code == Code.TOO_MANY_REFUSED
        first.cancel_scope.cancel()  # the server dies
    token = seats[0].of(Seated)[0].token
    async with trio.open_nursery() as second:
        lobby = Lobby(second, tmp_path, "never")
        assert await lobby.recover() == [table.id]
        reopened = lobby.find(table.id)
        back = Sink()
        await reopened.submit(intents.Resume(back, Resume(table=table.id, token=token)))
        await settle()
        seq = reopened.log.seq
        await reopened.submit(intents.Act(back, Act(table=table.id, action={"type": "take", "card": "x"}, id="j")))
        await settle()
        assert back.of(Rejected)[-1].code == Code.TOO_MANY_REFUSED, "its log spent its budget: no fresh one"
        assert reopened.log.seq == seq
        second.cancel_scope.cancel()
    assert check_log(table.store.path).ok


async def test_a_stand_in_for_a_seat_whose_player_spent_its_budget_plays_on(nursery, autojump_clock):
    table = new_table(seats=2, stand_in="heuristic", grace_ms=100)
    await nursery.start(table.run)
    me, other = Seat(0.005), Seat(0.005)
    for index, seat in enumerate((me, other)):
        await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
    await settle()
    for number in range(refusals.BURST + 5):  # its whole budget at once, and the player goes
        await table.submit(intents.Act(me, Act(table=table.id, action={"type": "take", "card": "x"},
                                               id=f"j{number}")))
    await table.submit(intents.Disconnect(me))
    await settle()
    moves = sum(e.accepted and e.actor == 0 for e in table.log.entries)
    await trio.sleep(5)
    assert table.slots[0].state == "stand_in"
    assert sum(e.accepted and e.actor == 0 for e in table.log.entries) > moves + 5, "the stand-in plays the seat"


async def test_a_held_takes_asks_again_under_new_ids_are_counted(nursery, autojump_clock):
    """red11: while a seat's take is held, the same take under new message ids follows it (``followers``), each
    answered ``after`` at its release; they were logged and never counted, so a seat that guessed a card, discarded
    it and took it back (held ``fair_ms`` as a guess) logged 1,198 refusals in five cycles, past any budget."""
    me, other = Seat(0.005), Seat(0.020)  # the other seat's longer round trip holds my take a while
    table = await fair_table(nursery, [me, other])
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["G5", "P10"])
    offer(table)
    await trio.sleep(1)
    asks = 3 * refusals.BURST
    for number in range(asks):  # one take held, the rest asked again under new ids while it is
        await table.submit(intents.Act(me, Act(table=table.id, action=TAKE_G5, id=f"t{number}", seen=table.log.seq)))
    await trio.sleep(1)
    assert "G5" in table.session.state.hands[0]
    after = [e for e in table.log.entries if not e.accepted and e.actor == 0 and e.fair and e.fair.rule == "after"]
    assert refusals.BURST - 1 <= len(after) <= refusals.BURST + 1, f"{len(after)} asks again logged"
    answers = [m for m in me.of(Rejected) if m.ref and m.ref.startswith("t")]
    assert len(answers) == asks - 1 and sum(a.code == Code.TOO_MANY_REFUSED for a in answers) >= asks - 2 - 1 - refusals.BURST
