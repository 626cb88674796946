"""`python -m bench` (or `make bench`): run every benchmark, print the tables, write bench/results/*.json.

Takes a few minutes: the server load runs 1, 10, 100 and 500 tables for 5 seconds each; the abuse bench runs
here with `--quick` (3-second phases, about 2 minutes; the full run is `python -m bench.abuse_bench`); the
browser bench runs last and is skipped, with a message, where Chromium or playwright is missing."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

from . import (abuse_bench, browser_bench, bytes_bench, cluster_bench, fairness_bench, log_bench, round_start_bench,
               rules_bench, server_bench, soak_bench, spectator_bench, store_wake, tournament_bench,
               workers_bench)

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    stamp = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": platform.platform(),
             "python": platform.python_version()}
    RESULTS.mkdir(exist_ok=True)
    rows = rules_bench.run()
    rules_bench.print_table(rows)
    (RESULTS / "rules.json").write_text(json.dumps({**stamp, "rules": rows}, indent=2))
    print()
    figures = log_bench.run()
    log_bench.print_table(figures)
    (RESULTS / "log.json").write_text(json.dumps({**stamp, **figures}, indent=2))
    print()
    tournament = tournament_bench.run()
    tournament_bench.print_table(tournament)
    round_start = round_start_bench.run()
    round_start_bench.print_table(round_start)
    (RESULTS / "tournament.json").write_text(json.dumps({**stamp, **tournament, "round_start": round_start},
                                                         indent=2))
    print()
    fairness = fairness_bench.run()
    fairness_bench.print_table(fairness)
    (RESULTS / "fairness.json").write_text(json.dumps({**stamp, "fairness": fairness}, indent=2))
    print()
    server = server_bench.run()
    server_bench.print_table(server)
    (RESULTS / "server.json").write_text(json.dumps({**stamp, **server}, indent=2))
    print()
    workers = workers_bench.run()
    workers_bench.print_table(workers)
    (RESULTS / "workers.json").write_text(json.dumps({**stamp, "workers": workers}, indent=2))
    print()
    spectators = spectator_bench.run()
    spectator_bench.print_table(spectators)
    (RESULTS / "spectators.json").write_text(json.dumps({**stamp, "spectators": spectators}, indent=2))
    print()
    store = store_wake.run()
    store_wake.print_table(store)
    (RESULTS / "store_wake.json").write_text(json.dumps({**stamp, "store_wake": store}, indent=2))
    print()
    sizes = bytes_bench.run()
    bytes_bench.print_table(sizes)
    (RESULTS / "bytes.json").write_text(json.dumps({**stamp, "bytes": sizes}, indent=2))
    print()
    soak = soak_bench.run()
    soak_bench.print_table(soak)
    (RESULTS / "soak.json").write_text(json.dumps({**stamp, **soak}, indent=2))
    print()
    abuse = abuse_bench.run(quick=True)  # the full run (8 s attacks, 30 s to settle) takes ~9 minutes alone
    abuse_bench.print_table(abuse)
    (RESULTS / "abuse.json").write_text(json.dumps({**stamp, **abuse}, indent=2, default=str))
    print()
    missing = cluster_bench.redis_missing()
    if missing:  # the cluster needs a real Redis; the rest of the benchmarks do not
        print(f"cluster bench skipped: {missing}")
    else:
        cluster = cluster_bench.run()
        cluster_bench.print_table(cluster)
        (RESULTS / "cluster.json").write_text(json.dumps({**stamp, **cluster}, indent=2))
    browser = browser_bench.run()  # None, with a message saying why, where Chromium or playwright is missing
    browser_bench.print_table(browser)
    if browser is not None:
        print()  # then as on two machines: the servers on one CPU, the browser on another
        apart = browser_bench.run(cores=True)
        browser_bench.print_table(apart)
        (RESULTS / "browser.json").write_text(json.dumps({**stamp, **browser, "cores_apart": apart}, indent=2))
    print(f"\nwritten to {RESULTS}/rules.json, log.json, tournament.json, fairness.json, server.json, soak.json, "
          "abuse.json (and cluster.json, browser.json)")


if __name__ == "__main__":
    main()
