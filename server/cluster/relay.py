"""Spectators of a table on another node, watched from this one (Lichess's separate websocket tier).

A cluster node asked to watch a table that lives on another node no longer sends the spectator there: it
follows the table through the cluster's presence store and serves the spectator itself, so a node full of
spectators never slows the node that runs the table.

- **Following** (this node, ``Follower``, one per table followed here): it marks the table followed in the store
  (``followed:<table>``, renewed every heartbeat while anyone here watches it), subscribes to the table's
  channel and hands each frame's messages to every spectator here, decoded once and encoded once for all
  (``encodeonce``). A spectator who starts watching gets ``watching`` and the latest snapshot (the store keeps the
  last one, ``relaysnap:<table>``); one whose outbox is full leaves the stream and gets the next snapshot. A
  spectator that asked for patches gets them from here as from the table's node (``table/patching.py``: the
  follower keeps what each was last sent, and builds each patch once for all that hold the same view).
- **Publishing** (the table's node, ``Publisher``): at each heartbeat it looks up which of its tables (or their
  aliases: ``demo``) are followed, and hooks those tables' spectator stream (``table.stream.relay``): what its
  own spectators are sent, past any broadcast delay, is published as one frame with the snapshot it leads to.
  A frame the store misses costs followers nothing but a gap, which the next snapshot closes. A follower that
  starts where the store keeps no snapshot asks the table's node, which publishes it at once: the first
  ``watching`` waits for no heartbeat (``server/cluster/relaypublish.py``, ``Publisher``).
- **Who is at the table** (``presence``) goes the same way: the table's node publishes it as its own spectators
  are told (a seat taken, left, gone or back, at most once a second the number watching; and with the first
  snapshot), the store keeps the latest beside the snapshot, and the follower keeps it and tells each spectator
  who starts watching here, after the snapshot, and those here when one here comes or goes (at most once a
  second). The count of spectators it says is the table's node's own and every following node's, each as it
  last reported, this node's as it is now. Without this a spectator watching through another node, as half of
  them do under ``serve --workers 2``, saw no seat change and "0 watching". The table's node counts them in its
  table list and its seats' presence too (``table.stream.followers``). Each following node reports its count
  as it changes, and the table's node applies it at once, its heartbeat's read of the store the repair
  (``server/cluster/relaycount.py``).

- **An alias** (``demo``) is followed by its name. When it names the next table (the demo's next game) those
  watching here stay on the table they were told, shown nothing more, and leave it by its id; who watches the
  alias again is told the new one, as on the table's own node. The table's node forgets the snapshot kept
  under the alias as it moves, so a node that starts following then never shows the table before.

A broadcast view (``broadcast_key``) is never relayed: such a watch is still sent to the table's node. The
store's names and the published ``Frame`` are in ``server/cluster/relaykeys.py``.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import trio

from ..wire import encodeonce
from .presence import Presence, PresenceError
from ..protocol import Snapshot, Watching, decode_server
from ..protocol import Presence as Present
from .relaycount import Report
from .relaykeys import JSON, NO_SNAPSHOT, Frame, channel, followed_key, snapshot_key, watchers_key  # noqa: F401 (tests)
from .relaypublish import Publisher
from ..table import intents, patching
from ..table.spectating import COUNT_EVERY_S

_frame = msgspec.json.Decoder(Frame)


class Follower:
    """This node's spectators of table (or alias) ``name``, which lives on another node."""

    def __init__(self, presence: Presence, name: str, expiry: float, done, node: str, owner: str = "") -> None:
        self.presence = presence
        self.id = name
        self.node = node  # this node's id: the key it reports its spectators' count under
        self.included = 0  # this node's spectators as ``here`` counted them (what it had reported by then)
        self.told: Present | None = None  # who is at the table, as those here were last told it together
        self.greeted: dict = {}  # receiver -> who is at the table, as told it alone as it came in (since ``told``)
        self.expiry = expiry
        self.done = done  # called once nobody here watches any more
        self.watchers: dict = {}  # receiver -> True while in the stream, False while it waits for a snapshot
        self.waiting: list[tuple[Any, Any]] = []  # (receiver, watch message) until a first snapshot is known
        self.latest: Snapshot | None = None
        self.here: Present | None = None  # who is at the table, as its node last said (``presence``)
        self.table_id: str | None = None
        self.game: str | None = None
        self.former: dict = {}  # receiver -> the table it was told, which an alias named before this one
        self.scope = trio.CancelScope()  # cancelled once nobody here watches
        self.patching = patching.Patching()  # what each spectator that asked for patches was last sent
        self.spectators = self.watchers  # (as a table's: the receivers that share their patches)
        self.recounted = trio.Event()  # set as a spectator here comes or goes: the others are told (``_recount``)
        self.report = Report(presence, name, node, expiry, lambda: len(self.watchers))  # ... and the table's node
        self.report.owner = owner  # (the table's node, as the directory said: asked for a first snapshot)

    # what a connection's tables are asked (as ``Table.submit``): watch, leave, disconnect
    async def submit(self, intent) -> None:
        self.submit_nowait(intent)

    def serves(self, table: str) -> bool:
        """Whether a spectator here may name the table so: this follower's name, the table it names now, or
        one it named before that someone here still watches."""
        return table in (self.id, self.table_id) or table in self.former.values()

    def submit_nowait(self, intent) -> None:
        receiver = intent.receiver
        told = self.former.pop(receiver, None)
        if type(intent) is intents.Watch:
            if self.latest is None:
                self.waiting.append((receiver, intent.message))
            else:
                self._start(receiver, intent.message)
        elif type(intent) in (intents.Leave, intents.Disconnect):
            self.watchers.pop(receiver, None)
            patching.forget(self, receiver)
            self.waiting = [(r, m) for r, m in self.waiting if r is not receiver]
            if type(intent) is intents.Leave:
                from ..protocol import Left

                receiver.deliver(Left(ref=intent.message.id, table=told or self.table_id or self.id))
            if not self.watchers and not self.waiting and not self.former:
                self.done(self)
            self._changed()

    def _start(self, receiver, message) -> None:
        self.watchers[receiver] = True
        receiver.deliver(Watching(ref=message.id, table=self.table_id, game=self.game, seq=self.latest.seq))
        self._deliver(receiver, self.latest)
        if self.here is not None:
            self.greeted[receiver] = greeting = self._counted(self.here)
            receiver.deliver(greeting)
        self._changed()

    def _changed(self) -> None:
        self.recounted.set()
        self.report.changed()

    def _counted(self, here: Present) -> Present:
        """Who is at the table, counting the spectators here as they are now rather than as the table's node
        counted them when it said ``here``."""
        count = max(0, here.spectators - self.included) + len(self.watchers)
        return msgspec.structs.replace(here, spectators=count)

    def _deliver(self, receiver, message) -> bool:
        if patching.wants(receiver):
            message = patching.outgoing(self, receiver, message)
            if message is None:  # nothing it wants (an update without a view, to one that shows no events)
                return True
        return receiver.deliver(message)

    async def run(self) -> None:
        """Follow until nobody here watches: mark the table followed, take its frames, hand them on. The store
        away (``PresenceError``) ends no follow: it subscribes again a beat later and the snapshot the store
        keeps catches every spectator here up (``_take``), so none is left watching a stale table."""
        with self.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._keep_marked)
                nursery.start_soon(self._recount)
                nursery.start_soon(self.report.run)
                while not await self._stream():
                    await trio.sleep(self.expiry / 5)
                nursery.cancel_scope.cancel()

    async def _stream(self) -> bool:
        """Take the table's frames until its channel ends (True), or until the store fails (False). A store's
        subscription may fail from a task of its own, which trio reports as a group: both are caught here."""
        failed = False
        try:
            async with self.presence.subscribe(channel(self.id)) as frames:
                known = await self.presence.get(snapshot_key(self.id))  # the table as last published
                if known is not None:
                    self._take(_frame.decode(known))
                elif self.latest is None:  # nobody followed it lately: its node is asked to publish it now, not
                    await self.presence.set(followed_key(self.id), "1", ttl_ms=int(self.expiry * 1000))  # at its
                    await self.report.ask()  # next heartbeat (marked first: its node looks the marks up)
                async for raw in frames:
                    self._take(_frame.decode(raw))
        except* PresenceError:
            failed = True
        return not failed

    async def _keep_marked(self) -> None:
        while True:
            try:
                await self.presence.set(followed_key(self.id), "1", ttl_ms=int(self.expiry * 1000))
                count = len(self.watchers)
                await self.presence.set(watchers_key(self.id, self.node), str(count), ttl_ms=int(self.expiry * 1000))
            except PresenceError:
                pass
            await trio.sleep(self.expiry / 5)

    def _take(self, frame: Frame) -> None:
        if self.table_id is not None and frame.table != self.table_id:
            self._renamed()
        self.table_id, self.game = frame.table, frame.game
        self.report.owner = frame.node or self.report.owner
        messages = [encodeonce.share(decode_server(bytes(raw), JSON)) for raw in frame.messages]
        for message in messages:
            if type(message) is Present:
                self.here = message  # (told with the snapshot to those who start watching now)
                self.included = frame.counted.get(watchers_key(self.id, self.node), 0)
        if bytes(frame.snapshot) != b"null":
            self._snapshot(decode_server(bytes(frame.snapshot), JSON), frame)
        messages = [encodeonce.share(self._counted(m)) if type(m) is Present else m for m in messages]  # (as one
        # message for all the spectators here, counting them too)
        self._hand_on(messages)

    async def _recount(self) -> None:
        """A spectator here came or went: the others here are told the number watching at once, not a heartbeat or
        three later through the table's node, and at most every ``COUNT_EVERY_S`` as the table's own are. The
        number is reported to the table's node at once too (``self.report``; the frames say what it counted for
        this node, so an early report never makes a count here wrong)."""
        while True:
            await self.recounted.wait()
            self.recounted = trio.Event()
            if self.here is not None:
                self._hand_on([encodeonce.share(self._counted(self.here))])
            await trio.sleep(COUNT_EVERY_S)

    def _renamed(self) -> None:
        """The alias followed names another table now (the demo's next game): those watching here were told the
        one before, and are shown nothing of this one under its name; they leave it by its id, as they would on
        its own node, and watch the alias again to see the new one (`watch demo` does)."""
        for receiver in self.watchers:
            self.former[receiver] = self.table_id
            patching.forget(self, receiver)
        self.watchers.clear()
        self.latest = self.here = self.told = None  # (who starts watching waits for the new table's snapshot)
        self.included = 0
        self._changed()

    def _hand_on(self, messages: list) -> None:
        """``messages`` to every spectator here in the stream; one too slow leaves it until the next snapshot. Who
        is at the table is not said again as last said (a count told here at once comes back from its node)."""
        greeted = None
        if any(type(m) is Present for m in messages):
            fresh = [m for m in messages if type(m) is not Present or m != self.told]
            self.told = next((m for m in reversed(messages) if type(m) is Present), self.told)
            messages, greeted, self.greeted = fresh, self.greeted, {}
        for receiver, in_stream in list(self.watchers.items()):
            if not in_stream:
                continue
            told = greeted.get(receiver) if greeted else None
            for message in messages:
                if told is not None and message == told:  # (what it was told as it came in)
                    continue
                if not self._deliver(receiver, message):
                    self.watchers[receiver] = False  # too slow: out of the stream until the next snapshot
                    break

    def _snapshot(self, snapshot: Snapshot, frame: Frame) -> None:
        self.latest = encodeonce.share(snapshot)
        for receiver, in_stream in list(self.watchers.items()):
            if not in_stream and self._deliver(receiver, self.latest):
                self.watchers[receiver] = True
        waiting, self.waiting = self.waiting, []
        for receiver, message in waiting:
            self._start(receiver, message)


class Relay:
    """A node's side of the relay: its publisher and the tables it follows for its spectators."""

    def __init__(self, presence: Presence, expiry: float, node: str) -> None:
        self.presence = presence
        self.expiry = expiry
        self.node = node
        self.publisher = Publisher(presence, expiry, node)
        self.followers: dict[str, Follower] = {}
        self.nursery: trio.Nursery | None = None

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            nursery.start_soon(self.publisher.run)
            nursery.start_soon(self.publisher.counts.run)
            nursery.start_soon(self.publisher.answer)
            task_status.started()
            await trio.sleep(math.inf)

    def follow(self, name: str, owner: str = "") -> Follower | None:
        """The follower of ``name`` here (started now if nobody here watched it), which lives on node ``owner``;
        None before ``run``."""
        if self.nursery is None:
            return None
        follower = self.followers.get(name)
        if follower is None:
            follower = self.followers[name] = Follower(self.presence, name, self.expiry, self._done, self.node, owner)
            self.nursery.start_soon(self._follow, follower)
        return follower

    async def _follow(self, follower: Follower) -> None:
        try:
            await follower.run()
        except PresenceError:
            pass
        finally:
            if self.followers.get(follower.id) is follower:
                del self.followers[follower.id]

    def _done(self, follower: Follower) -> None:
        if follower.scope.cancel_called:  # done before: its marks may be another follower's of that name now
            return
        follower.scope.cancel()
        if self.followers.get(follower.id) is follower:
            del self.followers[follower.id]
        if self.nursery is not None:
            try:
                self.nursery.start_soon(self._stop, follower)
            except RuntimeError:  # the node is shutting down: the mark expires by itself
                pass

    async def _stop(self, follower: Follower) -> None:
        if follower.id in self.followers:  # someone here watches it again: the new follower keeps the marks
            return
        try:
            await self.presence.delete(followed_key(follower.id))
            await follower.report.gone()
        except PresenceError:
            pass
