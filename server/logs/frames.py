"""Replay frames: a table step by step as one seat (or a spectator) saw it, for the browser's replay page.

Frame 0 is the table before its first entry; frame i is the table after its i-th accepted entry: the entry's
events redacted for the chosen seat and that seat's view then, made by the game's own ``redact`` and ``view``,
so a frame holds exactly what a live table sent that receiver (a spectator's frames hold no hidden card).
The source is a finished table's log on this server (any worker's of `serve --workers`: ``finished_log``; a
table still playing is refused, since its seats' views are secret until its end) or an exported log a person
loaded (``Replay.export``: the file ``photofinish export`` wrote, gzip-compressed and base64-encoded, read back as
its log by ``server/logs/exported.py``). Either is checked whole by ``replay.check_read`` (the rebuild
``photofinish replay`` does) in the same pass that makes the frames asked for. ``playback_source`` reads and
checks a log for a playback the same way, in the same worker process. Pure apart from reading the log file: no
trio, no clock.
"""

from __future__ import annotations


import msgspec

from rules import RulesError, Setup, get_game

from ..datadir import DataDir
from .exported import ExportError, read_export, unpack, unpacked_size
from ..limits import LOG_ID
from .logfile import Entry, Header, LogError, ReadLog, SeatTaken, read_log
from ..protocol import Code, Frame, FrameContest, OpenPlayback, Refusal, Replay, ReplayFrames, Rival
from .finished import finished_log, read_finished
from .replay import check_log, check_read

MOST_FRAMES = 200  # in one answer: a page asks for the next ones
LOG_UNIT = 64 * 1024  # a replay costs one budget unit more for each this many bytes of its log (it is rebuilt whole)


def log_units(data_dir: DataDir | None, message: Replay | OpenPlayback) -> int:
    """The extra request-budget units a replay (or a playback) of a log costs: one per ``LOG_UNIT`` bytes of
    the log, which is read, checked and replayed whole for every page (a 24,000-entry log is about 90 units); an
    export sent in the message is charged for the size it says it unpacks to."""
    if getattr(message, "export", ""):
        return unpacked_size(message.export) // LOG_UNIT
    if data_dir is None or not message.log or not LOG_ID.fullmatch(message.log):
        return 0
    try:
        return data_dir.find_table_log(message.log).stat().st_size // LOG_UNIT
    except OSError:
        return 0


def answer(data_dir: DataDir | None, message: Replay) -> ReplayFrames:
    """The frames ``message`` asks for, or ``Refusal`` (``bad_replay``, ``no_log``, ``not_finished``,
    ``bad_log``, ``no_such_seat``, ``no_logs``) and nothing else happens."""
    if not 1 <= message.count <= MOST_FRAMES or message.start < 0:
        raise Refusal(Code.BAD_REPLAY, f"ask for 1..{MOST_FRAMES} frames from frame 0 on")
    if bool(message.log) == bool(message.export):
        raise Refusal(Code.BAD_REPLAY, "name a finished table's log, or send an exported log (one of the two)")
    if message.export:
        read, marker, what = _from_export(message.export), None, "the exported log"
    else:
        read, what = _from_file(data_dir, message.log), f"the log of {message.log}"
        marker = read_finished(read.path)
    header, seat = read.header, message.seat
    stop = message.start + message.count
    collect = seat is None or 0 <= seat < header.seats
    frames: list[Frame] = []
    accepted = 0
    game = None

    def step(entry: Entry, state, events) -> None:
        nonlocal accepted
        if events is None:
            return
        accepted += 1
        if collect and message.start <= accepted < stop:
            frames.append(_frame(game, state, seat, entry.seq, entry.time, entry.actor, events))

    try:
        game = get_game(header.game)
    except RulesError:
        pass  # the check names what is wrong with the header
    report = check_read(read, step, marker)
    if not report.ok:
        raise Refusal(Code.BAD_LOG, f"{what} does not check out: {report.problem}")
    if collect and message.start == 0:
        initial = game.new_state(Setup(seats=header.seats, mode=header.mode, options=header.options))
        frames.insert(0, _frame(game, initial, seat, 0, 0.0, -1, []))
    if not message.export and not report.ended:
        raise Refusal(Code.NOT_FINISHED, f"table {message.log} has not finished: watch it live instead")
    if not collect:
        raise Refusal(Code.NO_SUCH_SEAT, f"the table had seats 1..{header.seats}")
    contests = contests_won(read.entries())
    frames = [msgspec.structs.replace(f, contest=contests[f.seq]) if f.seq in contests else f for f in frames]
    return ReplayFrames(ref=message.id, game=header.game, seats=header.seats, mode=header.mode, names=_names(read),
                        seat=seat, total=accepted + 1, start=message.start, frames=frames)


def playback_source(data_dir: DataDir | None, log: str) -> tuple[Header, str, list[bytes]]:
    """What a playback of table ``log`` plays (``Lobby.open_playback``): its log's header, its seed and each
    accepted entry msgpack-encoded (decoded one at a time as it is played), or ``Refusal`` (``no_logs``,
    ``no_log``, ``bad_log``, ``not_finished``). Run in the replay worker's process, as a replay is: the log is
    read and checked whole, and for 100,000 entries (a 30 MB log) that took the server's own process 1.1 s
    and 150 MB, every table's answers slowed to 1 s meanwhile (red team 8)."""
    report = check_log(finished_log(data_dir, log))  # (a table still playing on this worker: refused below)
    if not report.ok:
        raise Refusal(Code.BAD_LOG, f"the log of {log} does not check out: {report.problem}")
    if not report.ended:
        raise Refusal(Code.NOT_FINISHED, f"table {log} has not finished: watch it live instead")
    encode = msgspec.msgpack.Encoder().encode
    return report.read.header, report.read.end.seed, [encode(e) for e in report.read.entries() if e.accepted]


def _from_file(data_dir: DataDir | None, log: str) -> ReadLog:
    path = finished_log(data_dir, log)  # this worker's, or another's of this machine once it finished
    try:
        return read_log(path)
    except LogError as error:
        raise Refusal(Code.BAD_LOG, f"the log of {log} does not check out: line {error.line}: {error.message}"
                         ) from None
    except OSError as error:
        raise Refusal(Code.BAD_LOG, f"the log of {log} cannot be read: {error.strerror or error}") from None


def _from_export(packed: str) -> ReadLog:
    try:
        return read_export(unpack(packed))
    except ExportError as error:
        raise Refusal(Code.BAD_LOG, str(error)) from None


def _names(read: ReadLog) -> list[str]:
    """Each seat's name: a person's as they took the seat, a server bot's as the live table named it."""
    header = read.header
    names = [""] * header.seats
    for bot in header.table_options.get("bots", []):  # named as the live table named them (server/table/arbiter.py)
        if isinstance(bot, dict) and 0 <= bot.get("seat", -1) < header.seats:
            names[bot["seat"]] = f"{bot.get('policy', 'heuristic')} bot"
    for record in read.records:
        if type(record) is SeatTaken and record.name and 0 <= record.seat < header.seats:
            names[record.seat] = record.name
    return names


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


def _frame(game, state, seat: int | None, seq: int, time: float, actor: int, events: list) -> Frame:
    return Frame(seq=seq, time=time, actor=actor, events=[game.redact(e, seat) for e in events],
                 view=game.view(state, seat), to_act=list(game.to_act(state).seats), result=game.result(state))
