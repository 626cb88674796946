"""What reaches a table's arbiter: one small frozen type per kind of intent, matched on type.

Everything that touches a table (a client's message, a disconnect, a tournament's halt, a playback's next
entry, the log failing, a stop) is one of these, queued on the table's one channel: the order of the log is
the order of that channel. A client's intent carries the connection it came from (``receiver``), the
message, and when it was received (table code stamps ``received`` if the sender did not).
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from ..protocol import Act as ActMessage
from ..protocol import Leave as LeaveMessage
from ..protocol import Resume as ResumeMessage
from ..protocol import TakeSeat as TakeSeatMessage
from ..protocol import Watch as WatchMessage


class Act(msgspec.Struct, frozen=True):
    """A seat's action."""

    receiver: Any
    message: ActMessage
    received: float = 0.0


class TakeSeat(msgspec.Struct, frozen=True):
    receiver: Any
    message: TakeSeatMessage
    received: float = 0.0


class Resume(msgspec.Struct, frozen=True):
    """A player back with their seat's token."""

    receiver: Any
    message: ResumeMessage
    received: float = 0.0


class Watch(msgspec.Struct, frozen=True):
    receiver: Any
    message: WatchMessage
    received: float = 0.0


class Leave(msgspec.Struct, frozen=True):
    receiver: Any
    message: LeaveMessage | WatchMessage
    received: float = 0.0


class Disconnect(msgspec.Struct, frozen=True):
    """The connection is gone: its seat is away (its grace runs), it watches no more."""

    receiver: Any
    received: float = 0.0


class Halt(msgspec.Struct, frozen=True):
    """End the table before the game's own end (a tournament round's time ran out)."""

    reason: str
    received: float = 0.0


class Replay(msgspec.Struct, frozen=True):
    """A playback's next entry of a finished log."""

    entry: Any
    received: float = 0.0


class LogFailed(msgspec.Struct, frozen=True):
    """The log's sync failed: the table stops (raised inside the arbiter)."""

    error: OSError
    received: float = 0.0


class Offer(msgspec.Struct, frozen=True):
    """A finished table's rematch is open (``server/rematch.py``): its seats and spectators are told."""

    message: Any  # the ``RematchOffered`` to send them
    received: float = 0.0


class Lagged(msgspec.Struct, frozen=True):
    """A spectator fell behind while the gateway's ``Spread`` handed it a job (``crowdjobs.py``), outside the
    arbiter's task: the arbiter wakes to count its snapshot's offer among its clocks."""

    received: float = 0.0


class Recounted(msgspec.Struct, frozen=True):
    """Other nodes' spectators of the table changed in number (the relay's heartbeat, outside the arbiter's task):
    the arbiter wakes, and its batch's end tells its people (``fanout.presence``) even where nothing else happens."""

    received: float = 0.0


class Stop(msgspec.Struct, frozen=True):
    """Stop the arbiter (held actions are applied and answered first)."""

    received: float = 0.0


Intent = Union[Act, TakeSeat, Resume, Watch, Leave, Disconnect, Halt, Replay, LogFailed, Offer, Lagged, Recounted,
               Stop]
FROM_CLIENT = (Act, TakeSeat, Resume, Watch, Leave)  # the intents that carry a client's message

FOR_MESSAGE = {ActMessage: Act, TakeSeatMessage: TakeSeat, ResumeMessage: Resume, WatchMessage: Watch,
               LeaveMessage: Leave}  # a client's table message -> its intent (the gateway's dispatch)


def stamped(intent: Intent, now: float) -> Intent:
    """``intent`` with its receive time, if it had none."""
    return intent if intent.received else msgspec.structs.replace(intent, received=now)
