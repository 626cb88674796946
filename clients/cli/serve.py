"""`photofinish serve`: its flags, and the one ``ServeConfig`` built from them, which the server's entry point
(``server.commands.serve``) runs. A value out of range is one line and exit 2 before anything starts."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import checks

WEB_ROOT = Path(__file__).resolve().parents[1] / "web"  # the browser client's files


def add_serve(sub) -> None:
    from server.commands import Limits, Quotas

    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    serve.add_argument("--port", type=checks.port, default=8765)
    serve.add_argument("--data", default="./data", help="the data directory")
    serve.add_argument("--demo", action="store_true", help="open a demo table of bots and an open table")
    serve.add_argument("--durability", default="batch", choices=("always", "batch", "never"),
                       help="when log lines are fsynced: before each acknowledgement, in groups (default), never")
    serve.add_argument("--rate", type=float, default=Limits.rate,
                       help=f"messages a second one connection may send on average (default {Limits.rate:g}; "
                            "twice as many at once); more are dropped with a rate_limited error")
    _limit_flags(serve, Limits)
    serve.add_argument("--no-web", action="store_true", help="serve no web client, only the websocket protocol")
    serve.add_argument("--cluster", type=checks.redis_url, metavar="redis://HOST:PORT",
                       help="join the cluster whose lobby is kept in this Redis (see docs/operators.md, More than one process)")
    serve.add_argument("--workers", type=checks.positive, default=None, metavar="N",
                       help="serve with N processes behind the one port, each table on one of them; they also "
                            "listen on the N ports after --port (default: one a core; 1 with --port 0 or "
                            "--cluster): see docs/operators.md, More than one process")
    serve.add_argument("--public-url", type=checks.server_url, metavar="ws://HOST:PORT",
                       help="with --cluster: the URL other nodes send clients to for this node's tables "
                            "(default ws://HOST:PORT as it listens)")
    serve.add_argument("--heartbeat", type=float, default=1.0, metavar="SECONDS",
                       help="with --cluster: seconds between this node's heartbeats (default 1); a node silent "
                            "for 5 heartbeats is taken for dead")
    serve.add_argument("--forget-after", type=float, default=600.0, metavar="SECONDS",
                       help="with --cluster: seconds a dead node's tables stay listed as unavailable before they "
                            "leave every node's lists (default 600); if it comes back, they are listed again")
    quotas = Quotas()
    serve.add_argument("--waiting-per-connection", type=int, default=quotas.waiting_per_connection, metavar="N",
                       help="tables waiting for players (or played by server bots alone, until over; or behind a broadcast "
                            "delay, until its end is shown) one connection may "
                            "have created (0: no limit; default: %(default)s)")
    serve.add_argument("--waiting-per-address", type=int, default=quotas.waiting_per_address, metavar="N",
                       help="... all connections from one IP address (default: %(default)s)")
    serve.add_argument("--waiting-expiry", type=float, default=quotas.waiting_expiry, metavar="SECONDS",
                       help="a table nobody sat at is closed after this long (0: never; default: %(default)s)")
    serve.add_argument("--abandoned-after", type=float, default=quotas.abandoned_after, metavar="SECONDS",
                       help="a started table with no player connected this long (its other seats server bots) ends "
                            "as it stands, abandoned; not tournament tables (0: never; default: %(default)s)")
    serve.add_argument("--playbacks-per-address", type=int, default=quotas.playbacks_per_address, metavar="N",
                       help="playbacks one IP address may have open (0: no limit; default: %(default)s)")
    serve.add_argument("--keep-finished", type=float, default=quotas.keep_finished, metavar="SECONDS",
                       help="a finished table stays watchable this long, then only its summary and log "
                            "(default: %(default)s)")
    serve.add_argument("--registrations-per-connection", type=int, default=quotas.registrations_per_connection,
                       metavar="N", help="players one connection may register in one tournament (0: no limit; "
                                         "default: %(default)s)")
    serve.add_argument("--registrations-per-address", type=int, default=quotas.registrations_per_address,
                       metavar="N", help="... all connections from one IP address (default: %(default)s)")
    serve.add_argument("--min-free-mb", type=int, default=quotas.min_free_mb, metavar="MB",
                       help="free disk the data directory's file system keeps for the games in play: below it no "
                            "new table or tournament is opened (0: no floor; default: %(default)s)")
    serve.set_defaults(run=cmd_serve)


def _limit_flags(serve: argparse.ArgumentParser, limits) -> None:
    """`serve`'s abuse limits (docs/operators.md, "The server": no anonymous client can lock the others out)."""
    serve.add_argument("--address-rate", type=checks.amount, default=limits.address_rate, metavar="N",
                       help=f"messages a second all the connections of one IP address may send together (default "
                            f"{limits.address_rate:g}; twice as many at once); past it they are read no faster, never refused")
    serve.add_argument("--max-conns-per-address", type=checks.positive, default=limits.max_conns_per_address,
                       metavar="N", help=f"connections open at once from one IP address (default "
                                         f"{limits.max_conns_per_address}; a LAN behind one NAT is one address)")
    serve.add_argument("--seats-per-connection", type=checks.count, default=limits.seats_per_connection,
                       metavar="N", help=f"seats one connection may hold at tables still playing (default "
                                         f"{limits.seats_per_connection}; 0: no limit)")
    serve.add_argument("--seats-per-address", type=checks.count, default=limits.seats_per_address, metavar="N",
                       help=f"... all connections from one IP address (default {limits.seats_per_address})")
    serve.add_argument("--max-connections", type=checks.positive, default=limits.max_connections, metavar="N",
                       help=f"connections open at once in all (default: the open-file limit, raised to its hard "
                            f"limit at start, less {limits.fd_reserve}); more are refused at once with a reason")
    serve.add_argument("--idle-timeout", type=checks.amount, default=limits.idle_timeout, metavar="SECONDS",
                       help=f"close a connection that sends no whole frame, not even a pong, for this long "
                            f"(default {limits.idle_timeout:g}; it is pinged at half)")
    serve.add_argument("--max-depth", type=checks.positive, default=limits.max_depth, metavar="N",
                       help=f"containers nested in one frame (default {limits.max_depth}); deeper is malformed")
    serve.add_argument("--budget-rate", type=checks.amount, default=limits.budget_rate, metavar="UNITS",
                       help=f"request-cost units a second one address may spend (default {limits.budget_rate:g}): "
                            f"list_tables and list_tournaments 1 (+1 per 16 KiB of tables), leaderboard 2, "
                            f"replay and open_playback 8 (+1 per 64 KiB of the log); over it: over_budget")
    serve.add_argument("--budget-burst", type=checks.amount, default=limits.budget_burst, metavar="UNITS",
                       help=f"... and at once (default {limits.budget_burst:g})")
    serve.add_argument("--tournaments-per-minute", type=checks.amount, default=limits.tournaments_per_minute,
                       metavar="N", help=f"tournaments one address may create a minute (default "
                                         f"{limits.tournaments_per_minute:g})")
    serve.add_argument("--registrations-per-minute", type=checks.amount, default=limits.registrations_per_minute,
                       metavar="N", help=f"tournament registrations one address may make a minute (default "
                                         f"{limits.registrations_per_minute:g})")
    serve.add_argument("--trusted-proxy", type=checks.trusted_proxy, action="append", default=[],
                       dest="trusted_proxies", metavar="ADDR",
                       help="a reverse proxy in front of the server (an IP address, or a network such as "
                            "10.0.0.0/8; repeat for more): its connections count as the client its "
                            "X-Forwarded-For names, so each client has its own per-address limits (default: none; "
                            "any other connection's forwarding headers are ignored)")
    serve.add_argument("--kernel-rtt", choices=("direct", "always", "never"), default=limits.kernel_rtt,
                       help="fair ordering credits a seat no more round trip than the kernel measured on its "
                            "connection: 'direct' (default) for connections not from loopback nor a --trusted-proxy "
                            "(a proxy hides the path), 'always', or 'never'")
    serve.add_argument("--unverified-credit-ms", type=checks.milliseconds, default=limits.unverified_credit_ms,
                       metavar="MS", help="fair ordering: the most round trip credited to a seat whose path the "
                                          "kernel did not measure (through a proxy, or --kernel-rtt never); "
                                          f"default {limits.unverified_credit_ms}: such a seat races by its "
                                          "reaction as the server saw it, and no client can look farther to win. "
                                          "Raise it only for clients you trust (docs: Fair ordering)")


def cmd_serve(args: argparse.Namespace) -> int:
    from server.commands import Quotas, ServeConfig, connection_limits, default_workers, serve

    config = ServeConfig(  # a ConfigError: one line, exit 2 (main says it)
        host=args.host, port=args.port, data_dir=Path(args.data), demo=args.demo, durability=args.durability,
        limits=connection_limits(
            args.rate, args.address_rate, max_conns_per_address=args.max_conns_per_address,
            seats_per_connection=args.seats_per_connection, seats_per_address=args.seats_per_address,
            max_connections=args.max_connections, idle_timeout=args.idle_timeout, max_depth=args.max_depth,
            budget_rate=args.budget_rate, budget_burst=args.budget_burst,
            tournaments_per_minute=args.tournaments_per_minute,
            registrations_per_minute=args.registrations_per_minute, kernel_rtt=args.kernel_rtt,
            unverified_credit_ms=args.unverified_credit_ms, trusted_proxies=tuple(args.trusted_proxies)),
        quotas=Quotas(waiting_per_connection=args.waiting_per_connection,
                      waiting_per_address=args.waiting_per_address, waiting_expiry=args.waiting_expiry,
                      abandoned_after=args.abandoned_after,
                      playbacks_per_address=args.playbacks_per_address, keep_finished=args.keep_finished,
                      registrations_per_connection=args.registrations_per_connection,
                      registrations_per_address=args.registrations_per_address, min_free_mb=args.min_free_mb),
        web_root=None if args.no_web else WEB_ROOT, cluster_url=args.cluster, public_url=args.public_url,
        heartbeat=args.heartbeat, forget_after=args.forget_after,
        workers=args.workers if args.workers is not None else default_workers(args.port, args.cluster))
    return serve(config)
