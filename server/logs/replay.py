"""Checking a log file by rebuilding its game: `photofinish replay`, `verify` and `export`.

``check_log`` reads the file (hash chain), then rebuilds its game entry by entry (``server/logs/rebuild.py``, the
fold a restarted server and the replay frames use too), checking the numbering, every action against the
rules, every recorded state digest, and then the end record's digest and scores (``check_read`` does all but
the reading, for a log read from an export). The first problem stops the check and is named by its line and
sequence number; the end record's revealed seed must match the header's commitment. ``verify_seed`` rebuilds
it again with every chance action checked against the revealed seed; ``check_receipt`` says whether a log
holds an entry with exactly the hash a player was given. Nothing here needs a server: it is the same code a
player runs on a log they were sent.

At a ``fair`` table every ordering decision is recomputed from the inputs its entries record
(``server/fairness.py``, the arbiter's own functions): each reaction time, each hold within its bound, the
order of each group released together, ties by their logged lots, and that a seat told it lost a card lost
it to that seat's same action; ``verify_seed`` then checks every lot against the revealed seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import msgspec

from rules import CHANCE, RulesError, Setup, digest, get_game, make_setup

from .finished import Finished, marker_path, read_finished
from ..fairness import EPSILON, GUESS_REACTION, credit, credited, draw_from, fair_order, hold_bound, lot_rng, reaction
from .logfile import End, Entry, LogError, ReadLog, read_log, seed_commitment
from .rebuild import Unbuildable, fold, start


@dataclass
class Report:
    path: Path
    game: str = ""
    seats: int = 0
    mode: str = ""
    lines: int = 0
    entries: int = 0
    accepted: int = 0
    refused: int = 0
    digests_checked: int = 0
    decisions: int = 0  # fair ordering decisions recomputed
    ended: bool = False
    expired: bool = False  # the end record says nobody sat at it (``expired``)
    halted: str | None = None  # the end record's reason when the table was ended as it stood (``HALTED``)
    torn: str | None = None
    result: Any = None
    problem: str | None = None
    history: list = field(default_factory=list)
    read: ReadLog | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def summary(self) -> str:
        if self.read is None:
            return f"{self.path}: cannot be replayed\n  PROBLEM: {self.problem}"
        lines = [f"{self.path}: {self.game}, {self.seats} seats, {self.mode} mode"]
        lines.append(f"  {self.entries} entries ({self.accepted} accepted, {self.refused} refused), "
                     f"{self.digests_checked} state digests checked, hash chain of {self.lines} lines intact")
        if self.decisions:
            lines.append(f"  {self.decisions} fair ordering decisions recomputed from their logged inputs")
        if self.torn:
            lines.append(f"  torn tail: {self.torn}; the rest was replayed")
        chosen = self.read.header.table_options.get("chosen_seed")
        if chosen is not None:
            lines.append(f"  a practice table: its creator chose the seed ({chosen}), so its deal was known to them")
        if self.result is not None:
            lines.append(f"  result: scores {list(self.result.scores)}, winners {list(self.result.winners)}")
        elif self.ended and self.expired:
            lines.append("  expired: nobody sat at the table (or its players all left) before it filled; it was closed")
        elif self.ended and self.halted is not None:
            lines.append(f"  ended as it stood ({HALTED[self.halted]}): places {list(self.read.end.places or [])}")
        elif self.problem is None:
            lines.append("  no end record: the table was still open (or its server died); replayed so far")
        lines.append(f"  PROBLEM: {self.problem}" if self.problem else "  OK: every state rebuilt exactly")
        return "\n".join(lines)


# End reasons of a table ended before its game's end, placed as the game stood (``server/table/timers.py``
# ``halt``), and what they mean; a log before ``abandoned`` existed has none, and reads as it always did
HALTED = {"time_limit": "a tournament round's time ran out",
          "abandoned": "no player was connected for serve --abandoned-after seconds",
          "disk_low": "played by server bots alone while the disk was below serve --min-free-mb"}


OnStep = Callable[[Entry, Any, "list | None"], None]  # an entry, the state after it, its events (None: refused)


def check_log(path: Path | str, on_step: OnStep | None = None) -> Report:
    """Read the log at ``path`` and check it (``check_read``), with the finished marker beside it."""
    report = Report(Path(path))
    try:
        read = read_log(path)
    except LogError as error:
        report.problem = f"line {error.line}: {error.message}"
        return report
    except OSError as error:
        report.problem = f"cannot read it: {error.strerror or error}"
        return report
    return check_read(read, on_step, marker=read_finished(read.path))


def check_read(read: ReadLog, on_step: OnStep | None = None, marker: Finished | str | None = None) -> Report:
    """Check a log already read (its chain whole): rebuild it entry by entry (``server/logs/rebuild.py``), every
    fair ordering decision and the end record; ``marker``, the finished marker kept beside its file, if any."""
    report = Report(read.path)
    report.read, report.torn, report.lines = read, read.torn, len(read.records) + 1
    header = read.header
    report.game, report.seats, report.mode = header.game, header.seats, header.mode
    try:
        game = get_game(header.game)
    except RulesError as error:
        report.problem = f"line 1: {error.message}"
        return report
    if game.info.rules_version != header.rules_version:
        report.problem = (f"line 1: the log is of {header.game} rules v{header.rules_version}, "
                          f"this program plays v{game.info.rules_version}")
        return report
    try:
        make_setup(game.info, header.seats, header.mode, header.options)
    except RulesError as error:
        report.problem = f"line 1: the log's set-up is not a game: {error.message}"
        return report

    window = _Window()
    fair_table = header.table_options.get("ordering") == "fair"

    def check(entry: Entry) -> str | None:  # once its number is right, before it is applied
        report.entries += 1
        problem = window.check(entry, rebuild.session.to_act(), header.table_options)
        if problem is None and entry.fair is None and fair_table and entry.accepted:
            problem = _unordered(game, rebuild.session.state, entry)
        if entry.fair is None or problem is not None:
            return problem
        problem = _check_fair(entry, header.table_options)
        report.decisions += problem is None
        return problem

    rebuild = start(game, Setup(seats=header.seats, mode=header.mode, options=header.options), check=check)
    report.history = rebuild.session.history
    for line, record in enumerate(read.records, start=2):
        kind = type(record)
        if kind is Entry:
            try:
                step = rebuild.entry(record)
            except Unbuildable as error:
                report.problem = f"line {line} (entry {record.seq}): {error.problem}"
                return report
            if step.events is None:
                report.refused += 1
            else:
                report.accepted += 1
                report.digests_checked += record.digest is not None  # (a digest that differs raised)
            if on_step:  # a refused entry changed nothing; a referee still sees the attempt
                on_step(record, step.state, step.events)
        elif kind is End:
            state = rebuild.state
            result = game.result(state)
            if record.seq != rebuild.seq or record.digest != digest(state):
                report.problem = f"line {line} (end): the final state differs from the one recorded"
                return report
            if record.reason == "expired":  # nobody sat at it: it never started
                if report.accepted or record.places or record.scores:
                    report.problem = f"line {line} (end): a table that expired had started"
                    return report
                result = None
            elif record.reason in HALTED:  # halted before the game's end: placed as the game stood
                if record.places != list(game.standing(state)):
                    report.problem = f"line {line} (end): the recorded places are not the game's standing"
                    return report
                result = None
            elif result is None or list(result.scores) != record.scores or list(result.winners) != record.winners:
                report.problem = f"line {line} (end): the recorded scores are not the game's"
                return report
            elif record.places is not None and record.places != list(game.placings(state)):
                report.problem = f"line {line} (end): the recorded places are not the game's"
                return report
            if seed_commitment(record.seed) != header.commitment:
                report.problem = (f"line {line} (end): the revealed seed does not match the commitment made "
                                  "at the start")
                return report
            if isinstance(marker, Finished) and marker.end_hash != read.hashes[line - 2]:
                report.problem = (f"line {line} (end): not the end line written when the table finished (the hash "
                                  f"in {marker_path(read.path).name} beside the log differs): the log was "
                                  "rewritten after its game ended")
                return report
            report.digests_checked += 1
            report.ended, report.result = True, result
            report.expired = record.reason == "expired"
            report.halted = record.reason if record.reason in HALTED else None
    for members in fair_groups(read).values():
        problem = _check_group(members, header.table_options)
        if problem is not None:
            report.problem = problem
            return report
    return report


def _limits(table_options: dict) -> tuple[float, float]:
    """The fair ordering's cap and tie epsilon, in seconds, as the table's header recorded them."""
    return table_options.get("fair_ms", 50) / 1000, table_options.get("fair_epsilon_ms", EPSILON * 1000) / 1000


def _unordered(game, state, entry: Entry) -> str | None:
    """An accepted entry with no fair ordering record at a ``fair`` table: a problem if the rules contest its
    action (every contested action there is held and ordered, or refused ``too_early``; one applied as it came
    jumped the others' reactions)."""
    try:
        action = game.to_action(entry.action)
    except (msgspec.ValidationError, RulesError):
        return None  # (the rules refuse it as it is applied: that problem is said then)
    if game.contested(state, action):
        return "a contested action applied as it arrived, with no fair ordering record, at a fair table"
    return None


def _check_fair(entry: Entry, table_options: dict) -> str | None:
    """One entry's decision checked for consistency: it was sent before it arrived and applied after it
    arrived; the round trip credited is what its logged samples give; its reaction is recomputed exactly
    from its inputs; its hold within the bound; the rule fits (a lot only in a tie)."""
    fair = entry.fair
    if fair.rule in ("arrival", "after"):
        return None if entry.time >= fair.arrival else "applied before it arrived"
    if fair.rule not in ("reaction", "lot", "guess", "too_early"):
        return f"unknown fair ordering rule {fair.rule!r}"
    if entry.time < fair.arrival:
        return "applied before it arrived"
    if fair.sent is not None and fair.sent > fair.arrival and fair.rule != "too_early":  # (too early: refused,
        # as an action chosen before a restart and resent before the reopened table sent the card again is)
        return "the card was sent to the seat after its action arrived"
    unverified = table_options.get("unverified_credit_ms")
    unverified = None if unverified is None else unverified / 1000
    if fair.pings is not None and fair.rtt not in (
            credited(fair.pings, fair.path, fair.kernel, unverified=unverified),
            credited(fair.pings, fair.path, fair.kernel, estimate=min, unverified=unverified)):
        return "the round trip credited is not what its logged ping samples and takes give"  # (min: older logs)
    if fair.pings is None and fair.rtt is not None:  # none measured, or set aside (a seat caught answering late)
        return "a round trip credited without the ping samples it comes from"
    if fair.rule == "too_early":
        return None if not entry.accepted else "an action refused as too early was applied"
    if None in (fair.sent, fair.reaction, fair.until, fair.group, fair.rank):
        return "a fair ordering decision without its inputs"
    cap, _ = _limits(table_options)
    if fair.rule != "guess" and reaction(fair.arrival, fair.sent, fair.rtt, cap) != fair.reaction:
        return "the recorded reaction time is not arrival - sent - min(rtt, fair_ms)"
    if fair.rule == "guess" and fair.reaction != GUESS_REACTION:
        return "a guess not ordered after every reaction"
    if fair.until > hold_bound(fair.arrival, fair.rtt, cap) or fair.until < fair.arrival:
        return "the action was due later than fair_ms less its seat's credit after its arrival"
    if fair.rule != "guess" and (fair.rule == "lot") != (fair.lot is not None):
        return "a lot without a tie, or a tie without a lot"
    return None


@dataclass
class _Window:
    """The photo-finish window at a fair table, followed entry by entry: opened by the accepted contested
    action before a system action fell due, it closes in reaction time (``server/table/fair.py``
    ``window_end``): a contested action accepted while it is open must fall within it, one refused
    ``too_late`` after it."""

    end: float | None = None
    last: Entry | None = None  # the last accepted entry

    def check(self, entry: Entry, turn: Any, table_options: dict) -> str | None:
        if not turn.system:
            self.end = None
        elif self.end is None and self.last is not None and self.last.fair is not None and self.last.fair.rule in (
                "reaction", "lot", "guess"):
            cap, _ = _limits(table_options)
            self.end = self.last.fair.arrival - credit(self.last.fair.rtt, cap) + turn.system_delay_ms / 1000
        if entry.accepted:
            self.last = entry
        fair = entry.fair
        if fair is None or fair.rule in ("arrival", "after", "too_early"):
            return None
        late = self.end is not None and fair.arrival - credit(fair.rtt, _limits(table_options)[0]) > self.end
        if entry.code == "too_late" and not late:
            return "refused as too late for the photo-finish window, yet within it in reaction time"
        if entry.accepted and late:
            return "accepted in the photo-finish window, yet after its close in reaction time"
        return None


def fair_groups(read: ReadLog) -> dict[int, list[tuple[int, Entry]]]:
    """The entries of each group of held actions released together, with their lines, in log order."""
    groups: dict[int, list[tuple[int, Entry]]] = {}
    for line, record in enumerate(read.records, start=2):
        if type(record) is Entry and record.fair is not None and record.fair.group is not None:
            groups.setdefault(record.fair.group, []).append((line, record))
    return groups


def _group_order(members: list[tuple[int, Entry]], table_options: dict, draw) -> tuple[list[int], dict[int, int]]:
    _, epsilon = _limits(table_options)
    by_rank = sorted(members, key=lambda m: m[1].fair.rank)
    return fair_order([entry.fair.reaction for _, entry in by_rank], epsilon, draw)


def _check_group(members: list[tuple[int, Entry]], table_options: dict) -> str | None:
    """A group went in the order its reactions (and, for ties, its logged lots) give, and every "lost to"
    names a seat whose same action went first in it and was accepted."""
    line, first = members[0]
    where = f"line {line} (entry {first.seq}, group {first.fair.group})"
    ranks = sorted(entry.fair.rank for _, entry in members)
    if ranks != list(range(len(members))):
        return f"{where}: the group's arrival ranks are not 0..{len(members) - 1}"
    lots = {entry.fair.rank: entry.fair.lot for _, entry in members}
    missing = []

    def logged(indices: list[int]) -> list[int]:
        missing.extend(i for i in indices if lots[i] is None)
        return [lots[i] or 0 for i in indices]

    order, drawn = _group_order(members, table_options, logged)
    if missing or set(drawn) != {rank for rank, lot in lots.items() if lot is not None}:
        return f"{where}: the group's lots are not exactly its ties"
    if order != [entry.fair.rank for _, entry in members]:
        return f"{where}: the group was not applied in order of reaction time"
    for index, (line, entry) in enumerate(members):
        if entry.fair.lost_to is not None:
            if entry.accepted or not any(
                    earlier.actor == entry.fair.lost_to and earlier.accepted and earlier.action == entry.action
                    for _, earlier in members[:index]):
                return (f"line {line} (entry {entry.seq}): it says it lost to seat {entry.fair.lost_to + 1}, which "
                        "did not take the same action before it in its group")
    return None


def verify_seed(report: Report) -> str | None:
    """With the revealed seed, check the commitment and every chance action; None if all follow from it."""
    read = report.read
    end = read.end if read else None
    if end is None:
        return "the log has no end record, so its seed is not revealed yet"
    if seed_commitment(end.seed) != read.header.commitment:
        return "the revealed seed does not match the commitment made at the start"
    game = get_game(read.header.game)
    setup = Setup(seats=read.header.seats, mode=read.header.mode, options=read.header.options)
    try:
        for _ in fold(start(game, setup, end.seed), read.entries()):
            pass
    except Unbuildable as error:
        return str(error)
    draw = draw_from(lot_rng(end.seed))
    for group, members in sorted(fair_groups(read).items()):
        _, drawn = _group_order(members, read.header.table_options, draw)
        if drawn != {entry.fair.rank: entry.fair.lot for _, entry in members if entry.fair.lot is not None}:
            return f"entry {members[0][1].seq}: the lots of fair ordering group {group} do not follow from the seed"
    return None


def check_receipt(path: Path | str, seq: int, receipt: str) -> tuple[bool, str]:
    """Whether the log at ``path`` holds entry ``seq`` with exactly the line hash ``receipt`` (which, by the
    chain, fixes every line before it too); and one line saying so."""
    try:
        read = read_log(path)
    except LogError as error:
        return False, f"{path}: cannot check the receipt: line {error.line}: {error.message}"
    except OSError as error:
        return False, f"{path}: cannot read it: {error.strerror or error}"
    for line, (record, line_hash) in enumerate(zip(read.records, read.hashes), start=2):
        if type(record) is Entry and record.seq == seq:
            if line_hash == receipt.lower():
                return True, (f"{path}: receipt {seq}:{receipt} matches line {line}: this log holds entry {seq} "
                              "and every line before it exactly as they were when the receipt was given")
            return False, (f"{path}: receipt {seq}:{receipt} does NOT match: line {line} (entry {seq}) has hash "
                           f"{line_hash}, so this is not the log the receipt came from")
    return False, f"{path}: receipt {seq}:{receipt} does NOT match: the log has no entry {seq}"


def chance_count(report: Report) -> int:
    return sum(actor == CHANCE for actor, _ in report.history)


def export(report: Report) -> dict:
    """One JSON-ready document: the header, every record, and the check's verdict."""
    read = report.read
    return {
        "path": str(report.path),
        "ok": report.ok,
        "problem": report.problem,
        "torn": report.torn,
        "header": msgspec.to_builtins(read.header) if read else None,
        "records": msgspec.to_builtins(read.records) if read else [],
        "result": msgspec.to_builtins(report.result) if report.result is not None else None,
    }
