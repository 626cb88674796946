"""What `photofinish replay` says about each entry of a log, for a referee: who acted, by the name the seat
had then; a refused intent with its reason; and, at a ``fair`` table, how each contested action was ordered
(its reaction time and what it was measured from, its place in its group, a tie decided by lot, the seat it
lost to). Read from the log alone (``server/LOG-FORMAT.md``, "fair")."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from server.protocol.logformat import Entry, ReadLog, SeatTaken

from .sentences import seat_words
from .words import ordinal

SYSTEM = {-1: "system", -2: "chance"}


@dataclass(frozen=True)
class LogPeople:
    """Each seat's name as it stood at each entry, and the contested entries of each fair ordering group."""

    names: dict[int, tuple[str, ...]]  # entry seq -> every seat's name then ("" for none)
    groups: dict[int, list[Entry]]  # group -> its entries, in the order they were applied

    @classmethod
    def of(cls, read: ReadLog) -> "LogPeople":
        header = read.header
        names = [""] * header.seats
        for bot in header.table_options.get("bots", []):  # named as the live table named them
            if isinstance(bot, dict) and 0 <= bot.get("seat", -1) < header.seats:
                names[bot["seat"]] = f"{bot.get('policy', 'heuristic')} bot"
        at: dict[int, tuple[str, ...]] = {}
        groups: dict[int, list[Entry]] = {}
        for record in read.records:
            if type(record) is SeatTaken and 0 <= record.seat < header.seats:
                names[record.seat] = record.name if record.token_hash is not None else ""
            elif type(record) is Entry:
                at[record.seq] = tuple(names)
                if record.fair is not None and record.fair.group is not None:
                    groups.setdefault(record.fair.group, []).append(record)
        return cls(at, groups)

    def who(self, entry: Entry, seat: int | None = None) -> str:
        seat = entry.actor if seat is None else seat
        if seat in SYSTEM:
            return SYSTEM[seat]
        names = self.names.get(entry.seq, ())
        name = names[seat] if 0 <= seat < len(names) else ""
        number = seat_words(seat)  # "seat 1": numbered from 1 wherever a person reads them; the log's are 0-based
        return f"{number} ({name})" if name else number


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def refused_words(entry: Entry, people: LogPeople, seat: int | None = None) -> str:
    """``#149 t=0.368s seat 1 (Ana): refused {"type":"take","card":"B8"}: card_not_in_discard``. Walking the
    log as ``seat``, another seat's refused action is not shown (it may name cards of a hidden hand): only
    that it was refused and why, which is what that seat could have learnt at the table at most."""
    if seat is not None and entry.actor != seat:
        return f"#{entry.seq} t={entry.time:.3f}s {people.who(entry)}: an action refused: {entry.code or 'refused'}"
    return f"#{entry.seq} t={entry.time:.3f}s {people.who(entry)}: refused {action_words(entry.action)}: " \
        f"{entry.code or 'refused'}"


def action_words(action) -> str:
    """A refused action as logged: its JSON, or for one the server kept only as a digest (it was over 512
    bytes), how large it was and the start of its sha256."""
    if isinstance(action, dict) and set(action) == {"digest", "bytes"}:
        digest = action["digest"] or "?"
        return f"an action of {action['bytes']} bytes (kept as its sha256 {digest[:16]}…)"
    return msgspec.json.encode(action).decode()


def fair_words(entry: Entry, people: LogPeople) -> str | None:
    """How a contested action was ordered, in words (None for an entry that was not contested)."""
    fair = entry.fair
    if fair is None:
        return None
    if fair.rule == "arrival":
        return (f"  contested, ordered by arrival (t={fair.arrival:.4f}s): it named no update its seat had seen, "
                "so it went after every action held before it")
    if fair.rule == "after":
        return f"  contested, applied right after its seat's action held before it (arrived t={fair.arrival:.4f}s)"
    members = people.groups.get(fair.group, [entry])
    place = next((i for i, member in enumerate(members) if member.seq == entry.seq), 0) + 1
    credit = fair.arrival - fair.sent - fair.reaction if None not in (fair.sent, fair.reaction) else 0.0
    rtt = "no round trip measured, no credit" if fair.rtt is None else f"round trip {ms(fair.rtt)}, {ms(credit)} credited"
    words = (f"  contested, group {fair.group}: reacted in {ms(fair.reaction or 0.0)} (update #{fair.seen} sent to it "
             f"at t={fair.sent:.4f}s, its action arrived at t={fair.arrival:.4f}s, {rtt}); "
             f"{ordinal(place)} of {len(members)} in its group")
    if fair.rule == "lot":
        words += f", a tie within the table's epsilon decided by lot ({fair.lot})"
    if fair.lost_to is not None:
        winner = next((m for m in members if m.actor == fair.lost_to and m.accepted and m.action == entry.action),
                      None)
        against = f", which reacted in {ms(winner.fair.reaction)}" if winner and winner.fair.reaction is not None else ""
        words += f"; lost to {people.who(entry, fair.lost_to)}{against}"
    return words

