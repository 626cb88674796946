"""The data directory (``serve --data``): every path under it, named once.

``DataDir`` is a small frozen value built from the directory's path; whatever reads or writes under it asks
it for the path instead of spelling one. It only names: creating folders (0700, ``disk.private_dir``),
locking and writing stay with their owners. What lives there::

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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TABLES, TOURNAMENTS, JOURNAL = "tables", "tournaments", "journal"
LOCK, NODE_ID, PROBE, STORE = "server.lock", "node.id", ".probe", "tournaments.sqlite3"


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
