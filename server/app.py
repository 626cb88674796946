"""The server as a whole: a lobby, a websocket gateway, the optional demo tables, and a clean shutdown.

``serve_until_signal(config)`` is what `photofinish serve` runs (through ``server/commands/``), with one
``ServeConfig``; ``start_server`` starts the same server in a nursery (``run_server``: the settings as keywords,
as the tests start it on port 0). What the server does is logged (``server/notices.py``); the lines `serve`
prints once it listens (the URL, the limits, the hints) are the command's own output, on stdout.
"""

from __future__ import annotations

import logging
import signal
from dataclasses import dataclass, field
from pathlib import Path

import trio

from rules import RulesError

from . import diskroom
from .datalock import data_dir_lock
from .logs.disk import private_dir
from .gateway import Gateway, Limits
from .protocol.gctune import settle_gc
from .protocol.commandline import human_pace_ms
from .http import CLUSTER_CONNECT_SRC, load_site
from .lan import WILDCARDS, join_urls
from .cluster.node import Cluster
from .config import ServeConfig
from .cluster.directory import Directory, LocalDirectory
from .cluster.nodeid import node_id
from .limits import raise_file_limit
from .lobby import Lobby
from .quotas import Quotas
from .cluster.presence import Presence
from .protocol import BotSeat, CreateTable, Refusal
from .tournament.hub import TournamentHub

logger = logging.getLogger(__name__)

SQLITE_SCHEME = "sqlite:"  # `--cluster sqlite:PATH`: a cluster of this machine's processes (server/workers.py)
DEMO_ALIAS = "demo"
OPEN_ALIAS = "open"


@dataclass(frozen=True)
class ClusterConfig:
    """How a server joins a cluster (`serve --cluster`): the shared ``presence``, the URL clients are sent
    to for this node's tables, and the heartbeat (seconds between beats, and after which a silent node is
    taken for dead); a node dead for ``forget_after`` seconds more is forgotten: its tables leave the lists."""

    presence: Presence
    public_url: str | None = None  # None: ws://HOST:PORT as it listens (tests on loopback)
    heartbeat: float = 1.0
    expiry: float = 5.0
    forget_after: float = 600.0


@dataclass
class Running:
    """A started server: where it listens and its parts (for tests and the command line)."""

    host: str
    port: int
    lobby: Lobby
    gateway: Gateway
    cancel_scope: trio.CancelScope
    join_urls: tuple[str, ...] = ()  # http URLs for a browser: other machines' first, for a wildcard host
    stopped: trio.Event | None = None  # set once the server has let go of everything, its data directory too
    directory: Directory = field(default_factory=LocalDirectory)  # where its tables live: here, or the cluster's

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    async def shutdown(self) -> None:
        """Leave the directory (its directors hear no more results from other nodes), close every connection
        with a reason, stop every table, then stop serving."""
        if self.lobby.tournaments is not None:
            self.lobby.tournaments.stop_hearing()
        await self.directory.leave()
        await self.gateway.close_all("server_shutdown", "the server is shutting down")
        await self.lobby.stop_all()
        if self.lobby.tournaments is not None:
            await self.lobby.tournaments.stop_all()
        self.cancel_scope.cancel()
        if self.stopped is not None:
            await self.stopped.wait()  # a server started next on the same data directory finds it free


DEMO_TABLE = CreateTable(name="demo: bots race Flag Finish in Challenge Mode", game="flag_finish", mode="challenge",
                         seats=3, bots=[BotSeat(0), BotSeat(1), BotSeat(2, "random")], bot_delay_ms=600,
                         options={"races": 3})
OPEN_TABLE = CreateTable(name="open: play Flag Finish Challenge against two bots", game="flag_finish",
                         mode="challenge", seats=3, bots=[BotSeat(seat=1), BotSeat(seat=2, policy="random")],
                         bot_delay_ms=human_pace_ms("challenge"), options={"races": 3})


async def keep_table(lobby: Lobby, request: CreateTable, alias: str, pause: float = 15.0) -> None:
    """Keep a table open under ``alias``: when its game ends, a fresh one takes the name after ``pause`` s.
    A table reopened under that alias from its log (the server restarted) is kept instead of a new one."""
    while True:
        table = lobby.tables.get(lobby.aliases.get(alias, ""))
        if table is None:
            try:
                if lobby.disk is not None:
                    lobby.disk.check()  # (a demo of bots alone would be ended at once while the disk is low)
                table = await lobby.create(request, alias=alias)
            except (RulesError, Refusal) as error:  # a cluster node that cannot reach Redis yet: try again later
                logger.info(f"no {alias} table for now: {error.message}")
                await trio.sleep(pause)
                continue
        await table.over.wait()
        await trio.sleep(pause)
        await table.stop()
        lobby.tables.pop(table.id, None)


async def run_server(host: str = "127.0.0.1", port: int = 8765, data_dir: Path | None = None, demo: bool = False,
                     limits: Limits = Limits(), durability: str = "batch", web_root: Path | None = None,
                     cluster: ClusterConfig | None = None, quotas: Quotas = Quotas(),
                     task_status=trio.TASK_STATUS_IGNORED) -> None:
    """``start_server`` with the settings as keywords (the tests and the bench start servers this way)."""
    config = ServeConfig(host, port, data_dir, demo, durability, limits, quotas, web_root)
    await start_server(config, cluster, task_status=task_status)


async def start_server(config: ServeConfig, cluster: ClusterConfig | None = None,
                       task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Serve; with a data directory every table is logged there and unfinished tables are reopened first.
    ``cluster``: be one node of a cluster (``server/cluster/node.py``); the node has joined (or tried once) when
    this has started. Starts with the ``Running`` server."""
    stopped = trio.Event()
    try:
        if config.data_dir is None:
            return await _serve(config, cluster, stopped, task_status)
        private_dir(config.data_dir)  # 0700: the logs hold live deck orders
        with data_dir_lock(config.data_dir):  # one server per data directory, before anything in it is read
            return await _serve(config, cluster, stopped, task_status)
    finally:
        stopped.set()


async def _serve(config: ServeConfig, cluster: ClusterConfig | None, stopped: trio.Event, task_status) -> None:
    data_dir, host = config.data_dir, config.host
    async with trio.open_nursery() as nursery:
        directory = open_directory(cluster, data_dir)
        lobby = Lobby(nursery, data_dir, config.durability, config.quotas, directory=directory,
                      unverified_credit_ms=config.limits.unverified_credit_ms)
        if lobby.disk is not None and config.quotas.min_free_mb:
            nursery.start_soon(diskroom.watch, lobby)  # (tables of bots alone ended while the disk is low)
        hub = TournamentHub(nursery, lobby, data_dir, config.durability, directory)
        await hub.open()  # a store that cannot be opened stops the start before any table is reopened
        reopened = await lobby.recover()
        if reopened:
            logger.info(f"reopened {len(reopened)} unfinished table(s) from {data_dir}: {', '.join(reopened)}")
        lobby.tournaments = hub
        tournaments = await lobby.tournaments.recover()
        for line in tournaments_found([lobby.tournaments.directors[tid].info() for tid in tournaments]):
            logger.info(line)
        gateway = Gateway(lobby, directory, config.limits)
        port = await nursery.start(gateway.serve, host, config.port, config.shared_port,  # a worker: its own
                                  config.own_port)
        await nursery.start(directory.run, lobby, f"ws://{host}:{port}", lambda: len(gateway.connections))
        hub.join()
        urls = join_urls(host, config.port if config.shared_port else port)  # people are sent to the shared one
        gateway.site = load_site(config.web_root, urls if config.web_root is not None else (),
                                 connect_src=CLUSTER_CONNECT_SRC if directory.spans_nodes else "'self'")
        if config.demo:
            nursery.start_soon(keep_table, lobby, DEMO_TABLE, DEMO_ALIAS)
            nursery.start_soon(keep_table, lobby, OPEN_TABLE, OPEN_ALIAS)
        task_status.started(Running(host, port, lobby, gateway, nursery.cancel_scope, urls, stopped, directory))


def open_directory(config: ClusterConfig | None, data_dir: Path | None) -> Directory:
    """Where the server's tables live: a ``LocalDirectory`` for a server alone (the default), or, with
    `serve --cluster` (``config``), its node of the cluster (its id kept in the data directory). The one place
    that knows which: the rest of the server only has a ``Directory``."""
    if config is None:
        return LocalDirectory()
    return Cluster(config.presence, node_id(data_dir), config.public_url, heartbeat=config.heartbeat,
                   expiry=config.expiry, forget_after=config.forget_after)


def tournaments_found(infos: list) -> list[str]:
    """What `serve` says of the tournaments it found in its data directory: those that go on, each with where
    it stands, then, apart, those already over (listed with their standings, never played on)."""
    going = [info for info in infos if info.status != "over"]
    over = [info for info in infos if info.status == "over"]
    lines = []
    if going:
        where = ", ".join(f"{info.tournament} ({_stands(info)})" for info in going)
        lines.append(f"resumed {_count(len(going), 'tournament')} still going: {where}")
    if over:
        lines.append(f"{_count(len(over), 'tournament')} already over, kept for "
                     f"{'its' if len(over) == 1 else 'their'} standings: "
                     f"{', '.join(info.tournament for info in over)}")
    return lines


def _stands(info) -> str:
    if info.status == "registration":
        return "registration, not started"
    return f"round {info.round}" + (f" of {info.rounds}" if info.rounds else "")


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


HINT_WIDTH = 24  # the hints' labels: every URL and command `serve` prints starts in the same column


def hint(label: str, text: str) -> str:
    """One line of `serve`'s hints: a label, then the URL or command in the column they all share."""
    return f"  {label:<{HINT_WIDTH}}{text}"


def limit_line(raised: tuple[int, int] | None, gateway: Gateway) -> str:
    """What `serve` says of its open-file limit (raised at start) and the connections that allows."""
    files = ("no open-file limit" if raised is None else
             f"{raised[1]} open files" + (f" (raised from {raised[0]})" if raised[1] != raised[0] else ""))
    total = gateway.admission.total
    proxies = gateway.limits.trusted_proxies
    shown = [str(n.network_address) if n.num_addresses == 1 else str(n) for n in proxies]
    behind = f" (each client behind {', '.join(shown)}: its own)" if proxies else ""
    return (f"  {files}: at most {total if total is not None else 'any number of'} connections in all, "
            f"{gateway.limits.max_conns_per_address} from one address{behind}")


def join_lines(urls: tuple[str, ...]) -> list[str]:
    """The URLs to open in a browser, the first labelled, the others each an "or"."""
    return [hint("in a browser:", urls[0]), *(hint(f"{'or':>{HINT_WIDTH - 2}}", url) for url in urls[1:])]


def demo_lines(url: str) -> list[str]:
    """With --demo: the commands that watch the demo race, play at the open table, or seat a bot there."""
    return [hint("watch the demo race:", f".venv/bin/photofinish watch {url} {DEMO_ALIAS}"),
            hint("play against two bots:", f".venv/bin/photofinish play {url} --table {OPEN_ALIAS}"),
            hint("or seat a bot of yours:", f".venv/bin/photofinish bots {url} --table {OPEN_ALIAS} --seats 1 "
                                            f"--policy heuristic")]


def print_join(urls: tuple[str, ...], qr: bool) -> None:
    """The URLs to open in a browser, and (for a LAN) a QR code of the first one for phones to scan."""
    for line in join_lines(urls):
        print(line, flush=True)
    if qr:
        import segno

        segno.make(urls[0], micro=False).terminal(compact=True)


async def serve_until_signal(config: ServeConfig, ready=None) -> None:
    """`photofinish serve`: run until Ctrl-C or SIGTERM, then shut down cleanly. With ``config.cluster_url`` (a
    Redis, or ``sqlite:PATH`` for the processes of one machine), join that cluster as a node whose tables
    clients reach at ``config.public_url``. ``ready``: called with the ``Running`` server once it listens."""
    if config.cluster_url is None:
        return await _serve_until_signal(config, None, ready)
    if config.cluster_url.startswith(SQLITE_SCHEME):
        from .cluster.sqlite_presence import open_sqlite_presence as open_presence

        where = config.cluster_url[len(SQLITE_SCHEME):]
    else:
        from .cluster.redis_presence import open_redis_presence as open_presence

        where = config.cluster_url
    async with open_presence(where) as presence:
        cluster = ClusterConfig(presence, config.public_url, heartbeat=config.heartbeat, expiry=5 * config.heartbeat,
                                forget_after=config.forget_after)
        await _serve_until_signal(config, cluster, ready)


async def _serve_until_signal(config: ServeConfig, cluster: ClusterConfig | None, ready=None) -> None:
    raised = raise_file_limit()  # each connection holds a descriptor: as many as the system lets this process have
    async with trio.open_nursery() as nursery:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            running: Running = await nursery.start(start_server, config, cluster)
            settle_gc()
            if ready is not None:
                ready(running)
            if not config.announce:
                async for signum in signals:
                    break
                return await running.shutdown()
            # what serve says once it listens: its own output (stdout), as any command's report
            print(f"photofinish listening on {running.url} (data in {config.data_dir})", flush=True)
            print(limit_line(raised, running.gateway), flush=True)
            if running.directory.spans_nodes:
                print(f"  a node of the cluster (node {running.directory.node}, clients sent to "
                      f"{running.directory.url})", flush=True)
            if config.web_root is not None:
                print_join(running.join_urls, qr=config.host in WILDCARDS)
            if config.demo:
                for line in demo_lines(running.url):
                    print(line, flush=True)
            async for signum in signals:
                logger.info(f"{signal.Signals(signum).name}, shutting down")
                break
            await running.shutdown()
