"""The Race to the Finish (Won Over): tricks move pieces along a track of coloured cards that sets trump.

Owns the whole game: cards, track, actions, events, state, views and rules. Rule text:
``shared/seeds/004_bc835ceabe8d8008.txt``; every decision in ``RULES.md`` beside this file. Pure and
deterministic: the cut and each deal are chance actions (``Cut``, ``Deal``); a turn's time limit is a
system action (``Timeout``) that plays the seat's least valuable legal card or makes its choice.

The two-seat game's choices are actions of the seat they belong to: the trick's winner picks the piece
that moves (``MovePiece``), its opponent the piece that is sidetracked (``SidetrackPiece``).
"""

from __future__ import annotations

from collections import Counter
from typing import Union

import msgspec

from ..contract import (CHANCE, SYSTEM, Action, Event, GameInfo, Result, RulesError, Setup, TimedOut, Timeout,
                        ToAct, TurnStarted, game_from, places, result_places)
from ..rng import Rng

SUITS = ("R", "B", "O", "G")  # red, blue, orange, green
SUIT_NAMES = {"R": "red", "B": "blue", "O": "orange", "G": "green"}
SUIT_YOURSELF = "SY"
SIDETRACKED = "ST"
FULL_DECK: tuple[str, ...] = tuple(f"{s}{n}" for s in SUITS for n in range(1, 15)) + (SUIT_YOURSELF,) * 2 \
    + (SIDETRACKED,) * 4
SHORT_DECK: tuple[str, ...] = tuple(c for c in FULL_DECK if c in (SUIT_YOURSELF, SIDETRACKED) or int(c[1:]) <= 10)
TRACK: tuple[str, ...] = tuple(SUITS[i % 4] for i in range(12))  # track cards 1..12; 0 = start, 13 = Finish
FINISH = len(TRACK) + 1
TWO_SEAT_HAND = 16


def deck_for(seats: int) -> tuple[str, ...]:
    """Cards 11-14 come out for two and three seats."""
    return FULL_DECK if seats >= 4 else SHORT_DECK


def hand_size(seats: int) -> int:
    return TWO_SEAT_HAND if seats == 2 else len(deck_for(seats)) // seats


def suit(card: str) -> str | None:
    return None if card in (SUIT_YOURSELF, SIDETRACKED) else card[0]


def number(card: str) -> int:
    return int(card[1:]) if suit(card) else 0


def card_name(card: str) -> str:
    if card == SUIT_YOURSELF:
        return "Suit Yourself"
    if card == SIDETRACKED:
        return "Sidetracked"
    return f"{SUIT_NAMES[card[0]]} {card[1:]}"


INFO = GameInfo(
    name="race_to_the_finish",
    title="The Race to the Finish",
    rules_version="2",
    min_seats=2,
    max_seats=4,
    modes=("lockstep",),
    options=(),
)

# ---------------------------------------------------------------- actions


class PlayCard(Action, tag="play"):
    """Play a card to the trick (following the led suit if the hand can)."""

    card: str  # a card of your hand


class MovePiece(Action, tag="move"):
    """Two seats: the trick's winner picks which of its pieces moves (0 or 1)."""

    piece: int  # which of your pieces moves, 0 or 1


class SidetrackPiece(Action, tag="sidetrack"):
    """Two seats: the opponent of a trick's winner picks which of the winner's pieces is sidetracked."""

    piece: int  # which of the winner's pieces is sidetracked, 0 or 1


class Cut(Action, tag="cut"):
    """Chance: one card for each seat still cutting, in seat order."""

    cards: list[str]


class Deal(Action, tag="deal"):
    """Chance: the shuffled deck; seat k takes every n-th card from the dealer's left."""

    order: list[str]


ActionType = Union[PlayCard, MovePiece, SidetrackPiece, Timeout, Cut, Deal]

# ---------------------------------------------------------------- events


class CutMade(Event, tag="cut"):
    seats: list[int]
    cards: list[str]
    outcome: str  # "again" (a special card or a tie: those seats cut again) or "dealer"
    dealer: int | None
    trump: str | None


class Dealt(Event, tag="dealt"):
    deal: int
    dealer: int
    leader: int
    hands: list[list[str] | None]  # only the receiver's own hand survives redaction
    out_of_play: int


class CardPlayed(Event, tag="played"):
    seat: int
    card: str


class TrickWon(Event, tag="trick_won"):
    seat: int
    cards: list[str]
    sidetracked: bool  # the trick holds a Sidetracked card


class PieceMoved(Event, tag="piece_moved"):
    seat: int
    piece: int
    start: int
    end: int
    how: str  # "advance", "return", "sidetracked", "stays"


class TrumpChanged(Event, tag="trump"):
    trump: str


class GameEnded(Event, tag="game_ended"):
    winner: int


EventType = Union[CutMade, Dealt, CardPlayed, TrickWon, PieceMoved, TrumpChanged, TimedOut, TurnStarted, GameEnded]

# ---------------------------------------------------------------- state


class State(msgspec.Struct):
    seats: int
    phase: str = "cut"  # cut -> deal -> play [-> move | sidetrack] -> ... -> over
    cuts: list[str | None] = msgspec.field(default_factory=list)
    dealer: int = -1
    deals: int = 0
    trump: str | None = None
    hands: list[list[str]] = msgspec.field(default_factory=list)
    out_of_play: list[str] = msgspec.field(default_factory=list)
    taken: list[str] = msgspec.field(default_factory=list)  # tricks played this deal, face down
    trick: list[str] = msgspec.field(default_factory=list)
    leader: int = 0
    turn: int = 0
    pieces: list[list[int]] = msgspec.field(default_factory=list)  # per seat: 0 start, 1..12 track, 13 Finish
    off: list[list[bool]] = msgspec.field(default_factory=list)  # sidetracked
    chooser: int = -1  # move / sidetrack phases: the seat whose choice it is
    mover: int = -1  # the trick's winner whose piece is to move or be sidetracked
    tricks_won: list[int] = msgspec.field(default_factory=list)
    sidetracked_played: int = 0  # this deal, for everyone to count
    winner: int = -1


def new_state(setup: Setup) -> State:
    n = setup.seats
    per_seat = 2 if n == 2 else 1
    return State(seats=n, cuts=[None] * n, pieces=[[0] * per_seat for _ in range(n)],
                 off=[[False] * per_seat for _ in range(n)], hands=[[] for _ in range(n)], tricks_won=[0] * n)


def trick_seats(state: State) -> list[int]:
    """Who played each card of the trick so far: the leader, then each seat to its left."""
    return [(state.leader + i) % state.seats for i in range(len(state.trick))]


def to_act(state: State) -> ToAct:
    if state.phase in ("cut", "deal"):
        return ToAct(chance=True)
    if state.phase == "over":
        return ToAct(over=True)
    if state.phase in ("move", "sidetrack"):
        return ToAct(seats=(state.chooser,))
    return ToAct(seats=(state.turn,))


# ---------------------------------------------------------------- chance


def sample_chance(state: State, rng: Rng) -> Action:
    """The cut is from the whole deck (the set-up cuts before 11-14 come out); a deal from the table's deck."""
    deck = list(FULL_DECK if state.phase == "cut" else deck_for(state.seats))
    rng.shuffle(deck)
    if state.phase == "cut":
        return Cut(cards=deck[:sum(c is None for c in state.cuts)])
    return Deal(order=deck)


def _cut(state: State, action: Cut) -> list[Event]:
    cutting = [s for s in range(state.seats) if state.cuts[s] is None]
    deck = Counter(FULL_DECK)  # "Each player cuts the cards" (3) before "remove cards 11-14" (4)
    if len(action.cards) != len(cutting) or Counter(action.cards) - deck:
        raise RulesError("bad_cut", f"a cut is {len(cutting)} cards of the deck, one per seat still cutting")
    for seat, card in zip(cutting, action.cards):
        state.cuts[seat] = card
    specials = [s for s in cutting if suit(state.cuts[s]) is None]
    cards = list(action.cards)
    if specials:
        for seat in specials:
            state.cuts[seat] = None
        return [CutMade(seats=cutting, cards=cards, outcome="again", dealer=None, trump=None)]
    high = max(number(c) for c in state.cuts)
    top = [s for s in range(state.seats) if number(state.cuts[s]) == high]
    if len(top) > 1:
        state.cuts = [None] * state.seats
        return [CutMade(seats=cutting, cards=cards, outcome="again", dealer=None, trump=None)]
    state.dealer = top[0]
    state.trump = suit(state.cuts[top[0]])
    state.phase = "deal"
    return [CutMade(seats=cutting, cards=cards, outcome="dealer", dealer=state.dealer, trump=state.trump)]


def _deal(state: State, action: Deal) -> list[Event]:
    deck = deck_for(state.seats)
    if sorted(action.order) != sorted(deck):
        raise RulesError("bad_deal", f"a deal is an order of the whole {len(deck)}-card deck")
    n = state.seats
    size = hand_size(n)
    hands: list[list[str]] = [[] for _ in range(n)]
    for index in range(size * n):
        hands[(state.dealer + 1 + index) % n].append(action.order[index])
    state.hands = hands
    state.out_of_play = list(action.order[size * n:])
    state.taken = []
    state.trick = []
    state.deals += 1
    state.sidetracked_played = 0
    state.leader = state.turn = (state.dealer + 1) % n
    state.phase = "play"
    return [Dealt(deal=state.deals, dealer=state.dealer, leader=state.leader, hands=[list(h) for h in hands],
                  out_of_play=len(state.out_of_play)), TurnStarted(seat=state.turn)]


# ---------------------------------------------------------------- legal actions


def playable(state: State, seat: int) -> list[str]:
    """The cards ``seat`` may play to the trick now (each card once)."""
    hand = list(dict.fromkeys(state.hands[seat]))
    if not state.trick:
        return hand
    lead = state.trick[0]
    wanted = suit(lead) or state.trump  # Suit Yourself or Sidetracked led: trump is asked for
    if wanted is None or not any(suit(c) == wanted for c in hand):
        return hand
    return [c for c in hand if suit(c) == wanted or suit(c) is None]


def _choices(state: State) -> list[int]:
    """The pieces open to the current choice."""
    pieces = state.pieces[state.mover]
    off = state.off[state.mover]
    if state.phase == "move":
        return [p for p in range(len(pieces)) if pieces[p] < FINISH]
    return [p for p in range(len(pieces)) if pieces[p] < FINISH and not off[p]]


def legal_actions(state: State, actor: int) -> list[Action]:
    if actor < 0 or state.phase not in ("play", "move", "sidetrack"):
        return []
    if state.phase == "move":
        return [MovePiece(p) for p in _choices(state)] if actor == state.chooser else []
    if state.phase == "sidetrack":
        return [SidetrackPiece(p) for p in _choices(state)] if actor == state.chooser else []
    if actor != state.turn:
        return []
    return [PlayCard(c) for c in playable(state, actor)]


# ---------------------------------------------------------------- apply


def apply(state: State, actor: int, action: Action) -> list[Event]:
    kind = type(action)
    if kind in (Cut, Deal):
        if actor != CHANCE:
            raise RulesError("chance_only", "only chance cuts and deals")
        if state.phase != ("cut" if kind is Cut else "deal"):
            raise RulesError("not_now", f"no {'cut' if kind is Cut else 'deal'} is due now")
        return _cut(state, action) if kind is Cut else _deal(state, action)
    if state.phase == "over":
        raise RulesError("game_over", "the game is over")
    if state.phase in ("cut", "deal"):
        raise RulesError("not_dealt", "the cards have not been dealt yet")
    if kind is Timeout:
        if actor != SYSTEM:
            raise RulesError("system_only", "only the arbiter times a seat out")
        if action.seat not in to_act(state).seats:
            raise RulesError("not_to_act", f"seat {action.seat} is not the one to act")
        return [TimedOut(seat=action.seat), *apply(state, action.seat, least_valuable(state, action.seat))]
    if actor < 0 or actor >= state.seats:
        raise RulesError("not_a_seat", "only a seat plays cards")
    if kind is PlayCard:
        return _play(state, actor, action.card)
    if kind in (MovePiece, SidetrackPiece):
        phase = "move" if kind is MovePiece else "sidetrack"
        if state.phase != phase:
            raise RulesError("no_choice", f"no piece is waiting to {'move' if phase == 'move' else 'be sidetracked'}")
        if actor != state.chooser:
            raise RulesError("not_your_choice", f"it is seat {state.chooser}'s choice")
        if action.piece not in _choices(state):
            raise RulesError("bad_piece", f"piece {action.piece} cannot be chosen (choices: {_choices(state)})")
        state.phase = "play"
        events = (_advance if kind is MovePiece else _sidetrack)(state, state.mover, action.piece)
        return events + _after_trick(state)
    raise RulesError("unknown_action", f"The Race to the Finish has no action {kind.__name__}")


def _play(state: State, seat: int, card: str) -> list[Event]:
    if state.phase != "play":
        raise RulesError("choice_pending", f"seat {state.chooser} must choose a piece first")
    if seat != state.turn:
        raise RulesError("not_your_turn", f"it is seat {state.turn}'s turn")
    if card not in state.hands[seat]:
        raise RulesError("card_not_in_hand", f"you hold no {card!r}")
    if card not in playable(state, seat):
        lead = state.trick[0]
        wanted = suit(lead) or state.trump
        raise RulesError("must_follow", f"you must play {SUIT_NAMES[wanted]} (or Suit Yourself or Sidetracked)"
                         + ("" if suit(lead) else ": trump is asked for"))
    state.hands[seat].remove(card)
    state.trick.append(card)
    if card == SIDETRACKED:
        state.sidetracked_played += 1
    events: list[Event] = [CardPlayed(seat=seat, card=card)]
    if len(state.trick) < state.seats:
        state.turn = (seat + 1) % state.seats
        return events + [TurnStarted(seat=state.turn)]
    return events + _score_trick(state)


def trick_winner(trick: list[str], seats: list[int], trump: str | None) -> int:
    """Who wins a full trick: the first Suit Yourself; else the highest trump; else the highest card of the
    suit led; a led Sidetracked card that nothing beat wins for its leader."""
    for card, seat in zip(trick, seats):
        if card == SUIT_YOURSELF:
            return seat
    trumps = [(number(c), s) for c, s in zip(trick, seats) if trump is not None and suit(c) == trump]
    if trumps:
        return max(trumps)[1]
    lead = suit(trick[0])
    if lead is None:
        return seats[0]
    return max((number(c), s) for c, s in zip(trick, seats) if suit(c) == lead)[1]


def _score_trick(state: State) -> list[Event]:
    winner = trick_winner(state.trick, trick_seats(state), state.trump)
    dirty = SIDETRACKED in state.trick
    events: list[Event] = [TrickWon(seat=winner, cards=list(state.trick), sidetracked=dirty)]
    state.taken.extend(state.trick)
    state.trick = []
    state.tricks_won[winner] += 1
    state.leader = state.turn = winner
    pieces = len(state.pieces[winner])
    state.mover = winner
    if pieces == 1:
        events += (_sidetrack if dirty else _advance)(state, winner, 0)
        return events + _after_trick(state)
    state.phase = "sidetrack" if dirty else "move"
    state.chooser = 1 - winner if dirty else winner
    options = _choices(state)
    if len(options) > 1:
        return events
    state.phase = "play"
    if options:
        events += (_sidetrack if dirty else _advance)(state, winner, options[0])
    return events + _after_trick(state)


def _occupied(state: State) -> set[int]:
    return {pos for s in range(state.seats) for pos, off in zip(state.pieces[s], state.off[s])
            if not off and 1 <= pos < FINISH}


def _next_empty(state: State, start: int) -> int:
    taken = _occupied(state)
    pos = start
    while pos < FINISH and (pos == 0 or pos in taken):
        pos += 1
    return pos


def _advance(state: State, seat: int, piece: int) -> list[Event]:
    start = state.pieces[seat][piece]
    if state.off[seat][piece]:  # a clean win brings a sidetracked piece back, no further
        end = start if start == 0 or start not in _occupied(state) else _next_empty(state, start)
        state.off[seat][piece] = False
        how = "return"
    else:
        state.pieces[seat][piece] = -1  # lift it while looking for the next unoccupied card
        end = _next_empty(state, start + 1)
        how = "advance"
    state.pieces[seat][piece] = end
    return [PieceMoved(seat=seat, piece=piece, start=start, end=end, how=how), *_trump_after_move(state)]


def _sidetrack(state: State, seat: int, piece: int) -> list[Event]:
    pos = state.pieces[seat][piece]
    if state.off[seat][piece]:
        return [PieceMoved(seat=seat, piece=piece, start=pos, end=pos, how="stays")]
    state.off[seat][piece] = True
    return [PieceMoved(seat=seat, piece=piece, start=pos, end=pos, how="sidetracked"), *_trump_after_move(state)]


def lead_position(state: State) -> int:
    """The track card of the lead piece that is on the track (0 when none stands on a track card)."""
    on = _occupied(state)
    return max(on) if on else 0


def _trump_after_move(state: State) -> list[Event]:
    lead = lead_position(state)
    if lead == 0:
        return []  # nobody on a track card: the last trump stays (the cut's, or everyone sidetracked)
    trump = TRACK[lead - 1]
    if trump == state.trump:
        return []
    state.trump = trump
    return [TrumpChanged(trump=trump)]


def _after_trick(state: State) -> list[Event]:
    for seat in range(state.seats):
        if all(pos == FINISH for pos in state.pieces[seat]):
            state.phase = "over"
            state.winner = seat
            return [GameEnded(winner=seat)]
    if any(state.hands):
        return [TurnStarted(seat=state.turn)]
    state.dealer = (state.dealer + 1) % state.seats
    state.phase = "deal"
    return []


# ---------------------------------------------------------------- result, timeouts


def result(state: State) -> Result | None:
    if state.phase != "over":
        return None
    scores = tuple(sum(pieces) for pieces in state.pieces)
    return Result(scores=scores, winners=(state.winner,), lower_is_better=False)


def placings(state: State) -> tuple[int, ...] | None:
    """The winner first, then the others by how far their pieces have come (the result's scores)."""
    final = result(state)
    return None if final is None else result_places(final)


def standing(state: State) -> tuple[int, ...]:
    """The race as it stands: seats by how far their pieces have come (track cards, both pieces added in the
    two-seat game; a sidetracked piece counts the card it stumbled off), equal distances sharing a place."""
    return placings(state) or places([-sum(pieces) for pieces in state.pieces])


def card_value(state: State, card: str) -> int:
    """How much a card is worth keeping: Suit Yourself most, then trumps, then by number; Sidetracked least."""
    if card == SUIT_YOURSELF:
        return 100
    if card == SIDETRACKED:
        return 0
    return number(card) + (50 if suit(card) == state.trump else 0)


def least_valuable(state: State, seat: int) -> Action:
    legal = legal_actions(state, seat)
    if state.phase != "play":
        return legal[0]
    return min(legal, key=lambda a: (card_value(state, a.card) if a.card != SIDETRACKED else 25, a.card))


def timeout_action(state: State, seat: int) -> Action:
    return Timeout(seat=seat)


# ---------------------------------------------------------------- views


class View(msgspec.Struct, frozen=True):
    """What one seat (or a spectator) may see: its hand, every count, the trick, the track and trump."""

    seat: int | None  # your seat (null: a spectator)
    phase: str  # "cut", "deal", "play", "move" or "sidetrack" (two seats: a piece to choose), "over"
    hand: list[str] | None  # your cards, sorted: a suit letter and a rank, "G5" (R red, B blue, O orange, G green),
    # "SY" Suit Yourself, "ST" Sidetracked (null: a spectator)
    hand_counts: list[int]  # each seat's number of cards in hand
    trick: list[str]  # the cards of the trick so far, in the order played
    trick_seats: list[int]  # who played each card of `trick`
    leader: int  # the seat that leads (led) this trick
    turn: int | None  # the seat to play a card (null outside the play phase)
    chooser: int | None  # move and sidetrack phases: the seat whose choice it is (null otherwise)
    mover: int | None  # move and sidetrack phases: the trick's winner, whose piece moves or is sidetracked (null
    # otherwise)
    dealer: int  # the dealer of this deal
    deals: int  # deals so far
    trump: str | None  # the trump suit's letter (null before it is set)
    cuts: list[str | None]  # each seat's card in the cut for the deal (null: none)
    pieces: list[list[int]]  # for each seat, where each of its pieces stands: 0 the start, 1..12 a track card, 13 the
    # Finish
    sidetracked: list[list[bool]]  # for each seat, for each piece: whether it is sidetracked
    track: list[str]  # the suit of each track card, 1..12 in order (`track[0]` is card 1)
    tricks_won: list[int]  # tricks each seat has won in the game so far
    sidetracked_played: int  # Sidetracked cards played this deal, for everyone to count
    cards_played: int  # cards played in tricks this deal (taken face down)
    out_of_play: int  # cards out of play this deal (not dealt)
    winner: int | None  # the winning seat, once the game is over (null before)


def view(state: State, seat: int | None) -> View:
    choosing = state.phase in ("move", "sidetrack")
    return View(
        seat=seat,
        phase=state.phase,
        hand=sorted(state.hands[seat]) if seat is not None else None,
        hand_counts=[len(h) for h in state.hands],
        trick=list(state.trick),
        trick_seats=trick_seats(state),
        leader=state.leader,
        turn=state.turn if state.phase == "play" else None,
        chooser=state.chooser if choosing else None,
        mover=state.mover if choosing else None,
        dealer=state.dealer,
        deals=state.deals,
        trump=state.trump,
        cuts=list(state.cuts),
        pieces=[list(p) for p in state.pieces],
        sidetracked=[list(o) for o in state.off],
        track=list(TRACK),
        tricks_won=list(state.tricks_won),
        sidetracked_played=state.sidetracked_played,
        cards_played=len(state.taken),
        out_of_play=len(state.out_of_play),
        winner=state.winner if state.phase == "over" else None,
    )


def redact(event: Event, seat: int | None) -> Event:
    if type(event) is Dealt:
        return msgspec.structs.replace(event, hands=[h if i == seat else None for i, h in enumerate(event.hands)])
    return event


# ---------------------------------------------------------------- test support and text


def scramble(state: State, seat: int | None, rng: Rng) -> State:
    """A copy with every card ``seat`` cannot see (other hands, the cards out of play, tricks taken face
    down) dealt anew."""
    copy = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=State)
    others = [s for s in range(copy.seats) if s != seat]
    pool = [c for s in others for c in copy.hands[s]] + copy.out_of_play + copy.taken
    rng.shuffle(pool)
    for s in others:
        size = len(copy.hands[s])
        copy.hands[s], pool = pool[:size], pool[size:]
    size = len(copy.out_of_play)
    copy.out_of_play, copy.taken = pool[:size], pool[size:]
    return copy


def invariant(state: State) -> list[str]:
    problems = []
    if state.phase not in ("cut", "deal") or state.deals:
        cards = Counter(state.out_of_play) + Counter(state.taken) + Counter(state.trick)
        for hand in state.hands:
            cards.update(hand)
        if state.deals and cards != Counter(deck_for(state.seats)):
            problems.append(f"cards not conserved: {sorted((cards - Counter(deck_for(state.seats))).elements())} "
                            f"extra, {sorted((Counter(deck_for(state.seats)) - cards).elements())} missing")
    on = [pos for s in range(state.seats) for pos, off in zip(state.pieces[s], state.off[s])
          if not off and 1 <= pos < FINISH]
    if len(on) != len(set(on)):
        problems.append(f"two pieces on one track card: {state.pieces}")
    if any(not 0 <= pos <= FINISH for pieces in state.pieces for pos in pieces):
        problems.append(f"a piece off the board: {state.pieces}")
    if state.phase == "play" and len({len(h) for h in state.hands}) > 2:
        problems.append(f"hands out of step: {[len(h) for h in state.hands]}")
    return problems


def describe(state: State) -> str:
    lines = [f"The Race to the Finish, deal {state.deals}, {state.phase}, trump "
             f"{SUIT_NAMES.get(state.trump or '', 'none')}, dealer {state.dealer}"]
    for seat in range(state.seats):
        where = ", ".join(f"{'off ' if off else ''}{pos}" for pos, off in zip(state.pieces[seat], state.off[seat]))
        lines.append(f"  seat {seat}: pieces at {where} | {len(state.hands[seat])} in hand | "
                     f"{state.tricks_won[seat]} tricks")
    lines.append(f"  trick: {' '.join(state.trick) or '-'}")
    return "\n".join(lines)


GAME = game_from(globals())
