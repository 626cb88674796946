"""A cluster node's id, and the table and tournament ids it hands out.

Ids. A table id is ``t<number>`` (logs are ``t<number>.log``), a tournament's ``T<number>``. On a cluster a node
numbers them ``seq * ID_SPACE + mark`` (seq 1, 2, ...): ``mark`` (``node_mark``) is the node id's 48 random bits
(a node id is ``n`` and 12 hex digits, kept in ``node.id``; one set by hand gives 48 bits of its hash), so
every id a node hands out ends in its mark's 15 digits, and two nodes' ids never meet as long as their node ids
differ, which the cluster needs anyway (a claim that names this node's id is taken for this node's). No id
needs anything from Redis, so nothing Redis forgets can make two nodes hand out the same one. A node restarted
on its data directory numbers on past its table logs and the tables its tournaments' logs name (some of those
ran on other nodes: ``TournamentHub._skip_named_tables``).

Ids used to come from blocks leased from a counter in Redis (issue 29). A Redis restarted empty while a node
was paused (SIGSTOP, a frozen VM) had forgotten the counter and that node's block; a node joining then leased
the same block and handed out the paused node's ids again, and the paused node, awake, found its tables and
its next creates claimed by the other (``table_exists``, watches sent to the wrong node). A paused node can
re-assert nothing, so a shared counter is only safe if it restarts above every block ever leased, and after
the loss only a clock could say where that is (with a wait before each new block, and trust in Redis's clock);
ids that need no shared record are simpler and need neither. The price is length: ``t1281474976710655``, 16
digits (17 from a node's 10th table on). Ids below ``ID_SPACE`` (a single server's ``t1``, ``t2``, ... and the
leased ids in data directories from before) are never handed out on a cluster, so they cannot meet these. A
node without a data directory has a new node id, and so new ids, at each start.
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from ..datadir import DataDir

ID_SPACE = 10**15  # an id on a cluster is seq * ID_SPACE + the node's mark (48 bits: below 2.9 * 10**14)


def node_mark(node: str) -> int:
    """The number every id ``node`` hands out ends in: the 48 random bits of its id (``n`` and 12 hex digits), or
    48 bits of the hash of an id set by hand."""
    if len(node) == 13 and node[0] == "n" and all(c in "0123456789abcdef" for c in node[1:]):
        return int(node[1:], 16)
    return int.from_bytes(hashlib.blake2b(node.encode(), digest_size=6).digest(), "big")


def node_id(data_dir: Path | None) -> str:
    """This node's id: kept in ``data_dir/node.id`` (made on first use), so a restarted node is the same node."""
    if data_dir is None:
        return "n" + secrets.token_hex(6)
    path = DataDir(data_dir).node_id
    if path.exists():
        text = path.read_text().strip()
        if text:
            return text
    text = "n" + secrets.token_hex(6)
    path.write_text(text + "\n")
    return text
