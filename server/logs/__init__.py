"""The action logs and what keeps them: a table's log (``actionlog``: in memory; ``logfile``: its lines; ``logstore``:
its file), the journal that makes every acknowledged line durable (``journal``, ``walfile``), the disk they are
written through (``disk``, with its fault-injection seam, and ``crashpoint``), a finished table's marker
(``finished``), and reading logs back: ``rebuild`` (a game from its log), ``replay`` (checking one), ``exported``
(an exported log), ``frames`` (a log as playback frames).
"""
