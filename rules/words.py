"""The words every game shares, as data, and the small template language every game's words are written in.

One source of words for people (issue 30): each game's ``rules/<game>/words.py`` holds its event sentences,
card names, action words and result words as plain data; this module holds the common ones (seats, results,
the fair ordering's contests). The terminal (``clients/sentences.py``) and the browser
(``clients/web/js/sentences.js``, fed by the server's ``/words.json``) render the same data the same way. Pure:
no I/O, nothing but data and ``all_words``.

The template language (kept small: both clients implement it):

- A **sentence** is a string (a template), a list (its parts' sentences, joined), or a dict of **choices**
  ``{condition: sentence, ...}``: the first condition that holds picks its sentence; ``""`` always holds.
- A **condition** is ``field`` (the field is there: not null, false or empty; 0 is there, as seat 0 is),
  ``!field`` (it is not),
  ``field=me`` (the field is the reader's seat, or a list holding only it), ``field=value`` (its text is
  ``value``); several joined by `` & `` must all hold. Fields are the event's, plus ``me`` (the reader's seat)
  and ``seats`` (how many seats the table has).
- A **template** puts fields in braces: ``{field}`` (its text; a list's items joined by spaces) or
  ``{field|format}`` / ``{field|format:argument}``, with the formats:
  ``who`` (a seat: "you", or the seat as the reader's client names it: "seat 2", "Ana"), ``whose`` ("your",
  "seat 2's"), ``seats`` (a list of seats: "you and seat 3", "nobody"), ``verb:form-for-you|form-for-others``
  (the form that agrees with the seat, or list of seats, in the field: "lead|leads"), ``plural:noun`` or
  ``plural:noun|nouns`` ("1 card", "3 cards"), ``count:noun`` (a list's length, so; ``count`` alone: the
  number), ``card`` / ``cards``
  (the game's card names), ``name:table`` (the game's table of names; its ``""`` entry names the rest, ``{}``
  standing for the value), ``next`` (the value + 1: a piece, a marker), ``ordinal`` ("2nd"), ``by_seat`` or
  ``by_seat:format`` (a list by seat: "you: 0, seat 2: 12"), ``pairs:other`` or ``pairs:other:format`` (a
  list of seats, each with the same place of the field ``other``: "you 7, seat 2 5"); the inner format of
  these two may have its own argument (``pairs:rival_ms:name:ms``). A format for one value
  given a list says each item, joined as English ("4, 4 Bonus and 7").

Seats are numbered from 1 wherever a person reads them; the wire's seats are 0-based.
"""

from __future__ import annotations

import importlib
from typing import Any

from .registry import GAMES

SEAT = {"you": "you", "your": "your", "seat": "seat {}", "nobody": "nobody", "and": "and", "nothing": "nothing"}

# Events every game may have (rules/contract.py)
EVENTS: dict[str, Any] = {
    "timed_out": "{seat|who} ran out of time: the default move was made",
    "turn": {"seat=me": "your turn", "": "{seat|whose} turn"},
}
QUIET = ("turn",)  # events a feed leaves out: the table already marks whose turn it is

# The end of a game (rules' Result: scores, winners, lower_is_better), as a client words it; the fields are
# the result's plus ``others`` (the other winners) and ``mine`` (the reader is among the winners).
RESULT: dict[str, Any] = {
    "headline": {
        "mine & others": "you share the win with {others|seats}",
        "!winners": "nobody won",
        "": "{winners|seats} won",
    },
    "scores": ["game over. ", "{headline}! Final scores: {scores|by_seat} (",
               {"lower_is_better": "lower is better", "": "higher is better"}, ")"],
    "places": ["game over. ", "{headline}! Places: {scores|by_seat:ordinal}"],
}

# Why a contested action lost (server/protocol/table.py's Contest: winner, rule, lot), said by the client to the loser
CONTEST: dict[str, Any] = {
    "rule=lot": "{winner|who} took it first (your reactions tied; a seeded lot decided)",
    "rule=guess": "{winner|who} took it first (it asked first)",
    "": "{winner|who} took it first (it reacted first)",
}

# A replay's contested take (server/protocol/lobby.py's FrameContest, with the frame's actor): who reacted first and
# how fast, the others' times (``rivals`` and ``rival_ms``, place by place) and whether a lot decided a tie
REPLAY_CONTEST: Any = ["contested: {actor|who} reacted first, in {reaction_ms} ms; {rivals|pairs:rival_ms:name:ms}",
                       {"lot": " (a tie within the table's margin, decided by lot)", "": ""}]
NAMES: dict[str, dict[str, str]] = {"ms": {"": "in {} ms"}}

COMMON: dict[str, Any] = {"seat": SEAT, "events": EVENTS, "quiet": list(QUIET), "result": RESULT,
                          "contest": CONTEST, "replay_contest": REPLAY_CONTEST, "names": NAMES}


def all_words() -> dict[str, Any]:
    """Every game's words and the common ones, as the server serves them to the browser (``/words.json``)."""
    return {"common": COMMON, "games": {name: game_words(name) for name in GAMES}}


def game_words(game: str) -> dict[str, Any]:
    """The words of ``game`` (its ``rules/<game>/words.py``'s ``WORDS``); none for a game that has none yet:
    its events are then said from their fields."""
    if game not in GAMES:
        return {}
    try:
        module = importlib.import_module(f"rules.{game}.words")
    except ModuleNotFoundError:
        return {}
    return module.WORDS
