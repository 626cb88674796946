"""The data directory's free space, and the floor below which no new table or tournament is opened.

A full disk fails every table's next log write at once (``storage_failed``): the games in play stop until room is
made. So room is kept for them: while the data directory's file system has less than ``--min-free-mb`` free, a
new table (``create_table``, quick play, a rematch) and a new tournament are refused ``disk_low`` and nothing is
written, while the tables and tournaments already open go on (a tournament's next rounds too: its players are in
the middle of it, and a round's tables are a few kilobytes each) and a seat may still be taken. The free space is
read (one ``statvfs``) at most once a second on the trio clock, so a flood of creates costs no more system calls
than one; the server's log says when it went below the floor and when it came back above it.

Tables played by server bots alone write as fast as their bots act (sixteen with no pause between actions wrote
2.5 MB a second for a red team, and a client may keep opening them), so refusing new ones is not enough: every
``WATCH_EVERY`` seconds ``watch`` reads the free space, and below the floor ends each table played by server
bots alone as it stands (``table_ended`` ``disk_low``, logged and replayed like any halt), leaving the room to the
games people play. A tournament's tables go on, but while the disk is low their stand-ins (bots playing absent
players' seats) act at a person's pace (``table/bots.py``): an arena of absent players wrote 1.6 MB a second.
"""

from __future__ import annotations

import logging
import math
import shutil
from pathlib import Path
from typing import Callable

import trio

from .protocol import Code, Refusal

logger = logging.getLogger(__name__)

MB = 1024 * 1024
CHECK_EVERY = 1.0  # seconds between two reads of the free space
WATCH_EVERY = 10.0  # seconds between two looks for tables of bots alone to end while the disk is low


def free_bytes(path: Path) -> int:
    return shutil.disk_usage(path).free


class DiskRoom:
    """``check()`` refuses (``disk_low``) while the file system of ``path`` has less than ``floor_mb`` free (0: no
    floor). ``read``: the free bytes of a path (default ``free_bytes``, looked up at each read: the seam a test
    replaces)."""

    def __init__(self, path: Path, floor_mb: int, read: Callable[[Path], int] | None = None) -> None:
        self.path, self.floor_mb, self.read = path, floor_mb, read
        self.free: int | None = None  # bytes free at the last read (None: not read, or it could not be)
        self.low = False
        self._read_at = -math.inf

    def check(self) -> None:
        if not self.floor_mb:
            return
        now = trio.current_time()
        if now - self._read_at >= CHECK_EVERY:
            self._read_at = now
            try:
                self.free = (self.read or free_bytes)(self.path)
            except OSError:  # cannot tell: a failing write is the storage watch's (``storage.py``)
                self.free = None
            low = self.free is not None and self.free < self.floor_mb * MB
            if low != self.low:
                said = (f"{self.free // MB} MB free in {self.path}, less than --min-free-mb {self.floor_mb}: "
                        "no new tables or tournaments until there is room" if low else
                        f"{self.free // MB} MB free in {self.path} again: new tables and tournaments are taken")
                (logger.warning if low else logger.info)(said)
            self.low = low
        if self.low:
            raise Refusal(Code.DISK_LOW, f"no new tables or tournaments for now: the server's disk has "
                                         f"{self.free // MB} MB free, less than the {self.floor_mb} MB it keeps for "
                                         "the games in play; the tables already open go on")


def bots_alone(table) -> bool:
    """A table in play whose every seat is a server bot (a tournament's have people, or stand-ins for them)."""
    return (table.started and not table.is_over() and not table.read_only
            and len(table.bot_seats) == len(table.slots))


async def watch(lobby) -> None:
    """While the server runs (with a floor): below it, every table played by server bots alone is ended as it
    stands (``disk_low``), checked every ``WATCH_EVERY`` seconds."""
    while True:
        await trio.sleep(WATCH_EVERY)
        try:
            lobby.disk.check()
        except Refusal:
            ended = [table for table in list(lobby.tables.values()) if bots_alone(table)]
            for table in ended:
                await table.halt("disk_low")
            if ended:
                logger.warning(f"ended {len(ended)} table(s) played by server bots alone, the disk being low: "
                               + ", ".join(table.id for table in ended))
