"""Every game, whole, over real websockets: remote bots take every seat and play to the end through the
arbiter, a spectator watches, nobody is sent an event its seat may not see, and the log replays exactly."""

from __future__ import annotations

import pytest
import trio

from clients.client import open_client
from clients.remote_bots import play_seat
from rules import digest, get_game, replay
from server.app import run_server
from server.protocol import Snapshot, Update

# (game, seats, options, policies): each game in each of its formats, small enough to be quick.
MATCHES = [
    ("flush", 4, {"rounds": 2}, ["heuristic", "random", "heuristic", "random"]),
    ("flush", 3, {"format": "elimination", "limit": 60}, ["heuristic", "random", "random"]),
    ("race_to_the_finish", 3, {}, ["heuristic", "random", "random"]),
    ("race_to_the_finish", 2, {}, ["heuristic", "random"]),
    ("checkered_flag", 2, {}, ["heuristic", "random"]),
    ("checkered_flag", 4, {}, ["heuristic", "random", "heuristic", "random"]),
    ("finish_line", 2, {}, ["heuristic", "random"]),
    ("finish_line", 3, {"play_on": True}, ["heuristic", "random", "random"]),
]


def unredacted(game, seat, message) -> list[str]:
    """Events in one message to ``seat`` (None: a spectator) that still show something ``seat`` may not see:
    redacting an event for its receiver must change nothing."""
    if type(message) not in (Update, Snapshot):
        return []
    leaks = [f"seat {seat} was sent {event}" for event in getattr(message, "events", [])
             if game.redact(event, seat) != event]
    if message.view is not None and seat is None and getattr(message.view, "hand", None) is not None:
        leaks.append("a spectator saw a hand")
    return leaks


@pytest.mark.parametrize("name, seats, options, policies", MATCHES,
                         ids=[f"{m[0]}-{m[1]}-seats-{'-'.join(map(str, m[2].values())) or 'default'}" for m in MATCHES])
async def test_bots_play_a_whole_game_over_websockets(nursery, name, seats, options, policies):
    game = get_game(name)
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    leaks: list[str] = []
    async with open_client(running.url) as admin:
        info = await admin.create_table(game=name, mode=game.info.modes[0], seats=seats, options=options)
        await admin.watch(info.table)
        async with trio.open_nursery() as bots:
            for seat, policy in enumerate(policies):
                bots.start_soon(lambda p=policy, s=seat: play_seat(
                    running.url, info.table, p, 7 + s, seat=s,
                    on_message=lambda to, message: leaks.extend(unredacted(game, to, message))))
        async for message in admin.messages:
            leaks.extend(unredacted(game, None, message))
            if type(message) is Update and message.result is not None:
                break
    table = running.lobby.find(info.table)
    result = table.session.result()
    assert result is not None and len(result.scores) == seats and result.winners
    assert leaks == []
    seat_actions = [actor for actor, _action in table.log.history() if actor >= 0]
    assert set(seat_actions) == set(range(seats)), "every seat played over the wire"
    states = list(replay(table.game, table.setup, table.log.history()))
    assert digest(states[-1][0]) == table.session.digest()
