"""What a person types in `play`: the moves shown under the table, and the typed line read back as a move.

One job: between the seat's ``legal`` list (from the server) and text. ``menu(game, view, legal)`` gives the
lines that show the moves; ``read_move(game, text, legal, view)`` gives the action, or a ``NotAMove`` that
says in words why the line is not one of the moves and what would be. Per game:

- Flag Finish: moves are typed by card (``G5``; ``take G5``, ``play G5``, ``discard G5``, ``draw``), so
  nothing shifts under the cursor while the others play in Challenge Mode.
- Flush: a declaration is typed as its cards, in any order (``4 4B b1``: hand cards and Base tops, the Bases
  numbered from 1 as everywhere a person reads them; ``as 7`` declares a Mimic as 7), or in the listed words
  (``release 4 hand=4,4B bases=0``: the action's own fields, lists in any order); values that pick the pile
  up are marked.
- The other games: a numbered list, stable during the seat's turn, or the move's words.
Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import msgspec

from rules.flag_finish.game import RANK
from rules.words import game_words

from .sentences import Reader, say

WIDTH = 80


@dataclass(frozen=True)
class NotAMove:
    """A typed line that is not one of the seat's moves, and why (shown until the next line is typed)."""

    reason: str


def describe_action(action: Any) -> str:
    """'play G0', 'draw', 'release 4 hand=4,4B bases=0': a short text for one action, also what `play`
    accepts back. Lists are written name=a,b and left out when empty."""
    words = [type(action).__struct_config__.tag]
    for name, value in msgspec.structs.asdict(action).items():
        if isinstance(value, list):
            if value:
                words.append(f"{name}={','.join(str(v) for v in value)}")
        else:
            words.append(str(value))
    return " ".join(words)


def _tag(action: Any) -> str:
    return type(action).__struct_config__.tag


def _canonical(text: str) -> tuple:
    """Words with every list (``name=a,b``) sorted: two spellings of one declaration compare equal."""
    words = []
    for word in text.lower().replace(", ", ",").split():
        name, sep, values = word.partition("=")
        words.append(f"{name}={','.join(sorted(v for v in values.split(',') if v))}" if sep else word)
    return tuple(words)


def parse_words(text: str, legal: list) -> Any | None:
    """The legal action whose words (``describe_action``) are ``text``, lists in any order; or None."""
    wanted = _canonical(text)
    if not wanted:
        return None
    for action in legal:
        if _canonical(describe_action(action)) == wanted:
            return action
    return None


def _single_value(action: Any) -> str | None:
    """The one field of a one-field action as text (``G5`` of ``play G5``), else None."""
    values = list(msgspec.structs.asdict(action).values())
    return str(values[0]) if len(values) == 1 and not isinstance(values[0], list) else None


# ---------------------------------------------------------------- numbered lists (the lockstep games)


def hand_order(card: str) -> tuple:
    """The Race to the Finish's cards as its hand is shown: by suit, then by number."""
    return (card[0] if card[1:].isdigit() else "~" + card, int(card[1:]) if card[1:].isdigit() else 0)


def ordered(game: str, legal: list) -> list:
    """The moves in the order the menu numbers them: the server's, except The Race to the Finish's cards,
    sorted as the hand is shown."""
    if game == "race_to_the_finish":
        return sorted(legal, key=lambda a: (_tag(a), hand_order(getattr(a, "card", "")) if _tag(a) == "play"
                                            else getattr(a, "piece", 0)))
    return list(legal)


def action_words(game: str, action: Any, view: Any = None) -> str:
    """A move as the menu says it, seats, pieces and markers numbered from 1: 'shift to 3rd', 'stay in 2nd',
    'move piece 2', 'move marker 1 by the red die' (the game's words: ``rules/<game>/words.py``). What `play`
    reads back, as well as ``describe_action``'s."""
    sentence = game_words(game).get("actions", {}).get(_tag(action))
    if sentence is None:
        return describe_action(action)
    seat = getattr(view, "seat", None)
    gears = getattr(view, "gears", None)  # Checkered Flag: a shift to the gear the car is in stays in it
    now = gears[seat] if gears is not None and seat is not None and seat < len(gears) else None
    fields = {"me": seat, **msgspec.structs.asdict(action)}
    return say(sentence, fields, game_words(game), Reader(me=seat, extra={"now": now}))


def numbered(legal: list, game: str = "", view: Any = None) -> list[str]:
    """The moves in columns: ``1 play R5   2 play B7 ...``, numbered in ``ordered``'s order."""
    items = [f"{i + 1:>2} {action_words(game, a, view)}" for i, a in enumerate(ordered(game, legal))]
    if not items:
        return []
    width = max(len(item) for item in items) + 3
    columns = max(1, (WIDTH - 2) // width)
    return ["  " + "".join(item.ljust(width) for item in items[start:start + columns]).rstrip()
            for start in range(0, len(items), columns)]


def read_numbered(text: str, legal: list, game: str = "", view: Any = None) -> Any | NotAMove:
    text = text.strip()
    legal = ordered(game, legal)
    if text.isdigit():
        if 0 < int(text) <= len(legal):
            return legal[int(text) - 1]
        return NotAMove(f"there is no move {text}: the moves are numbered 1 to {len(legal)}")
    said = [a for a in legal if _canonical(action_words(game, a, view)) == _canonical(text)]
    if said:
        return said[0]
    action = parse_words(text, legal)
    if action is not None:
        return action
    matches = [a for a in legal if (_single_value(a) or "").lower() == text.lower()]
    if len(matches) == 1:
        return matches[0]
    example = action_words(game, legal[0], view)
    return NotAMove(f"'{text}' is not one of your moves: type its number (1-{len(legal)}) or its words, "
                    f"e.g. '{example}'")


# ---------------------------------------------------------------- Flag Finish


def flag_finish_menu(view: Any, legal: list) -> list[str]:
    tags = Counter(_tag(a) for a in legal)
    if tags["discard"]:
        new = f"{view.drawn} is new in your hand: now " if view.drawn else ""
        return [f"  {new}discard a card from your hand (type it)"]
    need = _needs(view)
    plays = " ".join(a.card for a in legal if _tag(a) == "play")
    lines = [f"  play: {plays}   (type the card)" if plays else f"  nothing to play: your row needs {need}"]
    takes = [a.card for a in legal if _tag(a) == "take"]
    rank = len(view.rows[view.seat]) if view.seat is not None and view.seat < len(view.rows) else -1
    example = next((card for card in takes if RANK.get(card) == rank), takes[0] if takes else None)
    take = f"type a card of the discard pile to take it (e.g. {example})" if example else "the discard pile is empty"
    draw = f"or 'draw' ({view.draw_count} left)" if tags["draw"] else "(the draw pile is empty)"
    lines.append(f"  {take}, {draw}")
    return lines


def _needs(view: Any) -> str:
    if view.seat is None or view.seat >= len(view.rows):
        return "?"
    rank = len(view.rows[view.seat])
    return "a flag (F)" if rank == 11 else f"a {rank}" if rank <= 10 else "nothing more"


VERBS = {"TAKE": "take", "PLAY": "play", "DISCARD": "discard", "DRAW": "draw", "D": "draw"}


def read_flag_finish(text: str, legal: list, view: Any) -> Any | NotAMove:
    """A card (``G5``), or a verb and a card (``take G5``, ``play G5``, ``discard G5``), or ``draw`` (``d``):
    nothing more. A bare ``play``, ``take`` or ``discard`` is the one such move there is (``play``: a green
    first), else it asks which."""
    typed = text.strip().split()
    words = [word.upper() for word in typed]
    if not words:
        return NotAMove("type a card (e.g. G5) or 'draw'")
    verb = VERBS.get(words[0])
    if verb == "draw" and len(words) > 1:
        return NotAMove(f"'{text.strip()}' is not a move: 'draw' (or 'd') takes nothing after it")
    if len(words) > 2 or (verb is None and len(words) != 1):
        extra = " ".join(typed[2:] if verb is not None else typed[1:])
        return NotAMove(f"'{text.strip()}' is not a move ('{extra}' is more than a move says): type a card "
                        f"(e.g. G5), 'take G5', 'play G5' or 'draw'")
    card = words[1] if verb is not None and len(words) == 2 else words[0] if verb is None else None
    if card is not None and VERBS.get(card):
        return NotAMove(f"'{text.strip()}' is not a move: one verb and then a card, e.g. '{verb or 'take'} G5'")
    matching = [a for a in legal if (verb is None or _tag(a) == verb)
                and (card is None or getattr(a, "card", None) == card)]
    if verb in ("take", "discard") and card is None:
        if len(matching) == 1:
            return matching[0]  # the only card there is to take (or discard)
        if matching:
            cards = " ".join(a.card for a in matching)
            return NotAMove(f"{verb} which card? {cards} (e.g. '{verb} {matching[0].card}')")
    # a bare card: playing it beats taking another flag from the pile; a bare 'play': a green first (tiebreak)
    matching.sort(key=lambda a: (("play", "discard", "take", "draw").index(_tag(a)),
                                 not getattr(a, "card", "").startswith("G")))
    if matching:
        return matching[0]
    shown = typed[-1] if card is not None else None
    return NotAMove(_flag_finish_why(verb, card, legal, view, shown))


def _flag_finish_why(verb: str | None, card: str | None, legal: list, view: Any, shown: str | None = None) -> str:
    """Why the typed card (``shown`` as typed) or verb names none of ``legal``, and what would do."""
    shown = shown or card
    if not legal:
        return "you have no move now" + (": you finished this race" if view is not None and view.seat in
                                         getattr(view, "finishers", []) else "")
    if any(_tag(a) == "discard" for a in legal):
        return "you drew a card: discard one from your hand first (type it)"
    hand = (view.hand or []) if view is not None else []
    discard = view.discard if view is not None else []
    playable = [a.card for a in legal if _tag(a) == "play"]
    if verb == "draw":
        return "the draw pile is empty: take a card of the discard pile instead"
    if verb == "discard":
        return "you discard only after a draw or a take"
    if verb in ("take", "play") and card is None:
        return f"there is nothing to {verb} now: your row needs {_needs(view)}" + (
            "; 'draw' draws" if any(_tag(a) == "draw" for a in legal) else "")
    if verb == "take":
        if card in hand:
            play = f": '{shown}' plays it" if card in playable else ""
            return f"{shown} is in your hand, not in the discard pile{play}"
        if card not in discard:
            return f"{shown} is not in the discard pile"
        return f"you cannot take {shown} now"
    if verb == "play":
        if card in discard and card not in hand:
            return f"{shown} is in the discard pile, not in your hand: 'take {shown}' takes it"
        if card not in hand:
            return f"{shown} is not in your hand"
    if card in hand:
        return f"{shown} is in your hand, but your row needs {_needs(view)}"
    if card in discard:
        return f"{shown} is in the discard pile: 'take {shown}' takes it"
    return f"{shown} is neither in your hand nor in the discard pile"


# ---------------------------------------------------------------- Flush


def flush_menu(view: Any, legal: list) -> list[str]:
    from rules.flush.game import is_pickup

    tags = Counter(_tag(a) for a in legal)
    if tags["pass_base"]:
        bases = " ".join(f"b{a.base + 1}" for a in legal)
        return [f"  Super Flush: pass one of your Bases to seat {view.previous + 1}: type {bases}"]
    releases = [a for a in legal if _tag(a) == "release"]
    values = list(dict.fromkeys(a.value for a in releases))
    lines = []
    if releases:
        first = releases[0]
        lines.append(f"  type the cards to release, any order (Base tops as b1 b2 b3), e.g. "
                     f"'{_cards_text(first)}'")
        marked = " ".join(v + ("^" if is_pickup(view.top_value, v) else "") for v in values)
        lines.append(f"  values to declare: {marked}" + ("   (^ is higher: picks up the pile)" if "^" in marked else ""))
    extra = [f"b{a.base + 1} flips the Blind card of Base {a.base + 1}" for a in legal if _tag(a) == "blind"]
    if tags["stop"]:
        extra.append("'stop' leaves the Blind card as it lies")
    if extra:
        lines.append("  or: " + "; ".join(extra))
    return lines


def _cards_text(action: Any) -> str:
    return " ".join([*action.hand, *(f"b{b + 1}" for b in action.bases)])


def read_flush(text: str, legal: list, view: Any) -> Any | NotAMove:
    action = parse_words(text, legal)
    if action is not None:
        return action
    words = text.strip().upper().replace(",", " ").split()
    if not words:
        return NotAMove("type the cards to release, e.g. '4 4B b1'")
    if words[0] in ("RELEASE", "PLAY"):
        words = words[1:]
    if words == ["STOP"]:
        return next((a for a in legal if _tag(a) == "stop"), None) or NotAMove(
            "'stop' ends a play only after you flip a Blind card")
    if words and words[0] in ("PASS", "PASS_BASE", "BLIND"):
        verb, words = words[0], words[1:]
        if len(words) != 1:
            return NotAMove(f"'{text.strip()}': name one Base, e.g. '{verb.lower()} b1'")
    value = None
    if len(words) >= 2 and words[-2] == "AS":
        value, words = words[-1], words[:-2]
    elif words and words[0].endswith(":") and len(words[0]) > 1:
        value, words = words[0][:-1], words[1:]
    hand, bases = [], []
    for word in words:
        base = word[4:] if word.startswith("BASE") else word[1:] if word.startswith("B") and word[1:].isdigit() \
            else None
        if base is not None and base.isdigit():
            bases.append(int(base) - 1)  # typed from 1: b1 is the wire's Base 0
        else:
            hand.append(word)
    passing = [a for a in legal if _tag(a) == "pass_base"]
    if passing:
        chosen = [a for a in passing if bases == [a.base] or (not bases and hand == [str(a.base + 1)])]
        return chosen[0] if chosen else NotAMove(
            "you made a Super Flush: choose the Base to pass, " + " or ".join(f"b{a.base + 1}" for a in passing))
    if not hand and len(bases) == 1:
        blind = [a for a in legal if _tag(a) == "blind" and a.base == bases[0]]
        if blind:
            return blind[0]
    candidates = [a for a in legal if _tag(a) == "release" and Counter(a.hand) == Counter(hand)
                  and sorted(a.bases) == sorted(bases) and (value is None or a.value == value)]
    if len(candidates) > 1:
        from rules.flush.deck import VALUE

        natural = {VALUE.get(card) for card in hand} | {_base_value(view, b) for b in bases}
        own = [a for a in candidates if natural == {a.value}]
        if len(own) == 1:
            return own[0]
        return NotAMove(f"those cards can be declared as {' or '.join(a.value for a in candidates)}: "
                        f"add 'as {candidates[-1].value}'")
    if candidates:
        return candidates[0]
    return NotAMove(_flush_why(hand, bases, value, legal, view))


def _base_value(view: Any, base: int) -> str | None:
    from rules.flush.deck import VALUE

    if view is None or view.seat is None:
        return None
    tops = view.tops[view.seat]
    return VALUE.get(tops[base]) if 0 <= base < len(tops) and tops[base] else None


def _flush_why(hand: list[str], bases: list[int], value: str | None, legal: list, view: Any) -> str:
    from rules.flush.deck import CARDS

    example = next((_cards_text(a) for a in legal if _tag(a) == "release"), None)
    tail = f", e.g. '{example}'" if example else ""
    if view is not None and view.flipped:
        return f"after a Blind card you add only more {view.top_value}s (or a Mimic), or type 'stop'"
    unknown = [card for card in hand if card not in CARDS]
    if unknown:
        return (f"'{unknown[0].lower()}' is not a Flush card (1..10, 1S..10S, 1B..10B, F, G) nor a Base (b1..b3): "
                f"type the cards to release{tail}")
    held = Counter(view.hand or []) if view is not None else Counter()
    missing = Counter(hand) - held
    if missing:
        return f"you hold no {' '.join(sorted(missing.elements()))}: type cards of your hand{tail}"
    if view is not None and view.seat is not None:
        tops = view.tops[view.seat]
        empty = [b for b in bases if not (0 <= b < len(tops) and tops[b])]
        if empty:
            return f"your Base {empty[0] + 1} has no face-up top card"
    as_value = f" as {value}" if value else ""
    if example is None:
        return "flip a Blind card: type its Base, e.g. 'b1'"
    return (f"'{' '.join([*hand, *(f'b{b + 1}' for b in bases)])}'{as_value} is not a declaration you can make: "
            f"cards of one value (a Mimic goes with any){tail}")


# ---------------------------------------------------------------- any game


def menu(game: str, view: Any, legal: list) -> list[str]:
    """The lines that show the seat's moves (empty when it has none)."""
    if not legal:
        return []
    if game == "flag_finish":
        return flag_finish_menu(view, legal)
    if game == "flush":
        return flush_menu(view, legal)
    return ["  type a move's number or its words:"] + numbered(legal, game, view)


def read_move(game: str, text: str, legal: list, view: Any = None) -> Any | NotAMove:
    """The action a typed line names, or ``NotAMove`` saying why it names none."""
    if not text.strip():
        return NotAMove("type a move")
    if not legal:
        return NotAMove("you have no move now: wait for your turn")
    if game == "flag_finish":
        return read_flag_finish(text, legal, view)
    if game == "flush":
        return read_flush(text, legal, view)
    return read_numbered(text, legal, game, view)


def parse_action(text: str, legal: list, game: str | None = None, view: Any = None) -> Any | None:
    """The action a typed line names, or None (``read_move`` says why)."""
    if game is None:
        kinds = {_tag(a) for a in legal}
        game = "flag_finish" if kinds & {"take", "draw", "discard"} else "flush" if kinds & {
            "release", "blind", "pass_base"} else ""
    found = read_move(game, text, legal, view)
    return None if isinstance(found, NotAMove) else found
