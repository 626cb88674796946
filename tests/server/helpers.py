"""Test doubles for the arbiter: in-memory receivers and helpers to build tables with chosen states."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from rules import get_game, make_setup
from server.protocol import Act, BotSeat, Snapshot, TakeSeat, Update
from server.table import Table, TableSettings, intents
from tests.positions import place

FLAG_FINISH = get_game("flag_finish")


class Said(list):
    """The lines a client printed (pass it as ``out``): a list, and ``heard`` is set at the first."""

    def __init__(self) -> None:
        super().__init__()
        self.heard = trio.Event()

    def __call__(self, line: str) -> None:
        self.append(line)
        self.heard.set()


class Sink:
    """A receiver that keeps every message; ``full=True`` plays a client whose outbox is full."""

    latency = None  # no round trip measured

    def __init__(self, full: bool = False) -> None:
        self.messages: list[Any] = []
        self.full = full
        self.closed: tuple[str, str] | None = None
        self.arrived = trio.Event()

    def deliver(self, message: Any) -> bool:
        if self.full:
            return False
        self.messages.append(message)
        self.arrived.set()
        self.arrived = trio.Event()
        return True

    def close(self, code: str, message: str) -> None:
        self.closed = (code, message)

    def of(self, kind) -> list:
        return [m for m in self.messages if type(m) is kind]

    def last_view(self):
        return self.last_viewed().view

    def last_viewed(self):
        """The last update or snapshot that carried a view (and the legal actions with it)."""
        return next(m for m in reversed(self.messages) if type(m) in (Update, Snapshot) and m.view is not None)


async def my_turns(person: Sink, count: int, pause: float):
    """A person's next ``count`` turns, looked for every ``pause`` seconds of the trio clock: each turn's update
    (its view and legal actions), for the caller to play before the next is looked for."""
    taken = 0
    while taken < count:
        await trio.sleep(pause)
        update = person.last_viewed()
        if update.legal:
            yield update
            taken += 1


def new_table(seats: int = 2, mode: str = "challenge", bots: list[BotSeat] = (), seed: int = 1, **kwargs) -> Table:
    options = kwargs.pop("options", {})
    setup = make_setup(FLAG_FINISH.info, seats, mode, options)
    state = {key: kwargs.pop(key) for key in ("store", "session", "log", "receipts") if key in kwargs}
    return Table("t1", FLAG_FINISH, setup, seed, TableSettings(bots=tuple(bots), **kwargs), **state)


async def seat_all(table: Table, count: int) -> list[Sink]:
    sinks = [Sink() for _ in range(count)]
    for seat, sink in enumerate(sinks):
        await table.submit(intents.TakeSeat(sink, TakeSeat(table=table.id, seat=seat)))
    await settle()
    return sinks


async def act(table: Table, sink: Sink, action: Any, id: Any = None) -> None:
    await table.submit(intents.Act(sink, Act(table=table.id, action=action, id=id)))
    await settle()


async def settle() -> None:
    """Let the arbiter take everything queued (under autojump_clock no virtual time passes)."""
    await trio.testing.wait_all_tasks_blocked()


def force_state(table: Table, hands, rows, discard=("P10",), turn: int = 0) -> None:
    """Put the table's running race into a chosen position (the rest of the deck in the draw pile)."""
    place(table.session.state, hands, rows, discard, turn)


SEQ_R = ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10"]
SEQ_B = ["B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10"]


async def answer_after_the_disk(table: Table, me: Sink, fake, round_started) -> Any:
    """A seat's draw sent while ``fake`` (a gated fsync: ``gate``, a threading.Event it waits on, and
    ``wait_entered()``) holds the disk shut: once ``round_started()`` says the sync covering its line has begun,
    nothing may have answered it; then the gate opens and its answer (accepted or refused: logged either way) is
    returned."""
    def answer():
        return next((m for m in me.messages if getattr(m, "ref", None) == "held"), None)

    fake.gate.clear()
    written = table.store.written
    await table.submit(intents.Act(me, Act(table=table.id, action={"type": "draw"}, id="held")))
    while table.store.written == written:
        await trio.lowlevel.checkpoint()
    while not round_started():
        await fake.wait_entered()
    await trio.testing.wait_all_tasks_blocked(0.01)
    assert answer() is None, "answered before the disk"
    fake.gate.set()
    while answer() is None:
        await me.arrived.wait()
    return answer()


async def seated_against_a_bot(lobby) -> tuple[Table, Sink]:
    """A Flag Finish Challenge table of ``lobby`` with a server bot at seat 1 and a ``Sink`` seated at seat 0
    (its ``seated`` received)."""
    from server.protocol import BotSeat, CreateTable, Seated

    table = await lobby.create(CreateTable(game="flag_finish", mode="challenge", seats=2, bots=[BotSeat(1)]))
    me = Sink()
    await table.submit(intents.TakeSeat(me, TakeSeat(table=table.id, seat=0)))
    with trio.fail_after(10):
        while not me.of(Seated):
            await me.arrived.wait()
    return table, me


async def end_by_time_limit(table) -> None:
    """End a table as its time limit would, and stop it once it is over (its log closed: ready to read)."""
    await table.halt("time_limit")
    await table.over.wait()
    await table.stop()
