"""Offline play: bots against the pure rules, no server, no clock. Used by `photofinish match`, the bot
strength tests and the benchmarks.

Challenge Mode has no turns; offline, a seeded scheduler picks which of the seats that may act moves next
(as if it were the quickest), and a photo-finish window stays open for as many actions as there are seats
still racing, about one each, before the system closes it.
"""

from __future__ import annotations

from typing import Callable, Sequence

from rules import SYSTEM, Game, Rng, Session, Setup, Step

from rules.bots import Policy

OnSteps = Callable[[Session, list[Step]], None]


def play_game(game: Game, setup: Setup, seed: int, policies: Sequence[Policy],
              on_steps: OnSteps | None = None) -> Session:
    """Play a whole game with one policy per seat; returns the finished session."""
    if len(policies) != setup.seats:
        raise ValueError(f"{setup.seats} seats need {setup.seats} policies, not {len(policies)}")
    session = Session(game, setup, seed)
    steps = session.run_chance()
    if on_steps:
        on_steps(session, steps)
    house = Rng(seed).fork()  # the bots' and the scheduler's randomness, apart from chance's
    bot_rngs = [house.fork() for _ in policies]
    scheduler = house.fork()
    window_budget: int | None = None
    while True:
        turn = session.to_act()
        if turn.over:
            return session
        if turn.system:
            window_budget = len(turn.seats) if window_budget is None else window_budget
            if window_budget <= 0:
                window_budget = None
                steps = session.act(SYSTEM, game.legal_actions(session.state, SYSTEM)[0])
                if on_steps:
                    on_steps(session, steps)
                continue
            window_budget -= 1
        seats = turn.seats
        seat = seats[0] if len(seats) == 1 else seats[scheduler.below(len(seats))]
        legal = game.legal_actions(session.state, seat)
        action = policies[seat](game.view(session.state, seat), legal, bot_rngs[seat])
        steps = session.act(seat, action)
        if on_steps:
            on_steps(session, steps)
