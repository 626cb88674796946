"""The rules contract: what every game in `rules/` provides, and the shared types it speaks in.

A game is a frozen record of pure functions over a mutable msgspec State (the sans-I/O style of h11 and
OpenSpiel). Nothing here touches a clock, a socket, trio or global randomness.

Actors. Seats are 0..n-1. Two more actors exist:
- ``SYSTEM`` acts for what the server decides (closing a photo-finish window, a turn timeout). Its actions
  are ordinary actions: logged and replayed like any other.
- ``CHANCE`` acts when the game needs a random outcome (a shuffle, a die). The caller samples the outcome
  with ``game.sample_chance(state, rng)`` from a seeded ``rules.rng.Rng`` and applies it like any other
  action, so every outcome is in the history (OpenSpiel's chance player).

The contract of ``apply(state, actor, action)``: it validates the whole action first and either raises
``RulesError`` having changed nothing, or applies all of it and returns the events. A bug in our own code
must surface as any other exception, never as a ``RulesError``.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Literal

import msgspec

SYSTEM = -1
CHANCE = -2

Mode = Literal["lockstep", "challenge"]
OptionValue = int | bool | str


class RulesError(Exception):
    """An action, or a set-up, that the rules do not allow: a player's mistake, sent back to that player.

    ``code`` is stable and machine-readable (``"not_your_turn"``); ``message`` says what was wrong in words.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self):  # pickled whole (a replay rebuilt in a worker process raises it back)
        return type(self), (self.code, self.message)


class OptionSpec(msgspec.Struct, frozen=True):
    """One table option: its default and what values it accepts."""

    name: str
    default: OptionValue
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None


class GameInfo(msgspec.Struct, frozen=True):
    """What a lobby shows of a game before a table exists."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    modes: tuple[str, ...]
    options: tuple[OptionSpec, ...]
    hidden_information: bool = True


class Setup(msgspec.Struct, frozen=True):
    """Everything that fixes a game before its first action, apart from the seed."""

    seats: int
    mode: str
    options: dict[str, OptionValue]


class ToAct(msgspec.Struct, frozen=True):
    """Who may act now: some seats (all of them in Challenge Mode), chance, or nobody (the game is over).

    ``system`` names the system actions that are due (for example ``"close_window"``) and
    ``system_delay_ms`` how long the server lets play go on before applying them (a table option, never a
    clock reading): the server's timer decides when, the log records it.
    """

    seats: tuple[int, ...] = ()
    chance: bool = False
    over: bool = False
    system: tuple[str, ...] = ()
    system_delay_ms: int = 0


class Result(msgspec.Struct, frozen=True):
    """The end of a game: each seat's final score, and the winners (more than one on a shared win)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    lower_is_better: bool = True


class Action(msgspec.Struct, tag_field="type", frozen=True, forbid_unknown_fields=True, gc=False):
    """The base of every game's actions: a tagged Struct, ``{"type": "draw", ...}`` on the wire.

    Actions and events are values that never refer back to what holds them, so they are kept out of the
    cycle collector (``gc=False``): a server's logs hold hundreds of thousands of them.

    ``action.type`` is its tag, as on the wire (``DrawPile().type == "draw"``)."""

    @property
    def type(self) -> str:
        return tag_of(self)


class Event(msgspec.Struct, tag_field="type", frozen=True, gc=False):
    """The base of every game's events (out of the cycle collector, like actions); ``event.type`` is its tag."""

    @property
    def type(self) -> str:
        return tag_of(self)


def tag_of(value: Any) -> str | None:
    """The ``"type"`` tag of a tagged msgspec Struct (a game's action, event or view, a protocol message), as
    on the wire: ``tag_of(Play("G5")) == "play"``; None for anything untagged (a dict, None, a plain Struct)."""
    config = getattr(type(value), "__struct_config__", None)
    tag = config.tag if config is not None else None
    return tag if isinstance(tag, str) else None


class Timeout(Action, tag="timeout"):
    """System: ``seat`` ran out of time; the game makes its default move for it (``Game.timeout_action``)."""

    seat: int


class TimedOut(Event, tag="timed_out"):
    seat: int


class TurnStarted(Event, tag="turn"):
    seat: int


def never_contested(state: Any, action: Any) -> bool:
    """``contested`` for a game whose actions never conflict (lockstep games: one seat acts at a time)."""
    return False


@dataclass(frozen=True)
class Game:
    """A game: metadata and the pure functions of the contract.

    - ``new_state(setup)``: the state before any action (chance acts first where the game deals). It may
      raise ``RulesError`` for options that are valid one by one but make no game together (a bad track).
    - ``to_act(state)``: who may act now.
    - ``legal_actions(state, actor)``: every action that actor may take now (empty if none).
    - ``legal_for(state, actors)``: ``[legal_actions(state, actor) for actor in actors]``, which a game may work
      out faster by listing what they share once (optional: that list is the default).
    - ``apply(state, actor, action)``: all of it and its events, or ``RulesError`` and no change.
    - ``sample_chance(state, rng)``: the chance action for the current chance node, drawn from ``rng``.
    - ``view(state, seat)``: what ``seat`` may see (``None``: a spectator).
    - ``views(state, seats)``: ``[view(state, seat) for seat in seats]``, which a game may work out faster
      by building what every seat sees once (optional: that list is the default). Views are read-only: two
      of them may share a list.
    - ``redact(event, seat)``: the event as ``seat`` may see it (``None``: a spectator).
    - ``result(state)``: the final result, or ``None`` while the game goes on.
    - ``placings(state)``: each seat's place in a finished game (1 = first; tied seats share a place and the
      next place skips: 1, 1, 3), the seats placed 1 being exactly ``result(state).winners``; ``None`` while
      the game goes on. Each game says how it places in its ``RULES.md``.
    - ``standing(state)``: the places as the game stands, if it were ended now (a tournament round's time
      limit), in the same form; defined at every state, and equal to ``placings`` once the game is over.
    - ``timeout_action(state, seat)``: the system action applied when a seat's time runs out.
    - ``scramble(state, seat, rng)``: a copy of the state with everything ``seat`` may not see re-dealt;
      tests use it to prove that a view depends on nothing hidden.
    - ``invariant(state)``: a list of broken invariants (empty when all is well), for tests.
    - ``describe(state)``: a few lines of text about the whole state, for logs and the command line.
    - ``contested(state, action)``: True if ``action`` may conflict with another seat's action taken at about
      the same time (two seats taking one card, two seats finishing a race): a table with ``fair`` ordering
      holds such an action a few milliseconds so that a quicker reaction arriving later can go first. Every
      other action is applied at once. Optional: by default nothing is contested. An action's answer is the
      same throughout a game (it may depend on the setup, such as the mode, never on play): the server asks
      when an action is newly legal for a seat, not again while it stays legal.
    """

    info: GameInfo
    action_type: Any
    event_type: Any
    view_type: Any
    state_type: Any
    new_state: Callable[[Setup], Any]
    to_act: Callable[[Any], ToAct]
    legal_actions: Callable[[Any, int], list]
    legal_for: Callable[[Any, list[int]], list[list]]
    apply: Callable[[Any, int, Any], list]
    sample_chance: Callable[[Any, Any], Any]
    view: Callable[[Any, int | None], Any]
    views: Callable[[Any, list[int | None]], list]
    redact: Callable[[Any, int | None], Any]
    result: Callable[[Any], Result | None]
    placings: Callable[[Any], tuple[int, ...] | None]
    standing: Callable[[Any], tuple[int, ...]]
    timeout_action: Callable[[Any, int], Any]
    scramble: Callable[[Any, int | None, Any], Any]
    invariant: Callable[[Any], list[str]]
    describe: Callable[[Any], str]
    contested: Callable[[Any, Any], bool] = never_contested

    def to_action(self, payload: Any) -> Any:
        """``payload`` (a decoded frame's ``action``) as one of this game's actions, or
        ``msgspec.ValidationError``. The same as ``msgspec.convert(payload, self.action_type)``, which
        rebuilds the union's type info on every call (~7 us); a one-field Struct keeps it (~0.4 us)."""
        try:
            return msgspec.convert({"action": payload}, self._action_box).action
        except msgspec.ValidationError as error:
            raise msgspec.ValidationError(str(error).replace("$.action", "$")) from None

    @functools.cached_property
    def _action_box(self) -> type:
        """Kept on the game itself: looking it up by the union (an ``lru_cache``) hashed the union per call."""
        return msgspec.defstruct("ActionBox", [("action", self.action_type)])


def resolve_options(info: GameInfo, given: dict[str, Any] | None) -> dict[str, OptionValue]:
    """The full option set for a table: defaults overlaid with ``given``, every value checked.

    Raises ``RulesError`` naming the first unknown option or bad value.
    """
    specs = {spec.name: spec for spec in info.options}
    given = dict(given or {})
    for name in given:
        if name not in specs:
            known = ", ".join(sorted(specs)) or "none"
            raise RulesError("bad_option", f"{info.name} has no option {name!r} (options: {known})")
    resolved: dict[str, OptionValue] = {}
    for spec in info.options:
        value = given.get(spec.name, spec.default)
        _check_option(spec, value)
        resolved[spec.name] = value
    return resolved


def _check_option(spec: OptionSpec, value: Any) -> None:
    kind = type(spec.default)
    if type(value) is not kind:
        what = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(kind, kind.__name__)
        raise RulesError("bad_option", f"option {spec.name!r} takes {what}, not {value!r}")
    if spec.choices is not None and value not in spec.choices:
        raise RulesError("bad_option", f"option {spec.name!r} is one of {', '.join(spec.choices)}, not {value!r}")
    if spec.minimum is not None and value < spec.minimum:
        raise RulesError("bad_option", f"option {spec.name!r} is at least {spec.minimum}, not {value!r}")
    if spec.maximum is not None and value > spec.maximum:
        raise RulesError("bad_option", f"option {spec.name!r} is at most {spec.maximum}, not {value!r}")


def make_setup(info: GameInfo, seats: int, mode: str, options: dict[str, Any] | None = None) -> Setup:
    """A checked ``Setup``: seat count within the game's bounds, a mode it supports, valid options."""
    if not info.min_seats <= seats <= info.max_seats:
        raise RulesError("bad_seats", f"{info.title} seats {info.min_seats}-{info.max_seats} players, not {seats}")
    if mode not in info.modes:
        raise RulesError("bad_mode", f"{info.title} is played in {' or '.join(info.modes)} mode, not {mode!r}")
    return Setup(seats=seats, mode=mode, options=resolve_options(info, options))


def places(keys: list[Any]) -> tuple[int, ...]:
    """Each seat's place from its sort key (lower is better): 1 + the number of seats with a better key, so
    equal keys share a place and the next place skips (keys 3, 3, 5 give 1, 1, 3)."""
    return tuple(1 + sum(other < key for other in keys) for key in keys)


def result_places(result: Result) -> tuple[int, ...]:
    """The places a result gives: its winners first (place 1), then the other seats by score (the result's
    direction), equal scores sharing a place."""
    sign = 1 if result.lower_is_better else -1
    return places([(0,) if seat in result.winners else (1, sign * score) for seat, score in enumerate(result.scores)])


_state_encoder = msgspec.msgpack.Encoder()


def digest(state: Any) -> str:
    """The canonical digest of a state: sha256 of its msgpack encoding (Struct fields in declared order)."""
    return hashlib.sha256(_state_encoder.encode(state)).hexdigest()


def show_everything(event: Any, seat: int | None) -> Any:
    """``redact`` for a game without hidden information: every seat sees every event whole."""
    return event


def copy_unchanged(state: Any, seat: int | None, rng: Any) -> Any:
    """``scramble`` for a game without hidden information: nothing is hidden, so a plain copy."""
    return msgspec.msgpack.decode(_state_encoder.encode(state), type=type(state))


GAME_FUNCTIONS = ("new_state", "to_act", "legal_actions", "apply", "sample_chance", "view", "redact", "result",
                  "placings", "standing", "timeout_action", "scramble", "invariant", "describe")


def game_from(names: dict[str, Any]) -> Game:
    """The ``Game`` a game module defines under the contract's names: ``INFO``, ``ActionType``,
    ``EventType``, ``View``, ``State``, the functions of ``GAME_FUNCTIONS`` and, where it has them, ``views``,
    ``legal_for`` and ``contested`` (``GAME = game_from(globals())``)."""
    view, legal_actions = names["view"], names["legal_actions"]
    views = names.get("views") or (lambda state, seats: [view(state, seat) for seat in seats])
    legal_for = names.get("legal_for") or (lambda state, actors: [legal_actions(state, a) for a in actors])
    optional = {"contested": names["contested"]} if "contested" in names else {}
    return Game(info=names["INFO"], action_type=names["ActionType"], event_type=names["EventType"],
                view_type=names["View"], state_type=names["State"], views=views, legal_for=legal_for,
                **optional, **{name: names[name] for name in GAME_FUNCTIONS})
