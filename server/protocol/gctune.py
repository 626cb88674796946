"""Garbage-collector settings for a long-running process with a large live heap (`serve`, `load`, the bench).

CPython's defaults (a young collection every 700 net new container objects) suit short scripts. A server with
hundreds of connections keeps about 200 tracked objects alive per connection (trio tasks, cancel scopes,
trio-websocket's state), and messages in flight at each young collection get promoted and count towards the
next full collection, which then walks every one of those objects: at 500 tables, full collections of
~120 ms took a fifth of the server's time. Most of what the server makes dies by reference counting, so the
young generation only fills when the heap really grows; a threshold of 50,000 makes collections rare while
still reclaiming reference cycles (a few MB of them at most wait for a collection).
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 10, 10)  # young generation, then (as CPython's defaults) 10 of each to the next


def settle_gc() -> None:
    """Call once the process has built what it keeps for good: that is frozen (never scanned again), and
    later collections run at ``THRESHOLDS``."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
