"""Bots over the wire: each seat its own connection, the same policies and driver as server-side bots."""

from __future__ import annotations

import trio

from rules import Rng

from rules.bots import get_policy
from server.protocol import BotDriver, Closing, Code, Error, TableEnded

from .client import ActionRejected, ServerError, open_client

RATE_PAUSE = 0.05  # s a bot waits after the server dropped its action for going over the rate limit
RETRY_PAUSE = 0.05  # s a bot waits before acting again after a refusal that no update follows
ACT_AGAIN = (Code.TOO_EARLY, Code.TOO_MANY_REFUSED)  # refusals that change nothing at the table: no message will
# wake the bot


async def play_seat(url: str, table: str, policy: str, seed: int, *, seat: int | None = None,
                    name: str = "", on_message=None, on_accepted=None, token: str | None = None,
                    pace_ms: int = 0, through_restarts: bool = False, on_lost=None) -> int:
    """Take a seat at ``table`` (or, with ``token``, the seat it holds: a tournament's reserved seat) and play
    it with ``policy`` until the game is over; returns the seat. ``pace_ms``: a pause of about that long
    (0.5x-1.5x, seeded) before each action, as server bots' ``bot_delay_ms``: a pace people can play against.
    ``through_restarts``: a server shutting down is waited for (the client reconnects and resumes the seat, as
    after a crash) instead of ending the bot: a tournament's bot keeps its seat when the server restarts; a
    resume the restarted server refuses (the table is gone) ends it. ``on_lost``: called with the reason when
    the connection is lost (the client reconnects by itself)."""
    async with open_client(url, name=name or f"{policy} bot") as client:
        client.on_lost = on_lost
        seated = await (client.resume(table, token) if token else client.take_seat(table, seat=seat))
        driver = BotDriver(get_policy(seated.game, policy), Rng(seed))

        def observe(message) -> bool:
            """Take one message in; False when the seat is done (game over or connection gone)."""
            if on_message:
                on_message(seated.seat, message)
            if type(message) is Closing and message.code == Code.SERVER_SHUTDOWN and through_restarts:
                return True
            if type(message) is Closing and message.code in (Code.SERVER_SHUTDOWN, Code.DISCONNECTED, Code.REPLACED):
                return False
            if type(message) is TableEnded:
                return False
            if type(message) is Error and str(message.ref or "").startswith("resume-"):
                return False  # after a reconnect the seat could not be resumed: the table is gone
            driver.take(message)
            return not driver.over

        def drain(going: bool) -> bool:
            while going:  # act on the newest view only
                try:
                    going = observe(client.messages.receive_nowait())
                except trio.WouldBlock:
                    break
            return going

        async for message in client.messages:
            if not drain(observe(message)):
                break
            if pace_ms and driver.in_flight is None and driver.legal:
                await trio.sleep(pace_ms / 1000 * (0.5 + driver.rng.below(1000) / 1000))
                if not drain(True):
                    break
            while (move := driver.next_action()) is not None:
                ref, action = move
                try:
                    accepted = await client.act(table, action)
                    driver.observe("accepted", ref=ref, seq=accepted.seq)
                    if on_accepted:
                        on_accepted(seated.seat, accepted)
                    break  # its update follows
                except ActionRejected as error:
                    driver.observe("rejected", ref=ref)
                    if error.code not in ACT_AGAIN:
                        break  # the update that made it wrong (or the move that won) follows
                    await trio.sleep(RETRY_PAUSE)  # nothing follows a too-early refusal: try again, as a person would
                except ServerError as error:  # dropped by the server's rate limit: let the budget refill, go on
                    if error.code != Code.RATE_LIMITED:
                        raise
                    driver.observe("rejected", ref=ref)
                    await trio.sleep(RATE_PAUSE)
                if not drain(True):
                    return seated.seat
        return seated.seat


SEAT_GONE = ("table_full", "seat_taken")  # another client sat down first


async def play_seats(url: str, table: str, seats: int, policy: str, seed: int,
                     on_lost=None) -> tuple[list[int], list[str], list[tuple[int, str]]]:
    """Sit ``seats`` bots at ``table`` at once and play until the game is over, through server restarts (each
    bot reconnects and resumes its seat). Returns the seats played to the end (the game's result or
    ``table_ended``: nothing else is an end); for each bot that found no seat (someone else sat down first),
    the server's reason; and each seat that stopped before the end, with why. Such a bot does not stop the
    others: a bot that sat plays its game to the end, never leaving its seat abandoned."""
    ended: list[int] = []
    missed: list[str] = []
    stopped: list[tuple[int, str]] = []

    async def one(index: int) -> None:
        last: list = []

        def heard(seat: int, message) -> None:
            kind = type(message)
            if kind is TableEnded or kind is Closing or kind is Error or getattr(message, "result", None) is not None:
                last[:] = [message]

        try:
            seat = await play_seat(url, table, policy, seed + index, name=f"{policy} bot {index + 1}",
                                   on_message=heard, through_restarts=True,
                                   on_lost=on_lost if index == 0 else None)
        except ServerError as error:
            if error.code not in SEAT_GONE:
                raise
            missed.append(error.message)
            return
        end = last[0] if last else None
        if type(end) is TableEnded or getattr(end, "result", None) is not None:
            ended.append(seat)
        else:
            why = f"{end.message} ({end.code})" if type(end) in (Closing, Error) else "the connection closed"
            stopped.append((seat, why))

    async with trio.open_nursery() as nursery:
        for index in range(seats):
            nursery.start_soon(one, index)
    return ended, missed, stopped
