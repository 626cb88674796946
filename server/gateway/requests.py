"""Each request a connection reads, answered: its ids checked, its cost taken from the address's budget, then
by group: the lobby's (games, tables, playbacks, replays), a table's (sent to its arbiter), a tournament's (its
director). A table or tournament that is not on this server is found through the ``Directory``: a ``redirect``
to its node (never for an action: it never leaves its node), as is a replay or playback of a finished table whose
log is on another machine (``log_elsewhere``). Refusals are typed ``error``s; nothing changes.
"""

from __future__ import annotations

from functools import partial

import trio

from rules import RulesError

from ..logs import frames
from ..protocol.commandline import HUMAN_PACE_MS
from .. import heldends
from ..rematch import open_rematch, refuse_until_end_shown
from ..cluster.directory import Directory
from ..lobby import Lobby
from ..protocol import (Act, CheckIn, Code, CorrectResult, CreateTable, CreateTournament, Drop, Error, Games, Hello,
                        Leaderboard, Leave, ListGames, ListTables, ListTournaments, OpenPlayback, Pong, Ratings,
                        Redirect, Refusal, Register, Registered, Rematch, Replay, ReportResult, Resume,
                        SetReportedTables, SettleResult, StartTournament, TableCreated, Tables,
                        TakeSeat, TournamentCreated, TournamentLog, TournamentLogFile, Tournaments,
                        Watch, WatchTournament)
from ..lan import WILDCARDS
from ..limits import LOG_ID, check_ids
from ..protocol import (CancelTournament, Disqualify, EndRound, Penalise, Reenter, RepairRound, SwapPlayers,
                        UndoDrop)
from ..tournament import organiser, reported
from ..table import Table, intents
from .quotas import COSTS, UNIT_BYTES

ORGANISER_CALLS = {RepairRound, SwapPlayers, EndRound, CancelTournament, Penalise, Disqualify, UndoDrop, Reenter}
TOURNAMENT_CALLS = {CreateTournament, ListTournaments, Register, CheckIn, Drop, StartTournament, CorrectResult,
                    WatchTournament, Leaderboard, TournamentLog, ReportResult, SettleResult,
                    SetReportedTables, *ORGANISER_CALLS}


async def dispatch(conn, lobby: Lobby, directory: Directory, message, now: float) -> None:
    """Answer one decoded request from ``conn`` (a ``Connection``)."""
    kind = type(message)
    if kind is Pong:
        conn.latency.pong(message.ping, now)
        return
    try:
        check_ids(message)  # before anything looks an id up, or opens a file by it
        if kind is ListTables:
            return await list_tables(conn, lobby, directory, message, now)
        if kind in COSTS:
            extra = frames.log_units(lobby.data_dir, message) if kind is Replay or kind is OpenPlayback else 0
            conn.quotas.spend(conn.peer, COSTS[kind] + extra, now)
        if kind in TOURNAMENT_CALLS:
            return await tournament_call(conn, lobby.tournaments, directory, message)
        if kind is Hello:
            raise Refusal(Code.ALREADY_GREETED, "hello comes once, first")
        if kind is ListGames:
            conn.deliver(Games(ref=message.id, games=lobby.games(), human_pace_ms=dict(HUMAN_PACE_MS)))
        elif kind is CreateTable:
            table = await create_table(conn, lobby, directory, message)
            if table is not None:
                conn.deliver(TableCreated(ref=message.id, table=table.info(), broadcast_key=table.broadcast_key))
        elif kind is Rematch:
            await rematch(conn, lobby, directory, message)
        elif kind is OpenPlayback or kind is Replay:
            if (url := await log_elsewhere(lobby, directory, message.log)) is not None:
                return conn.deliver(Redirect(ref=message.id, url=reachable(url, conn.local), table=message.log))
            not_before_its_end_is_shown(lobby, message.log)
            if kind is OpenPlayback:
                table = await lobby.open_playback(message.log, message.speed, owner=conn.owner,
                                                  source=partial(conn.quotas.replays.run, frames.playback_source))
                return conn.deliver(TableCreated(ref=message.id, table=table.info()))
            # a replay is rebuilt in a worker process, never on the event loop's
            conn.deliver(await conn.quotas.replays.answer(lobby.data_dir, message))
        else:
            await table_call(conn, lobby, directory, message, now)
    except (RulesError, Refusal) as error:
        conn.deliver(Error(ref=message.id, code=error.code, message=error.message,
                           retry_ms=getattr(error, "retry_ms", None)))
    except RecursionError:  # never with frames --max-depth allows; a bug must not close the connection
        conn.deliver(Error(ref=message.id, code="malformed", message="the message nests too deep to handle"))


async def log_elsewhere(lobby: Lobby, directory: Directory, table_id: str) -> str | None:
    """The URL of the node whose machine keeps table ``table_id``'s log, when this machine does not (a cluster's
    nodes each keep their own data directory; the workers of one machine read each other's, ``find_table_log``):
    None when the log is here, or no other node has the table (then ``no_log``, as ever); ``table_unavailable``
    when its node is down. That node answers as for its own: a delayed table's end stays refused there."""
    if not table_id or not LOG_ID.fullmatch(table_id) or table_id in lobby.tables:
        return None
    if lobby.data_dir is not None and lobby.data_dir.find_table_log(table_id).exists():
        return None
    return await directory.locate("table", table_id)


def not_before_its_end_is_shown(lobby: Lobby, table_id: str) -> None:
    """A table with a broadcast delay is replayed (or played back) only once its spectators have been shown its
    end: a replay shows every seat's hand, and the last moves before the delay has passed."""
    table = lobby.tables.get(table_id) if table_id else None
    if table is not None:
        refuse_until_end_shown(table, "replay")
    heldends.refuse_unshown(lobby, table_id, "replay")  # one let go, or ended just before a restart
    heldends.refuse_unshown_elsewhere(lobby, table_id, "replay")  # one another worker of this machine holds


async def table_call(conn, lobby: Lobby, directory: Directory, message, now: float) -> None:
    """A seat, a resume, a watch, an action or a leave: to the table's arbiter, or a redirect to its node."""
    kind = type(message)
    try:
        table = lobby.find(message.table)
    except Refusal:
        followed = next((t for t in conn.tables if type(t) is not Table and t.serves(message.table)), None)
        if kind is Leave and followed is not None:  # a table watched here through the relay
            conn.tables.discard(followed)  # (a follower left behind would take this connection's next leave)
            return await followed.submit(intents.FOR_MESSAGE[kind](conn, message, now))
        if kind is Act or kind is Leave:  # an action never leaves its node
            raise
        if kind is Watch and not message.broadcast_key:  # served here: its node never sees this spectator
            follower = await directory.follow(message.table)
            if follower is not None:
                conn.tables.add(follower)
                return await follower.submit(intents.FOR_MESSAGE[kind](conn, message, now))
        url = await directory.locate("table", message.table)
        if url is None:
            raise
        return conn.deliver(Redirect(ref=message.id, url=reachable(url, conn.local), table=message.table))
    if kind is TakeSeat or kind is Resume:
        if not any(slot.receiver is conn for slot in table.slots):  # (its own seat again: answered as before)
            conn.quotas.check_seats(conn)
        conn.ping_now.set()  # the seat's round trip, measured as soon as it plays
    if kind is not Act:
        conn.tables.add(table)
    await table.submit(intents.FOR_MESSAGE[kind](conn, message, now))


def reachable(url: str, local: str) -> str:
    """A node's URL as a client can reach it: a node listening on every address (``--host 0.0.0.0``, as the
    workers of one machine do on a LAN) names its host by the address the client reached this one at."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.hostname not in WILDCARDS or not local:
        return url
    host = f"[{local}]" if ":" in local else local
    return parts._replace(netloc=f"{host}:{parts.port}" if parts.port else host).geturl()


async def list_tables(conn, lobby: Lobby, directory: Directory, message: ListTables, now: float) -> None:
    """The tables (a page of them), from the cached list; it costs one unit of the address's budget, and one
    more for each 64 KiB of the answer."""
    if message.offset < 0 or (message.limit is not None and not 1 <= message.limit <= 1000):
        raise Refusal(Code.BAD_PAGE, "a page of tables starts at offset 0 or more and holds 1..1000 tables")
    conn.quotas.spend(conn.peer, COSTS[ListTables], now)  # refused before the list is made
    tables, total = await conn.quotas.tables.page(lobby, directory, conn.codec.encoding, message.offset,
                                                  message.limit)
    if len(tables) >= UNIT_BYTES:
        conn.quotas.spend(conn.peer, len(tables) // UNIT_BYTES, now)
    conn.deliver(Tables(ref=message.id, tables=tables, total=total))


async def create_table(conn, lobby: Lobby, directory: Directory, message: CreateTable) -> Table | None:
    """Send the create to a less loaded node (``redirect``, answered here; None), or claim the new table's id
    for this server and open it, listed everywhere before it is answered."""
    if not message.placed and (url := directory.placement()) is not None:
        conn.deliver(Redirect(ref=message.id, url=reachable(url, conn.local)))
        return None
    lobby.check(message, conn.owner)  # a bad request claims nothing
    table_id = lobby.new_table_id()
    await directory.claim("table", table_id)
    try:
        table = await lobby.create(message, table_id=table_id, owner=conn.owner)
    except BaseException:
        with trio.CancelScope(shield=True):
            await directory.release("table", table_id)
        raise
    await directory.announce(table.info())  # listed everywhere once answered, even if this node dies
    return table


async def rematch(conn, lobby: Lobby, directory: Directory, message: Rematch) -> None:
    """The finished table's rematch (``server/rematch.py``), or a redirect to the node that holds that table."""
    try:
        lobby.find(message.table)
    except Refusal as error:
        url = await directory.locate("table", message.table) if error.code == Code.NO_TABLE else None
        if url is None:
            raise
        return conn.deliver(Redirect(ref=message.id, url=reachable(url, conn.local), table=message.table))
    table = await open_rematch(conn, lobby, directory, message, create_table)
    conn.deliver(TableCreated(ref=message.id, table=table.info()))


async def tournament_call(conn, hub, directory: Directory, message) -> None:
    """A tournament call: the director checks the secret or token and answers; refusals raise."""
    kind = type(message)
    if hub is None:
        raise Refusal(Code.NO_TOURNAMENTS, "this server runs no tournaments")
    conn.quotas.count(kind, conn.peer, trio.current_time())
    if kind is CreateTournament:
        if message.seed is not None:  # it decides every seating and lot: nobody may choose it
            raise Refusal(Code.BAD_SEED, "a tournament's seed is drawn by the server and committed to in "
                                         "its log (revealed at the end); no client chooses it")
        directory.require_online()  # tournaments open where they are asked for, while the directory is there
        director, secret = await hub.create(message)
        await directory.announce(director.info())
        return conn.deliver(TournamentCreated(ref=message.id, tournament=director.info(), secret=secret))
    if kind is ListTournaments:
        tournaments = await directory.list_tournaments(hub.list())
        return conn.deliver(Tournaments(ref=message.id, tournaments=tournaments))
    if kind is Leaderboard:
        rows = await hub.leaderboard(message.game, message.limit)
        return conn.deliver(Ratings(ref=message.id, game=message.game, ratings=rows))
    try:
        director = hub.find(message.tournament)
    except Refusal:
        url = await directory.locate("tournament", message.tournament)
        if url is None:
            raise
        return conn.deliver(Redirect(ref=message.id, url=reachable(url, conn.local), tournament=message.tournament))
    if kind is Register:
        player, token = await director.register(message.name, conn.owner)
        waitlist = director.state.waitlist
        return conn.deliver(Registered(ref=message.id, tournament=director.id, player=player,
                                       name=director.state.names[player], token=token,
                                       receipt=director.receipts.get(player), waitlisted=player in waitlist,
                                       waitlist_position=waitlist.index(player) + 1 if player in waitlist else 0))
    if kind is TournamentLog:
        text, lines, head = await director.log_text()
        return conn.deliver(TournamentLogFile(ref=message.id, tournament=director.id, log=text, lines=lines,
                                              head=head))
    if kind is WatchTournament:
        director.watch(conn, message.token, message.id)
        conn.tournaments.add(director)
        return
    if kind is CheckIn:
        await director.check_in(message.token)
    elif kind is Drop:
        await director.drop(message.token, message.secret, message.player)
    elif kind is StartTournament:
        await director.start(message.secret, message.next_round)
    elif kind is CorrectResult:
        await director.correct(message.secret, message.table, message.places, message.reason)
    elif kind is ReportResult:  # a table played off the server (``tournament/reported.py``)
        await reported.report(director, message.token, message.table, message.places)
    elif kind is SettleResult:
        await reported.settle(director, message.secret, message.table, message.places, message.reason)
    elif kind is SetReportedTables:
        await reported.set_count(director, message.secret, message.tables)
    elif kind is Reenter:  # the organiser's actions (server/tournament/organiser.py)
        player, token = await organiser.reenter(director, message.secret, message.player, message.reason)
        return conn.deliver(Registered(ref=message.id, tournament=director.id, player=player,
                                       name=director.state.names[player], token=token))
    elif kind in ORGANISER_CALLS:
        await organiser.handle(director, message)
    conn.deliver(director.snapshot(message.id))
