"""What happened, in words: a sentence for every event of every game, and the result of a game.

The sentences are data, one module per game beside its rules (``rules/<game>/words.py``, common ones in
``rules/words.py``); this module picks an event's sentence and says it (``clients/sentences.py``), as the
browser does with the same data. ``describe_event(game, event, me)`` is what the terminal's event feed
shows ("seat 2 took green 5 from the discard pile", "you flushed: 12 cards leave the game"); ``me`` is the
reader's seat (None for a spectator), said as "you"; seats are numbered from 1. An event no sentence is
written for (a new game, a new event) still gets one from its fields. Pure: events in, text out.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rules.words import COMMON, game_words

from .sentences import Reader, say

QUIET = frozenset(COMMON["quiet"])  # events the feed leaves out: the table already marks whose turn it is


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


def sentence_of(game: str, tag: str) -> Any:
    """The data of the sentence for events ``tag`` of ``game`` (None: no sentence is written for it)."""
    found = game_words(game).get("events", {}).get(tag)
    return found if found is not None else COMMON["events"].get(tag)


def seat_count(view: Any) -> int:
    """How many seats a view shows (0 when it says nothing of it)."""
    for name in ("hand_counts", "positions", "markers", "pieces", "rows", "tops"):
        seats = getattr(view, name, None)
        if isinstance(seats, list) and seats:
            return len(seats)
    return 0


def generic(event: Any, reader: Reader) -> str:
    """A sentence for an event nobody wrote one for: its name and its fields."""
    fields = _fields(event)
    seat = fields.pop("seat", None)
    words = _tag(event).replace("_", " ")
    detail = ", ".join(f"{k} {v}" for k, v in fields.items() if v is not None)
    return (f"{reader.who(seat)}: " if seat is not None else "") + words + (f" ({detail})" if detail else "")


def say_event(game: str, event: Any, reader: Reader) -> str:
    """One sentence for ``event`` of ``game`` as ``reader`` reads it. An event whose fields are not what its
    sentence expects (a server newer than this client) gets the generic sentence rather than ending the
    player's session; the tests say every event of whole games, so a mistake in the data still shows."""
    sentence = sentence_of(game, _tag(event))
    if sentence is None:
        return generic(event, reader)
    fields = {"me": reader.me, "seats": reader.seats, **_fields(event)}
    try:
        return say(sentence, fields, game_words(game), reader)
    except (AttributeError, TypeError, KeyError, IndexError, ValueError):
        return generic(event, reader)


def describe_event(game: str, event: Any, me: int | None = None, view: Any = None) -> str:
    """One sentence for ``event`` of ``game``, as the seat ``me`` (None: a spectator) reads it in the terminal;
    ``view``: the table as the reader last saw it (how many seats it has)."""
    return say_event(game, event, Reader(me=me, seats=seat_count(view)))


def feed_lines(game: str, events, me: int | None = None, view: Any = None) -> list[str]:
    """The sentences the feed shows for some events (whose turn it is is left to the table)."""
    return [describe_event(game, event, me, view) for event in events if _tag(event) not in QUIET]


def say_result(result: Any, reader: Reader, game: str = "") -> str:
    """The end of a game in plain words: who won, the scores, and which way they count (Finish Line, whose
    result's scores are its places, says each seat's place)."""
    if isinstance(result, dict):
        scores, winners = result.get("scores", []), list(result.get("winners", []))
        lower = result.get("lower_is_better", True)
    else:
        scores, winners = result.scores, list(result.winners)
        lower = getattr(result, "lower_is_better", True)
    words = COMMON["result"]
    mine = reader.me is not None and reader.me in winners
    fields = {"scores": list(scores), "winners": winners, "lower_is_better": lower, "mine": mine,
              "others": [w for w in winners if w != reader.me] if mine else []}
    headline = say(words["headline"], fields, {}, reader)
    fields["headline"] = headline[0].upper() + headline[1:]
    said = say(words["places" if game == "finish_line" else "scores"], fields, {}, reader)
    return said[0].upper() + said[1:] + "."


def describe_result(result: Any, me: int | None = None, game: str = "") -> str:
    """The end of a game, as the seat ``me`` reads it in the terminal."""
    return say_result(result, Reader(me=me), game)


def describe_contest(contest: Any, me: int | None = None) -> str:
    """Why a contested action lost (the server's ``Contest``: ``winner``, ``rule``), in words."""
    fields = {"winner": contest.winner, "rule": contest.rule, "lot": contest.lot}
    return say(COMMON["contest"], fields, {}, Reader(me=me))
