"""kill -9 at each of the organiser's records (``server/tournament/actions.py``), between its log line and
everything after it: a real server kills itself there (``server/logs/crashpoint.py``), is started again on the same
data directory, and the event goes on to its end and verifies, with the store saying what the log says. A record
written is a record replayed: a swap, a drop undone, a round begun (its tables opened at the restart), a penalty.

The organiser's script is re-entrant, as in ``test_crash_windows.py``: after a crash it reads where the event
stands (the actions already logged) and does only what is missing."""

from __future__ import annotations

import pytest

from clients.client import open_client
from server.protocol import TournamentState

from .test_crash_windows import Script, crash_then_finish

POINTS = ["tournament:undropped", "tournament:swapped", "tournament:round_begun", "tournament:round_begun@2",
          "tournament:penalised"]


async def organise(url: str, script: Script) -> None:
    """Create (pairings first), register four, drop one and undo it, start; each round swap two players and
    begin it; penalise one player once; follow the event to its end. From wherever it stands."""
    async with open_client(url) as organiser:
        if script.tid is None:
            created = await organiser.create_tournament(game="flag_finish", mode="challenge", seats=2, rounds=2,
                                                        options={"races": 1}, no_show_ms=100, bot_delay_ms=0,
                                                        pairings_first=True)
            script.tid, script.secret = created.tournament.tournament, created.secret
        tid, secret = script.tid, script.secret
        state = await organiser.watch_tournament(tid)
        while len(state.players) < 4:
            script.names += 1
            await organiser.register(tid, f"player {script.names}")
            state = await organiser.watch_tournament(tid)
        done = {a.kind for a in state.actions}
        if state.tournament.status == "registration":
            if "dropped" not in done:
                await organiser.drop(tid, secret=secret, player=state.players[-1].player)
            if "undropped" not in done:
                await organiser.organiser_action("undo_drop", tid, secret, player=state.players[-1].player,
                                                 reason="dropped by mistake")
            await organiser.start_tournament(tid, secret)
            state = await organiser.watch_tournament(tid)
        while state.tournament.status != "over":
            state = await organiser.watch_tournament(tid)  # now, not a change pushed before the last action
            if state.tournament.status == "over":
                break
            acted = {(a.kind, a.round) for a in state.actions}
            waiting = state.tournament.waiting_round
            if waiting and ("swapped", waiting) not in acted:
                tables = state.rounds[-1].tables
                await organiser.organiser_action("swap_players", tid, secret, reason="came together",
                                                 players=[tables[0].players[0], tables[1].players[0]])
            if waiting:
                state = await organiser.start_tournament(tid, secret)
                continue
            if state.tournament.round and not any(a.kind == "penalised" for a in state.actions):
                state = await organiser.organiser_action("penalise", tid, secret, player=state.players[0].player,
                                                         points=1.0, reason="late")
                continue
            while type(await organiser.messages.receive()) is not TournamentState:  # the next change
                pass


@pytest.mark.parametrize("crash_at", POINTS)
async def test_kill_9_at_each_organiser_record_then_the_event_resumes_and_verifies(tmp_path, crash_at):
    log = (await crash_then_finish(tmp_path, crash_at, organise)).read_text()
    for kind in ("undropped", "swapped", "round_begun", "penalised"):
        assert f'"kind":"{kind}"' in log
