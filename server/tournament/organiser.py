"""The organiser's actions, the director's side: each one checked (the organiser's secret, a reason, the event
not over), logged as its record (``actions.py``) through ``Director.record`` (which folds it by ``fixes.py``
first: an action that cannot apply is refused there and nothing changes), mirrored in the store, pushed to the
watchers, and then carried out on the tables: a round begun opens its tables, a round ended or an event
cancelled halts the tables still playing here (placed as they stand, as ``clocks.halt`` does for a round's time).

``handle`` maps a protocol message (``server/protocol/tournament_actions.py``) to its action; ``reenter``
returns the new entry's id and token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
import trio

from ..protocol import (CancelTournament, Code, Disqualify, EndRound, Penalise, Reenter, Refusal, RepairRound,
                        SwapPlayers, UndoDrop)
from ..names import PERSON_MOST, skeleton
from ..secrets_typed import new_secret
from ..table import token_hash
from . import clocks, fixes, opening
from .actions import (ActionTable, Disqualified, Penalised, Reentered, Repaired, RoundBegun, RoundEnded, Swapped,
                      Undropped)
from .store import Store
from .tlog import SeatedTable

if TYPE_CHECKING:
    from .director import Director


def _reason(reason: str) -> str:
    if not reason.strip():
        raise Refusal(Code.NO_REASON, "an organiser's action needs a reason: it is kept in the tournament's log")
    return reason.strip()


def _player(d: Director, player: str) -> str:
    """A player named by id (T1p3) or by name (as registration compares names)."""
    if player in d.state.names:
        return player
    found = [p for p, name in d.state.names.items() if skeleton(name) == skeleton(player)]
    if not found:
        raise Refusal(Code.UNKNOWN_PLAYER, f"{player!r} is not registered in {d.id}")
    return found[0]


async def handle(d: Director, message: Any) -> None:
    """Carry out one organiser message (not ``reenter``, which answers with the new entry)."""
    match message:
        case RepairRound():
            await repair(d, message.secret, [tuple(pair) for pair in message.exclude], message.reason)
        case SwapPlayers():
            if len(message.players) != 2:
                raise Refusal(Code.SAME_TABLE, "a swap names two players")
            await swap(d, message.secret, *message.players, message.reason)
        case EndRound():
            await end_round(d, message.secret, message.reason)
        case CancelTournament():
            await cancel(d, message.secret, message.reason)
        case Penalise():
            await penalise(d, message.secret, message.player, message.reason, message.points, message.table)
        case Disqualify():
            await disqualify(d, message.secret, message.player, message.reason)
        case UndoDrop():
            await undrop(d, message.secret, message.player, message.reason)
        case Reenter():
            await reenter(d, message.secret, message.player, message.reason)


async def begin(d: Director) -> None:
    """The round waiting (``pairings_first``) begins: logged, then its tables open (under the lock)."""
    round_no = d.state.org.held
    await d.record(RoundBegun(round=round_no, time=d.now()))
    tables = [SeatedTable(table=t, players=p) for t, (r, p) in d.state.tables.items() if r == round_no]
    await opening.open_seated(d, round_no, tables)


async def repair(d: Director, secret: str, exclude: list[tuple[str, ...]], reason: str) -> None:
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        state = d.state
        fixes.check_waiting(state, state.round)
        if any(len(pair) != 2 for pair in exclude):
            raise Refusal(Code.BAD_EXCLUDE, "each excluded pair names two players")
        pairs = tuple((_player(d, a), _player(d, b)) for a, b in exclude)
        fixes.check_pairs(state, pairs)
        seating = fixes.repair_seating(state, pairs)
        old = [t for t, (r, _) in state.tables.items() if r == state.round]
        ids = old[:len(seating.tables)] + [d.hub.lobby.new_table_id() for _ in range(len(seating.tables) - len(old))]
        await d.record(Repaired(round=state.round, tables=tuple(ActionTable(table=t, players=p)
                                                                 for t, p in zip(ids, seating.tables)),
                                byes=seating.byes, exclude=pairs, reason=reason, time=d.now()))
        await d.mirror(reseat_rows, d.id, state.round, {t: p for t, (r, p) in state.tables.items()
                                                        if r == state.round}, state.seatings[-1].byes)
        d.push()


async def swap(d: Director, secret: str, a: str, b: str, reason: str) -> None:
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        state = d.state
        pair = (_player(d, a), _player(d, b))
        await d.record(Swapped(round=state.round, players=pair, reason=reason, time=d.now()))
        await d.mirror(reseat_rows, d.id, state.round, {t: p for t, (r, p) in state.tables.items()
                                                        if r == state.round}, state.seatings[-1].byes)
        d.push()


async def end_round(d: Director, secret: str, reason: str) -> None:
    """End the current round now: logged, then its tables still playing halt; their results advance the event."""
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        round_no = d.state.round
        if d.ending == round_no:  # its tables are being stopped: until their results are in they look unfinished
            raise Refusal(Code.NO_ROUND_PLAYING, f"round {round_no} is ending already: its tables are being "
                                                 "stopped (a table played with cards ends with its report)")
        playing = [t for t in d.state.unfinished() if d.state.tables[t][0] == round_no]
        await d.record(RoundEnded(round=round_no, tables=tuple(playing), reason=reason, time=d.now()))
        d.ending = round_no
        d.push()
    await clocks.halt(d, playing)
    with trio.move_on_after(clocks.results_wait(d)):  # logged by their own tasks: answer once they are in
        while any(t not in d.state.results for t in playing if t in d.tables) and d.state.ended is None \
                and d.failed is None:
            changed = d._changed
            await changed.wait()


async def cancel(d: Director, secret: str, reason: str) -> None:
    """Cancel the event: ``ended`` (reason ``cancelled``, the seed revealed, the standings as they are), then
    the tables still playing here are halted (nothing is logged after the end)."""
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        playing = d.state.unfinished()
        await d.end("cancelled", reason)
    await clocks.halt(d, playing)


async def penalise(d: Director, secret: str, player: str, reason: str, points: float, table: str) -> None:
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        player = _player(d, player)
        await d.record(Penalised(player=player, reason=reason, points=points, table=table, time=d.now()))
        if table:
            fix = d.state.corrections[-1]
            await d.mirror(Store.correct_result, d.id, table, fix.places, fix.scores, reason)
        d.push()


async def disqualify(d: Director, secret: str, player: str, reason: str) -> None:
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        player = _player(d, player)
        await d.record(Disqualified(player=player, reason=reason, time=d.now()))
        await d.mirror(Store.drop, d.id, player)
        d.push()
        await d.advance()


async def undrop(d: Director, secret: str, player: str, reason: str) -> None:
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        player = _player(d, player)
        await d.record(Undropped(player=player, reason=reason, time=d.now()))
        await d.mirror(undrop_row, d.id, player)
        d.push()
        await d._arena_seat()  # an arena seats them as soon as a table can be made (``arena.after``)


async def reenter(d: Director, secret: str, player: str, reason: str) -> tuple[str, str]:
    """A dropped player's new entry (settings ``reentry``): its id and secret token."""
    d._organiser(secret)
    reason = _reason(reason)
    async with d.lock:
        d._not_over()
        entry = _player(d, player)
        base = d.state.names[entry].rsplit(" #", 1)[0]
        taken = {skeleton(name) for name in d.state.names.values()}
        name = next(f"{base[:PERSON_MOST - len(f' #{n}')]} #{n}" for n in range(2, 10_000)
                    if skeleton(f"{base[:PERSON_MOST - len(f' #{n}')]} #{n}") not in taken)
        new = f"{d.id}p{len(d.state.players) + 1}"
        token = new_secret(18)
        await d.record(Reentered(player=new, entry=entry, name=name, reason=reason, token=token_hash(token),
                                 time=d.now()))
        d.tokens[token_hash(token)] = new
        await d.mirror(Store.add_player, new, name, token_hash(token))
        await d.mirror(Store.register, d.id, new)
        d.push()
        await d._arena_seat()
    return new, token


def reseat_rows(store: Store, tournament: str, round_no: int, tables: dict[str, tuple[str, ...]],
                byes: tuple[str, ...]) -> None:
    """The store's copy of a re-seated round (run on the store's worker, as a ``Store`` method is)."""
    store._write(Code.BAD_ROUND, f"round {round_no} of {tournament!r} cannot be stored again", [
        ("DELETE FROM seatings WHERE tournament = ? AND round = ?", (tournament, round_no)),
        ("DELETE FROM rounds WHERE tournament = ? AND round = ?", (tournament, round_no))])
    store.add_round(tournament, round_no, tables, byes)


def mirror_actions(store: Store, tournament: str, state: Any) -> None:
    """After ``Store.mirror`` at a start: what the organiser's actions changed, as the folded log leaves it (the
    store's ``mirror`` knows the records before them): re-seated rounds, re-entries (their players and entries, in
    registration order), drops undone and disqualifications, and the places of tables given a game loss."""
    history = [record for _, record in state.org.history]
    for round_no in sorted({r.round for r in history if type(r) in (Repaired, Swapped)}):
        tables = {t: p for t, (r, p) in state.tables.items() if r == round_no}
        reseat_rows(store, tournament, round_no, tables, state.seatings[round_no - 1].byes)
    rows = [("INSERT OR REPLACE INTO players VALUES (?, ?, ?)", (r.player, r.name, r.token))
            for r in history if type(r) is Reentered]
    rows += [("INSERT OR IGNORE INTO entries (tournament, player, position) VALUES (?, ?, ?)",
              (tournament, r.player, 0)) for r in history if type(r) is Reentered]
    rows += [("UPDATE entries SET position = ?, dropped = ? WHERE tournament = ? AND player = ?",
              (i, int(p in state.dropped), tournament, p)) for i, p in enumerate(state.players)]
    lost = {r.table for r in history if type(r) is Penalised and r.table}
    last = {c.table: c for c in state.corrections if c.table in lost}
    rows += [("UPDATE results SET places = ?, corrected = ? WHERE tournament = ? AND table_id = ?",
              (_json(list(fix.places)), "game loss", tournament, table)) for table, fix in last.items()]
    store._write(Code.BAD_RECORD, f"the organiser's actions in {tournament!r} cannot be stored", rows)


def undrop_row(store: Store, tournament: str, player: str) -> None:
    store._write(Code.UNKNOWN_PLAYER, f"{player!r} is not registered in {tournament!r}", [
        ("UPDATE entries SET dropped = 0 WHERE tournament = ? AND player = ?", (tournament, player))])


def _json(value: Any) -> bytes:
    return msgspec.json.encode(value)
