"""The arbiter, in memory and in virtual time: order, conflicts, the photo-finish window, timeouts,
duplicates, reconnects, slow receivers and what each receiver may see."""

from __future__ import annotations

import trio
import trio.testing

from rules import SYSTEM, Rng, digest
from rules.flag_finish.game import CloseWindow, DrawPile, Drew, Play, RaceDealt, Timeout
from server.protocol import Accepted, Act, BotSeat, Leave, Rejected, Resume, Seated, Snapshot, TakeSeat, Update, Watch
from server.table import intents

from tests.positions import plain

from .helpers import SEQ_B, SEQ_R, Sink, act, force_state, new_table, seat_all, settle


async def test_the_game_waits_for_every_seat_then_deals(nursery):
    table = new_table(seats=2)
    await nursery.start(table.run)
    first = await seat_all(table, 1)
    await act(table, first[0], DrawPile())
    assert first[0].of(Rejected)[0].code == "not_started"
    await table.submit(intents.TakeSeat(Sink(), TakeSeat(table="t1")))
    await settle()
    assert table.started and table.log.entries[-1].accepted
    assert any(type(e) is RaceDealt for u in first[0].of(Update) for e in u.events)


async def test_two_seats_asking_for_one_discard_card_exactly_one_gets_it(nursery):
    for first_to_ask in (0, 1):
        table = new_table(seats=2)
        await nursery.start(table.run)
        sinks = await seat_all(table, 2)
        force_state(table, [plain(12), plain(12, avoid=plain(12))], [[], []], discard=["G5", "P10"])
        hands_before = [list(h) for h in table.session.state.hands]
        sequencer = trio.testing.Sequencer()

        async def ask(seat: int, position: int) -> None:
            async with sequencer(position):
                await table.submit(intents.Act(sinks[seat], Act(
                    table="t1", action={"type": "take", "card": "G5"}, id=f"take-{seat}")))

        async with trio.open_nursery() as racers:
            racers.start_soon(ask, first_to_ask, 0)
            racers.start_soon(ask, 1 - first_to_ask, 1)
        await settle()
        winner, loser = sinks[first_to_ask], sinks[1 - first_to_ask]
        assert winner.of(Accepted) and not winner.of(Rejected)
        assert loser.of(Rejected)[0].code == "card_not_in_discard" and not loser.of(Accepted)
        state = table.session.state
        assert "G5" in state.hands[first_to_ask]
        assert state.hands[1 - first_to_ask] == hands_before[1 - first_to_ask]
        refused = [e for e in table.log.entries if not e.accepted]
        assert len(refused) == 1 and refused[0].code == "card_not_in_discard"
        await table.stop()


async def _photo_finish(nursery, gap: float, window_ms: int = 50):
    table = new_table(seats=2, options={"window_ms": window_ms, "races": 1})
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    force_state(table, [["F"], ["F"]], [SEQ_R, SEQ_B])
    table.session.state.rows[1][0] = "B0"
    await act(table, sinks[0], Play("F"))
    await trio.sleep(gap)
    await act(table, sinks[1], Play("F"))
    await trio.sleep(1)
    return table, sinks


async def test_two_finishes_inside_the_window_go_to_the_tiebreak(nursery, autojump_clock):
    table, sinks = await _photo_finish(nursery, gap=0.03)
    state = table.session.state
    assert state.race_scores == [[0, 0]] and state.race_winners == [[0, 1]]
    close = [e for e in table.log.entries if e.actor == SYSTEM]
    first_finish = next(e for e in table.log.entries if e.action == Play("F"))
    assert len(close) == 1 and type(close[0].action) is CloseWindow
    assert abs(close[0].time - first_finish.time - 0.05) < 1e-9


async def test_a_finish_after_the_window_is_not_simultaneous(nursery, autojump_clock):
    table, sinks = await _photo_finish(nursery, gap=0.08)
    state = table.session.state
    assert state.race_winners == [[0]] and state.race_scores == [[0, 1]]
    assert sinks[1].of(Rejected)[0].code == "game_over"


async def test_the_window_closes_after_its_time_as_a_logged_system_action(nursery, autojump_clock):
    table = new_table(seats=2, options={"window_ms": 200, "races": 1})
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    force_state(table, [["F"], plain(12, avoid=SEQ_R)], [SEQ_R, []])
    await act(table, sinks[0], Play("F"))
    finished_at = trio.current_time()
    await table.over.wait()
    close = table.log.entries[-1]
    assert close.actor == SYSTEM and type(close.action) is CloseWindow
    assert trio.current_time() - finished_at == 0.2


async def test_a_lockstep_time_limit_ends_in_a_logged_timeout(nursery, autojump_clock):
    table = new_table(seats=2, mode="lockstep", turn_time_ms=5000)
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    first = table.session.state.turn
    await act(table, sinks[first], DrawPile())
    await trio.sleep(5.5)
    timeout = table.log.entries[-1]
    assert timeout.actor == SYSTEM and timeout.action == Timeout(seat=first)
    assert table.session.state.turn != first and table.session.state.drawn[first] is None
    assert table.game.invariant(table.session.state) == []


async def test_a_resent_message_id_gets_the_first_answer_and_is_applied_once(nursery):
    table = new_table(seats=2)
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    await act(table, sinks[0], DrawPile(), id=7)
    entries = table.log.seq
    await act(table, sinks[0], DrawPile(), id=7)
    answers = sinks[0].of(Accepted)
    assert len(answers) == 2 and answers[1].duplicate and answers[0].seq == answers[1].seq
    assert table.log.seq == entries


async def test_a_refused_action_is_logged_answered_to_its_sender_only_and_changes_nothing(nursery):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    idle = 1 - table.session.state.turn
    before = digest(table.session.state)
    others_before = len(sinks[1 - idle].messages)
    await act(table, sinks[idle], DrawPile(), id="x")
    rejected = sinks[idle].of(Rejected)[0]
    assert rejected.code == "not_your_turn" and rejected.ref == "x" and "turn" in rejected.message
    assert digest(table.session.state) == before
    assert len(sinks[1 - idle].messages) == others_before
    assert table.log.entries[-1].accepted is False and table.log.entries[-1].code == "not_your_turn"
    await act(table, sinks[idle], {"type": "fly"})
    assert sinks[idle].of(Rejected)[-1].code == "bad_action"


async def test_expect_seq_is_stale_only_once_an_accepted_entry_came_after_it(nursery):
    table = new_table(seats=2, mode="lockstep")
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    mover = table.session.state.turn
    seen = sinks[mover].of(Update)[-1].seq
    await act(table, sinks[1 - mover], DrawPile(), id="idle")  # refused: not its turn; takes a seq, changes nothing
    await act(table, sinks[mover], {"type": "fly"}, id="typo")  # refused too, this time the mover's own
    assert table.log.seq == seen + 2
    await table.submit(intents.Act(sinks[mover], Act(table=table.id, action=DrawPile(), expect_seq=seen, id="draw")))
    await settle()
    accepted = sinks[mover].of(Accepted)
    # before: "stale" for ever, since no update (so no newer seq) follows a refusal
    assert [a.ref for a in accepted] == ["draw"]
    before = (digest(table.session.state), len(sinks[1 - mover].messages))
    for expect_seq in (seen, table.log.seq + 5):
        await table.submit(intents.Act(sinks[mover], Act(table=table.id, action={"type": "discard", "card": "G5"},
                                                           expect_seq=expect_seq, id=f"at {expect_seq}")))
        await settle()
        refused = sinks[mover].of(Rejected)[-1]
        assert refused.code == "stale" and refused.ref == f"at {expect_seq}"
        assert str(table.log.accepted_seq) in refused.message
    assert "moved on since" in sinks[mover].of(Rejected)[-2].message
    assert "has not happened yet" in sinks[mover].of(Rejected)[-1].message
    assert (digest(table.session.state), len(sinks[1 - mover].messages)) == before


async def test_a_reconnecting_seat_gets_what_it_missed_once_in_order_then_carries_on(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(1), BotSeat(2, "random")], bot_delay_ms=100, options={"races": 2})
    await nursery.start(table.run)
    first = Sink()
    await table.submit(intents.TakeSeat(first, TakeSeat(table="t1")))
    await settle()
    token = first.of(Seated)[0].token
    await trio.sleep(0.3)
    last_seq = max(m.seq for m in first.of(Update))
    await table.submit(intents.Disconnect(first))
    await trio.sleep(0.5)
    assert not table.over.is_set() and table.log.seq > last_seq + 3, "the race must go on while seat 0 is away"
    again = Sink()
    await table.submit(intents.Resume(again, Resume(table="t1", token=token, last_seq=last_seq)))
    await settle()
    assert again.of(Seated)[0].seat == 0
    caught_up = [m.seq for m in again.of(Update)]
    assert caught_up == sorted(set(caught_up)) and caught_up[0] > last_seq
    expected = [e.seq for e in table.log.entries if e.accepted and e.seq > last_seq]
    assert caught_up == expected
    snapshot = again.of(Snapshot)[-1]
    assert snapshot.view == table.game.view(table.session.state, 0)


async def test_a_wrong_token_is_refused(nursery):
    table = new_table(seats=2)
    await nursery.start(table.run)
    stranger = Sink()
    await table.submit(intents.Resume(stranger, Resume(table="t1", token="guess")))
    await settle()
    assert stranger.messages[0].code == "bad_token"


async def test_an_away_seat_is_freed_after_the_grace_period(nursery, autojump_clock):
    table = new_table(seats=2, grace_ms=30_000)
    await nursery.start(table.run)
    sinks = await seat_all(table, 2)
    await table.submit(intents.Disconnect(sinks[0]))
    await settle()
    assert table.slots[0].state == "away"
    await trio.sleep(29)
    assert table.slots[0].state == "away"
    await trio.sleep(2)
    assert table.slots[0].state == "free" and table.slots[0].token_hash is None


async def test_a_slow_seat_is_closed_and_the_table_goes_on(nursery, autojump_clock):
    table = new_table(seats=2, bots=[BotSeat(1)], options={"races": 1})
    await nursery.start(table.run)
    slow = Sink()
    await table.submit(intents.TakeSeat(slow, TakeSeat(table="t1", seat=0)))
    await settle()
    slow.full = True
    await act(table, slow, DrawPile())
    assert slow.closed[0] == "too_slow"
    assert table.slots[0].state == "away"  # the seat waits for its token: a reconnect catches up


async def test_no_message_to_a_seat_or_spectator_holds_a_card_hidden_from_it(nursery, autojump_clock):
    table = new_table(seats=3, bots=[BotSeat(1), BotSeat(2, "random")], options={"races": 2})
    await nursery.start(table.run)
    seat0, spectator = Sink(), Sink()
    await table.submit(intents.Watch(spectator, Watch(table="t1")))
    await table.submit(intents.TakeSeat(seat0, TakeSeat(table="t1")))
    await settle()
    rng = Rng(3)
    while not table.over.is_set():  # seat 0 plays too, as a random client choosing from its legal actions
        update = next(m for m in reversed(seat0.messages) if type(m) in (Update, Snapshot) and m.view is not None)
        if update.legal:
            await act(table, seat0, rng.choice(update.legal))
        await trio.sleep(0.01)
    for sink, seat in ((seat0, 0), (spectator, None)):
        assert sink.messages
        for message in sink.messages:
            if type(message) not in (Update, Snapshot):
                continue
            for event in getattr(message, "events", []):
                if type(event) is Drew and event.seat != seat:
                    assert event.card is None
                if type(event) is RaceDealt:
                    assert all(hand is None for i, hand in enumerate(event.hands) if i != seat)
            if message.view is not None:
                assert (message.view.hand is None) == (seat is None)
                assert not hasattr(message.view, "draw")
            if seat is None:
                assert message.legal is None


async def test_every_intent_of_a_burst_longer_than_a_batch_is_handled(nursery):
    """More intents queued at once than one batch takes (a crowd watching at once): each is answered; the
    intent after a full batch was taken from the inbox and dropped (4 of 300 watches sent at once)."""
    from server.protocol import Watching
    from server.table.arbiter import MAX_BATCH

    table = new_table(seats=2)
    watchers = [Sink() for _ in range(3 * MAX_BATCH + 5)]
    for sink in watchers:  # queued before the arbiter runs: it finds them all waiting
        table.submit_nowait(intents.Watch(sink, Watch(table="t1", id=1)))
    await nursery.start(table.run)
    await settle()
    assert [sink for sink in watchers if len(sink.of(Watching)) != 1] == []
    assert len(table.spectators) == len(watchers)


async def test_requests_queued_behind_a_stop_are_answered_table_closed(nursery, autojump_clock):
    """A watch (or any request) that reached a table's inbox after its stop, before the table closed it, is
    answered: it was dropped unanswered, and `watch demo` waited for good as the demo's table was replaced."""
    table = new_table(seats=2, bots=[BotSeat(1)])
    await nursery.start(table.run)
    seat, late, later = Sink(), Sink(), Sink()
    await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=0)))
    await settle()
    table.submit_nowait(intents.Stop())
    table.submit_nowait(intents.Watch(late, Watch(table=table.id, id=7)))
    table.submit_nowait(intents.Leave(later, Leave(table=table.id, id=8)))
    await table.stopped.wait()
    assert [(m.ref, m.code) for m in late.messages] == [(7, "table_closed")]
    assert [(m.ref, m.code) for m in later.messages] == [(8, "table_closed")]
