"""LAN tournaments (issue 17), the core the director builds on; one module per job:

- ``model``: the shared frozen values (sizes, seating, a table's result, settings, the typed error, seeds);
- ``seating``: who sits where each round (Swiss, round robin, arena, a top-N final), pure;
- ``standings``: points and tiebreaks from results, byes, drops and corrections, pure;
- ``tlog``: the tournament's hash-chained log, its records, and ``verify_tournament``;
- ``ratings``: a rating per player per game from tables' places (openskill, Plackett-Luce), a leaderboard;
- ``store``: the SQLite store (players, tournaments, rounds, seatings, results, ratings) behind one worker
  thread.
"""
