"""Fair ordering's record of each seat's offers (``fair.track_offers``), kept by looking only at what changed,
is the record the old way kept (every action asked of the game at every update): the same offers and send times,
the same gone cards in the same order, so the same decisions and the same log, byte for byte (``verify``
recomputes the decisions from the log). The old way is copied here (its ``left`` a plain dict now, its oldest
dropped the same)."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from types import SimpleNamespace

import msgspec
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings, strategies as st

from rules import CHANCE, GAMES, SYSTEM, Session, make_setup
from server import storage
from server.lobby import Lobby
from server.protocol import Act, CreateTable, TakeSeat
from server.logs.replay import check_log
from server.table import fair, intents
from server.table.fair import LEFT_KEPT
from server.table.seats import PATH_KEPT, SeatSlot

from .helpers import end_by_time_limit, settle
from .test_fairness import Seat


def old_track_offers(table, seat: int, legal: list, seq: int) -> None:
    """``fair.track_offers`` before it looked only at what changed (every action asked of the game, every
    update), and a deal since the seat's last update offering everything anew (red12)."""
    slot = table.slots[seat]
    if slot.tracked < table.dealt <= seq:
        slot.since.clear(), slot.offers.clear(), slot.left.clear(), slot.paused.clear()
    slot.tracked = seq
    state, contested = table.session.state, table.game.contested
    now_legal = {action for action in legal if contested(state, action)}
    others = {action for action in legal if action not in now_legal}
    since, offers, unstamped = slot.since, slot.offers, slot.unstamped
    for action in now_legal:
        if action not in since:
            since[action] = offered = [seq, None]
            unstamped.append(offered)
            was = slot.paused.pop(action, None)  # back while another seat had it listed all along (red12)
            if was is not None and any(other is not slot and other.receiver is not None
                                       and other.since.get(action, [seq])[0] < was[1] for other in table.slots):
                since[action] = was[0]
    for action in others:
        if action not in offers:
            offers[action] = offered = [seq, None]
            unstamped.append(offered)
    if len(offers) > len(others):
        for action in [a for a in offers if a not in others]:
            del offers[action]
    if len(since) > len(now_legal):
        now = table.now()
        for action in [a for a in since if a not in now_legal]:
            slot.paused[action] = (since.pop(action), seq)
            slot.left[action] = now
        while len(slot.left) > LEFT_KEPT:
            del slot.left[next(iter(slot.left))]
        while len(slot.paused) > LEFT_KEPT:
            del slot.paused[next(iter(slot.paused))]
    if len(unstamped) > 2 * (len(since) + len(offers)):
        slot.unstamped = [o for o in (*since.values(), *offers.values(), *(was[0] for was in slot.paused.values()))
                          if o[1] is None]


def kept(slot: SeatSlot) -> tuple:
    """What decisions read: each contested offer in order (the order its cards leave in), each other offer, and
    the cards gone, in order (the oldest is forgotten first)."""
    return list(slot.since.items()), dict(slot.offers), list(slot.left.items())


def fake_table(session: Session):
    table = SimpleNamespace(session=session, game=session.game, clock=0.0, dealt=0)
    table.slots = [SeatSlot(seat, receiver=object()) for seat in range(session.setup.seats)]
    table.now = lambda: table.clock
    return table


FAST = {"flag_finish": {"races": 2, "action_limit": 400, "extra_races": 0}}


# The games compared here, the old function against the new: every game but Flush, whose actions hold lists, which
# no set holds (a Flush table asked for ``ordering: fair`` contests nothing and runs none of this: the last test).
FAIR_GAMES = sorted(set(GAMES) - {"flush"})


@st.composite
def games(draw):
    game = GAMES[draw(st.sampled_from(FAIR_GAMES))]
    mode = draw(st.sampled_from(game.info.modes))
    seats = draw(st.integers(game.info.min_seats, game.info.max_seats))
    return game, make_setup(game.info, seats, mode, FAST.get(game.info.name, {})), draw(st.integers(0, 2**32))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_the_offers_kept_are_the_old_ways_update_after_update_in_every_game(table_of):
    """Random play in every game and mode (each update's legal lists, now and then the same list again as a
    snapshot sends it, the updates stamped as they leave at random): after every call both ways keep the same."""
    game, setup, seed = table_of
    session = Session(game, setup, seed)
    session.run_chance()
    rng = random.Random(seed)
    old, new = fake_table(session), fake_table(session)
    for seq in range(1, 1500):
        turn = session.to_act()
        if turn.over:
            break
        old.clock = new.clock = seq * 0.01
        seats = list(range(setup.seats))
        lists = game.legal_for(session.state, seats)
        for seat in rng.sample(seats, len(seats)):
            legal = lists[seat]
            for _ in range(2 if rng.random() < 0.1 else 1):
                old_track_offers(old, seat, legal, seq)
                fair.track_offers(new, seat, legal, seq)
                assert kept(new.slots[seat]) == kept(old.slots[seat]), (seq, seat)
            if rng.random() < 0.7:  # its update left (or the one before it: this one still waits)
                left = seq - rng.randint(0, 1)
                for each in (old, new):
                    fair.stamp_slot(each.slots[seat], left, each.clock)
        actors = [seat for seat in seats if lists[seat]] or ([SYSTEM] if turn.system else [])
        actor = rng.choice(actors) if actors else None
        if actor is None:
            break
        steps = session.act(actor, rng.choice(lists[actor] if actor >= 0 else game.legal_actions(session.state, actor)))
        if any(step.actor == CHANCE for step in steps):  # a deal: the next update offers everything anew
            old.dealt = new.dealt = seq + 1


def test_more_cards_gone_than_a_seat_remembers_are_forgotten_oldest_first_as_before():
    """A long Challenge game: each seat's gone cards pass ``LEFT_KEPT``, and both ways forget the same ones."""
    game = GAMES["flag_finish"]
    session = Session(game, make_setup(game.info, 3, "challenge", {"races": 6, "extra_races": 0}), 7)
    session.run_chance()
    rng = random.Random(7)
    old, new = fake_table(session), fake_table(session)
    for seq in range(1, 6000):
        if session.to_act().over:
            break
        old.clock = new.clock = seq * 0.01
        lists = game.legal_for(session.state, [0, 1, 2])
        for seat in range(3):
            old_track_offers(old, seat, lists[seat], seq)
            fair.track_offers(new, seat, lists[seat], seq)
            fair.stamp_slot(old.slots[seat], seq, old.clock)
            fair.stamp_slot(new.slots[seat], seq, new.clock)
        assert [kept(slot) for slot in new.slots] == [kept(slot) for slot in old.slots], seq
        movers = [seat for seat in range(3) if lists[seat]]
        if not movers:
            break
        seat = rng.choice(movers)
        if any(step.actor == CHANCE for step in session.act(seat, rng.choice(lists[seat]))):
            old.dealt = new.dealt = seq + 1
    assert max(len(slot.left) for slot in new.slots) == LEFT_KEPT


def scripted_fair_game(folder: Path, seed: int, seats: int) -> Path:
    """A logged fair table whose seats, at different distances, act at about the same moments on what they
    saw: each picks a legal action (the newest discard's take most often: contests), in virtual time."""
    rng = random.Random(seed)

    async def run():
        async with trio.open_nursery() as nursery:
            lobby = Lobby(nursery, folder, "never")
            table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=seats, seed=seed,
                                                   practice=True, options={"races": 2}))
            players = [Seat(rng.choice([0.001, 0.004, 0.012, 0.021])) for _ in range(seats)]
            for index, seat in enumerate(players):
                await table.submit(intents.TakeSeat(seat, TakeSeat(table=table.id, seat=index)))
            await settle()
            for number in range(100):
                if table.session.result() is not None:
                    break
                seen, start = table.log.seq, trio.current_time()
                plans = []
                for index, seat in enumerate(players):
                    legal = table.game.legal_actions(table.session.state, index)
                    if not legal or rng.random() < 0.2:
                        continue
                    takes = [a for a in legal if table.game.contested(table.session.state, a)]
                    action = takes[-1] if takes and rng.random() < 0.6 else rng.choice(legal)
                    at = start + 2 * seat.delay + rng.choice([0.0, 0.005, 0.010, 0.010, 0.030])
                    plans.append((at, index, msgspec.to_builtins(action), rng.choice([seen, seen, seen - 1])))

                async def act(at, index, action, saw):
                    await trio.sleep_until(at)
                    await table.submit(intents.Act(players[index], Act(table=table.id, action=action,
                                                                       id=f"a{number}-{index}", seen=saw)))

                async with trio.open_nursery() as actors:
                    for plan in plans:
                        actors.start_soon(act, *plan)
                await trio.sleep(rng.choice([0.0, 0.02, 0.2]))
            await end_by_time_limit(table)
            nursery.cancel_scope.cancel()
            return table.store.path

    return trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


def same_run(monkeypatch, seed: int) -> None:
    """The next run as the last: the seat tokens counted, not drawn; the log's start at one date; trio's shuffle
    of the tasks it wakes together (its own generator, which hypothesis seeds per example) seeded alike."""
    tokens = iter(range(10**6))
    monkeypatch.setattr(storage, "utc_now", lambda: "2026-01-01T00:00:00Z")
    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes=None: f"token{next(tokens):020d}")
    trio._core._run._r.seed(seed)


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), seats=st.sampled_from([2, 3]))
def test_a_scripted_fair_game_logs_the_same_bytes_as_with_the_old_way(tmp_path_factory, monkeypatch, seed, seats):
    same_run(monkeypatch, seed)
    path = scripted_fair_game(tmp_path_factory.mktemp("new"), seed, seats)
    logged = path.read_bytes()
    report = check_log(path)
    assert report.ok, report.problem
    assert report.decisions > 20, "many contested actions were decided"
    with monkeypatch.context() as patched:
        patched.setattr(fair, "track_offers", old_track_offers)
        same_run(patched, seed)
        before = scripted_fair_game(tmp_path_factory.mktemp("old"), seed, seats).read_bytes()
    assert logged == before


async def test_a_table_of_any_game_asked_for_fair_ordering_plays(nursery, autojump_clock, tmp_path):
    """``ordering: fair`` is taken for every game. Where the game contests nothing (every game but Flag Finish)
    it orders as arrival does, and nothing of fair ordering's bookkeeping runs: a fair Flush table, whose
    actions hold lists, stopped with a server error at its first update."""
    from server.protocol import Accepted, BotSeat, Seated
    from .helpers import Sink
    lobby = Lobby(nursery, tmp_path, "never")
    ordered = {}
    for name, game in sorted(GAMES.items()):
        mode = game.info.modes[0]
        seats = game.info.min_seats
        table = await lobby.create(CreateTable(game=name, mode=mode, seats=seats, ordering="fair", practice=True,
                                               bots=[BotSeat(s) for s in range(1, seats)]))
        player = Sink()
        await table.submit(intents.TakeSeat(player, TakeSeat(table=table.id, seat=0)))
        await settle()
        assert player.of(Seated), name
        for number in range(6):  # a few of its own actions, each answered, while the bots play theirs
            legal = [m for m in player.messages if getattr(m, "legal", None)]
            if not legal or table.stopped.is_set() or table.over.is_set():
                break
            action = msgspec.to_builtins(legal[-1].legal[0])
            await table.submit(intents.Act(player, Act(table=table.id, id=f"a{number}", action=action)))
            await settle()
        assert not table.stopped.is_set(), f"a fair {name} table stopped"
        assert player.closed is None, (name, player.closed)
        assert player.of(Accepted), f"no action of the player's at a fair {name} table was accepted"
        ordered[name] = table.fair
    assert ordered == {name: name == "flag_finish" for name in GAMES}  # only Flag Finish contests anything


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 2.0, allow_nan=False), max_size=80))
def test_a_seats_replies_median_is_the_median_of_its_last_replies(replies):
    """``path_bound`` reads the median of a seat's last ``PATH_KEPT`` replies from a list kept in order of size
    (``fair.add_reply``): always what ``statistics.median`` of those replies is, to the bit, as ``verify`` reads it."""
    import statistics
    slot = SeatSlot(seat=0)
    for reply in replies:
        fair.add_reply(slot, reply)
        assert slot.replied == sorted(slot.replies)
        assert fair.median_of_sorted(slot.replied) == statistics.median(slot.replies)
    assert len(slot.replies) == min(len(replies), PATH_KEPT)
