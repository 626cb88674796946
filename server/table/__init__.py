"""A table: one game's arbiter and everything it does, one job per module.

- ``arbiter``: the ``Table`` and its loop (next intent, handle it, send what it caused).
- ``intents``: what reaches the arbiter, one frozen type per kind.
- ``settings``: ``TableSettings``, a table's set-up in one frozen value.
- ``seats``: a seat's slot, its states and the moves allowed between them; ``seating``: taking, resuming,
  watching, leaving.
- ``apply``: a seat's action applied (or refused) and recorded to the log; ``fair``: fair ordering's hold and
  release of contested actions; ``timers``: the window, turn, grace and expiry clocks, halting.
- ``fanout``: everything sent (updates, snapshots, catch-up); ``durable``: the durability gate and the log's end.
- ``bots``: the server's own bot seats and stand-ins; ``receiver``: what a table needs from a connection.
- ``restore``: a table reopened from its log; ``playback``: a finished log played back.
"""

from . import intents
from .arbiter import Outcome, Table
from .bots import LocalBot
from .receiver import Receiver
from .seats import Reservation, SeatState, token_hash
from .settings import TableSettings

__all__ = ["Table", "Outcome", "TableSettings", "Receiver", "LocalBot", "Reservation", "SeatState", "intents",
           "token_hash"]
