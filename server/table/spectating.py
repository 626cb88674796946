"""A table's spectators: what they are sent, and when.

- **Built and encoded once.** Every spectator sees the same view (no hand of anyone's), so an update to the
  spectators is one message, built once and marked for ``encodeonce``: each encoding's bytes are made once,
  whatever the number of spectators. The players' updates are built and handed over first.
- **A broadcast delay** (``spectator_delay_ms``, a table option): spectators are sent the table as it was that
  long ago; with ``spectator_delay_entries`` as well (or instead), only once that many accepted entries (moves)
  have followed it, however long its players think (refused actions do not count: a player could send junk to
  bring the stream up to the table) (a lockstep table's broadcast view never shows the hands of the turn
  being played), except that once the game is over its end is shown (after the time delay, if any). Their updates
  wait in ``Stream.pending`` (``Pending``) with the snapshot they lead to; a spectator who starts watching, catches
  up or falls behind is given the snapshot last released (``Stream.shown``), never the table as it is, and a
  finished table's replay opens only once its end has been shown (``end_shown``).
- **A broadcast view** (a table created with ``broadcast``, which needs a delay): a spectator who watches with
  the key its creator was given, and holds no seat at the table, gets every seat's view (``BroadcastView``)
  besides the public one, past the delay like every spectator; the events stay the public ones (a deal's hidden
  order is never shown, only the hands as their seats see them).
- **How many watch** (``present.py``): each spectator is told who is at the table as it comes in and at once when
  a seat changes, the number watching at most every ``COUNT_EVERY_S``; behind the delay at a delayed table.
- **A spectator who falls behind** (its outbox full) is not closed and never slows the table: it leaves the live
  stream, and once it has room again (tried at most every ``RETRY_S``) it is sent the snapshot (``skipped``
  says how many updates it missed) and rejoins the stream.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
import trio

from ..wire import encodeonce
from ..protocol import BroadcastView, Code, Snapshot, TableEnded, Update, Watch, Watching
from . import patching
from .receiver import Receiver
from .seats import token_hash

if TYPE_CHECKING:
    from .arbiter import Table

RETRY_S = 1.0  # a spectator that fell behind is offered the snapshot again at most this often
COUNT_EVERY_S = 1.0  # spectators are told a new number watching at most this often (a seat's change at once)


class Pending(NamedTuple):
    """What spectators are sent once a broadcast delay allows."""

    due: float  # trio time from which it may be shown
    accepted: int  # the table's accepted entries when it was made: shown once ``delay_entries`` more are
    messages: Any
    after: Snapshot | None  # the snapshot the messages lead to (None: they carry no view)
    broadcast: Any  # the broadcast view's messages, and
    broadcast_after: Snapshot | None  # ... its snapshot
    present: Any = None  # who is at the table (a ``Presence``) as the messages tell it, if they do


@dataclass
class Stream:
    delay: float  # seconds spectators are kept behind the table (0: none)
    key_hash: str | None = None  # the broadcast view's key (sha256), if the table has one
    delay_entries: int = 0  # log entries spectators are kept behind the table (0: none)
    pending: deque = field(default_factory=deque)  # ``Pending``, in order
    shown: Snapshot | None = None  # with a delay: the latest snapshot spectators may see
    shown_broadcast: Snapshot | None = None  # ... and the broadcast's
    shown_present: Any = None  # the ``Presence`` spectators were last told (``present.py``)
    broadcasters: set = field(default_factory=set)  # the spectators who watch the broadcast view
    relay: Any = None  # another node follows this table: called with what spectators are sent (server/cluster/relay.py)
    counted: dict = field(default_factory=dict)  # spectators other nodes serve through the relay, each node's as it
    # last reported them (by its report's key: ``relay.watchers_key``)
    ended: trio.Event = field(default_factory=trio.Event)  # with a delay: set once spectators are shown the end
    lagging: dict = field(default_factory=dict)  # receiver -> [updates missed, trio time of the last offer]
    spread: Any = None  # the gateway's ``Spread`` that hands out this table's jobs (``crowdjobs.py``), or None
    jobs_made: int = 0  # jobs made for the spectators (numbered from 1), and of those
    jobs_done: int = 0  # ... handed to all their receivers (they are done in order)
    giving: bool = False  # a job is being handed out now (its messages go straight to their receivers)
    audience: Audience | None = None  # who watches, split as ``_to_all`` sends to them, until that changes
    told: float = -math.inf  # trio time the spectators were last told who is at the table (``tell_present``)
    count_due: float | None = None  # when they are told the number watching that changed since
    joins: Any = None  # what a spectator who starts watching is sent, built once for all (``joins.Joins``)

    @property
    def delayed(self) -> bool:
        """Spectators are kept behind the table (a broadcast delay in time, in entries, or both)."""
        return self.delay > 0 or self.delay_entries > 0

    @property
    def followers(self) -> int:
        """How many watch through other nodes (``counted``'s sum)."""
        return sum(self.counted.values())


@dataclass(frozen=True, eq=False)
class Crowd:
    """Many spectators sent the same message (all of them asked for patches, or none did): one entry through the
    batch and the durability gate instead of one per spectator (``fanout.hand_over_members`` hands it to each, in
    the gate's order with everything else, or the gateway's ``Spread`` does, in chunks: ``crowdjobs.py``)."""

    members: tuple


class Audience(NamedTuple):
    """The spectators as they are until one comes, leaves or asks for the broadcast view (``watching``): who
    (``members``, the tuple an update's group keeps as its watchers) and how ``_to_all`` sends to them. Worked
    out once per change, not once per update: at a table watched by a thousand, the table's step went through
    every spectator three times for each update (who still watches, who wants patches, who does not)."""

    members: tuple
    broadcasters: tuple  # the few who watch the broadcast view
    plain: tuple  # the others: one update per entry ...
    patched: tuple  # ... or the group as one (they asked for patches)


def watching(table: Table) -> tuple:
    """Who watches now: the same tuple for every update until the spectators change."""
    stream = table.stream
    if stream.audience is None:
        stream.audience = _audience(tuple(table.spectators), stream.broadcasters)
    return stream.audience.members


def _audience(members: tuple, broadcasters: set) -> Audience:
    shown = tuple(r for r in members if r in broadcasters) if broadcasters else ()
    rest = tuple(r for r in members if r not in broadcasters) if broadcasters else members
    patched = tuple(r for r in rest if patching.wants(r))
    plain = tuple(r for r in rest if not patching.wants(r)) if patched else rest
    return Audience(members, shown, plain, patched)


def new_stream(delay_ms: int, key_hash: str | None = None, delay_entries: int = 0) -> Stream:
    return Stream(delay=delay_ms / 1000, key_hash=key_hash, delay_entries=delay_entries)


def wanted(table: Table, watchers: list) -> bool:
    """Whether spectators' updates must be built at all (someone watches, here or through another node, or a
    delay keeps them for later)."""
    return bool(watchers) or table.stream.delayed or table.stream.relay is not None


def send(table: Table, messages: patching.Forms, after: Snapshot | None, broadcast: patching.Forms = ((), ()),
         broadcast_after: Snapshot | None = None, watchers: list | None = None) -> None:
    """The spectators' share of one group of updates (``after``: the snapshot they lead to, on the group
    that carries the view; ``broadcast``/``broadcast_after``: the same for the broadcast view): now, to
    ``watchers`` (who watched when the updates were made, and still do), or once the delay has passed to whoever
    watches then. Each in two shapes (``patching.Forms``): one update per entry, and the group as one."""
    stream = table.stream
    if len(table.spectators) > 1:
        for message in {id(m): m for form in messages for m in form}.values():
            encodeonce.share(message)
    if stream.delayed:
        return _hold(table, messages, after, broadcast, broadcast_after)
    to_all(table, messages, broadcast, watchers)


def _hold(table: Table, messages: Any, after: Snapshot | None, broadcast: Any,
          broadcast_after: Snapshot | None, present: Any = None) -> None:
    stream = table.stream
    stream.pending.append(Pending(trio.current_time() + stream.delay, table.log.accepted, messages, after,
                                  broadcast, broadcast_after, present))


def ended(table: Table, message: TableEnded) -> None:
    """A table that ended before its game did (halted, expired): spectators are told with the delay too."""
    tell(table, message)


def tell(table: Table, message: Any, present: Any = None) -> None:
    """A message for every spectator (a table's early end, a rematch offered, who is at it: ``present``), after
    the delay if there is one."""
    if table.stream.delayed:
        _hold(table, [message], None, [message], None, present)
    else:
        to_all(table, [message], [message])


def next_due(table: Table) -> float | None:
    """When the table's clock should release what the delay holds next; None when nothing is held, or when the
    next is waiting for entries (``release_due`` runs after each batch of them too)."""
    stream = table.stream
    if not stream.pending or not _entries_past(table, stream.pending[0]):
        return None
    return stream.pending[0].due


def _entries_past(table: Table, pending: Pending) -> bool:
    """Enough moves (accepted entries) followed ``pending`` (or the game is over: its end is not held for
    entries that will never come)."""
    entries = table.stream.delay_entries
    return not entries or table.log.accepted >= pending.accepted + entries or table.is_over()


def release_due(table: Table) -> None:
    """Send the spectators what the delay held back and may be shown now."""
    stream, now = table.stream, trio.current_time()
    while stream.pending and stream.pending[0].due <= now and _entries_past(table, stream.pending[0]):
        _, _, messages, after, broadcast, broadcast_after, present = stream.pending.popleft()
        if present is not None:
            stream.shown_present = present
        if after is not None:
            stream.shown = after
        if broadcast_after is not None:
            stream.shown_broadcast = broadcast_after
        if (after is not None and after.result is not None) or any(type(m) is TableEnded for m in messages):
            stream.ended.set()  # (a tournament takes its result, the lobby may let it go: outcome.py, tending.py)
        to_all(table, messages, broadcast)


def end_shown(table: Table) -> bool:
    """Whether spectators may know everything up to the table's end (no delay, or its end was released)."""
    return not table.stream.delayed or table.stream.ended.is_set()


def hold_present(table: Table) -> None:
    """A table reopened from its log: spectators are shown where it stands only once the delay has passed."""
    if table.stream.delayed:
        from .fanout import broadcast_snapshot, snapshot
        _hold(table, [], snapshot(table, None), [], broadcast_snapshot(table) if table.stream.key_hash else None)


def watch(table: Table, receiver: Receiver, ref: Any, last_seq: int) -> None:
    """A spectator of a delayed table starts (or resumes) watching: the snapshot last released."""
    from .fanout import deliver
    join(table, receiver)
    shown = _shown(table)
    deliver(table, receiver, Watching(ref=ref, table=table.id, game=table.game.info.name, seq=shown.seq))
    deliver(table, receiver, _skipping(shown, max(0, shown.seq - last_seq)))


def watch_broadcast(table: Table, receiver: Receiver, message: Watch) -> None:
    """Watch the broadcast view: with the table's key, from a connection that holds no seat here."""
    from .fanout import deliver, error
    from .seating import slot_of
    stream = table.stream
    if stream.key_hash is None or token_hash(message.broadcast_key) != stream.key_hash:
        return error(table, receiver, message.id, Code.BAD_TOKEN,
                     f"table {table.id} has no broadcast view that key opens")
    if slot_of(table, receiver) is not None:
        return error(table, receiver, message.id, Code.BAD_TOKEN,
                     "a seat never gets the broadcast view (every hand): watch it from another connection")
    join(table, receiver)
    stream.broadcasters.add(receiver)
    stream.audience = None
    shown = _shown_broadcast(table)
    deliver(table, receiver, Watching(ref=message.id, table=table.id, game=table.game.info.name, seq=shown.seq))
    deliver(table, receiver, _skipping(shown, max(0, shown.seq - message.last_seq)))


def fell_behind(table: Table, receiver: Receiver) -> None:
    """A spectator's outbox is full: it leaves the live stream until it has room for a snapshot (the table's
    clocks offer it: told so when this happens outside its task, handing out a job)."""
    first = not table.stream.lagging
    table.stream.lagging[receiver] = [1, trio.current_time()]
    if first and table.stream.giving:
        from .intents import Lagged
        table.submit_nowait(Lagged())


def skip(table: Table, receiver: Receiver) -> bool:
    """True (and counted) when ``receiver`` is a spectator out of the live stream: the message is not sent."""
    missed = table.stream.lagging.get(receiver)
    if missed is None:
        return False
    missed[0] += 1
    return True


def join(table: Table, receiver: Receiver) -> None:
    """``receiver`` watches the table from now on (again: it is in no job made before, ``crowdjobs.py``)."""
    if receiver not in table.spectators:
        table.spectators[receiver] = table.stream.jobs_made
        table.stream.audience = None


def forget(table: Table, receiver: Receiver) -> None:
    """``receiver`` watches no more (if it did): it left, or its connection did."""
    if table.spectators.pop(receiver, None) is not None or receiver in table.stream.broadcasters:
        table.stream.audience = None
    table.stream.lagging.pop(receiver, None)
    table.stream.broadcasters.discard(receiver)


def current_snapshot(table: Table) -> Snapshot:
    """What a spectator who starts watching now is shown: the table now, or as last released past the delay."""
    return _shown(table) if table.stream.delayed else _now(table)


def to_all(table: Table, messages: list[Any], broadcast: list[Any], watchers: list | None = None) -> None:
    from .fanout import deliver
    if table.stream.relay is not None and messages:  # a snapshot with the frames that carry a view
        relayed = patching.form(None, messages)  # (one update per entry)
        viewed = any(type(m) is Update and m.view is not None for m in relayed)
        table.stream.relay(relayed, current_snapshot(table) if viewed else None)
    if table.stream.lagging:
        _offer_snapshots(table)
    if watchers is None:  # whoever watches now (past a delay, or a table's early end)
        watching(table)
    audience = table.stream.audience
    if watchers is not None and (audience is None or watchers is not audience.members):  # some came or left
        spectators = table.spectators  # since the updates were made: those who watched then and still do
        audience = _audience(tuple(r for r in watchers if r in spectators), table.stream.broadcasters)
    for receiver in audience.broadcasters:  # few: a commentator's screen, a stream
        for message in patching.form(receiver, broadcast):
            deliver(table, receiver, message)
    for group in (audience.plain, audience.patched):
        if group:
            to = group[0] if len(group) == 1 else Crowd(group)
            for message in patching.form(group[0], messages):
                deliver(table, to, message)


def next_offer(table: Table) -> float:
    """When the first spectator out of the stream is offered the snapshot again."""
    return min(missed[1] for missed in table.stream.lagging.values()) + RETRY_S


def offer_due(table: Table) -> None:
    """The table's clock: offer the snapshot to spectators out of the stream whose turn has come (also at a
    table where nothing happens any more, a finished one say)."""
    if table.stream.lagging:
        _offer_snapshots(table)


def _offer_snapshots(table: Table) -> None:
    """Offer each spectator out of the live stream the snapshot, at most every ``RETRY_S``: one that takes it
    is back in the stream."""
    from .fanout import deliver
    now = trio.current_time()
    for receiver, missed in list(table.stream.lagging.items()):
        if now - missed[1] < RETRY_S:
            continue
        del table.stream.lagging[receiver]
        if receiver in table.stream.broadcasters:
            snapshot = _shown_broadcast(table)
        else:
            snapshot = _shown(table) if table.stream.delayed else _now(table)
        deliver(table, receiver, _skipping(snapshot, missed[0]))
        if receiver in table.stream.lagging:  # no room yet (``fell_behind`` again): the next offer is later
            table.stream.lagging[receiver] = [missed[0], now]


def _now(table: Table) -> Snapshot:
    from .fanout import snapshot
    return snapshot(table, None)


def _shown(table: Table) -> Snapshot:
    """The snapshot a spectator of a delayed table may see now: the last released, or the table before its
    deal while nothing has been."""
    stream = table.stream
    if stream.shown is None:
        state = table.game.new_state(table.setup)
        stream.shown = Snapshot(table=table.id, seq=0, view=table.game.view(state, None), to_act=[],
                                waiting_for=[s.seat for s in table.slots])
    return stream.shown


def _shown_broadcast(table: Table) -> Snapshot:
    """The broadcast's snapshot last released, or the table before its deal while nothing has been."""
    stream = table.stream
    if stream.shown_broadcast is None:
        state = table.game.new_state(table.setup)
        view = BroadcastView(public=table.game.view(state, None),
                             seats=table.game.views(state, list(range(table.setup.seats))))
        stream.shown_broadcast = Snapshot(table=table.id, seq=0, view=view, to_act=[],
                                          waiting_for=[s.seat for s in table.slots])
    return stream.shown_broadcast


def _skipping(snapshot: Snapshot, skipped: int) -> Snapshot:
    return snapshot if snapshot.skipped == skipped else msgspec.structs.replace(snapshot, skipped=skipped)
