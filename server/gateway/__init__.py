"""The websocket gateway: one task pair per connection (a reader and a writer) between a socket and the lobby.

A connection starts as plain HTTP (``server/http.py``: the web client's files) and comes here when it asks
for a websocket upgrade. It owns framing and abuse control: the hello and protocol version, JSON or msgpack frames, malformed and
unknown messages (a typed ``error``, nothing changes), oversize frames (trio-websocket closes with 1009),
a per-connection rate limit, and a bounded outbox: a connection that cannot keep up is closed with a reason
instead of slowing its table. It never touches a game state: table work goes to the table's arbiter.

So that no anonymous client can lock the others out (``server/limits.py`` has the machinery, ``Limits`` the
figures): connections are counted per address and in all at accept (over either: told why at once; a
`serve --trusted-proxy`'s per address once its request head names its client), a
connection that sends no whole frame for ``idle_timeout`` is closed, frames nested too deep are malformed before
they are decoded, ids are checked by shape before any lookup, and per address a message rate, a budget for
expensive requests and rates for tournaments and registrations are shared by all its connections.

Closing a connection stops its reader at once but never its writer in the middle of a frame (a frame cut
short is a protocol error at the client, and nothing may follow it on the wire): the writer finishes the
frame it is sending, what is still queued is dropped, then come ``closing`` and the close frame. A client
that takes none of it for ``Limits.close_timeout`` seconds has its TCP connection cut with no more bytes.

It also measures each connection's round trip (``server/latency.py``): a ``ping`` about once a second and at
once when the connection asks for a seat (from then on), stamped when its frame is sent, and the client's
``pong``.

One module a job: ``accept.py`` (the ``Gateway``: accepting, refusing over a limit, running and closing a
connection), ``connection.py`` (one connection: hello, framing, its own rate, the outbox writer, pings),
``requests.py`` (each request answered, by group: tables, tournaments, the directory's redirects),
``quotas.py`` (what all connections of an address share), ``forwarded.py`` (the client behind a trusted
proxy: the address its limits are keyed by), ``listing.py`` (the cached, encoded list of tables),
``replays.py`` (the replay worker process) and ``config.py`` (``Limits``: every figure).
"""

from .accept import Gateway
from .config import Limits

__all__ = ["Gateway", "Limits"]
