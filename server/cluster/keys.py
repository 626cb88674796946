"""The cluster directory's names in the presence store (``server/cluster/node.py``, ``lists.py``): all under
``photofinish:``."""

PREFIX = "photofinish:"
NODES = PREFIX + "nodes"  # a hash: node id -> its public URL, every node that ever joined
