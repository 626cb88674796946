"""Bots in a tournament over the wire: each registers, follows the tournament, and plays every table it is
seated at (resuming its reserved seat with its player token) until the tournament is over.

`photofinish tournament bots URL T --players N` runs N of them at once: the demo, and the load test, of a
whole event.
"""

from __future__ import annotations

from functools import partial

import trio

from .client import ServerError, open_client
from .remote_bots import play_seat
from server.protocol import Closing, Code, TournamentState, YourTable


async def play_tournament(url: str, tournament: str, name: str, policy: str, seed: int,
                          registered=None, pace_ms: int = 0, task_status=trio.TASK_STATUS_IGNORED) -> str:
    """Register as ``name`` and play every seating to the end of the tournament; returns the player id.
    ``registered(player, token)`` is called once registered (before ``task_status.started``)."""
    async with open_client(url, name=name) as client:
        entry = await client.register(tournament, name)
        if registered is not None:
            registered(entry.player, entry.token)
        task_status.started(entry.player)
        state = await client.watch_tournament(tournament, token=entry.token)
        played: set[str] = set()
        rounds = 0
        async with trio.open_nursery() as nursery:
            if state.tournament.status == "over":
                return entry.player
            to_report: set[str] = set()  # tables played with real cards, reported once the state shows them
            async for message in client.messages:
                if type(message) is YourTable and message.reported and message.table not in played:
                    played.add(message.table)  # a bot holds no cards: it reports the places in seat order
                    to_report.add(message.table)
                    _report_ready(nursery, client, tournament, entry.token, state, to_report)
                elif type(message) is YourTable and message.table not in played:
                    played.add(message.table)
                    rounds += 1
                    nursery.start_soon(_play_table, url, message.table, policy, seed + rounds, name, entry.token,
                                       pace_ms)
                elif type(message) is TournamentState and message.tournament.status == "over":
                    break
                elif type(message) is TournamentState:
                    state = message
                    _report_ready(nursery, client, tournament, entry.token, state, to_report)
                elif type(message) is Closing and message.code != Code.SERVER_SHUTDOWN:
                    break  # (a server shutting down is waited for: the client reconnects, the tournament resumes)
            nursery.cancel_scope.cancel()
        return entry.player


def _report_ready(nursery, client, tournament: str, token: str, state, to_report: set[str]) -> None:
    """Report each table of ``to_report`` the tournament's ``state`` shows (so its size is known)."""
    for seated in state.seatings:
        if seated.table in to_report:
            to_report.discard(seated.table)
            nursery.start_soon(_report_by_seat, client, tournament, token, seated.table, len(seated.players))


async def _report_by_seat(client, tournament: str, token: str, table: str, players: int) -> None:
    """A bot at a table played with real cards reports the places in seat order (1, 2, 3, ...): every bot at
    the table agrees, and a person there who reports otherwise leaves it to the organiser."""
    try:
        await client.report_result(tournament, token, table, list(range(1, players + 1)))
    except ServerError:
        pass  # the result stands already, or the event is over: nothing to add


TABLE_TRIES = 60  # connections a seat tries while its server restarts, RETRY_PAUSE apart
RETRY_PAUSE = 1.0  # s


async def _play_table(url: str, table: str, policy: str, seed: int, name: str, token: str, pace_ms: int) -> None:
    """Play one seat to its table's end. One table's trouble ends only that seat, never the bot's other tables
    nor the other bots: a table the server refuses (gone or over after a restart: ``no_table``) is left to the
    server (an absent seat's stand-in plays it out), and a server that does not answer (restarting) is tried
    again, ``TABLE_TRIES`` times a second apart."""
    for _ in range(TABLE_TRIES):
        try:
            await play_seat(url, table, policy, seed, name=name, token=token, pace_ms=pace_ms, through_restarts=True)
            return
        except ServerError:
            return
        except ConnectionError:
            await trio.sleep(RETRY_PAUSE)


async def fill_tournament(url: str, tournament: str, players: int, policy: str, seed: int,
                          prefix: str = "bot", pace_ms: int = 0, task_status=trio.TASK_STATUS_IGNORED) -> list[str]:
    """Register ``players`` bots and play the tournament to its end; ``task_status.started`` once every bot
    is registered (so an organiser can start it then)."""
    ids: list[str] = []
    async with trio.open_nursery() as nursery:
        for index in range(players):
            ids.append(await nursery.start(partial(play_tournament, url, tournament, f"{prefix} {index + 1}", policy,
                                                   seed + 1000 * index, pace_ms=pace_ms)))
        task_status.started(ids)
    return ids
