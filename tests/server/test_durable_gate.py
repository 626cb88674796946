"""The durability gate (server/table/durable.py): a message held for its log line leaves once the journal's
round that makes the line durable ends, in order, and the gate's task sleeps through the round: one wake per
round that covers its lines, not one more when a message starts waiting."""

from __future__ import annotations

import trio
import trio.testing

from server.logs.journal import Journal
from server.logs.logstore import FileLog
from server.table.durable import DurableGate

from .test_journal import GatedSync, entry


class Steps(trio.abc.Instrument):
    """Counts the steps (wakes) of one task."""

    def __init__(self) -> None:
        self.task: trio.lowlevel.Task | None = None
        self.steps = 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.task:
            self.steps += 1


async def test_a_held_message_leaves_at_its_rounds_end_and_the_gates_task_wakes_once_for_it(tmp_path, nursery):
    fake = GatedSync()
    journal = Journal(tmp_path, fake, inline="never")
    nursery.start_soon(journal.run)
    log = FileLog(tmp_path / "a.log", "batch", syncer=journal)
    gate, released, steps = DurableGate(log), [], Steps()

    async def release() -> None:  # as ``release_when_durable`` does, with the gate's messages kept here
        steps.task = trio.lowlevel.current_task()
        while True:
            await gate.wait_due()
            released.extend(message for _, message in gate.due())

    trio.lowlevel.add_instrument(steps)
    try:
        nursery.start_soon(release)
        await trio.testing.wait_all_tasks_blocked()
        fake.gate.clear()
        journal.begin_group()  # a table's batch: two lines, an answer and an update held for them
        log.append(entry(1))
        assert gate.hold("seat", "accepted 1")
        log.append(entry(2))
        assert gate.hold("seat", "update 2")
        journal.end_group()
        with trio.fail_after(10):
            await fake.wait_entered()  # the round that holds both lines syncs
        await trio.testing.wait_all_tasks_blocked()
        before = steps.steps
        assert released == [], "nothing leaves before its line is durable"
        assert before == 0, "holding a message did not wake the gate's task"
        fake.gate.set()
        with trio.fail_after(10):
            await log.wait_durable(2)
        await trio.testing.wait_all_tasks_blocked()
        assert released == ["accepted 1", "update 2"]
        assert steps.steps - before == 1, "the gate's task woke once: at the round's end"
    finally:
        trio.lowlevel.remove_instrument(steps)
