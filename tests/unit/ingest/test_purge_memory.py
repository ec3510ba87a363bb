"""An expired memory's end over fakes: its purge is scheduled when it is written with an
expiry (replaced when the expiry changes), and applied only once it is due."""

from __future__ import annotations

from datetime import datetime, timedelta

from memhive.v1 import commands_pb2, events_pb2
from memhive_application.purge_scheduling import PurgeScheduling
from memhive_contracts.mapping import to_timestamp
from memhive_domain.lifecycle import is_purgeable, purge_due
from memhive_ingest.purge_memory import PurgeMemoryHandler
from memhive_ingest.update_memory import UpdateMemoryHandler

from tests.fakes import FakePublisher, FakeScheduler, FakeStore, FixedClock
from tests.unit.query.memories import NOW, memory, mid

RETENTION = timedelta(days=30)
EXPIRY = NOW + timedelta(days=1)


def purge_command(n: int) -> commands_pb2.PurgeMemory:
    return commands_pb2.PurgeMemory(command_id=f"purge:{n}", workspace_id="ws", memory_id=mid(n))


def test_a_purge_falls_due_a_retention_after_the_expiry() -> None:
    expiring = memory(1, expires_at=EXPIRY)
    assert purge_due(expiring, RETENTION) == EXPIRY + RETENTION
    assert purge_due(memory(2), RETENTION) is None
    assert not is_purgeable(expiring, EXPIRY + RETENTION - timedelta(seconds=1), RETENTION)
    assert is_purgeable(expiring, EXPIRY + RETENTION, RETENTION)
    # An expiry at the calendar's end cannot be followed by a retention: never purged.
    assert (
        purge_due(memory(3, expires_at=datetime.max.replace(tzinfo=NOW.tzinfo)), RETENTION) is None
    )


async def test_a_write_with_an_expiry_schedules_its_purge_and_a_change_replaces_it() -> None:
    store, scheduler = FakeStore(), FakeScheduler()
    store.put(memory(1, expires_at=EXPIRY))
    purges = PurgeScheduling(scheduler, RETENTION)
    await purges.written(memory(2))  # no expiry: nothing to schedule
    assert scheduler.schedules == {}

    later = EXPIRY + timedelta(days=7)
    update = commands_pb2.UpdateMemory(
        command_id="c1",
        workspace_id="ws",
        memory_id=mid(1),
        requested_by="u1",
        requested_at=to_timestamp(NOW),
    )
    update.changes.expires_at.CopyFrom(to_timestamp(later))
    await UpdateMemoryHandler(store, FakePublisher(), purges)("ws", update)

    key = f"memhive.sched.memory.purge.ws.{mid(1)}"
    assert list(scheduler.schedules) == [key]
    target, command, at = scheduler.schedules[key]
    assert (target, at) == ("memhive.cmd.memory.purge.ws", later + RETENTION)
    assert (command.memory_id, command.expires_at.ToDatetime()) == (
        mid(1),
        later.replace(tzinfo=None),
    )


async def test_a_due_purge_removes_the_record_and_tells_the_lanes() -> None:
    store, publisher = FakeStore(), FakePublisher()
    store.put(memory(1, expires_at=EXPIRY))
    clock = FixedClock(EXPIRY + RETENTION)
    handler = PurgeMemoryHandler(store, publisher, clock, RETENTION)

    await handler("ws", purge_command(1))
    await handler("ws", purge_command(1))  # a redelivery announces again: lanes may not know

    assert await store.get("ws", mid(1)) is None
    assert [subject for subject, _, _ in publisher.sent] == ["memhive.evt.memory.purged.ws"] * 2
    event = publisher.sent[0][1]
    assert isinstance(event, events_pb2.MemoryPurged) and event.memory_id == mid(1)


async def test_a_purge_whose_memory_changed_since_does_nothing() -> None:
    store, publisher = FakeStore(), FakePublisher()
    store.put(memory(1, expires_at=EXPIRY + timedelta(days=365)))  # expiry moved later
    store.put(memory(2))  # expiry removed
    handler = PurgeMemoryHandler(store, publisher, FixedClock(EXPIRY + RETENTION), RETENTION)

    for n in (1, 2):
        await handler("ws", purge_command(n))

    assert await store.get("ws", mid(1)) is not None and await store.get("ws", mid(2)) is not None
    assert publisher.sent == []
