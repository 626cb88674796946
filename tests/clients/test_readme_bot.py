"""README's "Writing a bot" example runs as printed: it creates a table, sits down and plays to the end."""

from __future__ import annotations

import re
from pathlib import Path

from server.app import run_server
from server.logs.logfile import read_log

README = Path(__file__).resolve().parents[2] / "README.md"


def bot_example() -> str:
    section = README.read_text().split("## Writing a bot", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


async def test_the_readme_bot_plays_a_whole_game(nursery, tmp_path, capsys):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=tmp_path,
                                                                 task_status=task_status))
    code = bot_example()
    namespace: dict = {"__name__": "my_bot"}
    exec(compile(code, "README.md (Writing a bot)", "exec"), namespace)
    await namespace["main"](running.url)
    said = capsys.readouterr().out
    scores = re.search(r"final scores: \[(\d+), (\d+)\]", said)
    assert scores, said
    (table,) = [t for t in running.lobby.list() if t.status == "over"]
    end = read_log(tmp_path / "tables" / f"{table.table}.log").end
    assert end is not None and end.scores == [int(scores[1]), int(scores[2])]
