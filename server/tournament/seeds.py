"""How a tournament's seed is split into independent seeds, one per use, by the format of its log. Pure.

Labels: ``LOT`` (0) for the standings' last tiebreak (each player's lot), ``r`` (1, 2, ...) for round r's
seating (an arena's label is the number of the round it seats). Each use draws from ``rules.Rng`` seeded with
``derive(seed, label)``, where ``derive`` is the log's (``for_format``):

- format 3 on: ``hashed``, ``rules.rng.derive(seed, "tournament lot")`` / ``"tournament round <r>"``, the
  sha256 derivation tables use for their bots: what one round's draw shows gives nothing of another's, nor of
  the seed;
- formats 1 and 2: ``xor_mixed``, the first SplitMix64 output of ``seed XOR (label * 0xD1B54A32D192ED03 mod
  2**64)``. Frozen: those logs were seated with it, so they still reopen and verify with it.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from rules.rng import MASK, Rng, derive

LOT = 0  # the label of the standings' lot; round r's seating uses label r (r >= 1)
HASHED_FROM = 3  # the first log format whose seeds are derived by hashing

Derive = Callable[[int, int], int]

_LABEL_MIX = 0xD1B54A32D192ED03


def hashed(seed: int, label: int) -> int:
    """Format 3 on: sha256 over the label's words and the seed (``rules.rng.derive``)."""
    return derive(seed, "tournament lot" if label == LOT else f"tournament round {label}")


def xor_mixed(seed: int, label: int) -> int:
    """Formats 1 and 2 (frozen): ``Rng(seed ^ (label * 0xD1B54A32D192ED03 mod 2**64)).next_u64()``."""
    return Rng(seed ^ ((label * _LABEL_MIX) & MASK)).next_u64()


def for_format(format: int) -> Derive:
    """The derivation a log of ``format`` was written with."""
    return hashed if format >= HASHED_FROM else xor_mixed


def lots(players: Sequence[str], seed: int, derive: Derive = hashed) -> Mapping[str, int]:
    """Each player's lot (lower draws first): the i-th output of ``Rng(derive(seed, LOT))`` for the i-th player
    registered, so a late entry never changes anyone else's lot."""
    rng = Rng(derive(seed, LOT))
    return {player: rng.next_u64() for player in players}
