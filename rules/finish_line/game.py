"""Finish Line (Pips): a board dealt from a deck, two dice, three markers each, stop values, special cards
and attacks.

Owns the whole game: the deal, the path, actions, events, state, views and rules. Rule text:
``shared/seeds/003_f80921fa16203136.txt``; its lost special-card list and attack result are replaced by the
design in ``shared/RULES-NOTES.md``; every decision is in ``RULES.md`` beside this file. Pure and
deterministic: the shuffle and every roll are chance actions (``Deal``, ``Roll``) in the log.

A turn: chance rolls the dice (stage 1); the seat moves a marker by each die (``MoveMarker``); for each
marker moved, most advanced first, chance rolls to activate the card under it (stage 2), and where the card
gives a choice the seat makes it (``Pick``); then each moved marker sharing a non-safety card with opposing
markers attacks them, a roll each (stage 3). Nothing is hidden.
"""

from __future__ import annotations

from typing import Union

import msgspec

from ..contract import (CHANCE, SYSTEM, Action, Event, GameInfo, OptionSpec, Result, RulesError, Setup, TimedOut,
                        Timeout, ToAct, TurnStarted, copy_unchanged, game_from, places,
                        show_everything)
from ..rng import Rng

SUITS = ("S", "H", "D", "C")
RED_SUITS = ("H", "D")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKERS = ("X1", "X2")
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + JOKERS
RANK_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}
SPECIAL = ("A", "2", "J", "Q", "K")
NOT_ON_WINGS = ("J", "Q", "K", "A", "2")
ROWS, ROW_LENGTH = 6, 8
FINISH = ROWS * (ROW_LENGTH + 1)  # 54: the upper-right wing card, the end of the path
WINGS = tuple((ROW_LENGTH + 1) * k for k in range(1, ROWS + 1))  # path indexes 9, 18, ..., 54
MARKERS = 3
DIE = 6


def rank(card: str | None) -> str | None:
    if card is None or card in JOKERS:
        return None
    return card[:-1]


def value(card: str | None) -> int | None:
    r = rank(card)
    return RANK_VALUE[r] if r else None


def is_red(card: str) -> bool:
    return card[-1] in RED_SUITS


def card_name(card: str | None) -> str:
    if card is None:
        return "the starting square"
    if card in JOKERS:
        return "a joker"
    names = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    return f"the {names.get(card[:-1], card[:-1])} of {suits[card[-1]]}"


INFO = GameInfo(
    name="finish_line",
    title="Finish Line",
    rules_version="1",
    min_seats=2,
    max_seats=6,
    modes=("lockstep",),
    options=(
        OptionSpec("play_on", False, "after the winner, play on to see who comes in second, third, ..."),
        OptionSpec("turn_limit", 2000, "turns after which the most markers home (then the furthest) wins",
                   minimum=10, maximum=100_000),
    ),
    hidden_information=False,
)

# ---------------------------------------------------------------- actions


class MoveMarker(Action, tag="move"):
    """Stage 1: move ``marker`` (0-2) by the ``die`` ("red" or "black") not yet used."""

    marker: int  # which of your markers, 0-2
    die: str  # "red" or "black", a die not yet used


class Pick(Action, tag="pick"):
    """Stage 2: the marker an activated queen brings (one of yours) or jack pulls (an opponent's)."""

    seat: int  # the marker's owner
    marker: int  # the marker, 0-2: one of the view's `choice.candidates`


class Deal(Action, tag="deal"):
    """Chance: the shuffled deck, the top card last."""

    order: list[str]


class Roll(Action, tag="roll"):
    """Chance: the red die and the black die."""

    red: int
    black: int


ActionType = Union[MoveMarker, Pick, Timeout, Deal, Roll]

# ---------------------------------------------------------------- events


class BoardDealt(Event, tag="board_dealt"):
    board: list[str | None]
    reinserted: list[str]  # cards that came up for a wing and went back into the middle of the deck


class Rolled(Event, tag="rolled"):
    seat: int
    red: int
    black: int
    purpose: str  # "move", "activate", "attack"
    stop: int | None


class MarkerMoved(Event, tag="marker_moved"):
    seat: int
    marker: int
    start: int
    end: int
    how: str  # "red", "black", "ace", "two", "king", "queen", "jack", "attack"


class NoMove(Event, tag="no_move"):
    seat: int
    die: str
    value: int


class Activation(Event, tag="activation"):
    seat: int
    marker: int
    card: str
    activated: bool


class Attack(Event, tag="attack"):
    seat: int
    marker: int
    at: int
    hit: bool  # doubles miss
    back: int


class MarkerHome(Event, tag="marker_home"):
    seat: int
    marker: int


class SeatFinished(Event, tag="seat_finished"):
    seat: int
    place: int


class GameEnded(Event, tag="game_ended"):
    places: list[int]
    reason: str  # "finish" or "turn_limit"


EventType = Union[BoardDealt, Rolled, MarkerMoved, NoMove, Activation, Attack, MarkerHome, TurnStarted, TimedOut,
                  SeatFinished, GameEnded]

# ---------------------------------------------------------------- state


class Choice(msgspec.Struct, frozen=True):
    """A pick to make: the marker an activated queen brings (one of yours) or jack pulls (an opponent's)."""

    kind: str  # "queen" or "jack"
    marker: int  # the activating marker
    candidates: list[list[int]]  # the markers that may be picked, each [seat, marker]: send `pick` with one


class Pending(msgspec.Struct, frozen=True):
    """An attack still to roll: the attacking marker, its card, the opposing markers there after stage 2."""

    marker: int
    at: int
    targets: list[list[int]]


class State(msgspec.Struct):
    seats: int
    options: dict[str, int | bool | str]
    phase: str = "deal"  # deal -> roll -> move -> activate [-> choose] -> attack -> roll ... -> over
    board: list[str | None] = msgspec.field(default_factory=list)  # path index 0 (start) .. 54 (finish)
    markers: list[list[int]] = msgspec.field(default_factory=list)
    turn: int = 0
    dice: list[int] = msgspec.field(default_factory=list)  # [red, black] of stage 1
    used: list[bool] = msgspec.field(default_factory=list)
    moved: list[int] = msgspec.field(default_factory=list)  # this seat's markers moved this turn
    activations: list[int] = msgspec.field(default_factory=list)  # markers still to roll for in stage 2
    choice: Choice | None = None
    attacks: list[Pending] = msgspec.field(default_factory=list)
    finished: list[int] = msgspec.field(default_factory=list)  # seats with all markers home, in order
    turns: int = 0
    places: list[int] = msgspec.field(default_factory=list)


def new_state(setup: Setup) -> State:
    n = setup.seats
    return State(seats=n, options=dict(setup.options), markers=[[0] * MARKERS for _ in range(n)])


def is_safety(state: State, index: int) -> bool:
    """The starting square, a wing card (the finish line included) or a joker."""
    return index == 0 or index in WINGS or state.board[index] in JOKERS


def to_act(state: State) -> ToAct:
    if state.phase == "over":
        return ToAct(over=True)
    if state.phase in ("move", "choose"):
        return ToAct(seats=(state.turn,))
    return ToAct(chance=True)


# ---------------------------------------------------------------- the deal


def deal_board(order: list[str]) -> tuple[list[str | None], list[str]]:
    """The board from a shuffled deck (top card last): wings first, each wing card that is a face card, ace,
    two or joker going back into the middle of the deck; then the rest of the path in order."""
    deck = list(order)
    board: list[str | None] = [None] * (FINISH + 1)
    reinserted: list[str] = []
    for wing in WINGS:
        for _ in range(len(deck)):
            card = deck.pop()
            if card not in JOKERS and rank(card) not in NOT_ON_WINGS:
                break
            reinserted.append(card)
            deck.insert(len(deck) // 2, card)
        else:  # only wing-barred cards cycle through the top half: the first allowed card from the top
            index = max(i for i, c in enumerate(deck) if c not in JOKERS and rank(c) not in NOT_ON_WINGS)
            card = deck.pop(index)
        board[wing] = card
    for index in range(1, FINISH + 1):
        if board[index] is None:
            board[index] = deck.pop()
    return board, reinserted


# ---------------------------------------------------------------- stage 1: moving


def stop_value(state: State) -> int:
    """The total of this turn's dice: no marker moving by a die may pass a card of this rank."""
    return sum(state.dice)


def walk(board: list[str | None], start: int, steps: int, stop: int) -> int | None:
    """Where a marker on ``start`` ends moving ``steps`` cards: on the first card of rank ``stop`` it
    reaches, else ``steps`` on; None if it would pass the finish line (its own card is not counted)."""
    for index in range(start + 1, start + steps + 1):
        if index > FINISH:
            return None
        if value(board[index]) == stop:
            return index
    return start + steps


def dice_move(state: State, seat: int, marker: int, steps: int) -> int | None:
    """Where ``marker`` ends moving ``steps`` cards this turn, or None when it cannot move: finished, halted
    on a stop card it moved onto this turn, or overshooting the finish line."""
    start = state.markers[seat][marker]
    stop = stop_value(state)
    if start >= FINISH:
        return None
    if marker in state.moved and value(state.board[start]) == stop:
        return None  # stop cards inhibit movement even with both dice on one marker
    return walk(state.board, start, steps, stop)


def _die_value(state: State, die: str) -> int:
    return state.dice[0] if die == "red" else state.dice[1]


def legal_actions(state: State, actor: int) -> list[Action]:
    if actor < 0 or actor != state.turn:
        return []
    if state.phase == "choose":
        return [Pick(seat=s, marker=m) for s, m in state.choice.candidates]
    if state.phase != "move":
        return []
    actions: list[Action] = []
    for die, used in zip(("red", "black"), state.used):
        if used:
            continue
        for marker in range(MARKERS):
            if dice_move(state, actor, marker, _die_value(state, die)) is not None:
                actions.append(MoveMarker(marker=marker, die=die))
    return actions


# ---------------------------------------------------------------- apply


def apply(state: State, actor: int, action: Action) -> list[Event]:
    kind = type(action)
    if kind in (Deal, Roll):
        if actor != CHANCE:
            raise RulesError("chance_only", "only chance deals and rolls")
        if kind is Deal:
            return _deal(state, action)
        if not (1 <= action.red <= DIE and 1 <= action.black <= DIE):
            raise RulesError("bad_roll", f"a die shows 1..{DIE}")
        if state.phase == "roll":
            return _movement_roll(state, action)
        if state.phase == "activate":
            return _activation_roll(state, action)
        if state.phase == "attack":
            return _attack_roll(state, action)
        raise RulesError("no_roll_due", "no roll is due now")
    if state.phase == "over":
        raise RulesError("game_over", "the game is over")
    if kind is Timeout:
        if actor != SYSTEM:
            raise RulesError("system_only", "only the arbiter times a seat out")
        if action.seat not in to_act(state).seats:
            raise RulesError("not_to_act", f"seat {action.seat} is not the one to act")
        return [TimedOut(seat=action.seat), *apply(state, action.seat, legal_actions(state, action.seat)[0])]
    if actor < 0 or actor >= state.seats:
        raise RulesError("not_a_seat", "only a seat moves markers")
    if actor != state.turn or state.phase not in ("move", "choose"):
        raise RulesError("not_your_turn", "it is not your move" if actor != state.turn else "the dice decide now")
    if kind is MoveMarker:
        if state.phase != "move":
            raise RulesError("choose_first", "choose the marker for the activated card first")
        return _move(state, actor, action)
    if kind is Pick:
        if state.phase != "choose":
            raise RulesError("nothing_to_pick", "no activated card asks for a choice")
        if [action.seat, action.marker] not in state.choice.candidates:
            raise RulesError("bad_pick", f"choose one of {state.choice.candidates} ([seat, marker])")
        return _resolve_choice(state, action.seat, action.marker)
    raise RulesError("unknown_action", f"Finish Line has no action {kind.__name__}")


def _deal(state: State, action: Deal) -> list[Event]:
    if state.phase != "deal":
        raise RulesError("not_dealing", "the board is dealt once, before the game")
    if sorted(action.order) != sorted(DECK):
        raise RulesError("bad_deal", "a deal is an order of the whole 54-card deck")
    state.board, reinserted = deal_board(action.order)
    state.phase, state.turn = "roll", 0
    return [BoardDealt(board=list(state.board), reinserted=reinserted), TurnStarted(seat=0)]


def _movement_roll(state: State, roll: Roll) -> list[Event]:
    state.dice = [roll.red, roll.black]
    state.used = [False, False]
    state.moved = []
    state.phase = "move"
    events: list[Event] = [Rolled(seat=state.turn, red=roll.red, black=roll.black, purpose="move",
                                   stop=stop_value(state))]
    return events + _skip_unusable(state)


def _skip_unusable(state: State) -> list[Event]:
    """Say so for each die no marker can use, and go on to stage 2 when both dice are done."""
    events: list[Event] = []
    for index, die in enumerate(("red", "black")):
        if not state.used[index] and not any(a.die == die for a in legal_actions(state, state.turn)):
            state.used[index] = True
            events.append(NoMove(seat=state.turn, die=die, value=state.dice[index]))
    if all(state.used):
        return events + _begin_stage_two(state)
    return events


def _move(state: State, seat: int, action: MoveMarker) -> list[Event]:
    if action.die not in ("red", "black") or not 0 <= action.marker < MARKERS:
        raise RulesError("bad_move", "move a marker 0-2 by the red or the black die")
    index = 0 if action.die == "red" else 1
    if state.used[index]:
        raise RulesError("die_used", f"the {action.die} die is used")
    end = dice_move(state, seat, action.marker, state.dice[index])
    if end is None:
        raise RulesError("cannot_move", f"marker {action.marker} cannot move {state.dice[index]}: it is home, halted "
                         "on a stop card, or would pass the finish line")
    state.used[index] = True
    events = _relocate(state, seat, action.marker, end, action.die)
    if action.marker not in state.moved:
        state.moved.append(action.marker)
    if state.phase == "over":
        return events
    return events + _skip_unusable(state)


def _relocate(state: State, seat: int, marker: int, end: int, how: str) -> list[Event]:
    start = state.markers[seat][marker]
    state.markers[seat][marker] = end
    events: list[Event] = [MarkerMoved(seat=seat, marker=marker, start=start, end=end, how=how)]
    if end == FINISH:
        events.append(MarkerHome(seat=seat, marker=marker))
        if all(p == FINISH for p in state.markers[seat]) and seat not in state.finished:
            state.finished.append(seat)
            events.append(SeatFinished(seat=seat, place=len(state.finished)))
            events += _maybe_over(state)
    return events


def _maybe_over(state: State) -> list[Event]:
    left = [s for s in range(state.seats) if s not in state.finished]
    if state.options["play_on"] and len(left) > 1:
        return []
    return _end_game(state, "finish")


def _end_game(state: State, reason: str) -> list[Event]:
    ranked = list(state.finished)
    rest = sorted((s for s in range(state.seats) if s not in ranked),
                  key=lambda s: (-sum(p == FINISH for p in state.markers[s]), -sum(state.markers[s]), s))
    places = [0] * state.seats
    if reason == "turn_limit" or state.options["play_on"]:
        for place, seat in enumerate(ranked + rest, 1):
            places[seat] = place
    else:
        for seat in range(state.seats):
            places[seat] = 1 if seat in ranked else 2
    state.places = places
    state.phase = "over"
    return [GameEnded(places=places, reason=reason)]


# ---------------------------------------------------------------- stage 2: special cards


def _begin_stage_two(state: State) -> list[Event]:
    seat = state.turn
    state.activations = sorted(state.moved, key=lambda m: (-state.markers[seat][m], m))
    state.phase = "activate"
    return _next_activation(state)


def _next_activation(state: State) -> list[Event]:
    seat = state.turn
    while state.activations:
        marker = state.activations[0]
        card = state.board[state.markers[seat][marker]]
        if rank(card) in SPECIAL and state.markers[seat][marker] < FINISH:
            return []  # chance rolls for it
        state.activations.pop(0)
    return _begin_stage_three(state)


def _activation_roll(state: State, roll: Roll) -> list[Event]:
    seat = state.turn
    marker = state.activations.pop(0)
    position = state.markers[seat][marker]
    card = state.board[position]
    own, other = (roll.red, roll.black) if is_red(card) else (roll.black, roll.red)
    activated = own > other
    events: list[Event] = [Rolled(seat=seat, red=roll.red, black=roll.black, purpose="activate", stop=None),
                           Activation(seat=seat, marker=marker, card=card, activated=activated)]
    if activated:
        events += _activate(state, seat, marker, position, rank(card))
        if state.phase in ("choose", "over"):
            return events
    return events + _next_activation(state)


def _activate(state: State, seat: int, marker: int, position: int, card_rank: str) -> list[Event]:
    if card_rank == "A":
        wing = next(w for w in WINGS if w > position)
        return _relocate(state, seat, marker, wing, "ace") if wing != FINISH else []
    if card_rank == "2":
        return _relocate(state, seat, marker, position + 2, "two") if position + 2 <= FINISH else []
    if card_rank == "K":
        kings = [i for i in range(position + 1, FINISH) if rank(state.board[i]) == "K"]
        return _relocate(state, seat, marker, kings[0], "king") if kings else []
    if card_rank == "Q":
        candidates = [[seat, m] for m in range(MARKERS) if m != marker and state.markers[seat][m] < position]
    else:  # jack
        ahead = [(p, s, m) for s in range(state.seats) if s != seat for m, p in enumerate(state.markers[s])
                 if position < p < FINISH and not is_safety(state, p)]
        nearest = min((p for p, _, _ in ahead), default=None)
        candidates = [[s, m] for p, s, m in sorted(ahead) if p == nearest]
    if not candidates:
        return []
    state.choice = Choice(kind="queen" if card_rank == "Q" else "jack", marker=marker, candidates=candidates)
    if len(candidates) == 1:
        return _resolve_choice(state, *candidates[0], chained=True)
    state.phase = "choose"
    return []


def _resolve_choice(state: State, seat: int, marker: int, chained: bool = False) -> list[Event]:
    choice = state.choice
    state.choice = None
    target = state.markers[state.turn][choice.marker]
    events = _relocate(state, seat, marker, target, choice.kind)
    if choice.kind == "queen":
        if marker not in state.moved:
            state.moved.append(marker)  # it moved this turn, so it may attack
        if marker in state.activations:
            state.activations.remove(marker)  # a card it reached by an activation is never activated
    if chained or state.phase == "over":
        return events
    state.phase = "activate"
    return events + _next_activation(state)


# ---------------------------------------------------------------- stage 3: attacks


def _begin_stage_three(state: State) -> list[Event]:
    seat = state.turn
    attacks = []
    for marker in sorted(state.moved, key=lambda m: (-state.markers[seat][m], m)):
        position = state.markers[seat][marker]
        if is_safety(state, position) or position >= FINISH:
            continue
        targets = [[s, m] for s in range(state.seats) if s != seat for m, p in enumerate(state.markers[s])
                   if p == position]
        if targets:
            attacks.append(Pending(marker=marker, at=position, targets=targets))
    state.attacks = attacks
    state.phase = "attack"
    return _next_attack(state)


def _live_targets(state: State, pending: Pending) -> list[list[int]]:
    return [[s, m] for s, m in pending.targets if state.markers[s][m] == pending.at]


def _next_attack(state: State) -> list[Event]:
    while state.attacks and not _live_targets(state, state.attacks[0]):
        state.attacks.pop(0)
    if state.attacks:
        return []  # chance rolls for it
    return _end_turn(state)


def _attack_roll(state: State, roll: Roll) -> list[Event]:
    pending = state.attacks.pop(0)
    hit = roll.red != roll.black
    back = max(roll.red, roll.black) if hit else 0
    events: list[Event] = [Rolled(seat=state.turn, red=roll.red, black=roll.black, purpose="attack", stop=None),
                           Attack(seat=state.turn, marker=pending.marker, at=pending.at, hit=hit, back=back)]
    if hit:
        for s, m in _live_targets(state, pending):
            events += _relocate(state, s, m, max(0, pending.at - back), "attack")
    return events + _next_attack(state)


def _end_turn(state: State) -> list[Event]:
    state.moved, state.activations, state.attacks, state.used = [], [], [], []
    state.turns += 1
    if state.turns >= state.options["turn_limit"]:
        return _end_game(state, "turn_limit")
    seat = state.turn
    for _ in range(state.seats):
        seat = (seat + 1) % state.seats
        if seat not in state.finished:
            break
    state.turn = seat
    state.phase = "roll"
    return [TurnStarted(seat=seat)]


# ---------------------------------------------------------------- chance, result, time


def sample_chance(state: State, rng: Rng) -> Action:
    if state.phase == "deal":
        order = list(DECK)
        rng.shuffle(order)
        return Deal(order=order)
    return Roll(red=rng.below(DIE) + 1, black=rng.below(DIE) + 1)


def result(state: State) -> Result | None:
    if state.phase != "over":
        return None
    winners = tuple(s for s in range(state.seats) if state.places[s] == 1)
    return Result(scores=tuple(state.places), winners=winners, lower_is_better=True)


def placings(state: State) -> tuple[int, ...] | None:
    """The places the game ended with (its result's scores are places already)."""
    return tuple(state.places) if state.phase == "over" else None


def standing(state: State) -> tuple[int, ...]:
    """The game as it stands: seats already home in the order they came home, then the rest by markers home,
    then by the sum of their markers' path positions (the turn limit's order), equal seats sharing a place."""
    if state.phase == "over":
        return tuple(state.places)
    return places([(0, state.finished.index(seat)) if seat in state.finished
                   else (1, -sum(p == FINISH for p in markers), -sum(markers))
                   for seat, markers in enumerate(state.markers)])


def timeout_action(state: State, seat: int) -> Action:
    return Timeout(seat=seat)


# ---------------------------------------------------------------- views


class View(msgspec.Struct, frozen=True):
    """Everything: Finish Line hides nothing once the board is dealt."""

    seat: int | None  # your seat (null: a spectator)
    phase: str  # "deal", "roll", "move", "activate", "choose" (pick the marker a queen or jack moves), "attack", or
    # "over"
    board: list[str | None]  # the card on each square of the path, 0 (the start) to 54 (the finish): rank then suit,
    # "7H", "10S", "QD", or a joker "X1"/"X2"; null: no card (the start)
    wings: list[int]  # the path indexes of the wing cards, the ends of the rows (9, 18, ..., 54 the finish): safe
    # squares
    markers: list[list[int]]  # for each seat, the path index of each of its three markers (0: the start, 54: home)
    turn: int | None  # the seat whose turn it is (null while dealing and at the end)
    dice: list[int]  # this turn's dice: [red, black]
    used: list[bool]  # whether each die, [red, black], has been used this turn
    stop: int  # the stop value, the dice's total: a marker moving by a die stops on the first card of this rank it
    # reaches
    moved: list[int]  # your markers moved this turn
    choice: Choice | None  # the choose phase: the pick to make (null otherwise)
    finished: list[int]  # the seats with all three markers home, in order
    turns: int  # turns so far
    turn_limit: int  # after this many turns the most markers home (then the furthest) wins
    places: list[int]  # each seat's place (1 = first), once the game is over (empty before)


def view(state: State, seat: int | None) -> View:
    return View(seat=seat, phase=state.phase, board=list(state.board), wings=list(WINGS),
                markers=[list(m) for m in state.markers],
                turn=state.turn if state.phase not in ("deal", "over") else None, dice=list(state.dice),
                used=list(state.used), stop=stop_value(state), moved=list(state.moved), choice=state.choice,
                finished=list(state.finished), turns=state.turns, turn_limit=state.options["turn_limit"],
                places=list(state.places))


redact = show_everything  # nothing is hidden
scramble = copy_unchanged


def invariant(state: State) -> list[str]:
    problems = []
    if len(state.markers) != state.seats or any(len(m) != MARKERS for m in state.markers):
        problems.append(f"markers not conserved: {state.markers}")
    if any(not 0 <= p <= FINISH for m in state.markers for p in m):
        problems.append(f"a marker off the path: {state.markers}")
    if state.board:
        if sorted(c for c in state.board if c is not None) != sorted(DECK) or state.board[0] is not None:
            problems.append("the board is not the whole deck")
        if any(state.board[w] in JOKERS or rank(state.board[w]) in NOT_ON_WINGS for w in WINGS):
            problems.append("a face card, ace, two or joker on a wing")
    if state.phase == "over" and sum(p == 1 for p in state.places) != 1:
        problems.append(f"not exactly one winner: places {state.places}")
    return problems


def describe(state: State) -> str:
    lines = [f"Finish Line, {state.phase}, turn {state.turns}, seat {state.turn} to play, stop {stop_value(state)}"]
    for seat in range(state.seats):
        where = ", ".join(f"{p} ({card_name(state.board[p]) if state.board else '-'})" for p in state.markers[seat])
        lines.append(f"  seat {seat}: {where}")
    return "\n".join(lines)


GAME = game_from(globals())
