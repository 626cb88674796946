"""Flush: the shedding game of Mimics, Skips, Super and Gold Flushes, in its Arena and Elimination formats.

Owns the whole game: options, actions, events, state, views and rules. Rule text:
``shared/seeds/002_b4ecdb7011b4f118.txt``; card faces in ``deck.py``; every decision in ``RULES.md``.
Pure and deterministic: each round's shuffle is a chance action (``Deal``); a turn's time limit is a system
action (``Timeout``) that makes the least harmful legal play for the seat.

A turn is one declaration (``Release``: the cards, from hand and face-up base tops, and the value they are
declared as) or a Blind card flipped (``Blind``), which the seat then adds to (``Release``) or leaves
(``Stop``). A Super Flush by a seat with more than one Base asks it which Base to pass (``PassBase``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Union

import msgspec

from ..contract import (CHANCE, SYSTEM, Action, Event, GameInfo, OptionSpec, Result, RulesError, Setup, TimedOut,
                        Timeout, ToAct, TurnStarted, game_from, places)
from ..rng import Rng
from .deck import (BONUSES, CARDS, DECK, DECK_COUNT, FLUSH_VALUE, GOLD, POINT_OPTIONS, RANK, SKIPS, VALUE,
                   VALUES, card_name, card_points, sort_key)

HAND_SIZE = 8
BASES = 3
DEAL_SIZE = HAND_SIZE + 2 * BASES
FLUSH_RUN = 4
SUPER_RUN = 6

INFO = GameInfo(
    name="flush",
    title="Flush",
    rules_version="1",
    min_seats=2,
    max_seats=6,
    modes=("lockstep",),
    options=(
        OptionSpec("format", "arena", "arena: a fixed number of rounds, lowest total wins; elimination: out at "
                   "the limit, last seat standing wins", choices=("arena", "elimination")),
        OptionSpec("rounds", 5, "arena: rounds in a game", minimum=1, maximum=50),
        OptionSpec("double_last", True, "arena: the last round scores double (bonuses too)"),
        OptionSpec("limit", 150, "elimination: a seat whose total reaches this is out", minimum=1, maximum=10_000),
        OptionSpec("max_rounds", 40, "elimination: after this many rounds the lowest remaining total wins",
                   minimum=1, maximum=1000),
        OptionSpec("turn_limit", 400, "turns after which a round ends with nobody out (everyone scores)",
                   minimum=10, maximum=100_000),
        *(OptionSpec(name, value, doc, minimum=0, maximum=1000) for name, value, doc in (
            ("flush_points", POINT_OPTIONS["flush_points"], "points of a Flush card held at the end of a round"),
            ("gold_points", POINT_OPTIONS["gold_points"], "points of the Gold Flush held at the end of a round"),
            ("bonus_points", POINT_OPTIONS["bonus_points"], "deducted per Bonus card released on the winning turn"),
            ("mimic_factor", POINT_OPTIONS["mimic_factor"], "a held Mimic scores this many times its points"),
        )),
    ),
)

# ---------------------------------------------------------------- actions


class Release(Action, tag="release"):
    """The declaration: these cards from the hand and the tops of these Bases, as ``count`` x ``value``.

    ``value`` is "1".."10" or "F". Equal or lower than the pile releases; higher picks the pile up.
    """

    value: str  # the value declared: "1".."10" or "F"
    hand: list[str] = []  # cards from your hand
    bases: list[int] = []  # your Bases (0-2) whose top card goes too


class Blind(Action, tag="blind"):
    """Flip the Blind card of a Base whose top card is gone, straight onto the pile (first card of a turn)."""

    base: int  # the Base (0-2) whose Blind card is flipped


class Stop(Action, tag="stop"):
    """After a Blind card: add nothing more; the play is declared as it lies."""


class PassBase(Action, tag="pass_base"):
    """After a Super Flush: the Base to pass to the seat that played the previous turn."""

    base: int  # the Base (0-2) to pass


class Deal(Action, tag="deal"):
    """Chance: the shuffled deck (dealt from the end) and, for the first round, the seat that leads."""

    order: list[str]
    first: int


ActionType = Union[Release, Blind, Stop, PassBase, Timeout, Deal]

# ---------------------------------------------------------------- events


class RoundDealt(Event, tag="round_dealt"):
    round: int
    hands: list[list[str] | None]  # only the receiver's own hand survives redaction
    tops: list[list[str]]
    mimic_card: str
    mimic: str | None  # the Mimic value; None when a Flush card was turned
    leader: int
    unused: int


class Released(Event, tag="released"):
    seat: int
    value: str
    cards: list[str]  # hand cards first, then the base tops in the order given
    bases: list[int]
    pickup: bool


class BlindFlipped(Event, tag="blind_flipped"):
    seat: int
    base: int
    card: str
    pickup: bool


class PickedUp(Event, tag="picked_up"):
    seat: int
    cards: list[str]


class Flushed(Event, tag="flushed"):
    seat: int
    cards: int  # cards discarded with the pile
    super: bool
    gold: bool


class GoldDrawn(Event, tag="gold_drawn"):
    seat: int
    card: str | None  # None for everyone but the drawer, and when the unused deck is empty


class BasePassed(Event, tag="base_passed"):
    seat: int
    to: int
    base: int  # the giver's Base
    new_base: int  # its index among the receiver's Bases
    top: str | None
    blind: bool


class Skipped(Event, tag="skipped"):
    seats: list[int]


class RoundEnded(Event, tag="round_ended"):
    round: int
    winner: int | None  # None: the turn limit ended the round
    bonus: int  # Bonus cards on the winning turn
    scores: list[int]
    totals: list[int]
    eliminated: list[int]


class MatchEnded(Event, tag="match_ended"):
    winners: list[int]
    totals: list[int]


EventType = Union[RoundDealt, Released, BlindFlipped, PickedUp, Flushed, GoldDrawn, BasePassed, Skipped,
                  TimedOut, TurnStarted, RoundEnded, MatchEnded]

# ---------------------------------------------------------------- state


class Play(msgspec.Struct, frozen=True):
    """One play on the pile: who, the declared value, the cards."""

    seat: int  # who played it
    value: str  # the declared value, "1".."10" or "F"
    cards: list[str]  # the cards played


class State(msgspec.Struct):
    seats: int
    options: dict[str, int | bool | str]
    phase: str = "deal"  # deal -> play -> deal ... -> over
    round: int = 0
    hands: list[list[str]] = msgspec.field(default_factory=list)
    tops: list[list[str | None]] = msgspec.field(default_factory=list)  # per seat, per Base
    blinds: list[list[str | None]] = msgspec.field(default_factory=list)
    pile: list[Play] = msgspec.field(default_factory=list)
    flushed: list[str] = msgspec.field(default_factory=list)
    unused: list[str] = msgspec.field(default_factory=list)  # the top is the last
    mimic_card: str | None = None
    active: list[int] = msgspec.field(default_factory=list)  # seats still in the game
    turn: int = 0
    turn_from: int = 0  # index in the pile of this turn's first play
    flipped: bool = False  # a Blind card was flipped this turn: add to it or stop
    pickup: bool = False  # this turn's play is higher than the pile: the pile goes to the hand
    passing: bool = False  # a Super Flush: the seat chooses the Base to pass
    previous: int = -1  # the seat that played the previous turn (-1: none yet this round)
    turns: int = 0  # turns this round
    leader: int = -1  # who leads the next round (-1: chance decides)
    round_scores: list[list[int]] = msgspec.field(default_factory=list)
    totals: list[int] = msgspec.field(default_factory=list)
    winners: list[int] = msgspec.field(default_factory=list)


def mimic_value(state: State) -> str | None:
    card = state.mimic_card
    if card is None or VALUE[card] == FLUSH_VALUE:
        return None
    return VALUE[card]


def is_mimic(state: State, card: str) -> bool:
    return VALUE[card] == mimic_value(state)


def top_value(state: State) -> str | None:
    return state.pile[-1].value if state.pile else None


def is_pickup(top: str | None, value: str) -> bool:
    """A play of ``value`` on a pile whose top is ``top`` is higher, so it picks the pile up. A Flush card is
    never higher, and anything may start an empty pile."""
    return value != FLUSH_VALUE and top is not None and RANK[value] > RANK[top]


def _base_cards(state: State, seat: int) -> list[str]:
    return [c for c in state.tops[seat] + state.blinds[seat] if c is not None]


def cards_held(state: State, seat: int) -> int:
    return len(state.hands[seat]) + len(_base_cards(state, seat))


def _bases_present(state: State, seat: int) -> list[int]:
    return [i for i in range(len(state.tops[seat])) if state.tops[seat][i] is not None or state.blinds[seat][i] is not None]


# ---------------------------------------------------------------- view


class View(msgspec.Struct, frozen=True):
    """What one seat (or a spectator, ``seat`` None) may see: its own hand, every face-up card, counts.

    Nobody sees a Blind card before it is flipped, its owner included."""

    seat: int | None  # your seat (null: a spectator)
    phase: str  # "deal", "play" or "over"
    format: str  # "arena" (a fixed number of rounds, lowest total wins) or "elimination" (a seat whose total reaches
    # the limit is out)
    round: int  # the round under way (1 = the first)
    rounds: int  # arena: rounds in the game
    hand: list[str] | None  # your cards, sorted: "1".."10", a Skip "7S", a Bonus "7B", a Flush "F", the Gold Flush
    # "G" (null: a spectator)
    hand_counts: list[int]  # each seat's number of cards in hand
    tops: list[list[str | None]]  # for each seat, for each of its three Bases: the face-up top card (null: played)
    blinds: list[list[bool]]  # for each seat, for each Base: whether its face-down Blind card is still there (nobody
    # sees it)
    pile: list[Play]  # the playing pile, oldest play first
    top_value: str | None  # the declared value of the pile's top play: the most the next play may declare without
    # picking the pile up (null: empty pile)
    run: int  # cards of the top value at the top of the pile
    flushed: int  # cards flushed out of this round so far
    unused: int  # cards left in the unused deck (a Gold Flush draws from it)
    mimic_card: str | None  # the Mimic card set aside face up this round
    mimic: str | None  # the value the Mimic card gives (null: a Flush card is the Mimic, nothing mimics)
    turn: int | None  # the seat whose turn it is (null outside play)
    flipped: bool  # a Blind card was flipped this turn: add to it (`release`) or `stop`
    pickup: bool  # this turn's play is higher than the pile: the pile goes to the hand
    passing: bool  # after a Super Flush: the seat to act chooses the Base to pass (`pass_base`)
    previous: int  # the seat that played the previous turn (-1: none yet this round)
    turns: int  # turns played this round
    turn_limit: int  # a round ends with nobody out after this many turns (everyone scores)
    active: list[int]  # the seats still in the game (elimination)
    round_scores: list[list[int]]  # for each round played, each seat's score (lower is better)
    totals: list[int]  # each seat's total score so far (lower is better)
    winners: list[int]  # the winners, once the game is over (empty before)


def run_length(pile: list[Play]) -> int:
    """How many cards of the top play's value lie at the top of the pile, across consecutive plays."""
    if not pile:
        return 0
    value = pile[-1].value
    count = 0
    for play in reversed(pile):
        if play.value != value:
            break
        count += len(play.cards)
    return count


def view(state: State, seat: int | None) -> View:
    own = seat is not None and state.hands
    return View(
        seat=seat,
        phase=state.phase,
        format=state.options["format"],
        round=state.round,
        rounds=state.options["rounds"],
        hand=sorted(state.hands[seat], key=sort_key) if own else None,
        hand_counts=[len(h) for h in state.hands],
        tops=[list(t) for t in state.tops],
        blinds=[[b is not None for b in bl] for bl in state.blinds],
        pile=list(state.pile),
        top_value=top_value(state),
        run=run_length(state.pile),
        flushed=len(state.flushed),
        unused=len(state.unused),
        mimic_card=state.mimic_card,
        mimic=mimic_value(state),
        turn=state.turn if state.phase == "play" else None,
        flipped=state.flipped,
        pickup=state.pickup,
        passing=state.passing,
        previous=state.previous,
        turns=state.turns,
        turn_limit=state.options["turn_limit"],
        active=list(state.active),
        round_scores=[list(s) for s in state.round_scores],
        totals=list(state.totals),
        winners=list(state.winners),
    )


def redact(event: Event, seat: int | None) -> Event:
    kind = type(event)
    if kind is RoundDealt:
        return msgspec.structs.replace(event, hands=[h if i == seat else None for i, h in enumerate(event.hands)])
    if kind is GoldDrawn and event.seat != seat and event.card is not None:
        return GoldDrawn(seat=event.seat, card=None)
    return event


# ---------------------------------------------------------------- set-up and to-act


def new_state(setup: Setup) -> State:
    n = setup.seats
    return State(seats=n, options=dict(setup.options), unused=list(DECK), active=list(range(n)), totals=[0] * n,
                 hands=[[] for _ in range(n)], tops=[[] for _ in range(n)], blinds=[[] for _ in range(n)])


def to_act(state: State) -> ToAct:
    if state.phase == "deal":
        return ToAct(chance=True)
    if state.phase == "over":
        return ToAct(over=True)
    return ToAct(seats=(state.turn,))


def sample_chance(state: State, rng: Rng) -> Deal:
    order = list(DECK)
    rng.shuffle(order)
    return Deal(order=order, first=rng.choice(state.active))


def _deal(state: State, actor: int, action: Deal) -> list[Event]:
    if actor != CHANCE:
        raise RulesError("chance_only", "only chance deals the cards")
    if state.phase != "deal":
        raise RulesError("not_dealing", "the cards are dealt only before a round")
    if Counter(action.order) != DECK_COUNT:
        raise RulesError("bad_deal", "a deal is an order of the whole 90-card deck")
    if action.first not in state.active:
        raise RulesError("bad_deal", f"seat {action.first} is not in the game")
    deck = list(action.order)
    n = state.seats
    state.hands = [[] for _ in range(n)]
    state.tops = [[] for _ in range(n)]
    state.blinds = [[] for _ in range(n)]
    for seat in state.active:
        state.blinds[seat] = [deck.pop() for _ in range(BASES)]
        state.tops[seat] = [deck.pop() for _ in range(BASES)]
        state.hands[seat] = [deck.pop() for _ in range(HAND_SIZE)]
    state.mimic_card = deck.pop()
    state.unused = deck
    state.pile = []
    state.flushed = []
    state.round += 1
    state.phase = "play"
    state.turns = 0
    state.previous = -1
    leader = state.leader if state.leader in state.active else action.first
    events: list[Event] = [RoundDealt(round=state.round, hands=[list(h) for h in state.hands],
                                      tops=[list(t) for t in state.tops], mimic_card=state.mimic_card,
                                      mimic=mimic_value(state), leader=leader, unused=len(state.unused))]
    events.append(_start_turn(state, leader))
    return events


def _start_turn(state: State, seat: int) -> TurnStarted:
    state.turn = seat
    state.turn_from = len(state.pile)
    state.flipped = False
    state.pickup = False
    state.passing = False
    return TurnStarted(seat=seat)


# ---------------------------------------------------------------- legal actions


def legal_actions(state: State, actor: int) -> list[Action]:
    if actor == SYSTEM or state.phase != "play" or actor != state.turn:
        return []
    if state.passing:
        return [PassBase(base=i) for i in _bases_present(state, actor)]
    if state.flipped:
        value = state.pile[-1].value
        return [Stop(), *_releases(state, actor, value)]
    actions: list[Action] = [Blind(base=i) for i, (top, blind) in enumerate(zip(state.tops[actor], state.blinds[actor]))
                             if top is None and blind is not None]
    for value in (*VALUES, FLUSH_VALUE):
        actions.extend(_releases(state, actor, value))
    return actions


def _releases(state: State, seat: int, value: str) -> list[Release]:
    """Every declaration of ``value`` the seat can make now, each multiset of cards once."""
    mimic = mimic_value(state)
    hand = Counter(state.hands[seat])
    real = sorted(card for card in hand if VALUE[card] == value)
    wild = sorted(card for card in hand if mimic and VALUE[card] == mimic and value != mimic)
    tops = [i for i, card in enumerate(state.tops[seat]) if card is not None
            and (VALUE[card] == value or (mimic and value != mimic and VALUE[card] == mimic))]
    kinds = real + wild
    if not kinds and not tops:
        return []
    out: list[Release] = []
    for counts in itertools.product(*(range(hand[card] + 1) for card in kinds)):
        chosen = [card for card, count in zip(kinds, counts) for _ in range(count)]
        for size in range(len(tops) + 1):
            for bases in itertools.combinations(tops, size):
                action = Release(value=value, hand=chosen, bases=list(bases))
                if (chosen or bases) and _check_release(state, seat, action, quiet=True) is None:
                    out.append(action)
    return out


# ---------------------------------------------------------------- apply


def apply(state: State, actor: int, action: Action) -> list[Event]:
    kind = type(action)
    if kind is Deal:
        return _deal(state, actor, action)
    if state.phase == "over":
        raise RulesError("game_over", "the game is over")
    if state.phase == "deal":
        raise RulesError("not_dealt", "the round has not been dealt yet")
    if kind is Timeout:
        if actor != SYSTEM:
            raise RulesError("system_only", "only the arbiter times a seat out")
        if action.seat != state.turn:
            raise RulesError("not_to_act", f"seat {action.seat} is not the one to act")
        return [TimedOut(seat=action.seat), *apply(state, action.seat, least_harmful(state))]
    if actor == SYSTEM or actor == CHANCE or not 0 <= actor < state.seats:
        raise RulesError("not_a_seat", "only a seat plays cards")
    if actor != state.turn:
        raise RulesError("not_your_turn", f"it is seat {state.turn}'s turn")
    if kind is PassBase:
        return _pass_base(state, actor, action.base)
    if state.passing:
        raise RulesError("must_pass_base", "you made a Super Flush: choose the Base to pass first")
    if kind is Release:
        problem = _check_release(state, actor, action)
        if problem:
            raise RulesError(*problem)
        return _release(state, actor, action)
    if kind is Blind:
        return _flip(state, actor, action.base)
    if kind is Stop:
        if not state.flipped:
            raise RulesError("nothing_to_stop", "stop ends a play only after a Blind card is flipped")
        return _conclude(state, actor)
    raise RulesError("unknown_action", f"Flush has no action {kind.__name__}")


def _check_release(state: State, seat: int, action: Release, quiet: bool = False) -> tuple[str, str] | None:
    """Why the declaration cannot be fulfilled (code, message), or None when it can."""
    value = action.value
    if value not in RANK and value != FLUSH_VALUE:
        return "bad_value", f"{value!r} is not a value (1..10 or F)"
    if not quiet:
        for card in action.hand:
            if card not in CARDS:
                return "bad_card", f"{card!r} is not a Flush card (1..10, 1S..10S, 1B..10B, F, G)"
        missing = Counter(action.hand) - Counter(state.hands[seat])
        if missing:
            return "card_not_in_hand", f"you hold no {', '.join(card_name(c) for c in missing)}"
        if len(set(action.bases)) != len(action.bases):
            return "bad_base", "each Base's top card is released once"
        for base in action.bases:
            if not 0 <= base < len(state.tops[seat]) or state.tops[seat][base] is None:
                return "bad_base", f"your Base {base} has no face-up top card"
    if not action.hand and not action.bases:
        return "no_cards", "a declaration releases at least one card"
    if state.flipped and value != state.pile[-1].value:
        return "wrong_value", f"after a Blind {state.pile[-1].value} you add only more {state.pile[-1].value}s"
    mimic = mimic_value(state)
    cards = list(action.hand) + [state.tops[seat][b] for b in action.bases]
    wild = 0
    for card in cards:
        if VALUE[card] == value:
            continue
        if mimic is not None and VALUE[card] == mimic:
            wild += 1
            continue
        return "wrong_value", f"a {card_name(card)} cannot be declared as {_value_name(value)}" + (
            f" (the Mimic is {mimic})" if mimic else " (there is no Mimic this round)")
    if wild == len(cards) and not state.flipped and value != top_value(state):
        return "mimic_alone", (f"Mimics take the value of a card they are played with or of the pile's top; "
                               f"play a real {_value_name(value)} with them or declare them as {mimic}")
    return None


def _value_name(value: str) -> str:
    return "a Flush" if value == FLUSH_VALUE else value


def _release(state: State, seat: int, action: Release) -> list[Event]:
    if not state.flipped:
        state.pickup = is_pickup(top_value(state), action.value)
    hand = state.hands[seat]
    for card in action.hand:
        hand.remove(card)
    tops = []
    for base in action.bases:
        tops.append(state.tops[seat][base])
        state.tops[seat][base] = None
    cards = list(action.hand) + tops
    state.pile.append(Play(seat=seat, value=action.value, cards=cards))
    events: list[Event] = [Released(seat=seat, value=action.value, cards=cards, bases=list(action.bases),
                                    pickup=state.pickup)]
    return events + _conclude(state, seat)


def _flip(state: State, seat: int, base: int) -> list[Event]:
    if state.flipped or len(state.pile) > state.turn_from:
        raise RulesError("blind_not_first", "a Blind card is played only as the first card of a turn")
    if not 0 <= base < len(state.blinds[seat]) or state.blinds[seat][base] is None:
        raise RulesError("bad_base", f"your Base {base} has no Blind card")
    if state.tops[seat][base] is not None:
        raise RulesError("blind_covered", f"the Blind card of Base {base} is still under its top card")
    card = state.blinds[seat][base]
    state.blinds[seat][base] = None
    value = VALUE[card]
    top = top_value(state)
    state.pickup = is_pickup(top, value)
    state.pile.append(Play(seat=seat, value=value, cards=[card]))
    events: list[Event] = [BlindFlipped(seat=seat, base=base, card=card, pickup=state.pickup)]
    if value == FLUSH_VALUE or not _can_add(state, seat, value):
        return events + _conclude(state, seat)
    state.flipped = True
    return events


def _can_add(state: State, seat: int, value: str) -> bool:
    mimic = mimic_value(state)
    held = state.hands[seat] + [c for c in state.tops[seat] if c is not None]
    return any(VALUE[c] == value or (mimic is not None and VALUE[c] == mimic) for c in held)


def _conclude(state: State, seat: int) -> list[Event]:
    """The declared play stands: pick up, flush, skip, pass a Base, finish the round or pass the turn."""
    state.flipped = False
    events: list[Event] = []
    played = [card for play in state.pile[state.turn_from:] for card in play.cards]
    if state.pickup:
        picked = [card for play in state.pile[:state.turn_from] for card in play.cards]
        state.pile = state.pile[state.turn_from:]
        state.turn_from = 0
        state.hands[seat].extend(picked)
        events.append(PickedUp(seat=seat, cards=picked))
    state.turns += 1
    value = state.pile[-1].value
    run = run_length(state.pile)
    if value == FLUSH_VALUE or run >= FLUSH_RUN:
        gold = GOLD in played
        cards = [card for play in state.pile for card in play.cards]
        state.flushed.extend(cards)
        state.pile = []
        super_flush = run >= SUPER_RUN
        events.append(Flushed(seat=seat, cards=len(cards), super=super_flush, gold=gold))
        if gold:
            events.extend(_gold_draws(state, seat))
        if super_flush and state.previous not in (-1, seat) and _bases_present(state, seat):
            present = _bases_present(state, seat)
            if len(present) > 1:
                state.passing = True
                return events
            events.append(_give_base(state, seat, present[0]))
        return events + _after_flush(state, seat, played)
    if not cards_held(state, seat):
        return events + _end_round(state, seat, played)
    skips = sum(card in SKIPS for card in played)
    return events + _next_turn(state, seat, skips)


def _after_flush(state: State, seat: int, played: list[str]) -> list[Event]:
    if not cards_held(state, seat):
        return _end_round(state, seat, played)
    if state.turns >= state.options["turn_limit"]:
        return _end_round(state, None, [])
    return [_start_turn(state, seat)]


def _gold_draws(state: State, seat: int) -> list[Event]:
    events: list[Event] = []
    for other in _order_after(state, seat):
        card = state.unused.pop() if state.unused else None
        if card is not None:
            state.hands[other].append(card)
        events.append(GoldDrawn(seat=other, card=card))
    return events


def _order_after(state: State, seat: int) -> list[int]:
    """The other seats still in the game, clockwise from ``seat``'s left."""
    active = state.active
    index = active.index(seat)
    return active[index + 1:] + active[:index]


def _next_turn(state: State, seat: int, skips: int) -> list[Event]:
    if state.turns >= state.options["turn_limit"]:
        return _end_round(state, None, [])
    others = _order_after(state, seat)
    skipped = others[:skips]
    following = others[skips] if skips < len(others) else seat
    events: list[Event] = [Skipped(seats=skipped)] if skipped else []
    if following != seat:
        state.previous = seat
    events.append(_start_turn(state, following))
    return events


def _pass_base(state: State, seat: int, base: int) -> list[Event]:
    if not state.passing:
        raise RulesError("no_base_to_pass", "a Base is passed only after your Super Flush")
    if base not in _bases_present(state, seat):
        raise RulesError("bad_base", f"you have no Base {base}")
    state.passing = False
    return [_give_base(state, seat, base), *_after_flush(state, seat, [])]


def _give_base(state: State, seat: int, base: int) -> BasePassed:
    to = state.previous
    top, blind = state.tops[seat][base], state.blinds[seat][base]
    state.tops[seat][base] = None
    state.blinds[seat][base] = None
    state.tops[to].append(top)
    state.blinds[to].append(blind)
    return BasePassed(seat=seat, to=to, base=base, new_base=len(state.tops[to]) - 1, top=top, blind=blind is not None)


# ---------------------------------------------------------------- scoring


def held_points(state: State, seat: int) -> int:
    """Points of every card a seat still holds (hand, tops, Blind cards), held Mimics multiplied."""
    options = state.options
    total = 0
    for card in state.hands[seat] + _base_cards(state, seat):
        points = card_points(card, options)
        total += points * options["mimic_factor"] if is_mimic(state, card) else points
    return total


def round_factor(state: State) -> int:
    """2 in the last round of an Arena game with ``double_last``, else 1."""
    options = state.options
    return 2 if options["format"] == "arena" and options["double_last"] and state.round == options["rounds"] else 1


def eliminated(active: list[int], totals: list[int], limit: int) -> list[int]:
    """Elimination: the active seats whose totals reach the limit, except that the lowest of them stay in
    when they all do."""
    out = [s for s in active if totals[s] >= limit]
    if len(out) == len(active):  # nobody may be left: the lowest stay
        low = min(totals[s] for s in out)
        out = [s for s in out if totals[s] != low]
    return out


def _end_round(state: State, winner: int | None, played: list[str]) -> list[Event]:
    options = state.options
    arena = options["format"] == "arena"
    factor = round_factor(state)
    scores = [0] * state.seats
    bonus = sum(card in BONUSES for card in played) if winner is not None else 0
    for seat in state.active:
        if seat != winner:
            scores[seat] = held_points(state, seat) * factor
            state.totals[seat] += scores[seat]
    if winner is not None:
        deduction = bonus * options["bonus_points"] * factor
        scores[winner] = -min(deduction, state.totals[winner])
        state.totals[winner] += scores[winner]
    state.round_scores.append(scores)
    out: list[int] = []
    if not arena:
        out = eliminated(state.active, state.totals, options["limit"])
        state.active = [s for s in state.active if s not in out]
    events: list[Event] = [RoundEnded(round=state.round, winner=winner, bonus=bonus, scores=scores,
                                      totals=list(state.totals), eliminated=out)]
    if winner is not None and winner in state.active:
        state.leader = winner
    else:
        order = _order_after(state, state.turn) if state.turn in state.active else state.active
        state.leader = order[0] if order else state.active[0]
    state.flipped = state.pickup = state.passing = False
    if arena:
        over = state.round >= options["rounds"]
    else:
        over = len(state.active) <= 1 or state.round >= options["max_rounds"]
    if over:
        low = min(state.totals[s] for s in state.active)
        state.winners = [s for s in state.active if state.totals[s] == low]
        state.phase = "over"
        events.append(MatchEnded(winners=list(state.winners), totals=list(state.totals)))
    else:
        state.phase = "deal"
    return events


def result(state: State) -> Result | None:
    if state.phase != "over":
        return None
    return Result(scores=tuple(state.totals), winners=tuple(state.winners))


def rounds_out(state: State) -> list[int]:
    """Elimination: the round in which each seat went out (0: still in), from the rounds' scores."""
    totals, active, out = [0] * state.seats, list(range(state.seats)), [0] * state.seats
    for number, scores in enumerate(state.round_scores, 1):
        totals = [total + score for total, score in zip(totals, scores)]
        for seat in eliminated(active, totals, state.options["limit"]):
            out[seat] = number
            active.remove(seat)
    return out


def _ranked(state: State, scores: list[int]) -> tuple[int, ...]:
    """Places by ``scores``, lowest first; in Elimination the seats still in come first and the seats out
    after them, a later round out ahead of an earlier one, then by score."""
    if state.options["format"] == "arena":
        return places(scores)
    out = rounds_out(state)
    return places([(0, scores[s]) if not out[s] else (1, -out[s], scores[s]) for s in range(state.seats)])


def placings(state: State) -> tuple[int, ...] | None:
    """Arena: by total, lowest first, equal totals sharing a place. Elimination: the last seats in by total
    (the winners are 1), then the seats out, the last out first."""
    return _ranked(state, state.totals) if state.phase == "over" else None


def standing(state: State) -> tuple[int, ...]:
    """The game as it stands: a round under way ends as at its turn limit (every seat still in scores what it
    holds, doubled in a doubled round) and is added to the totals; then placed as ``placings``."""
    if state.phase != "play":
        return _ranked(state, state.totals)
    factor = round_factor(state)
    return _ranked(state, [total + (held_points(state, s) * factor if s in state.active else 0)
                           for s, total in enumerate(state.totals)])


# ---------------------------------------------------------------- timeouts


def least_harmful(state: State) -> Action:
    """The play a timed-out seat makes: stop after a Blind; pass its first Base; else release the fewest,
    lowest plain cards it can without picking up, keeping Mimics and Flush cards; else a Blind card; else the
    cheapest pick-up."""
    legal = legal_actions(state, state.turn)
    if state.passing or state.flipped:
        return legal[0]
    mimic = mimic_value(state)

    def cost(action: Action) -> tuple:
        if type(action) is Blind:
            return (1, 0, 0, 0)
        cards = list(action.hand) + [state.tops[state.turn][b] for b in action.bases]
        special = sum(VALUE[c] in (FLUSH_VALUE, mimic) for c in cards)
        return (2 if is_pickup(top_value(state), action.value) else 0, special, len(cards), RANK.get(action.value, 11))

    return min(legal, key=cost)


def timeout_action(state: State, seat: int) -> Action:
    return Timeout(seat=seat)


# ---------------------------------------------------------------- test support and text


def scramble(state: State, seat: int | None, rng: Rng) -> State:
    """A copy in which everything ``seat`` cannot see is dealt anew: other hands, every Blind card (its
    owner's too) and the unused deck."""
    copy = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=State)
    others = [s for s in range(copy.seats) if s != seat]
    pool = [c for s in others for c in copy.hands[s]] + [c for bl in copy.blinds for c in bl if c is not None]
    pool += copy.unused
    rng.shuffle(pool)
    for s in others:
        size = len(copy.hands[s])
        copy.hands[s], pool = pool[:size], pool[size:]
    for s in range(copy.seats):
        copy.blinds[s] = [None if c is None else pool.pop() for c in copy.blinds[s]]
    copy.unused = pool
    return copy


def invariant(state: State) -> list[str]:
    problems = []
    cards = Counter(state.flushed) + Counter(state.unused)
    for hand in state.hands:
        cards.update(hand)
    for s in range(state.seats):
        cards.update(_base_cards(state, s))
    for play in state.pile:
        cards.update(play.cards)
    if state.mimic_card is not None:
        cards[state.mimic_card] += 1
    if cards != DECK_COUNT:
        problems.append(f"cards not conserved: {sorted((cards - DECK_COUNT).elements())} extra, "
                        f"{sorted((DECK_COUNT - cards).elements())} missing")
    if any(t < 0 for t in state.totals):
        problems.append(f"a negative total: {state.totals}")
    still_in = [s for s, out in enumerate(rounds_out(state)) if not out]
    if state.options["format"] == "elimination" and still_in != state.active:
        problems.append(f"the rounds' scores put other seats out than {state.active} are in")
    if state.phase == "play":
        if state.turn not in state.active:
            problems.append(f"seat {state.turn} is to act but out of the game")
        for s in range(state.seats):
            if len(state.tops[s]) != len(state.blinds[s]):
                problems.append(f"seat {s}'s Bases are out of step")
        if not all(p.cards for p in state.pile):
            problems.append("an empty play on the pile")
        if run_length(state.pile) >= FLUSH_RUN and not state.flipped:
            problems.append("a run of four or more was left on the pile")
    return problems


def describe(state: State) -> str:
    mimic = mimic_value(state)
    lines = [f"Flush, {state.options['format']}, round {state.round}, {state.phase}, "
             f"Mimic {mimic or 'none'}, turn {state.turn}"]
    for seat in range(state.seats):
        tops = " ".join(c or "-" for c in state.tops[seat]) or "-"
        blind = sum(c is not None for c in state.blinds[seat])
        out = "" if seat in state.active else " (out)"
        lines.append(f"  seat {seat}{out}: {len(state.hands[seat])} in hand | tops {tops} | {blind} blind | "
                     f"total {state.totals[seat]}")
    pile = " / ".join(f"{len(p.cards)}x{p.value}" for p in state.pile) or "-"
    lines.append(f"  pile: {pile} | flushed {len(state.flushed)} | unused {len(state.unused)}")
    return "\n".join(lines)


GAME = game_from(globals())
