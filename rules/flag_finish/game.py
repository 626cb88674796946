"""Flag Finish: build 0..10 then a checkered flag; Warm-up (lockstep) and Challenge (everyone at once).

Owns the whole game: its cards, options, actions, events, state, per-seat views and rules. Rule text:
``shared/seeds/000_18d2b0a6effb1f6c.txt``; every decision beyond it is in ``RULES.md`` beside this file.
Pure and deterministic: the shuffle arrives as a chance action (``Deal``), the photo-finish window closes
by a system action (``CloseWindow``), a lockstep time limit by another (``Timeout``).
"""

from __future__ import annotations

from collections import Counter
from typing import Union

import msgspec

from ..contract import (CHANCE, SYSTEM, Action, Event, GameInfo, OptionSpec, Result, RulesError, Setup, TimedOut,
                        Timeout, ToAct, TurnStarted, game_from, places, result_places)
from ..rng import Rng

# ---------------------------------------------------------------- constants

COLOURS = ("G", "R", "B", "Y", "O", "P")  # green, red, blue, yellow, orange, purple
COLOUR_NAMES = dict(zip(COLOURS, ("green", "red", "blue", "yellow", "orange", "purple")))
FLAG = "F"
TOP_NUMBER = 10
SEQUENCE = TOP_NUMBER + 2  # 0..10 and the flag
DECK: tuple[str, ...] = tuple(f"{c}{n}" for c in COLOURS for n in range(TOP_NUMBER + 1)) + (FLAG,) * 6
SORTED_DECK = sorted(DECK)
RANK: dict[str, int] = {card: (SEQUENCE - 1 if card == FLAG else int(card[1:])) for card in DECK}
GREEN = frozenset(card for card in DECK if card[0] == "G")
HAND_ORDER: dict[str, tuple[int, str]] = {card: (RANK[card], card) for card in DECK}  # a view's hand: by rank


def card_name(card: str) -> str:
    """'G7' -> 'green 7'; 'F' -> 'flag'."""
    return "flag" if card == FLAG else f"{COLOUR_NAMES[card[0]]} {card[1:]}"


def needed_rank(row: list[str]) -> int:
    """The rank a row needs next: 0..10 for the numbers, 11 for the flag, 12 when finished."""
    return len(row)


# ---------------------------------------------------------------- metadata

INFO = GameInfo(
    name="flag_finish",
    title="Flag Finish",
    rules_version="1",
    min_seats=2,
    max_seats=3,
    modes=("lockstep", "challenge"),
    options=(
        OptionSpec("hand_size", 12, "cards each seat takes at the set-up", minimum=SEQUENCE, maximum=20),
        OptionSpec("races", 6, "races in a game (more are added on a tie)", minimum=1, maximum=50),
        OptionSpec("extra_races", 10, "at most this many races added to break a tie", minimum=0, maximum=100),
        OptionSpec("window_ms", 50, "Challenge Mode photo-finish window in ms (0: strict log order)",
                   minimum=0, maximum=10_000),
        OptionSpec("action_limit", 2000, "seat actions after which a race ends with no finisher",
                   minimum=10, maximum=1_000_000),
    ),
)

# ---------------------------------------------------------------- actions


class DrawPile(Action, tag="draw"):
    """Draw the unknown top card of the draw pile (then discard)."""


class TakeDiscard(Action, tag="take"):
    """Take a named card from the loose, open discard pile (then discard)."""

    card: str  # a card of the discard pile


class Discard(Action, tag="discard"):
    """Put a card from the hand on the discard pile: the only action after a draw."""

    card: str  # a card of your hand


class Play(Action, tag="play"):
    """Play the next card of the sequence from the hand to the seat's row."""

    card: str  # the card of your hand your row needs next


class CloseWindow(Action, tag="close_window"):
    """System: the photo-finish window is over; score the race."""


class Deal(Action, tag="deal"):
    """Chance: the shuffled deck (the last card is the top of the draw pile) and the seat that flips first."""

    order: list[str]
    first: int


ActionType = Union[DrawPile, TakeDiscard, Discard, Play, CloseWindow, Timeout, Deal]

# The card actions, made once: actions are frozen, and a legal list (built for every seat on every update) is
# mostly these.
TAKE = {card: TakeDiscard(card) for card in DECK}
DISCARD = {card: Discard(card) for card in DECK}
PLAY = {card: Play(card) for card in DECK}
DRAW = DrawPile()

# ---------------------------------------------------------------- events


class RaceDealt(Event, tag="race_dealt"):
    race: int
    hands: list[list[str] | None]  # only the receiver's own hand survives redaction
    flips: list[str]  # flipped onto the discard pile, the last one green
    flippers: list[int]
    starter: int
    draw_count: int


class Misdealt(Event, tag="misdealt"):
    """No green card came up before the draw pile ran out: the race is dealt again."""

    race: int


class Drew(Event, tag="drew"):
    seat: int
    card: str | None  # None for everyone but the drawer


class Took(Event, tag="took"):
    seat: int
    card: str


class Discarded(Event, tag="discarded"):
    seat: int
    card: str


class Played(Event, tag="played"):
    seat: int
    card: str


class Finished(Event, tag="finished"):
    seat: int
    cards_left: int
    greens: int
    window_open: bool  # Challenge Mode: others may still finish at the same time


class RaceEnded(Event, tag="race_ended"):
    race: int
    reason: str  # "finished" or "action_limit"
    finishers: list[int]
    winners: list[int]
    scores: list[int]
    totals: list[int]


class MatchEnded(Event, tag="match_ended"):
    winners: list[int]
    totals: list[int]


EventType = Union[RaceDealt, Misdealt, Drew, Took, Discarded, Played, Finished, TimedOut, TurnStarted,
                  RaceEnded, MatchEnded]

# ---------------------------------------------------------------- state


class State(msgspec.Struct):
    seats: int
    mode: str
    options: dict[str, int]
    phase: str = "deal"  # deal -> play [-> window] -> deal ... -> over
    race: int = 0  # races dealt so far; the current race while playing
    draw: list[str] = msgspec.field(default_factory=list)  # the top card is the last
    discard: list[str] = msgspec.field(default_factory=list)  # in the order cards were placed
    hands: list[list[str]] = msgspec.field(default_factory=list)
    rows: list[list[str]] = msgspec.field(default_factory=list)
    drawn: list[str | None] = msgspec.field(default_factory=list)  # a draw not yet made up for by a discard
    turn: int = 0  # lockstep: the seat to act
    actions: int = 0  # seat actions in this race
    finishers: list[int] = msgspec.field(default_factory=list)
    race_scores: list[list[int]] = msgspec.field(default_factory=list)
    race_winners: list[list[int]] = msgspec.field(default_factory=list)
    totals: list[int] = msgspec.field(default_factory=list)
    winners: list[int] = msgspec.field(default_factory=list)


# ---------------------------------------------------------------- view


class View(msgspec.Struct, frozen=True):
    """What one seat (or a spectator, ``seat`` None) may see: no other hand, no draw pile order."""

    seat: int | None  # your seat (null: a spectator)
    mode: str  # "lockstep" (seats take turns) or "challenge" (every seat acts at once, no turns)
    phase: str  # "deal" (between races), "play", "window" (Challenge Mode: a photo-finish window is open after a
    # finish) or "over"
    race: int  # the race under way (1 = the first); between races, the races dealt so far
    races: int  # races in the match (the table's option)
    hand: list[str] | None  # your cards, sorted: a colour letter and a number, "G5" (G green, R, B, Y, O, P), or "F",
    # a flag (null: a spectator)
    drawn: str | None  # the card you drew or took and must discard now (`must_discard`); null otherwise
    hand_counts: list[int]  # each seat's number of cards in hand
    rows: list[list[str]]  # each seat's row, the cards it played in order: 0 up to 10, then a flag finishes
    discard: list[str]  # the open discard pile, oldest first: any card in it may be taken
    draw_count: int  # cards left in the draw pile (face down, order unknown)
    must_discard: list[bool]  # for each seat: it drew or took a card and must discard before anything else
    turn: int | None  # lockstep: the seat whose turn it is; null in Challenge Mode and between races
    to_act: list[int]  # the seats that may act now
    finishers: list[int]  # the seats that finished this race, in order
    actions: int  # seat actions so far in this race
    action_limit: int  # the race ends with no finisher after this many seat actions
    race_scores: list[list[int]]  # for each race played, each seat's score (lower is better)
    totals: list[int]  # each seat's total score so far (lower is better)
    winners: list[int]  # the match's winners, once it is over (empty before)


def view(state: State, seat: int | None) -> View:
    return _own(_public_view(state), state, seat)


def views(state: State, seats: list[int | None]) -> list[View]:
    """The views of several seats: what they all see is built once."""
    public = _public_view(state)
    return [_own(public, state, seat) for seat in seats]


def _own(public: View, state: State, seat: int | None) -> View:
    if seat is None:
        return public
    return msgspec.structs.replace(
        public, seat=seat,
        hand=sorted(state.hands[seat], key=HAND_ORDER.__getitem__) if state.hands else None,
        drawn=state.drawn[seat] if state.drawn else None)


def _public_view(state: State) -> View:
    """The spectator's view: everything but a hand and a seat's own draw."""
    return View(
        seat=None,
        mode=state.mode,
        phase=state.phase,
        race=state.race,
        races=state.options["races"],
        hand=None,
        drawn=None,
        hand_counts=[len(h) for h in state.hands],
        rows=[list(r) for r in state.rows],
        discard=list(state.discard),
        draw_count=len(state.draw),
        must_discard=[d is not None for d in state.drawn],
        turn=state.turn if state.mode == "lockstep" and state.phase == "play" else None,
        to_act=list(to_act(state).seats),
        finishers=list(state.finishers),
        actions=state.actions,
        action_limit=state.options["action_limit"],
        race_scores=[list(s) for s in state.race_scores],
        totals=list(state.totals),
        winners=list(state.winners),
    )


def redact(event: Event, seat: int | None) -> Event:
    if type(event) is Drew and event.seat != seat and event.card is not None:
        return Drew(seat=event.seat, card=None)
    if type(event) is RaceDealt:
        hands = [hand if i == seat else None for i, hand in enumerate(event.hands)]
        return msgspec.structs.replace(event, hands=hands)
    return event


# ---------------------------------------------------------------- the rules


def new_state(setup: Setup) -> State:
    n = setup.seats
    return State(
        seats=n,
        mode=setup.mode,
        options=dict(setup.options),
        draw=list(DECK),
        hands=[[] for _ in range(n)],
        rows=[[] for _ in range(n)],
        drawn=[None] * n,
        totals=[0] * n,
    )


def to_act(state: State) -> ToAct:
    phase = state.phase
    if phase == "deal":
        return ToAct(chance=True)
    if phase == "over":
        return ToAct(over=True)
    if state.mode == "lockstep":
        return ToAct(seats=(state.turn,))
    finishers = state.finishers
    seats = tuple(s for s in range(state.seats) if s not in finishers) if finishers else tuple(range(state.seats))
    if phase == "window":
        return ToAct(seats=seats, system=("close_window",), system_delay_ms=state.options["window_ms"])
    return ToAct(seats=seats)


def _may_act(state: State, seat: int) -> bool:
    if state.phase not in ("play", "window"):
        return False
    if state.mode == "lockstep":
        return seat == state.turn
    return seat not in state.finishers


def legal_actions(state: State, actor: int) -> list[Action]:
    return legal_for(state, [actor])[0]


def legal_for(state: State, actors: list[int]) -> list[list[Action]]:
    """Several actors' legal actions: the takes from the discard pile, the same for all, are listed once."""
    takes = [TAKE[card] for card in dict.fromkeys(state.discard)]
    return [_legal(state, actor, takes) for actor in actors]


def _legal(state: State, actor: int, takes: list[Action]) -> list[Action]:
    if actor == SYSTEM:
        return [CloseWindow()] if state.phase == "window" else []
    if actor < 0 or actor >= state.seats or not _may_act(state, actor):
        return []
    hand = state.hands[actor]
    if state.drawn[actor] is not None:
        return [DISCARD[card] for card in dict.fromkeys(hand)]
    need = needed_rank(state.rows[actor])
    actions: list[Action] = [PLAY[card] for card in dict.fromkeys(hand) if RANK[card] == need]
    if state.draw:
        actions.append(DRAW)
    actions += takes
    return actions


def apply(state: State, actor: int, action: Action) -> list[Event]:
    kind = type(action)
    if kind is Deal:
        return _deal(state, actor, action)
    if state.phase == "over":
        raise RulesError("game_over", "the game is over")
    if state.phase == "deal":
        raise RulesError("not_dealt", "the race has not been dealt yet")
    if kind is CloseWindow:
        return _close_window(state, actor)
    if kind is Timeout:
        return _timeout(state, actor, action.seat)
    _check_seat(state, actor)
    if kind is DrawPile:
        _check_free_to_draw(state, actor)
        if not state.draw:
            raise RulesError("draw_pile_empty", "the draw pile is empty (it is not refilled); take from the discard pile")
        card = state.draw.pop()
        state.hands[actor].append(card)
        state.drawn[actor] = card
        return _after_action(state, [Drew(seat=actor, card=card)])
    if kind is TakeDiscard:
        _check_card(action.card)
        _check_free_to_draw(state, actor)
        if action.card not in state.discard:
            raise RulesError("card_not_in_discard", f"there is no {card_name(action.card)} in the discard pile")
        state.discard.remove(action.card)
        state.hands[actor].append(action.card)
        state.drawn[actor] = action.card
        return _after_action(state, [Took(seat=actor, card=action.card)])
    if kind is Discard:
        _check_card(action.card)
        if state.drawn[actor] is None:
            raise RulesError("nothing_to_discard", "you discard only after drawing a card")
        if action.card not in state.hands[actor]:
            raise RulesError("card_not_in_hand", f"you hold no {card_name(action.card)}")
        return _after_action(state, _discard(state, actor, action.card))
    if kind is Play:
        _check_card(action.card)
        if state.drawn[actor] is not None:
            raise RulesError("must_discard", "you drew a card: discard one before anything else")
        if action.card not in state.hands[actor]:
            raise RulesError("card_not_in_hand", f"you hold no {card_name(action.card)}")
        row = state.rows[actor]
        need = needed_rank(row)
        if RANK[action.card] != need:
            wanted = "the flag" if need == SEQUENCE - 1 else f"a {need}"
            raise RulesError("out_of_sequence", f"your row needs {wanted}, not the {card_name(action.card)}")
        state.hands[actor].remove(action.card)
        row.append(action.card)
        events: list[Event] = [Played(seat=actor, card=action.card)]
        if len(row) == SEQUENCE:
            return _finish(state, actor, events)
        if state.mode == "lockstep":
            events.append(_next_turn(state))
        return _after_action(state, events)
    raise RulesError("unknown_action", f"Flag Finish has no action {kind.__name__}")


def _check_seat(state: State, actor: int) -> None:
    if actor == SYSTEM or actor == CHANCE:
        raise RulesError("not_a_seat", "only a seat may draw, take, discard or play")
    if not 0 <= actor < state.seats:
        raise RulesError("not_a_seat", f"there is no seat {actor}")
    if state.mode == "lockstep" and actor != state.turn:
        raise RulesError("not_your_turn", f"it is seat {state.turn}'s turn")
    if actor in state.finishers:
        raise RulesError("finished", "you have finished this race")


def _check_free_to_draw(state: State, actor: int) -> None:
    if state.drawn[actor] is not None:
        raise RulesError("must_discard", "you drew a card: discard one before drawing again")


def _check_card(card: str) -> None:
    if card not in RANK:
        raise RulesError("bad_card", f"{card!r} is not a Flag Finish card (G0..P10 or F)")


def _discard(state: State, seat: int, card: str) -> list[Event]:
    state.hands[seat].remove(card)
    state.discard.append(card)
    state.drawn[seat] = None
    events: list[Event] = [Discarded(seat=seat, card=card)]
    if state.mode == "lockstep":
        events.append(_next_turn(state))
    return events


def _next_turn(state: State) -> TurnStarted:
    state.turn = (state.turn + 1) % state.seats
    return TurnStarted(seat=state.turn)


def _after_action(state: State, events: list[Event]) -> list[Event]:
    state.actions += 1
    if state.actions >= state.options["action_limit"]:
        events.extend(_end_race(state))
    return events


def _finish(state: State, seat: int, events: list[Event]) -> list[Event]:
    state.finishers.append(seat)
    window = state.mode == "challenge" and state.options["window_ms"] > 0
    greens = sum(card in GREEN for card in state.rows[seat])
    events.append(Finished(seat=seat, cards_left=len(state.hands[seat]), greens=greens, window_open=window))
    if not window:
        state.actions += 1
        events.extend(_end_race(state))
        return events
    state.phase = "window"
    return _after_action(state, events)


def _close_window(state: State, actor: int) -> list[Event]:
    if actor != SYSTEM:
        raise RulesError("system_only", "only the arbiter closes the photo-finish window")
    if state.phase != "window":
        raise RulesError("no_window", "no photo-finish window is open")
    return _end_race(state)


def _timeout(state: State, actor: int, seat: int) -> list[Event]:
    if actor != SYSTEM:
        raise RulesError("system_only", "only the arbiter times a seat out")
    if not 0 <= seat < state.seats or not _may_act(state, seat):
        raise RulesError("not_to_act", f"seat {seat} is not one to act now")
    drawn = state.drawn[seat]
    if drawn is not None:
        return _after_action(state, [TimedOut(seat=seat), *_discard(state, seat, drawn)])
    if state.mode != "lockstep":
        raise RulesError("nothing_to_time_out", "in Challenge Mode only a pending discard can time out")
    return _after_action(state, [TimedOut(seat=seat), _next_turn(state)])


def _greens(row: list[str]) -> int:
    return sum(card in GREEN for card in row)


def race_scores(state: State) -> tuple[list[int], list[int]]:
    """The race's scores and winners if it ended now: a pending draw goes back first (it is always made up
    for), finishers as the text scores them, everyone else 1 point per card in hand."""
    held = [len(hand) - (drawn is not None) for hand, drawn in zip(state.hands, state.drawn)]
    scores = list(held)
    winners: list[int] = []
    finishers = state.finishers
    if finishers:
        empty = [s for s in finishers if not held[s]]
        if empty:
            most = max(_greens(state.rows[s]) for s in empty)
            winners = [s for s in empty if _greens(state.rows[s]) == most]
            for s in empty:
                scores[s] = 0 if s in winners else 1  # a tiebreak loser scores as if its flag were in hand
        for s in finishers:
            if held[s]:
                scores[s] = 2 * held[s]
        if not empty:
            low = min(scores[s] for s in finishers)
            winners = [s for s in finishers if scores[s] == low]
    return scores, winners


def _end_race(state: State) -> list[Event]:
    """Score the race: stop everyone, settle simultaneous finishes, add up, and start the next or end."""
    events: list[Event] = []
    for seat, card in enumerate(state.drawn):
        if card is not None:  # a draw is always made up for: the drawn card goes back on the discard pile
            state.hands[seat].remove(card)
            state.discard.append(card)
            state.drawn[seat] = None
            events.append(Discarded(seat=seat, card=card))
    n = state.seats
    finishers = list(state.finishers)
    scores, winners = race_scores(state)
    for s in range(n):
        state.totals[s] += scores[s]
    state.race_scores.append(scores)
    state.race_winners.append(winners)
    events.append(RaceEnded(race=state.race, reason="finished" if finishers else "action_limit",
                            finishers=finishers, winners=winners, scores=scores, totals=list(state.totals)))
    races = state.options["races"]
    low = min(state.totals)
    lowest = [s for s in range(n) if state.totals[s] == low]
    if state.race >= races and (len(lowest) == 1 or state.race >= races + state.options["extra_races"]):
        state.phase = "over"
        state.winners = lowest
        events.append(MatchEnded(winners=lowest, totals=list(state.totals)))
    else:
        state.phase = "deal"
    return events


def _deal(state: State, actor: int, action: Deal) -> list[Event]:
    if actor != CHANCE:
        raise RulesError("chance_only", "only chance deals the cards")
    if state.phase != "deal":
        raise RulesError("not_dealing", "the cards are dealt only before a race")
    if sorted(action.order) != SORTED_DECK:
        raise RulesError("bad_deal", "a deal is an order of the whole 72-card deck")
    if not 0 <= action.first < state.seats:
        raise RulesError("bad_deal", f"seat {action.first} cannot flip first: there are {state.seats} seats")
    n = state.seats
    size = state.options["hand_size"]
    draw = list(action.order)
    hands = [[draw.pop() for _ in range(size)] for _ in range(n)]
    discard: list[str] = []
    flippers: list[int] = []
    flipper = action.first
    starter = None
    while draw:
        card = draw.pop()
        discard.append(card)
        flippers.append(flipper)
        if card in GREEN:
            starter = flipper
            break
        flipper = (flipper + 1) % n
    if starter is None:
        return [Misdealt(race=state.race + 1)]  # nothing changes: chance deals again
    state.race += 1
    state.phase = "play"
    state.draw = draw
    state.discard = discard
    state.hands = hands
    state.rows = [[] for _ in range(n)]
    state.drawn = [None] * n
    state.turn = starter
    state.actions = 0
    state.finishers = []
    return [RaceDealt(race=state.race, hands=[list(h) for h in hands], flips=list(discard),
                      flippers=flippers, starter=starter, draw_count=len(draw))]


def sample_chance(state: State, rng: Rng) -> Deal:
    order = list(DECK)
    rng.shuffle(order)
    return Deal(order=order, first=rng.below(state.seats))


def result(state: State) -> Result | None:
    if state.phase != "over":
        return None
    return Result(scores=tuple(state.totals), winners=tuple(state.winners))


def placings(state: State) -> tuple[int, ...] | None:
    """By total, lowest first; equal totals share a place (the winners, after any extra races, are 1)."""
    final = result(state)
    return None if final is None else result_places(final)


def standing(state: State) -> tuple[int, ...]:
    """The game as it stands: the race under way is scored as if it ended now (``race_scores``) and added to
    the totals; lowest first, equal totals sharing a place. Between races, the totals."""
    if state.phase == "over":
        return placings(state)
    current = race_scores(state)[0] if state.phase in ("play", "window") else [0] * state.seats
    return places([total + score for total, score in zip(state.totals, current)])


def contested(state: State, action: Action) -> bool:
    """Challenge Mode: taking a discard card (two seats may ask for the same one) and playing the flag (two
    seats may finish at once) conflict with other seats' actions; nothing else does, and nothing in Warm-up."""
    if state.mode != "challenge":
        return False
    kind = type(action)
    return kind is TakeDiscard or (kind is Play and action.card == FLAG)


def timeout_action(state: State, seat: int) -> Action:
    return Timeout(seat=seat)


# ---------------------------------------------------------------- test support and text


def scramble(state: State, seat: int | None, rng: Rng) -> State:
    """A copy in which every card ``seat`` cannot see (other hands, the draw pile) is dealt anew."""
    copy = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=State)
    others = [s for s in range(copy.seats) if s != seat]
    pool = [card for s in others for card in copy.hands[s]] + copy.draw
    rng.shuffle(pool)
    for s in others:
        size = len(copy.hands[s])
        copy.hands[s], pool = pool[:size], pool[size:]
        if copy.drawn[s] is not None:
            copy.drawn[s] = copy.hands[s][0]
    copy.draw = pool
    return copy


def invariant(state: State) -> list[str]:
    problems = []
    cards = Counter(state.draw) + Counter(state.discard)
    for hand in state.hands:
        cards.update(hand)
    for row in state.rows:
        cards.update(row)
    if cards != Counter(DECK):
        problems.append(f"cards not conserved: {sorted((cards - Counter(DECK)).elements())} extra, "
                        f"{sorted((Counter(DECK) - cards).elements())} missing")
    if state.phase in ("play", "window"):
        for seat, row in enumerate(state.rows):
            if [RANK[c] for c in row] != list(range(len(row))):
                problems.append(f"seat {seat}'s row is not a sequence: {row}")
            extra = 1 if state.drawn[seat] is not None else 0
            if len(state.hands[seat]) != state.options["hand_size"] - len(row) + extra:
                problems.append(f"seat {seat} holds {len(state.hands[seat])} cards")
            if state.drawn[seat] is not None and state.drawn[seat] not in state.hands[seat]:
                problems.append(f"seat {seat}'s drawn card is not in its hand")
    if len(state.totals) != state.seats or any(t < 0 for t in state.totals):
        problems.append(f"bad totals {state.totals}")
    return problems


def describe(state: State) -> str:
    lines = [f"Flag Finish, {state.mode}, race {state.race}/{state.options['races']}, {state.phase}"]
    for seat in range(state.seats):
        row = " ".join(state.rows[seat]) or "-"
        lines.append(f"  seat {seat}: row {row} | {len(state.hands[seat])} in hand | total {state.totals[seat]}")
    lines.append(f"  discard: {' '.join(state.discard) or '-'} | draw pile: {len(state.draw)}")
    return "\n".join(lines)


GAME = game_from(globals())
