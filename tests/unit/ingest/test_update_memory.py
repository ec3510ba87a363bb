"""UpdateMemory in ingest over fakes: a change is one revision and one MemorySaved; no change,
a forgotten memory and a redelivery are each handled without a second write."""

from __future__ import annotations

import pytest
from memhive.v1 import commands_pb2, events_pb2
from memhive_contracts.mapping import to_timestamp
from memhive_domain.memory import forget, set_pinned
from memhive_ingest.update_memory import UpdateMemoryHandler
from memhive_ports.poison import Poison

from tests.fakes import FakePublisher, FakeStore
from tests.unit.query.memories import NOW, memory, mid


def pin(n: int, pinned: bool = True, command_id: str = "c1") -> commands_pb2.UpdateMemory:
    return commands_pb2.UpdateMemory(
        command_id=command_id,
        workspace_id="ws",
        memory_id=mid(n),
        requested_by="u1",
        requested_at=to_timestamp(NOW),
        pinned=pinned,
    )


def test_pinning_is_a_revision_unpinning_too_and_the_same_value_is_no_change() -> None:
    fact = memory(1)
    pinned = set_pinned(fact, True, NOW)
    assert (pinned.pinned, pinned.revision, pinned.updated_at) == (True, 2, NOW)
    assert set_pinned(pinned, True, NOW) is pinned
    assert set_pinned(pinned, False, NOW).revision == 3


async def test_a_change_is_written_once_and_announced() -> None:
    store, publisher = FakeStore(), FakePublisher()
    store.put(memory(1))
    handler = UpdateMemoryHandler(store, publisher)
    await handler("ws", pin(1))
    await handler("ws", pin(1))  # redelivered: the same event again, no second write
    stored = await store.get("ws", mid(1))
    assert (stored.memory.pinned, stored.memory.revision) == (True, 2)
    assert [subject for subject, _, _ in publisher.sent] == ["memhive.evt.memory.saved.ws"] * 2
    assert {msg_id for _, _, msg_id in publisher.sent} == {"c1:saved"}
    event = publisher.sent[0][1]
    assert isinstance(event, events_pb2.MemorySaved) and event.memory.pinned
    assert event.requested_by == "u1"  # who asked, for the activity feed


async def test_no_change_writes_and_announces_nothing() -> None:
    store, publisher = FakeStore(), FakePublisher()
    store.put(memory(1))
    await UpdateMemoryHandler(store, publisher)("ws", pin(1, pinned=False))
    assert (await store.get("ws", mid(1))).memory.revision == 1
    assert publisher.sent == []


async def test_a_forgotten_or_unknown_memory_is_poison() -> None:
    store = FakeStore()
    store.put(forget(memory(1), NOW))
    handler = UpdateMemoryHandler(store, FakePublisher())
    for n in (1, 2):
        with pytest.raises(Poison):
            await handler("ws", pin(n))


async def test_a_concurrent_write_is_retried_on_the_new_state() -> None:
    store, publisher = FakeStore(), FakePublisher()
    store.put(memory(1))
    store.conflicts_to_raise = 2
    await UpdateMemoryHandler(store, publisher)("ws", pin(1))
    assert (await store.get("ws", mid(1))).memory.pinned
