"""What `serve` prints: hints whose commands and URLs start in one column, and, after a restart, which of the
tournaments it found go on and which are already over."""

from __future__ import annotations

import re
from functools import partial

import trio

from clients.client import open_client
from clients.tournament_bots import fill_tournament
from server.app import demo_lines, join_lines, run_server


def test_the_hints_serve_prints_line_up_their_commands_and_urls():
    lines = join_lines(("http://192.168.1.20:8765/", "http://10.0.0.5:8765/")) + demo_lines("ws://127.0.0.1:8765")
    columns = {line: re.search(r"(http://|\.venv/bin/)", line).start() for line in lines}
    assert len(set(columns.values())) == 1, "\n".join(lines)
    assert all(re.match(r"  \S", line) for line in lines[:1] + lines[2:]), "every label starts the line"
    assert lines[1].split() == ["or", "http://10.0.0.5:8765/"]


async def test_a_restarted_server_says_which_tournaments_go_on_and_which_are_over(nursery, tmp_path, capsys):
    data = tmp_path / "data"
    first = await nursery.start(partial(run_server, "127.0.0.1", 0, data))
    settings = dict(game="flag_finish", mode="challenge", seats=2, rounds=1, options={"races": 1})
    async with open_client(first.url) as organiser:
        finished = await organiser.create_tournament(name="done", **settings)
        with trio.fail_after(60):
            async with trio.open_nursery() as bots:  # ends when the bots' tournament is over
                await bots.start(fill_tournament, first.url, finished.tournament.tournament, 2, "heuristic", 5)
                await organiser.start_tournament(finished.tournament.tournament, finished.secret)
        playing = await organiser.create_tournament(name="playing", **settings)
        for name in ("ann", "ben"):  # people who have not sat down yet: the round waits for them
            await organiser.register(playing.tournament.tournament, name)
        await organiser.start_tournament(playing.tournament.tournament, playing.secret)
        entries = await organiser.create_tournament(name="entries", **settings)
    await first.shutdown()
    capsys.readouterr()

    again = await nursery.start(partial(run_server, "127.0.0.1", 0, data))
    said = [line for line in capsys.readouterr().out.splitlines() if "tournament" in line]
    await again.shutdown()
    ids = [c.tournament.tournament for c in (finished, playing, entries)]
    assert said == [f"photofinish: resumed 2 tournaments still going: {ids[1]} (round 1 of 1), "
                    f"{ids[2]} (registration, not started)",
                    f"photofinish: 1 tournament already over, kept for its standings: {ids[0]}"]
