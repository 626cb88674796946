"""A bot written from the docs alone works: the raw-websocket bot in docs/bot-authors.md (trio_websocket and
json, no client library) follows PROTOCOL.md's words, hello, create, sit, act on updates, and plays a Flag
Finish table against a server bot to its end without one refusal, `stale` above all."""

from __future__ import annotations

import re
from pathlib import Path

import trio

from server.app import run_server

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "bot-authors.md").read_text()


def first_bot_source() -> str:
    section = DOC.split("## A first bot from the protocol alone", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_docs_first_bot_uses_nothing_but_a_websocket_and_json():
    imports = set(re.findall(r"^(?:import|from) (\w+)", first_bot_source(), re.M))
    assert imports == {"json", "random", "sys", "trio", "trio_websocket"}


async def test_the_docs_first_bot_plays_a_flag_finish_table_to_its_end_with_no_stale_refusal(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    namespace: dict = {"__name__": "first_bot"}
    exec(compile(first_bot_source(), "docs/bot-authors.md", "exec"), namespace)
    with trio.fail_after(120):
        outcome = await namespace["play"](running.url)
    assert outcome["refusals"] == [], f"the doc's bot was refused: {outcome['refusals']}"
    result = outcome["result"]
    assert len(result["scores"]) == 2 and result["winners"]
    table = next(iter(running.lobby.tables.values()))
    assert table.over.is_set() and not any(e.code == "stale" for e in table.log.entries if not e.accepted)
