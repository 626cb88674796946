"""A connection's bytes, between its socket and the tables: ``readpath`` (its client's frames read in the
connection's own task), ``sendpath`` (a frame written at once when nobody else is writing), ``outbox`` (the
bounded queue between the tables and a connection's writer), ``encodeonce`` (a message many connections send
alike, encoded once per encoding) and ``spread`` (the spectators' writer: shared frames written straight to
their sockets, players first).
"""
