"""LAN tournaments: a pure core (what a round's seating is, what the standings are, folded from the tournament's
own log), a thin director that writes that log, and an SQLite store derived from it. One module per job:

- pure: ``model`` (the shared frozen values: sizes, a round's seating, a table's result, settings), ``seeds`` (one
  seed per use, by log format), ``seating`` with ``swiss_search`` (who sits where each round: Swiss, round robin,
  arena, a top-N final) and ``seating_v1`` (format-1 logs), ``standings`` (points and tiebreaks), ``state`` (a
  tournament folded from its log records), ``views`` (what a client sees of it), ``ratings`` (openskill);
- the log and its check: ``tlog`` (its records, read back with the hash chain checked), ``verify``;
- the director and its parts (lila's Swiss modules): ``director`` (the one writer of the log), ``opening`` (a
  seating becomes open tables), ``results`` (a table's result taken), ``clocks`` (a round's and an arena's
  time), ``outcome`` (a table's result read from the table or its log), ``hub`` (every tournament of the server);
- the organiser's actions, kept apart: ``actions`` (their log records), ``fixes`` (pure: folding them),
  ``organiser`` (the director's side of each) and ``history`` (every round and every decision, for a client);
- in a cluster: ``remote`` (the director's side of tables on other nodes) and ``host`` (a node's side);
- ``store``: the SQLite store behind one worker thread, derived from the logs.
"""
