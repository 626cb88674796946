"""Checkered Flag tracks as data: the text format (``tracks/README.md``), its parser and the built-in tracks.

``parse_track(text)`` turns a track file into a frozen ``Track`` or raises ``RulesError("bad_track", ...)``
naming the line and the problem. The built-in tracks are the ``*.track`` files beside this module, read once
at import as package data (like code, never during a game).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import msgspec

from ..contract import RulesError

WHITE, DANGER, NARROW = "white", "danger", "narrow"
MAX_SPACES = 1000
MAX_LAPS = 20


class Track(msgspec.Struct, frozen=True):
    """A parsed track. ``kinds[s]``, ``zone[s]``, ``curve[s]`` describe space ``s`` of a lap (index 0 is the
    start line); ``zone``/``curve`` are -1 off danger zones."""

    name: str  # the track's name
    spaces: int  # spaces in one lap
    laps: int  # laps in the race
    danger: list[list[list[int]]]  # the danger zones, each a list of its curves, each [first, last] space of a lap
    narrow: list[list[int]]  # the narrow sections, each [first, last] space of a lap
    kinds: list[str]  # each space of a lap (index 0 the start line): "white", "danger" or "narrow"
    zone: list[int]  # each space's danger zone (index into `danger`; -1 off danger zones)
    curve: list[int]  # each space's curve within its zone (-1 off danger zones)

    @property
    def finish(self) -> int:
        """The last space before the finish line; a car beyond it has crossed."""
        return self.spaces * self.laps

    def lap_space(self, position: int) -> int:
        return (position - 1) % self.spaces + 1

    def kind(self, position: int) -> str:
        if position <= 0 or position > self.finish:
            return WHITE
        return self.kinds[self.lap_space(position)]

    def section(self, position: int) -> tuple[int, int]:
        """(zone, curve) of a danger space; the curve is 0 in a zone with one curve."""
        space = self.lap_space(position)
        zone = self.zone[space]
        return zone, (self.curve[space] if len(self.danger[zone]) > 1 else 0)


def _bad(line: int, message: str) -> RulesError:
    return RulesError("bad_track", f"line {line}: {message}" if line else message)


def _range(text: str, line: int, spaces: int) -> list[int]:
    first, sep, last = text.strip().partition("-")
    if not sep:
        first = last = first
    try:
        a, b = int(first), int(last)
    except ValueError:
        raise _bad(line, f"{text.strip()!r} is not a range like 9-12") from None
    if not 1 <= a <= b <= spaces:
        raise _bad(line, f"range {a}-{b} is not within spaces 1-{spaces} (first before last)")
    return [a, b]


def parse_track(text: str) -> Track:
    """A track from its file's text, checked; ``RulesError("bad_track")`` names the first problem."""
    fields: dict[str, tuple[int, str]] = {}
    sections: list[tuple[int, str, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        key, sep, value = body.partition(":")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise _bad(number, f"expected 'key: value', not {body!r}")
        if key in ("danger", "narrow"):
            sections.append((number, key, value))
        elif key in ("name", "spaces", "laps"):
            if key in fields:
                raise _bad(number, f"{key} is given twice")
            fields[key] = (number, value)
        else:
            raise _bad(number, f"unknown key {key!r} (keys: name, spaces, laps, danger, narrow)")
    for key in ("name", "spaces"):
        if key not in fields:
            raise _bad(0, f"the track has no {key}: line")
    spaces = _integer(fields["spaces"], "spaces", 2, MAX_SPACES)
    laps = _integer(fields.get("laps", (0, "1")), "laps", 1, MAX_LAPS)
    kinds = [WHITE] * (spaces + 1)
    zone_of, curve_of = [-1] * (spaces + 1), [-1] * (spaces + 1)
    danger: list[list[list[int]]] = []
    narrow: list[list[int]] = []
    for number, key, value in sections:
        ranges = [_range(part, number, spaces) for part in value.split(",")]
        if key == "narrow" and len(ranges) > 1:
            raise _bad(number, "a narrow section is one range; write one narrow: line per section")
        for before, after in zip(ranges, ranges[1:]):
            if after[0] != before[1] + 1:
                raise _bad(number, f"the curves {before[0]}-{before[1]} and {after[0]}-{after[1]} of one zone "
                           "must follow each other with no gap")
        for curve, (a, b) in enumerate(ranges):
            for space in range(a, b + 1):
                if kinds[space] != WHITE:
                    raise _bad(number, f"space {space} is already in a {kinds[space]} section")
                kinds[space] = DANGER if key == "danger" else NARROW
                if key == "danger":
                    zone_of[space], curve_of[space] = len(danger), curve
        (danger if key == "danger" else narrow).append(ranges if key == "danger" else ranges[0])
    for space in range(1, spaces):
        if kinds[space] == kinds[space + 1] == DANGER and zone_of[space] != zone_of[space + 1]:
            raise _bad(0, f"danger zones touch at spaces {space} and {space + 1}: write them as one zone's curves")
    return Track(name=fields["name"][1], spaces=spaces, laps=laps, danger=danger, narrow=narrow, kinds=kinds,
                 zone=zone_of, curve=curve_of)


def _integer(field: tuple[int, str], key: str, low: int, high: int) -> int:
    line, value = field
    try:
        number = int(value)
    except ValueError:
        raise _bad(line, f"{key} must be a whole number, not {value!r}") from None
    if not low <= number <= high:
        raise _bad(line, f"{key} is {low}..{high}, not {number}")
    return number


def _builtin() -> dict[str, str]:
    folder = resources.files(__package__) / "tracks"
    return {entry.name.removesuffix(".track"): entry.read_text(encoding="utf-8")
            for entry in sorted(folder.iterdir(), key=lambda e: e.name) if entry.name.endswith(".track")}


BUILTIN_TRACKS: dict[str, str] = _builtin()
DEFAULT_TRACK = "travel_oval"


@lru_cache(maxsize=64)
def track_for(option: str) -> Track:
    """The track a table's ``track`` option names: a built-in name, or the whole text of a track file.
    Cached: a ``Track`` is frozen, and the same option always gives the same track."""
    if "\n" not in option and ":" not in option:
        if option not in BUILTIN_TRACKS:
            raise RulesError("bad_track", f"no built-in track {option!r} (tracks: {', '.join(BUILTIN_TRACKS)}); "
                             "give a track file's text to use your own")
        return parse_track(BUILTIN_TRACKS[option])
    return parse_track(option)
