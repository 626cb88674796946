"""The replay page and the `replay` request behind it.

Over the wire: a replay's frames are exactly the views a seat and a spectator were sent while the table was
live (so nothing hidden from the chosen seat can show). In-process: an exported log and the server's own log
give the same frames, any window of frames is the same slice of the whole, and every bad request is refused
with its code. In Chromium: the page steps forward, back, to an entry, to the end and plays; as a seat it shows
that seat's hand, as a spectator no hand; an exported log loads from a file input; screenshots are saved.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import msgspec
import pytest
import trio
from hypothesis import HealthCheck, given, settings, strategies as st

from clients.client import open_client
from server.protocol import Refusal
from server.logs import frames
from server.app import run_server
from server.datadir import DataDir
from server.protocol import BotSeat, CreateTable, Frame, Replay, Snapshot, Update
from server.logs.replay import check_log, export

from .logged_server import LoggedServer, bot_table

QUICK = {"races": 1, "action_limit": 60}


async def start(nursery, data_dir):
    return await nursery.start(lambda task_status: run_server("127.0.0.1", 0, data_dir=data_dir,
                                                              task_status=task_status))


async def all_frames(client_or_dir, seat, **source) -> dict[int, dict]:
    """Every frame of a replay, by seq, as plain data: over the wire (a client) or in-process (a data dir)."""
    got, start, total = {}, 0, 1
    while start < total:
        message = Replay(**source, seat=seat, start=start, count=200)
        if isinstance(client_or_dir, Path):
            answer = frames.answer(DataDir(client_or_dir), message)
        else:
            answer = await client_or_dir.request(message)
        total = answer.total
        for frame in answer.frames:
            got[frame.seq] = msgspec.to_builtins(frame.view)
        start += len(answer.frames)
    return got


async def test_a_replay_shows_exactly_what_the_seat_and_a_spectator_were_sent_live(nursery, tmp_path):
    running = await start(nursery, tmp_path)
    url = f"ws://127.0.0.1:{running.port}"
    seen: dict = {0: {}, None: {}}
    async with open_client(url) as ana, open_client(url) as spectator:
        table = (await ana.create_table(game="flag_finish", mode="lockstep", seats=2, options=QUICK,
                                        bots=[BotSeat(1)], bot_delay_ms=0)).table
        await spectator.watch(table)

        async def follow(client, seat):
            async for message in client.messages:
                if type(message) in (Update, Snapshot) and message.table == table and message.view is not None:
                    seen[seat][message.seq] = msgspec.to_builtins(message.view)
                    if message.result is not None:
                        return
                    if seat == 0 and 0 in message.to_act and message.legal:
                        await client.act(table, message.legal[0])

        with trio.fail_after(30):
            async with trio.open_nursery() as both:
                both.start_soon(follow, spectator, None)
                await ana.take_seat(table, 0, name="Ana")
                both.start_soon(follow, ana, 0)
        await running.lobby.find(table).wait_end_durable()
        for seat in (0, None):
            replayed = await all_frames(ana, seat, log=table)
            assert len(seen[seat]) > 10
            for seq, view in seen[seat].items():
                assert replayed[seq] == view, f"frame {seq} as seat {seat} differs from what was sent live"
        assert all(view["hand"] is None for view in (await all_frames(ana, None, log=table)).values())
        names = (await ana.request(Replay(log=table, seat=0, count=1))).names
        assert names[0] == "Ana" and names[1] == "heuristic bot"  # the server's bot, named as at the table


def packed_export(path: Path, edit=None) -> str:
    """A log's export as the page sends it (see packExport in js/replay.js): the file `photofinish export` writes,
    gzip-compressed and base64-encoded; ``edit`` changes the document first."""
    document = json.loads(json.dumps(export(check_log(path))))
    if edit is not None:
        edit(document)
    return base64.b64encode(gzip.compress(json.dumps(document, indent=1).encode())).decode()


def changing(**header):
    return lambda document: document["header"].update(header)


def reseeded(document):
    next(r for r in document["records"] if r["kind"] == "end")["seed"] = 1


def tampered(document):
    entry = next(r for r in document["records"] if r["kind"] == "entry" and r["accepted"] and r["actor"] >= 0)
    entry["action"] = {"type": "play", "card": "Z9"}


@pytest.fixture
async def finished(nursery, tmp_path):
    running = await start(nursery, tmp_path)
    return tmp_path, await bot_table(running.lobby, "flag_finish", 3, **QUICK), running


async def test_an_exported_log_gives_the_same_frames_as_the_servers_log(finished):
    data_dir, table, _ = finished
    packed = packed_export(DataDir(data_dir).table_log(table))
    for seat in (None, 0, 2):
        assert await all_frames(data_dir, seat, export=packed) == await all_frames(data_dir, seat, log=table)


async def test_every_bad_replay_request_is_refused_with_its_code(finished):
    data_dir, table, running = finished
    path = DataDir(data_dir).table_log(table)
    waiting = await running.lobby.create(CreateTable(game="flag_finish", mode="lockstep", seats=2))
    cases = [(Replay(log=table, seat=3), "no_such_seat"), (Replay(), "bad_replay"),
             (Replay(log=table, export=packed_export(path)), "bad_replay"), (Replay(log=table, count=0), "bad_replay"),
             (Replay(log="t999"), "no_log"), (Replay(log="../x"), "no_log"),
             (Replay(log=waiting.id), "not_finished"),
             (Replay(export=packed_export(path, tampered)), "bad_log"),
             (Replay(export=packed_export(path, changing(rules_version="0"))), "bad_log"),
             (Replay(export=packed_export(path, changing(seats=9))), "bad_log"),
             (Replay(export=packed_export(path, reseeded)), "bad_log"),
             (Replay(export="not base64 at all!"), "bad_log"),
             (Replay(export=base64.b64encode(b"not gzip").decode()), "bad_log"),
             (Replay(export=base64.b64encode(gzip.compress(b'{"header": {}}')).decode()), "bad_log")]
    for message, code in cases:
        with pytest.raises(Refusal) as refused:
            frames.answer(DataDir(data_dir), message)
        assert refused.value.code == code, message
    with pytest.raises(Refusal) as refused:
        frames.answer(None, Replay(log=table))
    assert refused.value.code == "no_logs"


@pytest.fixture(scope="module")
def one_log(tmp_path_factory):
    """A finished Flush log written by an in-process server (for the property test)."""
    data_dir = tmp_path_factory.mktemp("data")

    async def main():
        async with trio.open_nursery() as nursery:
            running = await start(nursery, data_dir)
            table = await bot_table(running.lobby, "flush", 3)
            nursery.cancel_scope.cancel()
            return table

    return data_dir, trio.run(main)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seat=st.sampled_from([None, 0, 1, 2]), start=st.integers(0, 400), count=st.integers(1, 200))
def test_any_window_of_frames_is_the_same_slice_of_the_whole(one_log, seat, start, count):
    data_dir, table = one_log
    whole = frames.answer(DataDir(data_dir), Replay(log=table, seat=seat, count=200)).total
    everything: list[Frame] = []
    while len(everything) < whole:
        everything += frames.answer(DataDir(data_dir), Replay(log=table, seat=seat, start=len(everything),
                                                             count=200)).frames
    window = frames.answer(DataDir(data_dir), Replay(log=table, seat=seat, start=start, count=count))
    assert window.total == whole and window.frames == everything[start:start + count]


# ------------------------------------------------------------------ in the browser


@pytest.fixture(scope="module")
def logged_server(tmp_path_factory):
    server = LoggedServer(tmp_path_factory.mktemp("data"))
    if isinstance(server.running, BaseException):
        raise server.running
    yield server
    server.stop()


def step_text(page) -> str:
    return page.text_content(".replay-where")


def test_the_replay_page_steps_through_a_finished_table_as_a_seat_or_a_spectator(page, logged_server, shots):
    table = logged_server.run(bot_table, logged_server.running.lobby, "flag_finish", 3, races=1)
    page.goto(f"{logged_server.url}#/replay/{table}")
    page.wait_for_selector(".replay-controls")
    page.wait_for_function("() => !document.querySelector('.replay-where').textContent.includes('loading')")
    assert step_text(page).startswith("Step 0 of ") and "seen by a spectator" in step_text(page)
    total = int(step_text(page).split(" of ")[1].split(" ")[0])
    assert page.locator(".hand").count() == 0
    for _ in range(12):
        page.click("[data-key=forward]")
    assert step_text(page).startswith("Step 12 of ")
    page.click("[data-key=back]")
    assert step_text(page).startswith("Step 11 of ")
    feed_at_11 = page.locator(".feed li").all_text_contents()
    page.keyboard.press("ArrowRight")
    assert step_text(page).startswith("Step 12 of ")
    page.keyboard.press("ArrowLeft")
    assert page.locator(".feed li").all_text_contents() == feed_at_11  # going back shows the same again
    page.locator("input[name=entry]").fill("40")  # jump
    assert step_text(page).startswith("Step 40 of ")
    page.screenshot(path=shots / "replay_spectator.png", full_page=True)

    # As seat 2: that seat's hand, exactly as the server's view of it at that step; never another's.
    page.select_option("select[name=seat]", "1")
    page.wait_for_selector(".hand")
    assert step_text(page).startswith("Step 40 of ") and "seen by heuristic bot 2" in step_text(page)  # by name
    shown = page.locator(".hand [data-card]").evaluate_all("(cards) => cards.map((c) => c.dataset.card)")
    frame = frame_view(logged_server.data_dir, table, 1, 40)
    assert sorted(shown) == sorted(frame["hand"]) and len(shown) > 0
    page.screenshot(path=shots / "replay_seat.png", full_page=True)

    page.click("[data-key=last]")
    assert step_text(page).startswith(f"Step {total} of {total}")
    assert "won" in page.text_content(".result") or "share the win" in page.text_content(".result")
    page.click("[data-key=first]")
    page.select_option("select[name=speed]", "50")
    page.click("[data-key=play]")
    page.wait_for_function(f"() => document.querySelector('.replay-where').textContent.startsWith('Step {total} ')",
                           timeout=60_000)
    assert page.text_content("[data-key=play]").strip() == "▶ Play"  # stopped at the end


def test_the_replay_page_says_who_won_each_contested_card_and_by_what(page, logged_server, shots, tmp_path):
    """A fair Challenge table's log: at the frame of a take that beat another seat's, the feed says who reacted
    first and in how many ms, the other seat's time, and whether a lot decided a tie."""
    import shutil

    from tests.server.test_fairness import play_fair_game

    path, entries = play_fair_game(tmp_path, seed=5)
    table = "t9001"  # beside the server's own logs, a number it does not reach in these tests
    shutil.copy(path, DataDir(logged_server.data_dir).table_log(table))
    accepted = [e for e in entries if e.accepted]
    lost = next(e for e in entries if not e.accepted and e.fair is not None and e.fair.lost_to is not None)
    winner = next(e for e in accepted if e.fair and e.fair.group == lost.fair.group and e.actor == lost.fair.lost_to)
    index = accepted.index(winner) + 1  # frame i: after the i-th accepted entry
    page.goto(f"{logged_server.url}#/replay/{table}")
    page.wait_for_selector(".replay-controls")
    page.wait_for_function("() => !document.querySelector('.replay-where').textContent.includes('loading')")
    page.locator("input[name=entry]").fill(str(index))
    line = page.locator(f".feed li[data-seq='{winner.seq}']").first.text_content()
    said = page.locator(".feed .contest").first.text_content().strip()
    assert "took" in line and line.endswith(said)  # said with the take it decided
    assert said.startswith("Contested: ") and "reacted first, in " in said
    assert f"in {round(winner.fair.reaction * 1000, 2):g} ms" in said
    assert f"in {round(lost.fair.reaction * 1000, 2):g} ms" in said
    assert ("decided by lot" in said) == (winner.fair.rule == "lot")
    page.screenshot(path=shots / "replay_contest.png", full_page=True)
    page.locator("input[name=entry]").fill(str(index - 1))
    assert page.locator(f".feed li[data-seq='{winner.seq}'] .contest").count() == 0  # not yet, one step before


def frame_view(data_dir, table, seat, index):
    answer = frames.answer(DataDir(data_dir), Replay(log=table, seat=seat, start=index, count=1))
    return msgspec.to_builtins(answer.frames[0].view)


def test_an_exported_log_loads_from_a_file_and_a_bad_file_says_why(page, logged_server, shots, tmp_path):
    table = logged_server.run(bot_table, logged_server.running.lobby, "race_to_the_finish", 3)
    exported = tmp_path / f"{table}.json"
    exported.write_text(json.dumps(export(check_log(DataDir(logged_server.data_dir).table_log(table))), indent=1))
    page.goto(f"{logged_server.url}#/replay")
    page.wait_for_selector("input[type=file]")
    page.set_input_files("input[type=file]", str(exported))
    page.wait_for_selector(".replay-controls")
    page.click("[data-key=last]")
    assert page.locator(".result").count() == 1
    seen_by = page.locator("select[name=seat] option").all_text_contents()  # the server's bots, by name
    assert "heuristic bot 2 (seat 2)" in seen_by, seen_by
    page.screenshot(path=shots / "replay_file.png", full_page=True)
    bad = tmp_path / "bad.json"
    bad.write_text('{"header": {"game": "flag_finish"}, "records": []}')
    page.set_input_files("input[type=file]", str(bad))
    assert page.wait_for_selector(".error").text_content().startswith("Cannot replay it: ")
