"""Rebuilding a game from its log: the one fold of a log's entries through the rules.

Every reader of a table's log rebuilds its game here: a restarted server restoring an unfinished table
(``server/lobby.py``), ``photofinish replay`` and ``verify`` (``server/logs/replay.py``), the browser's replay frames
(``server/logs/frames.py``) and a playback table (``server/table/playback.py``, an entry at a time: ``apply_entry``).
So they all agree on every state, and a log one of them refuses, the others refuse for the same reason.

``Rebuild.entry`` takes the log's entries in order (refused ones too, which change nothing) and checks, for
each: its number follows the one before (entries are numbered 1, 2, ... with no gap), the caller's own check
(``replay`` checks each fair ordering decision there), the rules accept its action (decoded by the game),
with a seed each chance action is the one the seed gives, and a digest it recorded equals the rebuilt
state's. The first that fails raises ``Unbuildable`` naming the entry. ``fold`` is that over a list.

Pure: no trio, no clock, no file; the caller reads the log and says what each problem means to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import msgspec

from rules import CHANCE, Game, RulesError, Session, Setup, digest

from .actionlog import MemoryLog


class Unbuildable(ValueError):
    """An entry the log's game cannot be rebuilt through: ``entry`` (as logged) and what is wrong with it."""

    def __init__(self, entry: Any, problem: str) -> None:
        super().__init__(f"entry {entry.seq}: {problem}")
        self.entry, self.problem = entry, problem


@dataclass(frozen=True, slots=True)
class Step:
    """One entry rebuilt: the entry as logged, its decoded action and events (both None: a refused entry,
    nothing changed), and the game's state after it (the live state: the next entry changes it)."""

    entry: Any
    action: Any
    events: list | None
    state: Any


def apply_entry(game: Game, session: Session, entry: Any, check_chance: bool = False) -> tuple[Any, list]:
    """Apply one accepted entry to ``session``: its action decoded by the game, (``check_chance``) a chance
    action checked against the session's seed, applied by the rules and added to the history. Returns the
    action and its events; raises ``Unbuildable`` with the session unchanged if the rules refuse it."""
    try:
        action = game.to_action(entry.action)
        if check_chance and entry.actor == CHANCE and game.sample_chance(session.state, session.rng) != action:
            raise Unbuildable(entry, "this shuffle or roll does not follow from the seed")
        events = game.apply(session.state, entry.actor, action)
    except (msgspec.ValidationError, RulesError) as error:
        raise Unbuildable(entry, f"the rules refuse this accepted action: {error}") from None
    session.history.append((entry.actor, action))
    return action, events


@dataclass
class Rebuild:
    """A game being rebuilt from its log, one entry at a time (``start`` makes one). ``check`` is the caller's
    own check of each entry once its number is right, before it is applied (a problem, or None)."""

    game: Game
    session: Session
    check_chance: bool = False  # every chance action against the session's seed (a restore, a verify)
    check: Callable[[Any], str | None] | None = None
    seq: int = 0  # the last entry's number

    @property
    def state(self) -> Any:
        return self.session.state

    def entry(self, entry: Any) -> Step:
        """The next entry rebuilt (``Unbuildable`` at the first thing wrong with it)."""
        if entry.seq != self.seq + 1:
            raise Unbuildable(entry, f"entry {self.seq + 1} is missing")
        self.seq = entry.seq
        if self.check is not None and (problem := self.check(entry)) is not None:
            raise Unbuildable(entry, problem)
        if not entry.accepted:
            return Step(entry, None, None, self.session.state)
        action, events = apply_entry(self.game, self.session, entry, self.check_chance)
        if entry.digest is not None and entry.digest != digest(self.session.state):
            raise Unbuildable(entry, "the rebuilt state differs from the one recorded")
        return Step(entry, action, events, self.session.state)


def start(game: Game, setup: Setup, seed: int | None = None, check: Callable[[Any], str | None] | None = None,
          ) -> Rebuild:
    """A rebuild from the game's first state; with ``seed`` every chance action is checked against it and the
    session's generator ends where the table's was (ready to go on)."""
    return Rebuild(game, Session(game, setup, seed if seed is not None else 0), check_chance=seed is not None,
                   check=check)


def fold(rebuild: Rebuild, entries: Iterable[Any]) -> Iterator[Step]:
    """Each of ``entries`` (in log order, refused ones included) rebuilt in turn."""
    for entry in entries:
        yield rebuild.entry(entry)


def restored(game: Game, setup: Setup, seed: int, entries: Iterable[Any]) -> tuple[Session, MemoryLog]:
    """What a restarted server goes on from: the session after every entry (its generator advanced past every
    chance action, each checked against ``seed``) and the table's log in memory, each accepted entry with its
    events (to catch reconnecting clients up), each refused one as it was refused."""
    rebuild, log = start(game, setup, seed), MemoryLog()
    for step in fold(rebuild, entries):
        entry = step.entry
        if step.events is None:
            log.append(time=entry.time, actor=entry.actor, action=entry.action, accepted=False, code=entry.code,
                       ref=entry.ref, fair=entry.fair)
        else:
            log.append(time=entry.time, actor=entry.actor, action=step.action, accepted=True, events=step.events,
                       ref=entry.ref, fair=entry.fair)
    return rebuild.session, log

