"""Get, list and forget over fakes: all confined to the caller's view."""

from __future__ import annotations

import pytest
from memhive.v1 import commands_pb2, events_pb2
from memhive_domain.errors import NotAllowed, NotFound
from memhive_domain.memory import forget
from memhive_domain.recall import SelectionRequest
from memhive_ports import LaneHit
from memhive_query.use_cases.memories import ForgetMemory, MemoryReader

from tests.fakes import FakeLexicalIndex, FakePublisher, FakeStore, FakeWaiter, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid, public


@pytest.fixture
def store() -> FakeStore:
    store = FakeStore()
    store.put(public(1))
    store.put(memory(2))  # private
    store.put(forget(public(3), NOW))
    store.put(public(4))
    return store


def reader(store: FakeStore, *listed: int) -> MemoryReader:
    lexical = FakeLexicalIndex([LaneHit(mid(n), 1.0) for n in listed])
    return MemoryReader(store, lexical, FixedClock(NOW))


async def test_get_answers_only_what_the_caller_may_see(store: FakeStore) -> None:
    assert (await reader(store).get(VIEWER, mid(1))).id == mid(1)
    assert (await reader(store).get(MEMBER, mid(2).upper())).id == mid(2)  # canonical form
    for principal, memory_id in (
        (VIEWER, mid(2)),
        (MEMBER, mid(3)),
        (MEMBER, mid(9)),
        (MEMBER, "x"),
    ):
        with pytest.raises(NotFound):
            await reader(store).get(principal, memory_id)


async def test_list_pages_and_drops_what_the_record_rules_out(store: FakeStore) -> None:
    memories = reader(store, 1, 2, 3, 4)
    first = await memories.list(VIEWER, SelectionRequest(), cursor=None, limit=2)
    assert [m.id for m in first.items] == [mid(1)] and first.next_cursor
    rest = await memories.list(VIEWER, SelectionRequest(), cursor=first.next_cursor, limit=2)
    assert ([m.id for m in rest.items], rest.next_cursor) == ([mid(4)], None)


async def test_forget_publishes_the_command_and_waits(store: FakeStore) -> None:
    publisher, waiter = FakePublisher(), FakeWaiter()
    forget_memory = ForgetMemory(reader(store), publisher, waiter, FixedClock(NOW), 1.0)
    assert await forget_memory(MEMBER, mid(2), "persisted", reason="wrong") == "forgotten"
    [(subject, command, msg_id)] = publisher.sent
    assert isinstance(command, commands_pb2.ForgetMemory)
    assert (subject, msg_id) == ("memhive.cmd.memory.forget.ws", command.command_id)
    assert (command.memory_id, command.reason, command.requested_by) == (mid(2), "wrong", "u1")
    waiter.arrives = False
    assert await forget_memory(MEMBER, mid(1), "persisted") == "accepted"


async def test_forget_waits_past_an_earlier_write_still_in_flight(store: FakeStore) -> None:
    earlier = events_pb2.MemoryIndexed(event_id="earlier:1")
    earlier.memory.id = mid(2)
    gone = events_pb2.MemoryUnindexed(memory_id=mid(2))
    waiter = FakeWaiter(script=[earlier, gone])
    forget_memory = ForgetMemory(reader(store), FakePublisher(), waiter, FixedClock(NOW), 1.0)
    assert await forget_memory(MEMBER, mid(2), "indexed") == "forgotten"
    assert waiter.followed == waiter.stopped_following == [(mid(2), "indexed")]
    assert not waiter.script


async def test_forget_refuses_viewers_and_unknown_ids(store: FakeStore) -> None:
    forget_memory = ForgetMemory(reader(store), FakePublisher(), FakeWaiter(), FixedClock(NOW), 1.0)
    with pytest.raises(NotAllowed):
        await forget_memory(VIEWER, mid(1), "persisted")
    with pytest.raises(NotFound):
        await forget_memory(MEMBER, mid(3), "persisted")
