"""`python -m bench` (or `make bench`): run every benchmark, print the tables, write bench/results/*.json."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

from . import rules_bench

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    rows = rules_bench.run()
    rules_bench.print_table(rows)
    RESULTS.mkdir(exist_ok=True)
    record = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": platform.platform(),
              "python": platform.python_version(), "rules": rows}
    path = RESULTS / "rules.json"
    path.write_text(json.dumps(record, indent=2))
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
