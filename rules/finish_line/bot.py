"""The Finish Line heuristic: scores each legal die move by the cards it gains, a marker brought home, landing
on a special card (a chance to activate), on opposing markers off a safety (an attack) or on a safety, and
by the risk of ending where an opponent could land; a queen brings the hindmost marker, a jack pulls the
leading opponent's.

A pure, deterministic policy over the seat's view (the whole board: nothing is hidden).
"""

from __future__ import annotations

from typing import Any

from rules import Rng
from rules.finish_line.game import FINISH, JOKERS, MoveMarker, rank, walk

SPECIAL_BONUS = {"A": 2.5, "2": 1.0, "K": 2.0, "Q": 1.5, "J": 1.5}


def choose(view: Any, legal: list, rng: Rng) -> Any:
    if type(legal[0]) is not MoveMarker:  # Pick: a queen or a jack
        if legal[0].seat == view.seat:
            return min(legal, key=lambda a: view.markers[a.seat][a.marker])
        return max(legal, key=lambda a: (sum(view.markers[a.seat]), -a.seat))
    return max(legal, key=lambda action: _score(view, action))


def _safe(view: Any, index: int) -> bool:
    return index == 0 or index in view.wings or view.board[index] in JOKERS


def _score(view: Any, action: MoveMarker) -> float:
    me = view.seat
    start = view.markers[me][action.marker]
    end = walk(view.board, start, view.dice[0] if action.die == "red" else view.dice[1], view.stop)
    score = float(end - start)
    if end == FINISH:
        return score + 20
    card = view.board[end]
    score += SPECIAL_BONUS.get(rank(card) or "", 0.0)
    opponents = [p for s, markers in enumerate(view.markers) if s != me for p in markers if p < FINISH]
    if not _safe(view, end):
        if end in opponents:
            score += 3.0  # an attack (5 in 6 hit)
        threats = sum(1 for p in opponents if 0 < end - p <= 12)
        score -= 0.6 * threats
    else:
        score += 1.5
    if _safe(view, start) and start:
        score -= 0.5  # leaving a safety
    return score - 0.05 * start  # move the hindmost markers when all else is equal
