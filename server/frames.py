"""Replay frames: a table step by step as one seat (or a spectator) saw it, for the browser's replay page.

Frame 0 is the table before its first entry; frame i is the table after its i-th accepted entry: the entry's
events redacted for the chosen seat and that seat's view then, made by the game's own ``redact`` and ``view``,
so a frame holds exactly what a live table sent that receiver (a spectator's frames hold no hidden card).
The source is a finished table's log on this server (checked whole by ``replay.check_log`` first; a table still
playing is refused, since its seats' views are secret until its end) or an exported log a person loaded
(``ReplayLog``: every action must apply, every recorded digest must match, and a revealed seed must match the
commitment). Pure apart from reading the log file: no trio, no clock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from rules import RulesError, Setup, digest, get_game
from rules.contract import make_setup

from .limits import LOG_ID
from .logfile import Entry, SeatTaken, seed_commitment
from .protocol import Frame, FrameContest, Replay, ReplayFrames, ReplayLog, Rival
from .replay import check_log

MOST_FRAMES = 200  # in one answer: a page asks for the next ones
LOG_UNIT = 64 * 1024  # a replay costs one budget unit more for each this many bytes of its log (it is rebuilt whole)


def log_units(data_dir: Path | None, message: Replay) -> int:
    """The extra request-budget units a replay of a log costs: one per ``LOG_UNIT`` bytes of the log, which
    is read, checked and replayed whole for every page (a 24,000-entry log is about 90 units)."""
    if data_dir is None or not message.log or not LOG_ID.fullmatch(message.log):
        return 0
    try:
        return (Path(data_dir) / "tables" / f"{message.log}.log").stat().st_size // LOG_UNIT
    except OSError:
        return 0


def answer(data_dir: Path | None, message: Replay) -> ReplayFrames:
    """The frames ``message`` asks for, or ``RulesError`` (``bad_replay``, ``no_log``, ``not_finished``,
    ``bad_log``, ``no_such_seat``, ``no_logs``) and nothing else happens."""
    if not 1 <= message.count <= MOST_FRAMES or message.start < 0:
        raise RulesError("bad_replay", f"ask for 1..{MOST_FRAMES} frames from frame 0 on")
    if bool(message.log) == (message.document is not None):
        raise RulesError("bad_replay", "name a finished table's log, or send an exported log (one of the two)")
    if message.document is not None:
        game, setup, names, entries = _from_document(message.document)
    else:
        game, setup, names, entries = _from_file(data_dir, message.log)
    seat = message.seat
    if seat is not None and not 0 <= seat < setup.seats:
        raise RulesError("no_such_seat", f"the table had seats 1..{setup.seats}")
    frames = _frames(game, setup, entries, seat, message.start, message.start + message.count)
    return ReplayFrames(ref=message.id, game=game.info.name, seats=setup.seats, mode=setup.mode, names=names,
                        seat=seat, total=len(entries) + 1, start=message.start, frames=frames)


def _from_file(data_dir: Path | None, log: str):
    if data_dir is None:
        raise RulesError("no_logs", "this server keeps no logs (it runs without a data directory)")
    if not LOG_ID.fullmatch(log):  # a file name is made only of an id of the right shape (and length)
        raise RulesError("no_log", f"no log for table {log[:24]!r}")
    path = Path(data_dir) / "tables" / f"{log}.log"
    if not path.exists():
        raise RulesError("no_log", f"no log for table {log!r}")
    report = check_log(path)
    if not report.ok:
        raise RulesError("bad_log", f"the log of {log} does not check out: {report.problem}")
    if not report.ended:
        raise RulesError("not_finished", f"table {log} has not finished: watch it live instead")
    header = report.read.header
    game = get_game(header.game)
    setup = Setup(seats=header.seats, mode=header.mode, options=header.options)
    names = [""] * header.seats
    for bot in header.table_options.get("bots", []):  # named as the live table named them (server/table.py)
        if isinstance(bot, dict) and 0 <= bot.get("seat", -1) < header.seats:
            names[bot["seat"]] = f"{bot.get('policy', 'heuristic')} bot"
    for record in report.read.records:
        if type(record) is SeatTaken and record.name:
            names[record.seat] = record.name
    read = report.read.entries()
    contests = contests_won(read)
    entries = [(e.seq, e.time, e.actor, game.to_action(e.action), contests.get(e.seq)) for e in read if e.accepted]
    return game, setup, names, entries


def contests_won(entries: list[Entry]) -> dict[int, FrameContest]:
    """For each accepted entry that beat another seat's same action in a fair ordering group: how (by seq)."""
    lost: dict[tuple[int, int], list[Entry]] = {}  # (group, the winner's seat) -> the refused entries
    for entry in entries:
        if not entry.accepted and entry.fair is not None and entry.fair.lost_to is not None:
            lost.setdefault((entry.fair.group, entry.fair.lost_to), []).append(entry)
    won = {}
    for entry in entries:
        fair = entry.fair
        if not entry.accepted or fair is None or fair.reaction is None:
            continue
        rivals = [Rival(seat=r.actor, reaction_ms=round(r.fair.reaction * 1000, 2))
                  for r in lost.get((fair.group, entry.actor), []) if r.action == entry.action
                  and r.fair.reaction is not None]
        if rivals:
            won[entry.seq] = FrameContest(reaction_ms=round(fair.reaction * 1000, 2), rivals=rivals,
                                          lot=fair.rule == "lot")
    return won


def _from_document(doc: ReplayLog):
    """Check an exported log by rebuilding it; ``bad_log`` names the first entry that does not rebuild."""
    try:
        game = get_game(doc.game)
    except RulesError as error:
        raise RulesError("bad_log", error.message) from None
    if game.info.rules_version != doc.rules_version:
        raise RulesError("bad_log", f"the log is of {doc.game} rules v{doc.rules_version}, this server plays "
                                    f"v{game.info.rules_version}")
    try:
        setup = make_setup(game.info, doc.seats, doc.mode, doc.options)
    except RulesError as error:
        raise RulesError("bad_log", f"the log's set-up is not a game: {error.message}") from None
    if doc.seed is not None and doc.commitment and seed_commitment(doc.seed) != doc.commitment:
        raise RulesError("bad_log", "the revealed seed does not match the commitment made at the start")
    state = game.new_state(setup)
    entries, previous = [], 0
    for entry in doc.entries:
        where = f"entry {entry.seq}"
        if entry.seq <= previous:
            raise RulesError("bad_log", f"{where} comes after entry {previous}: entries go in order")
        previous = entry.seq
        try:
            action = game.to_action(entry.action)
            game.apply(state, entry.actor, action)
        except (msgspec.ValidationError, RulesError) as error:
            raise RulesError("bad_log", f"{where}: the rules refuse it: {error}") from None
        if entry.digest is not None and entry.digest != digest(state):
            raise RulesError("bad_log", f"{where}: the rebuilt state differs from the one recorded")
        entries.append((entry.seq, entry.time, entry.actor, action, None))
    names = (list(doc.names) + [""] * setup.seats)[:setup.seats]
    return game, setup, names, entries


def _frames(game, setup: Setup, entries: list[tuple[int, float, int, Any, Any]], seat: int | None, start: int,
            stop: int) -> list[Frame]:
    """Frames ``start``..``stop - 1``: every entry is applied, only the frames asked for are viewed."""
    state = game.new_state(setup)
    frames = []
    if start == 0:
        frames.append(_frame(game, state, seat, 0, 0.0, -1, [], None))
    for index, (seq, time, actor, action, contest) in enumerate(entries, start=1):
        if index >= stop:
            break
        events = game.apply(state, actor, action)
        if index >= start:
            frames.append(_frame(game, state, seat, seq, time, actor, events, contest))
    return frames


def _frame(game, state, seat: int | None, seq: int, time: float, actor: int, events: list, contest) -> Frame:
    return Frame(seq=seq, time=time, actor=actor, events=[game.redact(e, seat) for e in events],
                 view=game.view(state, seat), to_act=list(game.to_act(state).seats), result=game.result(state),
                 contest=contest)
