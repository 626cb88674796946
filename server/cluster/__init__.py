"""The cluster: the nodes of one event and what they share. ``node`` (a node's part: heartbeat, tables, redirects),
``directory`` (where a table or tournament lives: the seam, with its local implementation), the presence stores
that carry it (``presence``: in process; ``sqlite_presence``: the workers of one machine, woken by ``localwake``;
``redis_presence``: several machines), ``nodeid``, and spectators served by any node: ``relay`` (a table's frames
to another node), ``relaycount`` (how many watch there), ``relaykeys`` (their names in the store).
"""
