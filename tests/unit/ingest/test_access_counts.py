"""Recall activity folded into access statistics over fakes: one read and one write per
memory per batch, however often it was recalled; conflicts re-read; a batch that did not
fill waits out the window so the next one gathers the recalls made meanwhile."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from memhive.v1 import events_pb2
from memhive_contracts.codec import UndecodableMessage
from memhive_contracts.mapping import to_timestamp
from memhive_domain.memory import forget
from memhive_ingest.access_counts import FOLD_CHUNK, AccessCounter
from memhive_ingest.subscribers import ActivitySubscriber

from tests.fakes import FakeStore
from tests.unit.query.memories import NOW, memory, mid


def recalled(*numbers: int, seconds: int = 0, workspace: str = "ws") -> events_pb2.MemoriesRecalled:
    return events_pb2.MemoriesRecalled(
        event_id=f"e{numbers}{seconds}",
        workspace_id=workspace,
        principal_id="u1",
        query="q",
        memory_ids=[mid(n) for n in numbers],
        occurred_at=to_timestamp(NOW + timedelta(seconds=seconds)),
    )


@dataclass
class Msg:
    data: bytes


@dataclass
class Pauses:
    asked: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)


async def test_a_memory_recalled_many_times_in_a_batch_is_read_and_written_once() -> None:
    store = FakeStore()
    for n in (1, 2):
        store.put(memory(n))
    await AccessCounter(store)([recalled(1, 2), recalled(1, seconds=5), recalled(1, seconds=3)])
    first, second = store.rows[("ws", mid(1))], store.rows[("ws", mid(2))]
    assert (first.memory.access_count, first.memory.last_accessed_at) == (
        3,
        NOW + timedelta(seconds=5),
    )
    assert (second.memory.access_count, second.revision) == (1, 2)
    assert first.memory.revision == 1  # bookkeeping: the memory's own revision stays
    assert store.reads == [[mid(1), mid(2)]] and store.gets == []


async def test_records_are_read_a_chunk_at_a_time_per_workspace() -> None:
    store = FakeStore()
    numbers = range(1, FOLD_CHUNK + 3)
    for n in numbers:
        store.put(memory(n))
    await AccessCounter(store)([recalled(*numbers), recalled(9, workspace="other")])
    assert [len(r) for r in store.reads] == [FOLD_CHUNK, 2, 1]
    assert all(store.rows[("ws", mid(n))].memory.access_count == 1 for n in numbers)


async def test_a_write_in_between_is_read_again_and_counted_on_top() -> None:
    store = FakeStore()
    store.put(memory(1))
    store.conflicts_to_raise = 1
    await AccessCounter(store)([recalled(1), recalled(1)])
    assert store.rows[("ws", mid(1))].memory.access_count == 2
    assert store.gets == [mid(1)]


async def test_forgotten_and_absent_memories_are_not_written() -> None:
    store = FakeStore()
    gone = store.put(forget(memory(1), NOW))
    await AccessCounter(store)([recalled(1, 2)])
    assert store.rows == {("ws", mid(1)): gone}


async def test_a_batch_that_did_not_fill_waits_out_the_window_and_a_full_one_does_not() -> None:
    store, pauses = FakeStore(), Pauses()
    store.put(memory(1))
    subscriber = ActivitySubscriber(AccessCounter(store), batch_size=2, window_s=1.0, sleep=pauses)
    one = [Msg(recalled(1).SerializeToString())]
    await subscriber.handle_batch(one)
    await subscriber.handle_batch(one * 2)
    assert len(pauses.asked) == 1 and 0.9 < pauses.asked[0] <= 1.0
    assert store.rows[("ws", mid(1))].memory.access_count == 3


async def test_the_single_retries_of_a_failed_batch_do_not_wait() -> None:
    store, pauses = FakeStore(), Pauses()
    store.put(memory(1))
    subscriber = ActivitySubscriber(AccessCounter(store), batch_size=8, window_s=1.0, sleep=pauses)
    batch = [Msg(recalled(1).SerializeToString()), Msg(b"not an event")]
    with pytest.raises(UndecodableMessage):
        await subscriber.handle_batch(batch)
    await subscriber.handle_batch(batch[:1])  # as PullConsumer retries each message alone
    with pytest.raises(UndecodableMessage):
        await subscriber.handle_batch(batch[1:])
    assert pauses.asked == []
    await subscriber.handle_batch(batch[:1])  # a fresh batch waits again
    assert len(pauses.asked) == 1
    assert store.rows[("ws", mid(1))].memory.access_count == 2
