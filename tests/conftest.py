"""For every test: the server's lines are said on the console as `photofinish serve` says them (its entry point
calls the same ``configure``, ``server/notices.py``), so a test reads them from its captured stdout and stderr."""

from server.notices import configure

configure()
