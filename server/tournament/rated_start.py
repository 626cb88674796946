"""Round 1 of an event seeded by ratings, the director's side: each active player's rating read from the store
(by the skeleton of their name, as ``results.rate_once`` keeps them) and logged as ``ratings_seeded``
(``rated.py``) before the round is seated. Without a store everyone is unrated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..names import skeleton
from .rated import UNRATED, RatingsSeeded
from .store import Store

if TYPE_CHECKING:
    from .director import Director


async def log_ratings(d: Director) -> None:
    """Log the active players' ratings, once, before round 1 of a ratings-seeded event (a no-op otherwise)."""
    state = d.state
    if state.settings.seeding != "ratings" or state.round or state.seed_ratings is not None:
        return
    known = {}
    if d.store is not None:
        known = {r.player: r.ordinal for r in await d.store.call(Store.ratings, d.game.info.name)}
    ratings = {p: round(known.get(skeleton(state.names[p]), UNRATED), 6) for p in state.active()}
    await d.record(RatingsSeeded(ratings=ratings, time=d.now()))
