"""The game registry: every game photofinish serves, by name.

A new game registers by adding its ``GAME`` here; the server, the bots and the contract tests find it
through ``GAMES`` and need no other change.
"""

from __future__ import annotations

from .checkered_flag import GAME as CHECKERED_FLAG
from .contract import Game, RulesError
from .finish_line import GAME as FINISH_LINE
from .flag_finish import GAME as FLAG_FINISH
from .flush import GAME as FLUSH
from .race_to_the_finish import GAME as RACE_TO_THE_FINISH

GAMES: dict[str, Game] = {game.info.name: game for game in (FLAG_FINISH, FLUSH, RACE_TO_THE_FINISH, CHECKERED_FLAG, FINISH_LINE)}


def get_game(name: str) -> Game:
    """The game called ``name``, or a ``RulesError`` listing the games there are."""
    try:
        return GAMES[name]
    except KeyError:
        raise RulesError("unknown_game", f"no game {name!r} (games: {', '.join(sorted(GAMES))})") from None
