"""A game in play, without I/O: one state, the seeded chance generator, and the history of steps.

The arbiter, the offline match runner, the tests and replay all drive games through this one piece, so
they cannot disagree on how chance is resolved or what a history holds.

A history is a list of ``(actor, action)`` pairs; chance actions are in it like any other, so a replay
needs no generator at all. ``verify_chance`` redoes every chance action from the seed to show that the
outcomes were not chosen by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

import msgspec

from .contract import CHANCE, Game, Result, RulesError, Setup, ToAct, digest
from .rng import Rng


@dataclass(frozen=True)
class Step:
    """One applied action: who acted, what they did, and what happened."""

    actor: int
    action: Any
    events: list


@dataclass
class Session:
    game: Game
    setup: Setup
    seed: int
    state: Any = None
    rng: Rng = field(init=False)
    history: list[tuple[int, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = Rng(self.seed)
        if self.state is None:
            self.state = self.game.new_state(self.setup)

    def to_act(self) -> ToAct:
        return self.game.to_act(self.state)

    def result(self) -> Result | None:
        return self.game.result(self.state)

    def digest(self) -> str:
        return digest(self.state)

    def act(self, actor: int, action: Any) -> list[Step]:
        """Apply one action (raising ``RulesError`` and changing nothing if it is illegal), then resolve
        any chance nodes it led to. Returns every step taken, the given action first."""
        if actor == CHANCE:
            raise RulesError("not_chance", "chance outcomes come from the session's generator, not from a player")
        events = self.game.apply(self.state, actor, action)
        self.history.append((actor, action))
        return [Step(actor, action, events), *self.run_chance()]

    def run_chance(self) -> list[Step]:
        """Resolve chance nodes from the seeded generator until someone else is to act."""
        steps = []
        while self.game.to_act(self.state).chance:
            action = self.game.sample_chance(self.state, self.rng)
            events = self.game.apply(self.state, CHANCE, action)
            self.history.append((CHANCE, action))
            steps.append(Step(CHANCE, action, events))
        return steps


def restore(game: Game, setup: Setup, seed: int, history: Iterable[tuple[int, Any]]) -> tuple[Session, list]:
    """A session rebuilt from its history, its generator advanced past every chance action (each checked
    against the seed), ready to go on. Returns the session and the events of every step."""
    session = Session(game, setup, seed)
    steps = []
    for index, (actor, action) in enumerate(history):
        if actor == CHANCE and game.sample_chance(session.state, session.rng) != action:
            raise RulesError("bad_history", f"chance action {index} does not follow from the seed")
        steps.append(game.apply(session.state, actor, action))
        session.history.append((actor, action))
    return session, steps


def replay(game: Game, setup: Setup, history: Iterable[tuple[int, Any]]) -> Iterator[tuple[Any, list]]:
    """Rebuild a game from its history; yields the state and the events after each step.

    The state yielded is the live one (it changes on the next step): take a digest or a copy if needed.
    """
    state = game.new_state(setup)
    for actor, action in history:
        events = game.apply(state, actor, action)
        yield state, events


def verify_chance(game: Game, setup: Setup, seed: int, history: Iterable[tuple[int, Any]]) -> int | None:
    """Check that every chance action in ``history`` is the one the seed gives.

    Returns the index of the first chance action that does not follow from the seed, or ``None``.
    """
    rng = Rng(seed)
    state = game.new_state(setup)
    for index, (actor, action) in enumerate(history):
        if actor == CHANCE and game.sample_chance(state, rng) != action:
            return index
        game.apply(state, actor, action)
    return None


def copy_state(game: Game, state: Any) -> Any:
    """A deep copy of a state, through its own canonical encoding."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=game.state_type)
