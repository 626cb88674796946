"""The one random number generator of photofinish: SplitMix64, specified here so any language can redo it.

Why not ``random.Random``: its ``shuffle`` and ``randrange`` have changed between Python versions, and a log
must verify the same way on every machine and every version. This generator is plain 64-bit arithmetic:

- state: one unsigned 64-bit integer, first set to the seed (0 <= seed < 2**64);
- ``next_u64``: state += 0x9E3779B97F4A7C15; z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
  z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31 (all mod 2**64). Seed 0 gives 0xE220A8397B1DCDAF,
  0x6E789E6AA1B965F4, 0x06C45D188009454F (Vigna's published reference values);
- ``below(n)``: an unbiased integer in [0, n): draw x until x < n * floor(2**64 / n), return x mod n;
- ``shuffle(items)``: Fisher-Yates from the end: for i = len-1 down to 1, swap items[i] with items[below(i+1)].

The generator belongs to whoever drives a game (the arbiter, a replay, an offline match), never to a game
state: games receive chance outcomes as actions, so a log replays without it and verifies with it.
"""

from __future__ import annotations

import hashlib
from typing import MutableSequence, TypeVar

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

T = TypeVar("T")


class Rng:
    """SplitMix64 with unbiased bounded integers and a Fisher-Yates shuffle."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= MASK:
            raise ValueError(f"a seed is an integer from 0 to 2**64-1, not {seed!r}")
        self.state = seed

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, not {n}")
        limit = ((MASK + 1) // n) * n
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def choice(self, items: list[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self) -> "Rng":
        """A new generator seeded from this one's next output (for a bot's own randomness, say)."""
        return Rng(self.next_u64())


def derive(seed: int, label: str) -> int:
    """An independent 64-bit seed for one use of a secret ``seed`` (a table's server bots, its stand-ins):
    the first 8 bytes of sha256 over the label and the seed. Unlike ``seed ^ constant`` it gives nothing away:
    what a bot drawn from it does reveals nothing of the deck's seed."""
    digest = hashlib.sha256(b"photofinish " + label.encode() + b" " + (seed % 2**64).to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")
