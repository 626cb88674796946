"""Wake-ups between the processes of one machine: what tells a subscriber of the SQLite presence store
(``server/cluster/sqlite_presence.py``, `serve --workers`) that a message was published on its channel, so that it
reads it at once instead of at its next poll.

Each process binds one Unix datagram socket in Linux's abstract namespace (no file to create or clean up; gone
with the process), named ``photofinish-wake-`` and a random token. A publisher sends each subscriber's socket
the channel's name in one datagram, never waiting: a socket whose queue is full is skipped (its owner has
wake-ups queued and reads the store when it gets to them), and one whose process is gone is reported back
(``wake`` returns it) so the store forgets it. A wake-up carries nothing but the channel's name and is only a
hint: the subscriber still reads the store, and still polls it now and then, so a lost, spurious or forged
wake-up costs at most a read. Where no such socket can be bound (not Linux), ``open_waker`` gives None and
subscribers poll as before.
"""

from __future__ import annotations

import secrets
import socket
from contextlib import asynccontextmanager
from typing import AsyncIterator, Iterable

import trio

PREFIX = "\0photofinish-wake-"
DATAGRAM_MOST = 512  # a channel's name, in UTF-8


class Waker:
    """This process's wake-up socket: ``address`` for the store, ``arm``/``wait`` for its subscribers, ``wake``
    for its publishers."""

    def __init__(self, receiving: trio.socket.SocketType, sending: socket.socket, address: str) -> None:
        self.address = address
        self._receiving = receiving
        self._sending = sending
        self._armed: dict[str, set[trio.Event]] = {}

    def arm(self, channel: str) -> trio.Event:
        """An event the next wake-up for ``channel`` sets. Arm it before reading the store: a wake-up that comes
        during the read then still counts. ``wait`` on it, which also forgets it."""
        event = trio.Event()
        self._armed.setdefault(channel, set()).add(event)
        return event

    async def wait(self, channel: str, armed: trio.Event, timeout: float) -> None:
        """Until ``armed`` is set or ``timeout`` seconds have passed."""
        try:
            with trio.move_on_after(timeout):
                await armed.wait()
        finally:
            waiting = self._armed.get(channel)
            if waiting is not None:
                waiting.discard(armed)
                if not waiting:
                    del self._armed[channel]

    def wake(self, addresses: Iterable[str], channel: str) -> list[str]:
        """Tell each of ``addresses`` that ``channel`` has news, never waiting; the addresses no process holds
        any more (for the store to forget)."""
        datagram = channel.encode()
        gone = []
        for address in addresses:
            try:
                self._sending.sendto(datagram, address)
            except (ConnectionRefusedError, FileNotFoundError):
                gone.append(address)
            except OSError:  # its queue is full (it has wake-ups to read), or anything else: only a hint lost
                pass
        return gone

    async def receive(self) -> None:
        """Set the events armed for each channel a wake-up names, for as long as the process runs."""
        while True:
            datagram = await self._receiving.recv(DATAGRAM_MOST)
            waiting = self._armed.pop(datagram.decode(errors="replace"), None)
            for event in waiting or ():
                event.set()


@asynccontextmanager
async def open_waker() -> AsyncIterator[Waker | None]:
    """This process's waker for the life of the block, receiving in a task of its own; None where an abstract
    Unix socket cannot be bound (subscribers then poll)."""
    address = PREFIX + secrets.token_hex(8)
    receiving = sending = None
    try:
        receiving = trio.socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        await receiving.bind(address)
        sending = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    except (OSError, AttributeError):  # (no AF_UNIX at all, or no abstract namespace)
        if receiving is not None:
            receiving.close()
        receiving = None
    if receiving is None or sending is None:
        yield None
        return
    sending.setblocking(False)
    waker = Waker(receiving, sending, address)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(waker.receive)
            try:
                yield waker
            finally:
                nursery.cancel_scope.cancel()
    finally:
        receiving.close()
        sending.close()
