"""What happened, in words: one sentence for every event of every game, and the result of a game.

``describe_event(game, event, me)`` is what the terminal's event feed shows ("seat 1 took G5", "you
flushed 12 cards", "race 2: seat 1 finished, scores 0/12/11"); ``me`` is the reader's seat (None for a
spectator), said as "you". An event this module does not know (a new game, a new event) still gets a
sentence from its fields. Pure: events in, text out.
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from .words import a_or_an, and_list, ordinal, plural, seat_no

QUIET = frozenset({"turn"})  # events the feed leaves out: the table already marks whose turn it is
GEARS = ("neutral", "1st", "2nd", "3rd")


def who(seat: int | None, me: int | None) -> str:
    """``you`` for the reader's own seat, else ``seat N`` numbered from 1 (the wire's seats are 0-based)."""
    if seat is None:
        return "nobody"
    return "you" if seat == me else f"seat {seat_no(seat)}"


def whose(seat: int | None, me: int | None) -> str:
    return "your" if seat is not None and seat == me else f"{who(seat, me)}'s"


def seats_text(seats, me: int | None) -> str:
    seats = list(seats)
    if not seats:
        return "nobody"
    return and_list(who(s, me) for s in seats)


def scores_text(scores) -> str:
    return "/".join(str(s) for s in scores)


def _tag(event: Any) -> str:
    if isinstance(event, dict):
        return str(event.get("type", "?"))
    config = getattr(type(event), "__struct_config__", None)
    return str(config.tag) if config is not None and config.tag is not None else type(event).__name__


def _fields(event: Any) -> dict:
    if isinstance(event, dict):
        return {k: v for k, v in event.items() if k != "type"}
    if isinstance(event, msgspec.Struct):
        return msgspec.structs.asdict(event)
    return {}


# ---------------------------------------------------------------- shared by every game


def _timed_out(e, me):
    return f"{who(e.seat, me)} ran out of time: the default move was made"


def _turn(e, me):
    return "your turn" if e.seat == me else f"{whose(e.seat, me)} turn"


# ---------------------------------------------------------------- Flag Finish


def _ff_dealt(e, me):
    flips = " ".join(e.flips) if e.flips else "nothing"
    return f"race {e.race} dealt: flipped {flips} onto the discard pile; go!"


def _ff_drew(e, me):
    return f"you drew {e.card} from the draw pile" if e.seat == me and e.card else \
        f"{who(e.seat, me)} drew from the draw pile"


def _ff_finished(e, me):
    left = f"{plural(e.cards_left, 'card')} left" if e.cards_left else "no cards left"
    return f"{who(e.seat, me)} finished the row with the flag ({left}, {e.greens} green)" + (
        "; the photo-finish window is open" if e.window_open else "")


def _ff_race_ended(e, me):
    if e.finishers:
        how = f"{seats_text(e.winners, me)} finished first" if e.winners else f"{seats_text(e.finishers, me)} finished"
    else:
        how = "nobody finished (action limit)"
    return f"race {e.race}: {how}, scores {scores_text(e.scores)}, totals {scores_text(e.totals)}"


def _match_ended(e, me):
    return f"game over: {_winners(e.winners, me)}, totals {scores_text(e.totals)}"


def _winners(winners, me) -> str:
    winners = list(winners)
    if not winners:
        return "nobody wins"
    if winners == [me]:
        return "you win"
    return f"{seats_text(winners, me)} {'win' if len(winners) > 1 else 'wins'}"


FLAG_FINISH = {
    "race_dealt": _ff_dealt,
    "misdealt": lambda e, me: f"race {e.race}: no green card came up, so it is dealt again",
    "drew": _ff_drew,
    "took": lambda e, me: f"{who(e.seat, me)} took {e.card} from the discard pile",
    "discarded": lambda e, me: f"{who(e.seat, me)} discarded {e.card}",
    "played": lambda e, me: f"{who(e.seat, me)} played {e.card}",
    "finished": _ff_finished,
    "race_ended": _ff_race_ended,
    "match_ended": _match_ended,
}

# ---------------------------------------------------------------- Flush


def _fl_dealt(e, me):
    mimic = f"Mimic {e.mimic}" if e.mimic else "no Mimic (a Flush card was turned)"
    return f"round {e.round} dealt: {mimic}; {who(e.leader, me)} lead{'' if e.leader == me else 's'}"


def _cards(count: int) -> str:
    return plural(count, "card")


def _fl_released(e, me):
    where = f", incl. Base {' and '.join(map(str, e.bases))}" if e.bases else ""
    higher = ", higher than the pile" if e.pickup else ""
    return f"{who(e.seat, me)} released {' '.join(e.cards)} ({len(e.cards)} x {e.value}{where}){higher}"


def _fl_blind(e, me):
    higher = ", higher than the pile" if e.pickup else ""
    return f"{who(e.seat, me)} flipped the Blind card of Base {e.base}: {e.card}{higher}"


def _fl_flushed(e, me):
    kind = "a Gold Flush" if e.gold else "a Super Flush" if e.super else ""
    verb = f"made {kind}" if kind else "flushed"
    return f"{who(e.seat, me)} {verb}: {_cards(e.cards)} {'leaves' if e.cards == 1 else 'leave'} the game"


def _fl_gold(e, me):
    if e.seat == me:
        return f"the Gold Flush makes you draw a card: {e.card}" if e.card else \
            "the Gold Flush finds no card for you to draw"
    return f"the Gold Flush makes {who(e.seat, me)} draw a card"


def _fl_passed(e, me):
    top = e.top or "no top card"
    return f"{who(e.seat, me)} passed Base {e.base} ({top}{', a Blind card' if e.blind else ''}) to {who(e.to, me)}"


def _fl_round_ended(e, me):
    how = f"{who(e.winner, me)} went out first" if e.winner is not None else "nobody went out (turn limit)"
    bonus = f", {plural(e.bonus, 'Bonus card')}" if e.bonus else ""
    out = f"; out of the game: {seats_text(e.eliminated, me)}" if e.eliminated else ""
    return f"round {e.round}: {how}{bonus}, scores {scores_text(e.scores)}, totals {scores_text(e.totals)}{out}"


FLUSH = {
    "round_dealt": _fl_dealt,
    "released": _fl_released,
    "blind_flipped": _fl_blind,
    "picked_up": lambda e, me: f"{who(e.seat, me)} picked up the pile ({_cards(len(e.cards))})",
    "flushed": _fl_flushed,
    "gold_drawn": _fl_gold,
    "base_passed": _fl_passed,
    "skipped": lambda e, me: f"{seats_text(e.seats, me)} {'are' if len(e.seats) > 1 or list(e.seats) == [me] else 'is'} "
                             f"skipped (a Skip card)",
    "round_ended": _fl_round_ended,
    "match_ended": _match_ended,
}

# ---------------------------------------------------------------- The Race to the Finish


def _rf_card(card: str) -> str:
    from rules.race_to_the_finish.game import card_name

    try:
        return card_name(card)
    except (KeyError, IndexError):
        return card


def _rf_cut(e, me):
    cuts = ", ".join(f"{who(s, me)} {_rf_card(c)}" for s, c in zip(e.seats, e.cards))
    if e.outcome == "dealer" and e.dealer is not None:
        from rules.race_to_the_finish.game import SUIT_NAMES

        return f"cut: {cuts}; {who(e.dealer, me)} deal{'' if e.dealer == me else 's'}, trump " \
               f"{SUIT_NAMES.get(e.trump or '', e.trump)}"
    return f"cut: {cuts}; cut again"


def _rf_place(position: int) -> str:
    from rules.race_to_the_finish.game import FINISH

    return "the finish" if position == FINISH else "the start" if position == 0 else f"track card {position}"


def _rf_moved(e, me, pieces: int = 2):
    """``pieces``: how many pieces each seat has (one with three seats or more: it goes unnumbered)."""
    piece = f"{whose(e.seat, me)} piece {e.piece + 1}" if pieces > 1 else f"{whose(e.seat, me)} piece"
    if e.how == "sidetracked":
        return f"{piece} is sidetracked at {_rf_place(e.start)}"
    if e.how == "stays":
        return f"{piece} stays at {_rf_place(e.start)}"
    if e.how == "return":
        return f"{piece} returns to the track at {_rf_place(e.end)}"
    return f"{piece} moved from {_rf_place(e.start)} to {_rf_place(e.end)}"


def _rf_trump(e, me):
    from rules.race_to_the_finish.game import SUIT_NAMES

    return f"trump is now {SUIT_NAMES.get(e.trump, e.trump)}"


RACE_TO_THE_FINISH = {
    "cut": _rf_cut,
    "dealt": lambda e, me: f"deal {e.deal}: {who(e.dealer, me)} dealt, {who(e.leader, me)} lead"
                           f"{'' if e.leader == me else 's'}",
    "played": lambda e, me: f"{who(e.seat, me)} played {_rf_card(e.card)}",
    "trick_won": lambda e, me: f"{who(e.seat, me)} won the trick ({', '.join(_rf_card(c) for c in e.cards)})"
                               + (", with a Sidetracked card in it" if e.sidetracked else ""),
    "piece_moved": _rf_moved,
    "trump": _rf_trump,
    "game_ended": lambda e, me: f"game over: {_winners([e.winner], me)}",
}

# ---------------------------------------------------------------- Checkered Flag


def _cf_start(e, me):
    spins = ", ".join(f"{who(s, me)} {t}" for s, t in zip(e.seats, e.totals))
    if e.order is None:
        return f"start spins: {spins}; a tie, spin again"
    return f"start spins: {spins}; the order is {seats_text(e.order, me)}"


def _cf_braking(e, me):
    how = "had to brake" if e.forced else "braked"
    return f"{who(e.seat, me)} {how} {plural(e.spaces, 'space')}, stopping on space {e.stop}"


def _cf_check(e, me):
    why = "entering a danger zone" if e.reason == "danger" else "braking hard"
    return f"crash check for {who(e.seat, me)} ({why}): spinner B shows {e.b}, " + (
        "CRASH" if e.crashed else "safe")


CHECKERED_FLAG = {
    "start_spun": _cf_start,
    "shifted": lambda e, me: f"{who(e.seat, me)} shifted to {GEARS[e.gear] if 0 <= e.gear < 4 else e.gear}",
    "spun": lambda e, me: f"{who(e.seat, me)} spun {e.a} and {e.b}: move {e.move}",
    "braking": _cf_braking,
    "crash_check": _cf_check,
    "moved": lambda e, me: f"{who(e.seat, me)} moved from space {e.start} to space {e.end}",
    "crashed": lambda e, me: f"{who(e.seat, me)} crashed on space {e.at} and lose{'' if e.seat == me else 's'} "
                             f"{plural(e.turns_lost, 'turn')}",
    "turn_lost": lambda e, me: f"{who(e.seat, me)} sit{'' if e.seat == me else 's'} out a turn after the crash "
                               f"({e.remaining} more)",
    "race_won": lambda e, me: f"game over: {_winners([e.seat], me)}"
                              + (" (turn limit: furthest ahead)" if e.reason == "turn_limit" else ""),
}

# ---------------------------------------------------------------- Finish Line


def _fn_where(position: int) -> str:
    from rules.finish_line.game import FINISH

    return "home" if position == FINISH else "the start" if position == 0 else f"square {position}"


def _fn_rolled(e, me):
    why = {"move": "to move", "activate": "to activate a card", "attack": "to attack"}.get(e.purpose, e.purpose)
    stop = f", stop value {e.stop}" if e.stop is not None else ""
    return f"{who(e.seat, me)} rolled red {e.red}, black {e.black} ({why}){stop}"


def _fn_moved(e, me):
    how = {"red": "by the red die", "black": "by the black die", "attack": "by an attack"}.get(e.how, f"by {a_or_an(e.how)}")
    return f"{whose(e.seat, me)} marker {e.marker + 1} moved from {_fn_where(e.start)} to {_fn_where(e.end)} {how}"


def _fn_activation(e, me):
    from rules.finish_line.game import card_name

    try:
        name = card_name(e.card)
    except (KeyError, IndexError):
        name = e.card
    return f"{whose(e.seat, me)} marker {e.marker + 1} {'activated' if e.activated else 'did not activate'} {name}"


def _fn_attack(e, me):
    if not e.hit:
        return f"{whose(e.seat, me)} marker {e.marker + 1} attacked on square {e.at} and missed"
    return f"{whose(e.seat, me)} marker {e.marker + 1} attacked on square {e.at}: hit, sent back {e.back}"


def _fn_ended(e, me):
    places = and_list(f"{who(s, me)} {ordinal(p)}" for s, p in enumerate(e.places))
    reason = " (turn limit)" if e.reason == "turn_limit" else ""
    winners = [s for s, p in enumerate(e.places) if p == 1]
    return f"game over{reason}: {_winners(winners, me)}; places {places}"


FINISH_LINE = {
    "board_dealt": lambda e, me: "the board is dealt" + (
        f" ({plural(len(e.reinserted), 'card')} went back into the deck)" if e.reinserted else ""),
    "rolled": _fn_rolled,
    "marker_moved": _fn_moved,
    "no_move": lambda e, me: f"{who(e.seat, me)} cannot use the {e.die} {e.value}",
    "activation": _fn_activation,
    "attack": _fn_attack,
    "marker_home": lambda e, me: f"{whose(e.seat, me)} marker {e.marker + 1} is home",
    "seat_finished": lambda e, me: f"{who(e.seat, me)} finished {ordinal(e.place)}",
    "game_ended": _fn_ended,
}

COMMON: dict[str, Callable] = {"timed_out": _timed_out, "turn": _turn}
SENTENCES: dict[str, dict[str, Callable]] = {
    "flag_finish": FLAG_FINISH, "flush": FLUSH, "race_to_the_finish": RACE_TO_THE_FINISH,
    "checkered_flag": CHECKERED_FLAG, "finish_line": FINISH_LINE,
}


def generic(event: Any, me: int | None) -> str:
    """A sentence for an event nobody wrote one for: its name and its fields."""
    fields = _fields(event)
    seat = fields.pop("seat", None)
    words = _tag(event).replace("_", " ")
    detail = ", ".join(f"{k} {v}" for k, v in fields.items() if v is not None)
    return (f"{who(seat, me)}: " if seat is not None else "") + words + (f" ({detail})" if detail else "")


def describe_event(game: str, event: Any, me: int | None = None, view: Any = None) -> str:
    """One sentence for ``event`` of ``game``, as the seat ``me`` (None: a spectator) reads it. An event whose
    fields are not what its sentence expects (a server newer than this client) gets the generic sentence rather
    than ending the player's session; the tests call every sentence directly, so a mistake here still shows."""
    tag = _tag(event)
    sentence = SENTENCES.get(game, {}).get(tag) or COMMON.get(tag)
    if sentence is None or isinstance(event, dict):
        return generic(event, me)
    try:
        if sentence is _rf_moved and view is not None and getattr(view, "pieces", None):
            return _rf_moved(event, me, pieces=len(view.pieces[0]))  # one piece each: it goes unnumbered
        return sentence(event, me)
    except (AttributeError, TypeError, KeyError, IndexError, ValueError):
        return generic(event, me)


def feed_lines(game: str, events, me: int | None = None, view: Any = None) -> list[str]:
    """The sentences the feed shows for some events (whose turn it is is left to the table); ``view``: the
    table as the reader last saw it (how many pieces a seat has)."""
    return [describe_event(game, event, me, view) for event in events if _tag(event) not in QUIET]


def describe_result(result: Any, me: int | None = None, game: str = "") -> str:
    """The end of a game in plain words: who won, the scores, and which way they count (Finish Line, which
    has no score, says each seat's place)."""
    if isinstance(result, dict):
        scores, winners = result.get("scores", []), result.get("winners", [])
        lower = result.get("lower_is_better", True)
    else:
        scores, winners = result.scores, result.winners
        lower = getattr(result, "lower_is_better", True)
    winners = list(winners)
    if me in winners and len(winners) > 1:
        headline = f"You share the win with {seats_text([w for w in winners if w != me], me)}"
    else:
        headline = _winners(winners, me)
        headline = headline[0].upper() + headline[1:]
    if game == "finish_line":  # its result's scores are its places
        places = and_list(f"{who(seat, me)} {ordinal(place)}" for seat, place in enumerate(scores))
        return f"Game over. {headline}! Places: {places}."
    order = "lower is better" if lower else "higher is better"
    return f"Game over. {headline}! Final scores {scores_text(scores)} ({order})."
