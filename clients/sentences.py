"""The words data of ``rules/words.py`` and ``rules/<game>/words.py`` made into sentences: the template
language's interpreter for the terminal (``clients/web/js/sentences.js`` is the same for the browser; a test
holds them to the same sentences). ``say(sentence, fields, words, reader)`` renders one sentence; a
``Reader`` is who reads it (its seat, how it names seats). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from rules.words import COMMON

from .words import and_list, ordinal, plural, seat_no

PLACEHOLDER = re.compile(r"\{([a-z_]+)(?:\|([a-z_]+)(?::([^}]*))?)?\}")


def seat_words(seat: int) -> str:
    """The terminal's name for another seat: ``seat 2`` (numbered from 1; the wire's are 0-based)."""
    return COMMON["seat"]["seat"].format(seat_no(seat))


@dataclass(frozen=True)
class Reader:
    """Who reads a sentence: ``me`` (their seat; None for a spectator, said "you" when it is theirs), how
    another seat is named (``name``: ``seat 2`` in the terminal, a player's name in the browser) and how many
    seats the table has (``seats``; 0: not known)."""

    me: int | None = None
    name: Callable[[int], str] = seat_words
    seats: int = 0
    extra: dict = field(default_factory=dict)

    def who(self, seat: Any) -> str:
        if seat is None:
            return COMMON["seat"]["nobody"]
        return COMMON["seat"]["you"] if seat == self.me else self.name(seat)

    def whose(self, seat: Any) -> str:
        return COMMON["seat"]["your"] if seat is not None and seat == self.me else f"{self.who(seat)}'s"

    def is_me(self, value: Any) -> bool:
        if isinstance(value, list):
            return len(value) == 1 and value[0] == self.me and self.me is not None
        return value is not None and value == self.me


def holds(condition: str, fields: dict, reader: Reader) -> bool:
    """Whether a choice's condition holds for these fields (``rules/words.py`` says the forms)."""
    for part in condition.split(" & "):
        part = part.strip()
        if not part:
            continue
        if part.startswith("!"):
            if present(fields.get(part[1:])):
                return False
            continue
        name, sep, value = part.partition("=")
        got = fields.get(name)
        if not sep:
            if not present(got):
                return False
        elif value == "me":
            if not reader.is_me(got):
                return False
        elif value == "now":
            if got != reader.extra.get("now"):
                return False
        elif text(got) != value:
            return False
    return True


def present(value: Any) -> bool:
    """A field that is there: not null, false or empty (0 is there: seat 0 is a seat)."""
    return not (value is None or value is False or value == "" or value == [])


def text(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return str(value)


def say(sentence: Any, fields: dict, words: dict, reader: Reader) -> str:
    """One sentence of the data (a template, a list of parts, or a dict of choices) said with ``fields``;
    ``words``: the game's words (its cards and names)."""
    if isinstance(sentence, str):
        return PLACEHOLDER.sub(lambda m: fill(m, fields, words, reader), sentence)
    if isinstance(sentence, list):
        return "".join(say(part, fields, words, reader) for part in sentence)
    if isinstance(sentence, dict):
        for condition, chosen in sentence.items():
            if holds(condition, fields, reader):
                return say(chosen, fields, words, reader)
        return ""
    raise TypeError(f"not a sentence: {sentence!r}")


def fill(match: re.Match, fields: dict, words: dict, reader: Reader) -> str:
    name, form, argument = match.group(1), match.group(2), match.group(3)
    if name not in fields:
        raise KeyError(name)
    return formatted(fields[name], form, argument, fields, words, reader)


def formatted(value: Any, form: str | None, argument: str | None, fields: dict, words: dict, reader: Reader) -> str:
    """``value`` in the format ``form`` (``rules/words.py`` lists them)."""
    if form is None:
        return " ".join(map(text, value)) if isinstance(value, list) else text(value)
    if form == "seats":
        return and_list(reader.who(seat) for seat in value) if value else COMMON["seat"]["nobody"]
    if form == "verb":
        mine, others = argument.split("|")
        plural_subject = isinstance(value, list) and len(value) > 1
        return mine if plural_subject or reader.is_me(value) else others
    if form == "plural":
        noun, _, nouns = argument.partition("|")
        return plural(value, noun, nouns or None)
    if form == "count":
        if not argument:
            return str(len(value))
        noun, _, nouns = argument.partition("|")
        return plural(len(value), noun, nouns or None)
    if form == "by_seat":
        inner, _, inner_argument = (argument or "").partition(":")
        return ", ".join(f"{reader.who(seat)}: {formatted(item, inner or None, inner_argument, fields, words, reader)}"
                         for seat, item in enumerate(value))
    if form == "pairs":
        other, _, inner = (argument or "").partition(":")
        inner, _, inner_argument = inner.partition(":")
        return ", ".join(f"{reader.who(seat)} {formatted(item, inner or None, inner_argument, fields, words, reader)}"
                         for seat, item in zip(value, fields[other]))
    if isinstance(value, list):  # a format for one value, given a list: each item, said as English
        return and_list(formatted(item, form, argument, fields, words, reader) for item in value)
    if form == "who":
        return reader.who(value)
    if form == "whose":
        return reader.whose(value)
    if form in ("card", "cards"):
        return words.get("cards", {}).get(value, text(value))
    if form == "name":
        table = words.get("names", {}).get(argument, {})
        key = text(value)
        if key in table:
            return table[key]
        return table[""].replace("{}", key) if "" in table else key
    if form == "next":
        return str(value + 1)
    if form == "ordinal":
        return ordinal(value)
    raise ValueError(f"no format {form!r}")
