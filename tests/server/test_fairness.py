"""Fair ordering under unequal latency, in memory and in virtual time: seats at chosen distances from the
server (their round trips set on their latency meters), reacting after chosen times to the same update."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, example, given, settings, strategies as st

from rules.flag_finish.game import DrawPile, Play
from server import fairness
from server.fairness import EPSILON, credit, credited, fair_order
from server.logs.finished import marker_path
from server.latency import LatencyMeter, kernel_min_rtt
from server.lobby import Lobby
from server.logs.logfile import chain, GENESIS
from server.protocol import Accepted, Act, CreateTable, Rejected, Resume, Seated, TakeSeat, Update
from server.logs.replay import _check_fair, check_log, verify_seed
from server.table import fair, fanout, intents
from server.table.seats import PATH_KEPT

from tests.positions import plain

from .helpers import SEQ_B, SEQ_R, Sink, force_state, new_table, settle

TAKE_G5 = {"type": "take", "card": "G5"}


class Seat(Sink):
    """A seat ``delay`` seconds from the server each way: its meter has measured a round trip of twice that
    (plus ``pong_delay``: a client answering pings late to look farther)."""

    def __init__(self, delay: float, pong_delay: float = 0.0) -> None:
        super().__init__()
        self.delay = delay
        self.latency = LatencyMeter()
        for number in range(3):
            self.latency.sent(number, 0.0)
            self.latency.pong(number, 2 * delay + pong_delay)


async def fair_table(nursery, seats: list[Seat], **kwargs):
    table = new_table(seats=len(seats), **kwargs)
    await nursery.start(table.run)
    for index, seat in enumerate(seats):
        await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
    await settle()
    return table


async def race(table, seats: list[Seat], reactions: list[float], action=TAKE_G5, seen: int | None = None) -> None:
    """Each seat sees update ``seen`` (the newest by default) after its delay, reacts after its reaction time,
    and its action reaches the server after its delay again."""
    seen = table.log.seq if seen is None else seen
    start = trio.current_time()

    async def one(index: int) -> None:
        seat = seats[index]
        await trio.sleep_until(start + seat.delay + reactions[index] + seat.delay)
        await table.submit(intents.Act(seat, Act(table=table.id, action=action, id=f"a{index}-{start}", seen=seen)))

    async with trio.open_nursery() as racers:
        for index in range(len(seats)):
            racers.start_soon(one, index)
    await trio.sleep(1)


def contest_g5(table) -> None:
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["G5", "P10"])
    offer(table)


def offer(table) -> None:
    """The forced position reaches every seat now, as an update would: the cards it offers are stamped as
    sent to each seat at this moment (what fair ordering measures reactions from)."""
    for slot in table.slots:
        if slot.receiver is not None:
            fanout.hand_over(table, slot.receiver, fanout.snapshot(table, slot.seat))


def winner(table) -> int:
    return next(seat for seat in range(2) if "G5" in table.session.state.hands[seat])


async def test_with_equal_latencies_fair_ordering_gives_the_arrival_order(nursery, autojump_clock):
    for first in (0, 1):
        seats = [Seat(0.010), Seat(0.010)]
        table = await fair_table(nursery, seats)
        contest_g5(table)
        reactions = [0.020, 0.020]
        reactions[1 - first] = 0.027
        await race(table, seats, reactions)
        assert winner(table) == first
        taken = next(e for e in table.log.entries if e.fair is not None and e.accepted)
        assert taken.time - taken.fair.arrival < 1e-9, "equal distances: nothing to wait for"
        await table.stop()


async def test_a_farther_seat_that_reacted_faster_wins_the_card_that_arrived_later(nursery, autojump_clock):
    near, far = Seat(0.001), Seat(0.021)  # 20 ms farther each way
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    await race(table, [near, far], [0.030, 0.010])  # near arrives at 32 ms, far at 52 ms
    assert winner(table) == 1
    assert far.of(Accepted) and not far.of(Rejected)
    lost = near.of(Rejected)[0]
    assert lost.code == "card_not_in_discard" and lost.contest.winner == 1
    assert lost.contest.rule == "reaction" and not hasattr(lost.contest, "winner_reaction_ms")
    assert "took it first" not in lost.message, "the server sends the contest as data; the client words it"
    from clients.feed import describe_contest

    assert describe_contest(lost.contest, 0) == "seat 2 took it first (it reacted first)", "told why, seats from 1"
    took, refused = [e for e in table.log.entries if e.fair is not None]
    assert (took.actor, took.accepted, refused.actor, refused.accepted) == (1, True, 0, False)
    assert refused.fair.lost_to == 1 and took.fair.group == refused.fair.group
    assert abs(refused.fair.arrival - took.fair.arrival + 0.020) < 1e-9, "the near seat's take arrived first"
    assert refused.time - refused.fair.arrival <= 0.050 - credit(near.latency.rtt, 0.050) + 1e-9


async def test_a_far_seat_on_a_jittery_path_is_credited_its_typical_round_trip_not_its_quickest(
        nursery, autojump_clock):
    """Pings of a path 20 +- 5 ms each way came back in 34-46 ms: the far seat's take crosses the path as it
    typically is (40 ms there and back), so it is credited 40 and its 16 ms reaction beats the near seat's 20.
    Credited its quickest sample (34), it would count as 22 and lose."""
    near, far = Seat(0.001), Seat(0.020)
    far.latency = LatencyMeter()
    for number, sample in enumerate([0.046, 0.034, 0.040, 0.042, 0.038]):
        far.latency.sent(number, 0.0)
        far.latency.pong(number, sample)
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    await race(table, [near, far], [0.020, 0.016])
    assert winner(table) == 1
    took = next(e for e in table.log.entries if e.fair is not None and e.accepted)
    assert took.fair.rtt == 0.040 and abs(took.fair.reaction - 0.016) < 1e-9
    await table.stop()


async def test_a_take_that_crossed_a_jittery_path_quicker_than_usual_is_not_too_early(nursery, autojump_clock):
    """Pings of 30-46 ms (median 42): this time the path took 26 ms there and back and the seat reacted in 5.
    Its take, 31 ms after the card was sent, is under three quarters of the typical round trip but not of the
    quickest: a reaction, not a guess."""
    near, far = Seat(0.001), Seat(0.013)
    far.latency = LatencyMeter()
    for number, sample in enumerate([0.046, 0.030, 0.042, 0.044, 0.040]):
        far.latency.sent(number, 0.0)
        far.latency.pong(number, sample)
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    await race(table, [near, far], [0.030, 0.005])
    assert not far.of(Rejected) and table.slots[1].guesses == 0 and winner(table) == 1
    await table.stop()


async def test_a_seat_answering_pings_late_gains_at_most_the_cap(nursery, autojump_clock):
    for late_reaction, late_wins in ((0.065, False), (0.055, True)):
        honest, liar = Seat(0.001), Seat(0.001, pong_delay=0.040)  # the liar looks 21 ms away each way
        table = await fair_table(nursery, [honest, liar])
        assert liar.latency.rtt > 0.04
        contest_g5(table)
        await race(table, [honest, liar], [0.010, late_reaction])
        # the liar's credit is 42 ms: 67 - 42 is slower than 10 + 2 - 2, 57 - 42 is ... quicker than 10? no:
        # 15 > 10, so it loses too; what it gains is bounded by the credit, and see the next test
        assert winner(table) == 0
        held = next(e for e in table.log.entries if e.fair is not None and e.actor == 0)
        assert held.time - held.fair.arrival <= 0.050 - 0.002 + 1e-9, "nobody waits longer than the cap"
        await table.stop()


async def test_a_take_sooner_than_the_seats_own_round_trip_is_refused_as_too_early(nursery, autojump_clock):
    """A client that answers pings 20 ms late to look 11 ms away, then takes 12 ms after the card was sent:
    no reaction crosses its claimed path that fast. The take is refused, logged and counted; the honest seat
    wins."""
    honest, liar = Seat(0.001), Seat(0.001, pong_delay=0.020)
    table = await fair_table(nursery, [honest, liar])
    contest_g5(table)
    await race(table, [honest, liar], [0.030, 0.010])
    assert winner(table) == 0
    refused = liar.of(Rejected)[-1]
    assert refused.code == "too_early" and "round trip" in refused.message
    entry = next(e for e in table.log.entries if e.actor == 1 and e.fair is not None)
    assert entry.fair.rule == "too_early" and not entry.accepted and table.slots[1].guesses == 1
    await table.stop()


async def test_a_seat_caught_answering_pings_late_is_credited_nothing_for_its_next_takes(nursery, autojump_clock):
    """Caught once (a take crossing in under half its quickest ping, less 5 ms), a seat's pings are not
    believed for its next 32 takes, that one included: no credit, so it races by arrival; its pings are not
    logged for those takes either, so the log still verifies. An honest seat at the same distance is never
    caught, and keeps its credit."""
    honest, liar = Seat(0.005), Seat(0.005, pong_delay=0.060)  # the liar looks 35 ms away each way
    table = await fair_table(nursery, [honest, liar])
    contest_g5(table)
    await race(table, [honest, liar], [0.030, 0.010])  # 20 ms after the send: its pongs say 70
    assert winner(table) == 1 and not liar.of(Rejected), "caught, it still wins what it truly reacted first to"
    assert table.slots[1].distrust == PATH_KEPT - 1
    for reactions, first in (((0.020, 0.045), 0), ((0.040, 0.015), 1), ((0.020, 0.030), 0)):
        contest_g5(table)
        await race(table, [honest, liar], list(reactions))  # it takes later now, so no take is too early
        assert winner(table) == first, "the seat that reacted first wins: the late pongs bought nothing"
    entries = [e for e in table.log.entries if e.fair is not None and e.actor == 1]
    assert entries and all(e.fair.pings is None and e.fair.rtt is None for e in entries)
    assert 0 < table.slots[1].distrust < PATH_KEPT and table.slots[0].distrust == 0
    kept = [e for e in table.log.entries if e.fair is not None and e.actor == 0]
    assert all(abs(e.fair.rtt - 0.010) < 1e-9 for e in kept), "the honest seat's credit is its round trip"
    assert all(_check_fair(e, {}) is None for e in table.log.entries if e.fair is not None)
    await table.stop()


async def test_the_round_trip_credited_is_no_more_than_the_seats_own_takes_show(nursery, autojump_clock):
    """Pongs held back 30 ms buy credit only until the seat's own takes show its path is shorter."""
    honest, liar = Seat(0.001), Seat(0.001, pong_delay=0.030)
    table = await fair_table(nursery, [honest, liar])
    contest_g5(table)
    await race(table, [honest, liar], [0.060, 0.026])  # liar: 28 ms after the send, credited 32: counts -4
    first = next(e for e in table.log.entries if e.actor == 1 and e.fair is not None)
    assert first.fair.path is None and abs(first.fair.rtt - 0.032) < 1e-9
    contest_g5(table)
    await race(table, [honest, liar], [0.060, 0.026])
    second = [e for e in table.log.entries if e.actor == 1 and e.fair is not None][-1]
    assert abs(second.fair.path - 0.028) < 1e-9 and abs(second.fair.rtt - 0.023) < 1e-9, (
        "credited no more than its quickest take less the quickest reaction: 28 - 5 ms")
    await table.stop()


async def test_uncontested_actions_and_actions_without_seen_are_not_delayed(nursery, autojump_clock):
    near, far = Seat(0.001), Seat(0.021)
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    seen = table.log.seq
    await trio.sleep(0.012)
    await table.submit(intents.Act(near, Act(table="t1", action=TAKE_G5, id="held", seen=seen)))
    await settle()
    assert table.held and not near.of(Accepted), "a contested take waits for the farther seat"
    await table.submit(intents.Act(far, Act(table="t1", action={"type": "draw"}, id="draw", seen=seen)))
    await settle()
    drew = table.log.entries[-1]
    assert far.of(Accepted) and drew.action == DrawPile() and drew.fair is None
    assert drew.time == trio.current_time() - table.t0, "a draw contests nothing: applied at once"
    await trio.sleep(0.1)
    assert near.of(Accepted) and not table.held
    contest_g5(table)
    table.session.state.drawn = [None, None]
    await trio.sleep(0.050)
    await table.submit(intents.Act(far, Act(table="t1", action=TAKE_G5, id="blind")))  # no seen
    await settle()
    took = table.log.entries[-1]
    assert far.of(Accepted)[-1].ref == "blind" and took.fair.rule == "reaction", "measured from the server's send"
    assert abs(took.fair.reaction - (0.050 - 0.042)) < 1e-9 and took.time == took.fair.arrival, (
        "the near seat, which would have sent a quicker take by now, did not: nothing to wait for")


async def hold_a_take(nursery):
    """A near seat's contested take, held while the far seat could still react faster."""
    near, far = Seat(0.001), Seat(0.021)
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    await trio.sleep(0.012)  # its round trip and a 10 ms reaction
    await table.submit(intents.Act(near, Act(table="t1", action=TAKE_G5, id="held", seen=table.log.seq)))
    await settle()
    assert table.held and not near.of(Accepted)
    return table, near, far


async def test_a_held_action_is_applied_and_answered_when_the_table_stops(nursery, autojump_clock):
    table, near, _ = await hold_a_take(nursery)
    await table.stop()
    assert [a.ref for a in near.of(Accepted)] == ["held"], "it arrived before the stop: it counts"
    assert winner(table) == 0 and not table.held


async def test_a_held_action_is_applied_before_a_halt_ends_the_table(nursery, autojump_clock):
    table, near, _ = await hold_a_take(nursery)
    await table.halt("time_limit")
    await settle()
    assert table.over.is_set() and [a.ref for a in near.of(Accepted)] == ["held"]
    assert winner(table) == 0, "the take is in the standing the halt recorded"
    await table.stop()


async def test_a_seat_resumed_on_a_new_connection_while_its_action_is_held_gets_the_answer_there(
        nursery, autojump_clock):
    table, near, _ = await hold_a_take(nursery)
    token = near.of(Seated)[0].token
    again = Seat(0.001)
    await table.submit(intents.Resume(again, Resume(table="t1", token=token, last_seq=table.log.seq)))
    await settle()
    assert near.closed is not None and near.closed[0] == "replaced"
    await trio.sleep(0.1)
    assert [a.ref for a in again.of(Accepted)] == ["held"], "the answer follows the seat to its new connection"
    assert not near.of(Accepted)
    await table.stop()


async def test_finishes_are_judged_in_reaction_time_within_the_photo_finish_window(nursery, autojump_clock):
    for ordering in ("fair", "arrival"):
        near, far = Seat(0.001), Seat(0.021)
        table = await fair_table(nursery, [near, far], options={"window_ms": 10, "races": 1}, ordering=ordering)
        force_state(table, [["F"], ["F"]], [SEQ_R, SEQ_B])
        table.session.state.rows[1][0] = "B0"
        offer(table)
        # near arrives at 32 ms, far at 67 ms: 35 ms apart, far outside a 10 ms window by arrival; but far
        # reacted 5 ms sooner, so it finished first and near within the window
        await race(table, [near, far], [0.030, 0.025], action={"type": "play", "card": "F"})
        state = table.session.state
        finished = [e.actor for e in table.log.entries if e.action == Play("F") and e.accepted]
        if ordering == "fair":
            assert finished == [1, 0] and sorted(state.race_winners[0]) == [0, 1], "both within the window"
            assert not near.of(Rejected) and not far.of(Rejected)
        else:
            assert finished == [0] and state.race_winners[0] == [0], "by arrival the far seat missed it"
        await table.stop()


@pytest.mark.parametrize("reactions", [(0.030, 0.005), (0.050, 0.000)], ids=["one group", "after the opening"])
async def test_a_finish_outside_the_window_in_reaction_time_does_not_count_whenever_it_arrives(
        nursery, autojump_clock, reactions):
    """The far seat finishes first; the near seat 25 ms (or 50 ms) later in reaction time, outside a 10 ms
    window, though its finish arrives before the window closes (released with the far seat's, or on its own
    after the window opened): it is refused ``too_late``, logged, and only the far seat wins the race."""
    near, far = Seat(0.001), Seat(0.021)
    table = await fair_table(nursery, [near, far], options={"window_ms": 10, "races": 1})
    force_state(table, [["F"], ["F"]], [SEQ_R, SEQ_B])
    table.session.state.rows[1][0] = "B0"
    offer(table)
    await race(table, [near, far], list(reactions), action={"type": "play", "card": "F"})
    state = table.session.state
    assert [e.actor for e in table.log.entries if e.action == Play("F") and e.accepted] == [1]
    assert state.race_winners[0] == [1]
    refused = near.of(Rejected)[-1]
    assert refused.code == "too_late" and "window" in refused.message
    late = next(e for e in table.log.entries if e.actor == 0 and e.fair is not None)
    assert late.code == "too_late" and late.time >= late.fair.arrival
    await table.stop()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reactions=st.lists(st.floats(0, 0.2), min_size=1, max_size=6), lots=st.randoms())
def test_the_order_is_by_reaction_and_ties_go_by_lot(reactions, lots):
    order, drawn = fair_order(reactions, EPSILON, lambda indices: [lots.randrange(4) for _ in indices])
    assert sorted(order) == list(range(len(reactions)))
    for before, after in zip(order, order[1:]):
        assert reactions[before] <= reactions[after] + EPSILON, "never a reaction slower by more than epsilon first"
        if reactions[after] < reactions[before]:
            assert before in drawn and after in drawn, "only a lot puts a slower one first"
    assert all(i in drawn for i in range(len(reactions)) for j in range(len(reactions))
               if i != j and abs(reactions[i] - reactions[j]) <= EPSILON / 2)


# ------------------------------------------------------------------ the log of a fair table


REACTIONS = [(0.010, 0.010), (0.030, 0.010), (0.012, 0.040), (0.020, 0.0205), (0.025, 0.025), (0.050, 0.005)]


def play_fair_game(folder: Path, seed: int) -> Path:
    """A logged fair table where a near and a far seat race for the newest discard card again and again
    (some reactions tied: lots decide), the winner discarding what it took, until a time limit ends it."""
    async def run():
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, folder, "never")
            table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, seed=seed, practice=True,
                                                   options={"races": 1}))
            seats = [Seat(0.001), Seat(0.021)]
            for index, seat in enumerate(seats):
                await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
            await settle()
            for number, reactions in enumerate(REACTIONS * 3):
                card = table.session.state.discard[-1]
                await race(table, seats, list(reactions), action={"type": "take", "card": card})
                won = next(s for s in range(2) if table.session.state.drawn[s] is not None)
                await table.submit(intents.Act(seats[won], Act(table=table.id, id=f"d{number}", seen=table.log.seq,
                                                                 action={"type": "discard", "card": card})))
                await settle()
            await table.halt("time_limit")
            await table.over.wait()
            await table.stop()
            nursery.cancel_scope.cancel()
            return table.store.path, table.log.entries

    return trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


def rewrite(path: Path, change) -> None:
    """Apply ``change`` to each record (a dict) and write the log again with a fresh, valid hash chain, as a
    copy away from its server (no ``.done`` marker beside it): only the recomputed decisions can catch the edit."""
    marker_path(path).unlink(missing_ok=True)
    prev, out = GENESIS, []
    for line in path.read_bytes().splitlines():
        record = json.loads(line[65:])
        body = json.dumps(change(record), separators=(",", ":")).encode()
        prev = chain(prev, body)
        out.append(prev.encode() + b" " + body)
    path.write_bytes(b"\n".join(out) + b"\n")


def test_replay_of_a_fair_log_recomputes_every_decision_and_verify_checks_the_lots(tmp_path):
    path, entries = play_fair_game(tmp_path, seed=5)
    report = check_log(path)
    assert report.ok and report.ended, report.problem
    decided = [e for e in entries if e.fair is not None]
    assert report.decisions == len(decided) > 10
    assert any(e.fair.rule == "lot" for e in decided) and any(e.fair.lost_to is not None for e in decided)
    assert verify_seed(report) is None
    assert report.history == [(e.actor, e.action) for e in entries if e.accepted], "the same order, the same states"

    def swap_a_tie(record):
        if record.get("fair", {}).get("lot") is not None:
            record["fair"]["lot"] ^= 1
        return record

    rewrite(path, swap_a_tie)
    report = check_log(path)
    assert report.ok, "the lots still order the same ties..."
    assert "do not follow from the seed" in verify_seed(report), "... but they are not the seed's"

    def faster(record):
        fair = record.get("fair", {})
        if fair.get("rule") in ("reaction", "lot"):
            fair["reaction"] -= 0.001
        return record

    rewrite(path, faster)
    assert "reaction time" in check_log(path).problem


@pytest.mark.parametrize("edit, problem", [
    (lambda entry, fair: fair.update(sent=fair["arrival"] + 0.001), "sent to the seat after its action arrived"),
    (lambda entry, fair: entry.update(time=fair["arrival"] - 0.001), "applied before it arrived"),
    (lambda entry, fair: fair.update(rtt=fair["rtt"] + 0.001), "not what its logged ping samples"),
    (lambda entry, fair: fair.update(pings=[p + 0.003 for p in fair["pings"]]), "not what its logged ping samples"),
], ids=["sent after arrival", "applied before arrival", "round trip", "ping samples"])
def test_verify_finds_a_decision_whose_times_or_round_trip_do_not_fit(tmp_path, edit, problem):
    """A log edited (its chain made whole again) so that one decision's card was sent after the action
    arrived, or the action applied before it arrived, or its credited round trip is not what its logged ping
    samples give: ``photofinish replay`` names the problem."""
    path, _ = play_fair_game(tmp_path, seed=5)
    edited = []

    def once(record):
        fair = record.get("fair")
        if not edited and fair and fair.get("rule") == "reaction" and fair.get("pings") and fair.get("rtt"):
            edit(record, fair)
            edited.append(record["seq"])
        return record

    rewrite(path, once)
    assert edited and problem in (check_log(path).problem or "")


def test_verify_finds_a_contested_action_applied_as_it_arrived_at_a_fair_table(tmp_path):
    """A log whose accepted take carries no fair ordering record (chain made whole again): the take jumped the
    other seats' reactions, as one read in the same batch as the discard behind it once did (red9): ``replay``
    names it."""
    path, _ = play_fair_game(tmp_path, seed=5)
    edited = []

    def strip(record):
        fair = record.get("fair")
        if not edited and fair and record.get("accepted") and fair.get("rule") == "reaction":
            del record["fair"]
            edited.append(record["seq"])
        return record

    rewrite(path, strip)
    assert edited and "applied as it arrived" in (check_log(path).problem or "")


def test_verify_follows_the_photo_finish_window_in_reaction_time():
    """The window opened by a fair finish at virtual time 5 ms (arrival 47, credited 42) closes at 15 ms:
    ``verify`` accepts a finish at 14 ms and a ``too_late`` refusal at 16 ms, and names the opposite."""
    from rules import ToAct
    from server.logs.logfile import Entry, Fair
    from server.logs.replay import _Window

    playing, window = ToAct(seats=(0, 1)), ToAct(seats=(0,), system=("close_window",), system_delay_ms=10)
    finish = {"type": "play", "card": "F"}

    def entry(seq, arrival, rtt, accepted=True, code=None):
        return Entry(seq=seq, time=arrival, actor=seq % 2, action=finish, accepted=accepted, code=code,
                     fair=Fair(rule="reaction", arrival=arrival, rtt=rtt))

    def verdicts(second):
        follow = _Window()
        return [follow.check(entry(1, 0.047, 0.042), playing, {}), follow.check(second, window, {})]

    assert verdicts(entry(2, 0.016, 0.002)) == [None, None]
    assert verdicts(entry(2, 0.018, 0.002, False, "too_late")) == [None, None]
    assert "after its close" in verdicts(entry(2, 0.018, 0.002))[1]
    assert "within it" in verdicts(entry(2, 0.016, 0.002, False, "too_late"))[1]


def test_replay_walk_shows_a_referee_each_refused_attempt_and_how_each_contest_was_decided(tmp_path, capsys):
    """``photofinish replay --seat N``: a refused take is a line of its own with its reason, and every contested
    action says its reaction, its place in its group, a lot where one decided, and whom it lost to."""
    from clients.cli import main

    path, entries = play_fair_game(tmp_path, seed=5)
    assert main(["replay", str(path), "--seat", "1"]) == 0  # seats are numbered from 1 for a person
    out = capsys.readouterr().out.splitlines()
    lost = [e for e in entries if e.fair is not None and e.fair.lost_to is not None]
    assert {e.actor for e in lost} == {0, 1}, "both seats lost a race: the walked seat's and the other's shown"
    for entry in lost:
        line = next(i for i, text in enumerate(out) if text.startswith(f"#{entry.seq} "))
        assert entry.code in out[line]
        if entry.actor == 0:  # the seat walked: its own attempt, action and all
            assert f"seat 1: refused {msgspec.json.encode(entry.action).decode()}" in out[line]
        else:  # another seat's: that it was refused and why, never what it tried (it may name a hidden hand)
            assert f"seat {entry.actor + 1}: an action refused" in out[line] and '{"type"' not in out[line]
        assert f"lost to seat {entry.fair.lost_to + 1}" in out[line + 1]
        assert f"reacted in {entry.fair.reaction * 1000:.2f} ms" in out[line + 1]
        winner = next(e for e in entries if e.accepted and e.fair and e.fair.group == entry.fair.group)
        assert f"which reacted in {winner.fair.reaction * 1000:.2f} ms" in out[line + 1]
    by_lot = next(e for e in entries if e.fair is not None and e.fair.rule == "lot")
    line = next(i for i, text in enumerate(out) if text.startswith(f"#{by_lot.seq} "))
    assert f"decided by lot ({by_lot.fair.lot})" in out[line + 1]
    uncontested = next(e for e in entries if e.accepted and e.fair is None and e.actor >= 0)
    line = next(i for i, text in enumerate(out) if text.startswith(f"#{uncontested.seq} "))
    assert "contested" not in out[line + 1]


def test_replay_frames_show_who_won_each_contest_against_whom_and_by_what(tmp_path):
    """The browser's replay: the frame of a take that beat another seat's same take says both reaction times
    and whether a lot decided; no other frame carries a contest."""
    from server.datadir import DataDir
    from server.logs.frames import MOST_FRAMES, answer
    from server.protocol import Replay

    path, entries = play_fair_game(tmp_path, seed=5)
    frames, start = [], 0
    while True:
        got = answer(DataDir(tmp_path), Replay(log=path.stem, start=start, count=MOST_FRAMES))
        frames += got.frames
        start += len(got.frames)
        if start >= got.total:
            break
    contested = {f.seq: f.contest for f in frames if f.contest is not None}
    lost = [e for e in entries if not e.accepted and e.fair is not None and e.fair.lost_to is not None]
    winners = {}
    for entry in lost:
        winner = next(e for e in entries if e.accepted and e.fair and e.fair.group == entry.fair.group
                      and e.actor == entry.fair.lost_to and e.action == entry.action)
        winners.setdefault(winner.seq, (winner, []))[1].append(entry)
    assert winners and set(contested) == set(winners)
    for seq, (winner, rivals) in winners.items():
        contest = contested[seq]
        assert contest.reaction_ms == round(winner.fair.reaction * 1000, 2)
        assert contest.lot == (winner.fair.rule == "lot")
        assert [(r.seat, r.reaction_ms) for r in contest.rivals] == [
            (r.actor, round(r.fair.reaction * 1000, 2)) for r in rivals]


async def test_updates_and_the_table_info_carry_each_seats_ping(nursery, autojump_clock):
    near, far = Seat(0.001), Seat(0.021)
    table = await fair_table(nursery, [near, far])
    assert [s.ping_ms for s in table.info().seats] == [2.0, 42.0]
    assert table.info().ordering == "fair" and table.info().fair_ms == 50
    await table.submit(intents.Act(near, Act(table="t1", action={"type": "draw"})))
    await settle()
    assert far.of(Update)[-1].pings == [2.0, 42.0]


async def test_a_fair_table_reopened_after_a_restart_orders_by_reaction_and_its_log_still_verifies(
        tmp_path, autojump_clock):
    async with trio.open_nursery() as first:
        lobby = Lobby(first, tmp_path, "never")
        table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, seed=3, practice=True, fair_ms=40,
                                               options={"races": 1}))
        seats = [Seat(0.001), Seat(0.015)]
        for index, seat in enumerate(seats):
            await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
        await settle()
        await race(table, seats, [0.020, 0.010], action={"type": "take", "card": table.session.state.discard[-1]})
        first.cancel_scope.cancel()  # the server dies
    tokens = [seat.of(Seated)[0].token for seat in seats]
    async with trio.open_nursery() as second:
        lobby = Lobby(second, tmp_path, "never")
        assert await lobby.recover() == [table.id]
        reopened = lobby.find(table.id)
        assert (reopened.info().ordering, reopened.info().fair_ms) == ("fair", 40)
        back = [Seat(0.001), Seat(0.015)]
        for seat, token in zip(back, tokens):
            await reopened.submit(intents.Resume(seat, Resume(table=table.id, token=token)))
        await settle()
        won = next(s for s in range(2) if reopened.session.state.drawn[s] is not None)
        card = reopened.session.state.drawn[won]
        await reopened.submit(intents.Act(back[won], Act(table=table.id, action={"type": "discard", "card": card},
                                                            id="d", seen=reopened.log.seq)))
        await settle()
        await race(reopened, back, [0.025, 0.005], action={"type": "take", "card": card})
        took = next(e for e in reversed(reopened.log.entries) if e.fair is not None and e.accepted)
        assert (took.actor, took.fair.rule) == (1, "reaction"), "the far seat reacted first, after the restart too"
        second.cancel_scope.cancel()
    report = check_log(table.store.path)
    assert report.ok, report.problem
    assert report.decisions == len([e for e in reopened.log.entries if e.fair is not None]) >= 3


async def test_on_a_direct_connection_late_pongs_buy_nothing_the_kernel_caps_the_credit(nursery, autojump_clock):
    """The kernel measures the connection's round trip on its own segments: a client holding its pongs 40 ms
    is credited what the kernel saw (plus a millisecond), so its slower take loses as it should."""
    honest, liar = Seat(0.001), Seat(0.001, pong_delay=0.040)
    liar.latency.kernel = lambda: 0.002
    table = await fair_table(nursery, [honest, liar])
    contest_g5(table)
    await race(table, [honest, liar], [0.020, 0.045])  # credited 42 ms, the liar's 45 would count as 5
    assert winner(table) == 0
    took = next(e for e in table.log.entries if e.actor == 0 and e.fair is not None)
    assert took.time - took.fair.arrival < 0.0011, "held no longer than the seats' credits differ (1 ms)"
    rtt, pings, _, kernel = fair.round_trip(table, table.slots[1])
    assert kernel == 0.002 and min(pings) > 0.04 and abs(rtt - 0.003) < 1e-9
    await table.stop()


def test_the_round_trip_credited_is_the_typical_ping_bounded_by_the_takes_and_the_kernel():
    assert credited(None, 0.01) is None
    assert credited([0.03, 0.02], None) == 0.025, "the median of the samples"
    assert credited([0.036, 0.031, 0.044, 0.040, 0.900], None) == 0.040, "one slowed sample moves it little"
    assert abs(credited([0.03, 0.02], 0.015) - 0.010) < 1e-12, "a take 15 ms after its send: a round trip <= 10"
    assert credited([0.03, 0.02], 0.035) == 0.025
    assert credited([0.03, 0.02], 0.015, 0.004) == 0.005
    assert credited([0.03, 0.02], None, estimate=min) == 0.02, "the older logs' rule, which verify accepts"


@settings(max_examples=200, deadline=None)
@given(path=st.lists(st.integers(0, 60), min_size=1, max_size=8), jitter=st.lists(st.integers(-5, 5), min_size=8,
       max_size=8), holds=st.lists(st.integers(0, 100), min_size=8, max_size=8),
       takes=st.lists(st.integers(5, 400), min_size=1, max_size=16), kernel=st.booleans())
def test_pongs_held_back_never_buy_credit_beyond_what_the_takes_and_the_kernel_show(path, jitter, holds, takes,
                                                                                  kernel):
    """Whatever a client does with its pongs (``holds``, ms, per sample), its credit is at most its quickest
    take's arrival - send less the quickest reaction, and on a direct connection at most the kernel's smallest
    round trip + 1 ms; an honest seat's (no holds) is the median of what its path did."""
    rtt = path[0] / 1000
    samples = [max(0.0, rtt + j / 1000) for j in jitter]
    quickest = min(max(0.0, rtt + j / 1000) + r / 1000 for j, r in zip(jitter * 2, takes))
    floor = min(samples)
    cheated = credited([s + h / 1000 for s, h in zip(samples, holds)], quickest, floor if kernel else None)
    assert cheated <= max(0.0, quickest - 0.005) + 1e-12
    if kernel:
        assert cheated <= floor + 0.001 + 1e-12
    honest = credited(samples, quickest, floor if kernel else None)
    assert honest <= sorted(samples)[4] and (kernel or quickest - 0.005 < sorted(samples)[3] or
                                             honest >= sorted(samples)[3])


async def test_the_kernel_round_trip_of_a_real_loopback_connection_is_read():
    listener = trio.socket.socket()
    await listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    client = trio.socket.socket()
    await client.connect(listener.getsockname())
    server, _ = await listener.accept()
    await client.send(b"x" * 100)
    await server.recv(100)
    await server.send(b"y")
    await client.recv(1)
    measured = kernel_min_rtt(server)
    if measured is None:
        pytest.skip("this kernel gives no tcpi_min_rtt")
    assert 0 < measured < 0.1
    for sock in (client, server, listener):
        sock.close()


def test_the_ping_shown_is_the_typical_round_trip_of_the_last_eight():
    meter = LatencyMeter()
    for number, sample in enumerate([0.900, 0.010, 0.050, 0.012, 0.011, 0.013, 0.014, 0.015, 0.016]):
        meter.sent(number, 1.0)
        meter.pong(number, 1.0 + sample)
    assert len(meter.samples) == 8 and abs(meter.rtt - 0.0135) < 1e-9 and meter.ping_ms == 13.5, (
        "the median of the last 8: the 900 ms sample is gone, the 50 ms one hardly counts")


def test_ping_numbers_cannot_be_predicted():
    meter = LatencyMeter()
    numbers = [meter.ping() for _ in range(50)]
    assert len(set(numbers)) == 50 and numbers != sorted(numbers)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(delays=st.lists(st.integers(0, 25), min_size=2, max_size=2),
       reactions=st.lists(st.integers(5, 60), min_size=2, max_size=2))
def test_the_truly_quicker_honest_seat_wins_and_nobody_waits_past_the_cap(delays, reactions):
    """Honest seats (pongs at once) at any distances up to the cap: when their reactions differ by more than
    the tie, the quicker one wins, whatever arrived first; no take waits longer than ``fair_ms``."""
    if abs(reactions[0] - reactions[1]) <= 1:
        return

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            seats = [Seat(d / 1000) for d in delays]
            table = await fair_table(nursery, seats)
            contest_g5(table)
            await race(table, seats, [r / 1000 for r in reactions])
            assert winner(table) == reactions.index(min(reactions))
            for entry in table.log.entries:
                if entry.fair is not None:
                    assert entry.time - entry.fair.arrival <= 0.050 + 1e-9
            await table.stop()
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


SEEN = st.sampled_from(["seen", "none", "future"])  # what a seat's take says it saw: honest, nothing, a seq ahead


def seen_of(variant: str, seq: int) -> int | None:
    return {"seen": seq, "none": None, "future": seq + 1000}[variant]


async def send_take(table, seat: Seat, card: str, at: float, seen: int | None, ref: str) -> None:
    """The seat's take of ``card`` leaves it at ``at`` and reaches the server after its delay."""
    await trio.sleep_until(at + seat.delay)
    await table.submit(intents.Act(seat, Act(table=table.id, action={"type": "take", "card": card}, id=ref,
                                             seen=seen)))


@settings(max_examples=30, deadline=None)
@given(seats=st.lists(st.tuples(st.integers(0, 25), st.integers(5, 60), st.sampled_from(["G5", "P10"]), SEEN),
                      min_size=2, max_size=3))
@example(seats=[(0, 5, "G5", "seen"), (0, 20, "P10", "seen"), (25, 10, "P10", "none")])  # G5 due at 55 ms, the
def test_each_card_goes_to_its_quickest_taker_whatever_the_other_card_and_the_seen(seats):  # far P10 in at 60
    """Seats at any distances up to the cap each take one of two cards on the pile, after any reaction, saying
    they saw the update, or nothing, or a seq far ahead: each card goes to the quickest reaction among those
    that took it (one card's release never decides the other's, and ``seen`` neither helps nor hurts), and no
    take waits past the cap."""
    takers = {card: [r for _, r, c, _ in seats if c == card] for card in ("G5", "P10")}
    if any(abs(a - b) <= 1 for rs in takers.values() for i, a in enumerate(rs) for b in rs[i + 1:]):
        return  # a tie: a lot decides

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            players = [Seat(d / 1000) for d, _, _, _ in seats]
            table = await fair_table(nursery, players)
            hands: list[list[str]] = []
            for _ in seats:
                hands.append(plain(12, avoid=sum(hands, [])))
            force_state(table, hands, [[]] * len(seats), discard=["G5", "P10"])
            offer(table)
            seq, start = table.log.seq, trio.current_time()
            async with trio.open_nursery() as racers:
                for index, (_, reaction, card, variant) in enumerate(seats):
                    at = start + players[index].delay + reaction / 1000
                    racers.start_soon(send_take, table, players[index], card, at, seen_of(variant, seq), "t")
            await trio.sleep(1)
            hands = table.session.state.hands
            for card, reactions in takers.items():
                if reactions:
                    quickest = min(i for i, s in enumerate(seats) if s[2] == card and s[1] == min(reactions))
                    assert card in hands[quickest], f"{card} went to another seat than its quickest taker"
            for entry in table.log.entries:
                if entry.fair is not None:
                    assert entry.fair.rule == "reaction" and entry.time - entry.fair.arrival <= 0.050 + 1e-9
            await table.stop()
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@settings(max_examples=30, deadline=None)
@given(delays=st.tuples(st.integers(0, 25), st.integers(0, 25)), firsts=st.tuples(st.integers(5, 60),
       st.integers(5, 60)), gaps=st.tuples(st.integers(1, 40), st.integers(1, 40)), variants=st.tuples(SEEN, SEEN))
def test_a_seats_next_take_is_judged_on_its_own_while_its_last_one_is_held_or_lost(delays, firsts, gaps,
                                                                                     variants):
    """Both seats take G5, then each takes P10 ``gap`` ms after its first take (while that may still be held).
    The loser of G5 gets P10: its take is ranked by its own reaction (its arrival less the offer's send and its
    credit), never by the lost take's, is held no longer than its own bound, and neither seat is counted as
    guessing."""
    if abs(firsts[0] - firsts[1]) <= 1:
        return

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            players = [Seat(d / 1000) for d in delays]
            table = await fair_table(nursery, players)
            contest_g5(table)
            seq, start = table.log.seq, trio.current_time()
            async with trio.open_nursery() as racers:
                for index, seat in enumerate(players):
                    at = start + seat.delay + firsts[index] / 1000
                    seen = seen_of(variants[index], seq)
                    racers.start_soon(send_take, table, seat, "G5", at, seen, "g5")
                    racers.start_soon(send_take, table, seat, "P10", at + gaps[index] / 1000, seen, "p10")
            await trio.sleep(1)
            loser = 1 - firsts.index(min(firsts))
            assert "G5" in table.session.state.hands[1 - loser] and "P10" in table.session.state.hands[loser]
            took = next(e for e in table.log.entries if e.ref == "p10" and e.accepted)
            assert took.actor == loser and abs(took.fair.reaction - (firsts[loser] + gaps[loser]) / 1000) < 1e-9
            assert took.time <= took.fair.until + 1e-9 and took.fair.until - took.fair.arrival <= 0.050 + 1e-9
            lost = next(e for e in table.log.entries if e.ref == "g5" and e.actor == loser)
            assert lost.time <= took.time, "the lost take was answered first, never held behind the next"
            assert [slot.guesses for slot in table.slots] == [0, 0]
            await table.stop()
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


async def test_one_cards_deadline_never_releases_anothers_and_a_loser_is_answered_at_once(nursery, autojump_clock):
    """Two cards on the pile, G5 and P10. The near seat takes G5 (released on its own deadline), then P10 at 40
    ms; the far seat takes P10 in a 10 ms reaction (arriving at 52 ms). G5's release does not release the near
    seat's P10 take, which waits in its own group and loses to the far seat's quicker reaction."""
    near, far = Seat(0.001), Seat(0.021)
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    start = trio.current_time()
    async def near_takes() -> None:
        await trio.sleep_until(start + 0.012)
        await table.submit(intents.Act(near, Act(table="t1", action=TAKE_G5, id="g5")))
        await trio.sleep_until(start + 0.040)
        await table.submit(intents.Act(near, Act(table="t1", action={"type": "take", "card": "P10"}, id="p10")))

    async def far_takes() -> None:
        await trio.sleep_until(start + 0.052)
        await table.submit(intents.Act(far, Act(table="t1", action={"type": "take", "card": "P10"}, id="p10")))

    async with trio.open_nursery() as racers:
        racers.start_soon(near_takes)
        racers.start_soon(far_takes)
    await trio.sleep(0.2)
    g5 = next(e for e in table.log.entries if e.ref == "g5")
    assert g5.accepted
    p10 = {e.actor: e for e in table.log.entries if e.ref == "p10"}
    assert p10[1].accepted and not p10[0].accepted, "the far seat reacted in 10 ms, the near one in 38"
    assert p10[0].fair.lost_to == 1
    await table.stop()


async def test_a_late_take_of_a_flag_is_no_guess_when_another_flag_came_on_the_pile(nursery, autojump_clock):
    """Seat 1 takes the flag on top at 12 ms and discards its own flag at 20 ms; seat 0 chose to take the
    first flag (reacting in 30 ms, arriving at 32 ms): a late take, not a take chosen before the card."""
    near, other = Seat(0.001), Seat(0.001)
    table = await fair_table(nursery, [near, other])
    force_state(table, [plain(12), plain(11, avoid=plain(12)) + ["F"]], [[], []], discard=["P10", "F"])
    offer(table)
    seen, start = table.log.seq, trio.current_time()
    take_f = {"type": "take", "card": "F"}
    await trio.sleep_until(start + 0.012)
    await table.submit(intents.Act(other, Act(table=table.id, action=take_f, id="take", seen=seen)))
    await trio.sleep_until(start + 0.020)
    await table.submit(intents.Act(other, Act(table=table.id, action={"type": "discard", "card": "F"}, id="discard",
                                                seen=table.log.seq)))
    await trio.sleep_until(start + 0.032)
    await table.submit(intents.Act(near, Act(table=table.id, action=take_f, id="late", seen=seen)))
    await trio.sleep(0.2)
    assert [e.accepted for e in table.log.entries if e.ref in ("take", "discard")] == [True, True]
    assert table.slots[0].guesses == 0, "an honest late take counted as a guess"
    assert all(r.code != "too_early" for r in near.of(Rejected))
    await table.stop()


async def test_an_honest_take_is_not_too_early_when_busy_pings_overstated_its_round_trip(nursery, autojump_clock):
    """A direct connection whose kernel saw a 2 ms round trip, its pings so far answered in 10 ms (a busy
    moment): its take 7 ms after the card was sent (1 ms each way, a 5 ms reaction) is a reaction that the
    kernel's measure allows, and it reacted first."""
    honest, other = Seat(0.005), Seat(0.001)
    honest.delay = 0.001
    honest.latency.kernel = lambda: 0.002
    table = await fair_table(nursery, [honest, other])
    contest_g5(table)
    await race(table, [honest, other], [0.005, 0.030])
    assert table.slots[0].guesses == 0 and not honest.of(Rejected)
    assert winner(table) == 0
    await table.stop()


@settings(max_examples=300, deadline=None)
@given(rtt=st.floats(0.0, 0.150), spread=st.floats(0.0, 1.0), busy=st.floats(0.0, 1.0), data=st.data())
def test_an_honest_seat_is_never_caught_holding_its_pongs_back(rtt, spread, busy, data):
    """Pings and a take crossing a path of round trip ``rtt`` that varies by up to ``j`` either side, each
    ping answered up to ``late`` later by a busy machine, the take after a reaction of 5 ms or more: with
    j <= 10 ms and late <= rtt - 3j + 20 ms, however the samples fall (every ping at its slowest, the take at
    its quickest), the seat is not caught."""
    j = spread * min(0.010, (rtt + 0.020) / 3)
    late = max(0.0, busy * (rtt - 3 * j + 0.020))  # (never -0.0: an empty range for hypothesis)
    pings = [max(0.0, rtt + v) + w for v, w in data.draw(st.lists(st.tuples(st.floats(-j, j), st.floats(0, late)),
                                                                      min_size=1, max_size=8))]
    take = max(0.0, rtt + data.draw(st.floats(-j, j))) + data.draw(st.floats(0.005, 0.4))
    assert not fairness.held_back(take, pings)


@pytest.mark.parametrize("late, reaction, caught", [(0.060, 0.010, True), (0.060, 0.020, False),
                                                    (0.025, 0.005, False), (0.200, 0.060, True)])
def test_a_seat_holding_its_pongs_back_is_caught_by_a_take_quicker_than_they_allow(late, reaction, caught):
    """Behind a +10 ms path each way (20 ms round trip), pongs held back ``late``: a take ``reaction`` after
    the card reached it is caught when it crosses in under half its quickest ping, less 5 ms."""
    assert fairness.held_back(0.020 + reaction, [0.020 + late] * 8) is caught


async def test_a_seats_replies_bound_its_credit_as_its_takes_do(nursery, autojump_clock):
    """An uncontested action sent on the update that offered it (a draw here; a discard after a take in the
    bench) crossed the path with next to no reaction: the median of a seat's last replies bounds its credit,
    so pongs held back 30 ms buy nothing from a seat that answers the game at once."""
    honest, liar = Seat(0.005), Seat(0.005, pong_delay=0.030)
    table = await fair_table(nursery, [honest, liar])
    for _ in range(fair.REPLIES_LEAST):
        contest_g5(table)
        start = trio.current_time()
        await trio.sleep_until(start + 0.005 + 0.001 + 0.005)  # there, 1 ms to answer, back
        await table.submit(intents.Act(liar, Act(table="t1", action={"type": "draw"}, id=f"d{start}")))
        await settle()
    replies = table.slots[1].replies
    assert len(replies) == fair.REPLIES_LEAST and all(abs(r - 0.011) < 1e-6 for r in replies)
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["P10"])
    offer(table)  # the green 5 gone, then offered anew to both
    contest_g5(table)
    await race(table, [honest, liar], [0.020, 0.025])
    assert winner(table) == 0, "reacting 5 ms slower at the same distance, it loses"
    entry = next(e for e in reversed(table.log.entries) if e.fair is not None and e.actor == 0)
    assert entry.fair.until - entry.fair.arrival < 0.0011, (
        "the honest take waited only for a liar credited 11 ms (its replies), not 40 (its pongs)")
    await table.stop()


async def test_a_pong_and_a_take_between_two_takes_change_what_the_second_is_credited(nursery, autojump_clock):
    """A seat's round trip is worked out again whenever what it comes from changed (fair ordering keeps it
    between changes): pongs answered after its first take, and that take itself (its path), count for the next."""
    near, far = Seat(0.001), Seat(0.010)  # the far seat's pings: 20 ms
    table = await fair_table(nursery, [near, far])
    contest_g5(table)
    await race(table, [near, far], [0.100, 0.030])  # its take crossed the path in 50 ms
    first = next(e for e in table.log.entries if e.fair is not None and e.actor == 1)
    assert first.fair.pings == [0.02] * 3 and first.fair.path is None and abs(first.fair.rtt - 0.02) < 1e-9
    now = trio.current_time() - table.t0
    for number in range(10, 15):  # five pongs of 40 ms: the median is now 40 ms
        far.latency.sent(number, now)
        far.latency.pong(number, now + 0.040)
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["P10"])
    offer(table)
    contest_g5(table)
    await race(table, [near, far], [0.100, 0.030])
    second = next(e for e in reversed(table.log.entries) if e.fair is not None and e.actor == 1)
    assert second.fair.pings == [0.02] * 3 + [0.04] * 5, "the new pongs are in"
    assert second.fair.path == round(first.fair.arrival - first.fair.sent, 6), "the first take bounds the path"
    assert second.fair.rtt == credited(second.fair.pings, second.fair.path) and abs(second.fair.rtt - 0.04) < 1e-9
    await table.stop()


async def test_the_kernel_round_trip_is_read_once_a_batch_and_logged_as_read(nursery, autojump_clock):
    """Two takes of one batch ask each seat's round trip twice (their own and the other's, for the hold): the
    kernel is read once per seat and batch (a system call each), every decision of the batch logs that value,
    and the next batch reads it again."""
    seats = [Seat(0.001), Seat(0.001)]
    reads = [0, 0]

    def reader(index: int):
        def read() -> float:
            reads[index] += 1
            return 0.001 + index / 1000 + reads[index] / 1e6
        return read

    for index, seat in enumerate(seats):
        seat.latency.kernel = reader(index)
    table = await fair_table(nursery, seats)
    contest_g5(table)
    await trio.sleep(0.010)
    for index, seat in enumerate(seats):  # both in the inbox before the arbiter wakes: one batch
        await table.submit(intents.Act(seat, Act(table=table.id, action=TAKE_G5, id=f"g{index}", seen=table.log.seq)))
    await settle()
    assert reads == [1, 1]
    takes = [e for e in table.log.entries if e.fair is not None]
    assert [e.fair.kernel for e in sorted(takes, key=lambda e: e.actor)] == [0.001001, 0.002001]
    force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["G5"])
    offer(table)
    await trio.sleep(0.010)
    await table.submit(intents.Act(seats[0], Act(table=table.id, action=TAKE_G5, id="again", seen=table.log.seq)))
    await settle()
    assert reads == [2, 2], "a new batch reads the kernel again"
    await trio.sleep(0.1)  # (released after its hold)
    assert table.log.entries[-1].ref == "again" and table.log.entries[-1].fair.kernel == 0.001002
    await table.stop()


async def test_takes_sent_again_and_again_for_a_card_that_just_left_are_guesses_when_it_comes_back(
        nursery, autojump_clock):
    """Seat 1 takes G5 at 12 ms and puts it back at 60 ms, then takes it again in a 5 ms reaction. Seat 0 asks
    for G5 every millisecond from 45 ms, while it is not on the pile (red9: a late take, no guess, was
    exempt for two seconds after the card left, however often it was sent): one late take is no guess, the
    second one is; its take that lands just after G5 came back (a reaction of a millisecond) goes last."""
    spammer, honest = Seat(0.001), Seat(0.001)
    table = await fair_table(nursery, [spammer, honest])
    contest_g5(table)
    start = trio.current_time()

    async def honest_plays() -> None:
        await trio.sleep_until(start + 0.012)
        await table.submit(intents.Act(honest, Act(table=table.id, action=TAKE_G5, id="take", seen=table.log.seq)))
        await trio.sleep_until(start + 0.060)
        await table.submit(intents.Act(honest, Act(table=table.id, action={"type": "discard", "card": "G5"},
                                                   id="discard", seen=table.log.seq)))
        back = trio.current_time()
        await trio.sleep_until(back + 0.001 + 0.005 + 0.001)
        await table.submit(intents.Act(honest, Act(table=table.id, action=TAKE_G5, id="again", seen=table.log.seq)))

    async def spam() -> None:
        for index in range(80):
            await trio.sleep_until(start + 0.0455 + index * 0.001)
            await table.submit(intents.Act(spammer, Act(table=table.id, action=TAKE_G5, id=f"s{index}")))

    async with trio.open_nursery() as racers:
        racers.start_soon(honest_plays)
        racers.start_soon(spam)
    await trio.sleep(0.5)
    assert [e.accepted for e in table.log.entries if e.ref in ("take", "discard")] == [True, True]
    assert "G5" in table.session.state.hands[1], "the seat that asked for G5 before it came back took it first"
    assert table.slots[0].guesses > 0 and table.slots[1].guesses == 0
    await table.stop()


async def test_a_take_in_the_same_batch_as_the_discard_that_put_its_card_on_the_pile_is_too_early(
        nursery, autojump_clock):
    """Seat 1 takes G5 and, at 60 ms, puts it back; seat 0's take of G5 (no ``seen``) arrives right behind
    that discard, read in the same batch (red9: it was applied then by arrival, before any seat was sent the
    card, with no fair ordering at all). It was chosen before the card was offered to it: refused
    ``too_early``, counted, its inputs logged; seat 1 takes G5 back in a 5 ms reaction."""
    cheat, honest = Seat(0.001), Seat(0.001)
    table = await fair_table(nursery, [cheat, honest])
    contest_g5(table)
    start = trio.current_time()
    await trio.sleep_until(start + 0.012)
    await table.submit(intents.Act(honest, Act(table=table.id, action=TAKE_G5, id="take", seen=table.log.seq)))
    await trio.sleep_until(start + 0.060)
    await table.submit(intents.Act(honest, Act(table=table.id, action={"type": "discard", "card": "G5"},
                                               id="discard", seen=table.log.seq)))
    await table.submit(intents.Act(cheat, Act(table=table.id, action=TAKE_G5, id="behind")))
    await trio.sleep(0.001 + 0.005 + 0.001)
    await table.submit(intents.Act(honest, Act(table=table.id, action=TAKE_G5, id="again", seen=table.log.seq)))
    await trio.sleep(0.5)
    entries = {e.ref: e for e in table.log.entries if e.ref}
    assert entries["take"].accepted and entries["discard"].accepted and entries["discard"].seq + 1 == entries["behind"].seq
    assert not entries["behind"].accepted and entries["behind"].fair.rule == "too_early"
    assert "G5" in table.session.state.hands[1] and table.slots[0].guesses == 1
    assert any(r.code == "too_early" for r in cheat.of(Rejected))
    await table.stop()
