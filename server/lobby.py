"""The lobby: the games on offer and the tables that exist, and where a new table's arbiter is started.

It checks a table request against the rules (game, mode, seats, options, bot seats) before any task starts,
so a bad request is a typed error and leaves nothing half-made.
"""

from __future__ import annotations

import secrets

import trio

from clients.bots import get_policy
from rules import GAMES, RulesError, get_game, make_setup

from .protocol import CreateTable, GameSummary, TableInfo, game_summary
from .table import Table

MAX_TABLES = 2000


class Lobby:
    def __init__(self, nursery: trio.Nursery) -> None:
        self.nursery = nursery
        self.tables: dict[str, Table] = {}
        self.aliases: dict[str, str] = {}
        self._next = 0

    def games(self) -> list[GameSummary]:
        return [game_summary(game.info) for game in GAMES.values()]

    def find(self, table_id: str) -> Table:
        table = self.tables.get(self.aliases.get(table_id, table_id))
        if table is None:
            raise RulesError("no_table", f"no table {table_id!r}")
        return table

    def list(self) -> list[TableInfo]:
        return [table.info() for table in self.tables.values()]

    def check(self, request: CreateTable) -> tuple:
        """The game and checked set-up for a request, or ``RulesError`` saying what is wrong with it."""
        if len(self.tables) >= MAX_TABLES:
            raise RulesError("too_many_tables", f"this server holds at most {MAX_TABLES} tables")
        game = get_game(request.game)
        setup = make_setup(game.info, request.seats, request.mode, request.options)
        seats = [bot.seat for bot in request.bots]
        if len(set(seats)) != len(seats) or any(not 0 <= s < request.seats for s in seats):
            raise RulesError("bad_bots", f"bot seats must be distinct seats 0-{request.seats - 1}")
        for bot in request.bots:
            get_policy(game.info.name, bot.policy)
        for name, value, low, high in (("turn_time_ms", request.turn_time_ms, 0, 3_600_000),
                                       ("grace_ms", request.grace_ms, 0, 86_400_000),
                                       ("bot_delay_ms", request.bot_delay_ms, 0, 60_000)):
            if not low <= value <= high:
                raise RulesError("bad_option", f"{name} is {low}..{high}, not {value}")
        if request.seed is not None and not 0 <= request.seed < 2**64:
            raise RulesError("bad_seed", "a seed is an integer from 0 to 2**64-1")
        return game, setup

    async def create(self, request: CreateTable, alias: str | None = None) -> Table:
        game, setup = self.check(request)
        self._next += 1
        table_id = f"t{self._next}"
        seed = request.seed if request.seed is not None else secrets.randbits(64)
        table = Table(table_id, game, setup, seed, name=request.name, bots=list(request.bots),
                      turn_time_ms=request.turn_time_ms, grace_ms=request.grace_ms,
                      bot_delay_ms=request.bot_delay_ms)
        await self.nursery.start(table.run)
        self.tables[table_id] = table
        if alias:
            self.aliases[alias] = table_id
        return table

    async def stop_all(self) -> None:
        for table in list(self.tables.values()):
            await table.stop()
