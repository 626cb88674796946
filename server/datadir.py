"""The data directory (``serve --data``): every path under it, named once.

``DataDir`` is a small frozen value built from the directory's path; whatever reads or writes under it asks
it for the path instead of spelling one. It only names (and looks whether a table's log is there: ``find_table_log``);
creating folders (0700, ``disk.private_dir``), locking and writing stay with their owners. What lives there::

    DATA/server.lock             one server per data directory (``datalock.py``)
    DATA/node.id                 this node's id in a cluster (``cluster/node.py``)
    DATA/.probe                  written and synced to see a failing disk work again (``lobby.py``)
    DATA/journal/<n>.wal         the group commit's write-ahead journal (``logs/journal.py``)
    DATA/tables/t<n>.log         a table's hash-chained log (``logs/logfile.py``, ``logs/logstore.py``)
    DATA/tables/t<n>.seed        its secret seed until the end record reveals it
    DATA/tables/t<n>.done        its finished marker (``logs/finished.py``)
    DATA/tournaments/T<n>.log    a tournament's log (``tournament/tlog.py``), and its ``.seed``
    DATA/tournaments.sqlite3     the tournament store (``tournament/store.py``)
    DATA/cluster.sqlite          the workers' shared lobby, with `serve --workers` (``workers.py``)
    DATA/worker-<i>/             worker i's own data directory (i > 0; worker 0 keeps its own here)

The workers of `serve --workers` share one lobby, so a client asks any of them for any worker's finished table:
``find_table_log`` finds its log in whichever worker's ``tables/`` holds it, this worker's own first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TABLES, TOURNAMENTS, JOURNAL = "tables", "tournaments", "journal"
LOCK, NODE_ID, PROBE, STORE = "server.lock", "node.id", ".probe", "tournaments.sqlite3"
CLUSTER, WORKER = "cluster.sqlite", "worker-"  # DATA/cluster.sqlite, DATA/worker-<i>/
_WORKER_DIR = re.compile(rf"{WORKER}[1-9][0-9]*")


def seed_beside(log: Path) -> Path:
    """A table's or tournament's secret seed file, beside its log."""
    return Path(log).with_suffix(".seed")


def marker_beside(log: Path) -> Path:
    """A finished table's marker, beside its log."""
    return Path(log).with_suffix(".done")


@dataclass(frozen=True)
class DataDir:
    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    def __str__(self) -> str:  # said to people as the folder they named
        return str(self.root)

    @classmethod
    def holding(cls, log: Path) -> DataDir:
        """The data directory a table's or tournament's log in it belongs to (``DATA/tables/t1.log``)."""
        return cls(Path(log).resolve().parent.parent)

    @property
    def lock(self) -> Path:
        return self.root / LOCK

    @property
    def node_id(self) -> Path:
        return self.root / NODE_ID

    @property
    def probe(self) -> Path:
        return self.root / PROBE

    @property
    def journal(self) -> Path:
        return self.root / JOURNAL

    @property
    def tables(self) -> Path:
        return self.root / TABLES

    def table_log(self, table: str) -> Path:
        return self.tables / f"{table}.log"

    def find_table_log(self, table: str) -> Path:
        """The log of ``table`` wherever a worker of this machine keeps it (this worker's own first), else this
        worker's own path for it (which does not exist). The caller decides whether another worker's log may be
        read: that worker may be writing it still."""
        for data in self.workers():
            path = data.table_log(table)
            if path.exists():
                return path
        return self.table_log(table)

    def keeps(self, log: Path) -> bool:
        """Whether ``log`` is in this data directory's own ``tables/`` (not another worker's)."""
        return Path(log).parent == self.tables

    def workers(self) -> list[DataDir]:
        """Every worker's data directory under the `--data` this one belongs to, this one first: worker i > 0's
        is ``DATA/worker-<i>`` beside the workers' shared ``DATA/cluster.sqlite``. Alone, just this one."""
        top = self.root
        if _WORKER_DIR.fullmatch(top.name) and (top.parent / CLUSTER).exists():
            top = top.parent
        others = sorted((p for p in top.glob(f"{WORKER}*") if _WORKER_DIR.fullmatch(p.name) and p.is_dir()),
                        key=lambda p: int(p.name.removeprefix(WORKER)))
        return [self] + [DataDir(p) for p in (top, *others) if p != self.root]

    def table_seed(self, table: str) -> Path:
        return seed_beside(self.table_log(table))

    @property
    def tournaments(self) -> Path:
        return self.root / TOURNAMENTS

    def tournament_log(self, tournament: str) -> Path:
        return self.tournaments / f"{tournament}.log"

    def tournament_seed(self, tournament: str) -> Path:
        return seed_beside(self.tournament_log(tournament))

    @property
    def store(self) -> Path:
        return self.root / STORE
