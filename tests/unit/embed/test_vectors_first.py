"""VectorsFirst: an event that needs no encoder pass is indexed at once, never behind the
backlog's passes; events that need one are indexed in order, in chunks, beside it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

import pytest
from memhive.v1 import memory_pb2 as pb
from memhive_embed.indexer import IndexRequest, LaneIndexer
from memhive_embed.vectors_first import VectorsFirst

from tests.fakes import FakeEmbedder, FakePublisher, FakeStore, FixedClock
from tests.unit.embed.test_lane_indexer import NOW, RecordingLanes, memory

VECTOR = (1.0, 0.0, 0.0)


class GatedEmbedder(FakeEmbedder):
    """Each call waits until the test opens the gate: a pass that takes as long as it must."""

    def __init__(self) -> None:
        super().__init__(vector=VECTOR)
        self.gate = asyncio.Event()
        self.calls: list[list[str]] = []
        self.failure: Exception | None = None

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        await self.gate.wait()
        if self.failure is not None:
            raise self.failure
        return await super().embed(texts)


def needing_a_pass(memory_id: str, revision: int = 1, *, redelivered=False) -> IndexRequest:
    m = memory(memory_id, revision)
    return IndexRequest(f"e-{memory_id}-{revision}", "ws", m.id, revision, None, m, redelivered)


def carrying_its_vector(memory_id: str, revision: int = 1, **changes) -> IndexRequest:
    m = memory(memory_id, revision, **changes)
    vector = pb.Embedding(model="fake-embedder", values=VECTOR)
    return IndexRequest(f"e-{memory_id}-{revision}", "ws", m.id, revision, vector, m)


@dataclasses.dataclass
class Rig:
    store: FakeStore
    lanes: RecordingLanes
    embedder: GatedEmbedder
    publisher: FakePublisher
    first: VectorsFirst

    def announced(self) -> list[str]:
        return [event.event_id for event in self.publisher.events()]


def rig(*, queued_max: int = 512, chunk: int = 64) -> Rig:
    store, lanes, embedder = FakeStore(), RecordingLanes(), GatedEmbedder()
    publisher = FakePublisher()
    indexer = LaneIndexer(
        store, lanes, lanes, embedder, publisher, FixedClock(NOW), trust_events=True
    )
    first = VectorsFirst(indexer, chunk=chunk, queued_max=queued_max)
    return Rig(store, lanes, embedder, publisher, first)


async def settled() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_an_event_carrying_its_vector_is_indexed_while_the_backlog_is_embedded():
    r = rig()
    backlog = await r.first.index([needing_a_pass("m1"), needing_a_pass("m2")])
    await settled()
    assert r.embedder.calls == [["memory m1", "memory m2"]]  # the pass under way, not done

    durable = await r.first.index([carrying_its_vector("m3")])
    await durable  # acknowledged without waiting for the backlog's pass
    assert "m3" in r.lanes.held and r.announced() == ["e-m3-1:indexed"]
    assert "m1" not in r.lanes.held

    r.embedder.gate.set()
    await asyncio.wait_for(backlog, 5)
    assert {"m1", "m2", "m3"} <= r.lanes.held.keys()
    assert r.announced()[1:] == ["e-m1-1:indexed", "e-m2-1:indexed"]


async def test_a_memory_with_an_event_queued_keeps_its_order():
    r = rig()
    saved = await r.first.index([needing_a_pass("m1")])
    await settled()
    # Its forget needs no pass, but indexed first it would be undone by the save behind it.
    forgotten = await r.first.index([carrying_its_vector("m1", 2, forgotten=True)])
    await settled()
    assert r.announced() == []
    r.embedder.gate.set()
    await asyncio.wait_for(asyncio.gather(saved, forgotten), 5)
    assert "m1" not in r.lanes.held
    assert r.announced() == ["e-m1-1:indexed", "e-m1-2:unindexed"]


async def test_within_a_batch_a_later_event_of_a_queued_memory_queues_behind_it():
    r = rig()
    batch = [needing_a_pass("m1"), carrying_its_vector("m1", 2, forgotten=True)]
    await asyncio.wait_for(await r.first.index(batch), 5)
    assert "m1" not in r.lanes.held
    assert r.announced() == ["e-m1-1:unindexed", "e-m1-2:unindexed"]  # in the events' order


async def test_what_queues_while_a_pass_runs_is_indexed_in_one_chunk_then_in_order():
    r = rig(chunk=3)
    first = await r.first.index([needing_a_pass("a")])
    await settled()
    later = [await r.first.index([needing_a_pass(i)]) for i in ("b", "c", "d", "e")]
    r.embedder.gate.set()
    await asyncio.wait_for(asyncio.gather(first, *later), 5)
    assert r.embedder.calls == [
        ["memory a"],
        ["memory b", "memory c", "memory d"],
        ["memory e"],
    ]
    assert [i.split("-")[1] for i in r.announced()] == ["a", "b", "c", "d", "e"]


async def test_a_failed_pass_fails_its_batches_and_the_queue_goes_on():
    r = rig()
    r.embedder.failure = RuntimeError("the encoder fell over")
    failing = await r.first.index([carrying_its_vector("m0"), needing_a_pass("m1")])
    assert "m0" in r.lanes.held  # the ready half was indexed
    r.embedder.gate.set()
    with pytest.raises(RuntimeError, match="fell over"):
        await asyncio.wait_for(failing, 5)  # the consumer naks the batch: it comes back

    r.embedder.failure = None
    r.store.put(memory("m1"))  # a redelivery reads the record
    again = await r.first.index([needing_a_pass("m1", redelivered=True)])
    await asyncio.wait_for(again, 5)
    assert "m1" in r.lanes.held


async def test_a_redelivered_event_is_indexed_at_once_so_its_failure_reaches_the_consumer():
    r = rig()
    r.embedder.failure = RuntimeError("poison")
    r.embedder.gate.set()
    r.store.put(memory("m1"))
    with pytest.raises(RuntimeError, match="poison"):  # counted, and dead-lettered in time
        await r.first.index([needing_a_pass("m1", redelivered=True)])


async def test_past_its_room_a_batch_waits_once_its_ready_events_are_indexed():
    r = rig(queued_max=2)
    first = await r.first.index([needing_a_pass("a"), needing_a_pass("b")])
    blocked = asyncio.create_task(r.first.index([carrying_its_vector("c"), needing_a_pass("d")]))
    await settled()
    assert "c" in r.lanes.held  # its ready half went first
    assert not blocked.done()  # no room for "d" until "a" and "b" are indexed
    r.embedder.gate.set()
    second = await asyncio.wait_for(blocked, 5)
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert {"a", "b", "c", "d"} <= r.lanes.held.keys()


def test_the_bounds_are_checked():
    indexer = rig().first._indexer
    for bad in ({"chunk": 0}, {"queued_max": 0}):
        with pytest.raises(ValueError, match="at least 1"):
            VectorsFirst(indexer, **bad)
