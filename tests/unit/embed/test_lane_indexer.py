"""LaneIndexer: when the event may stand for the record (embedded lanes, a first delivery,
no older than what was indexed) and when the record is read, so that the lanes never hold
an older revision than the record."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhive.v1 import events_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_adapters.lexical.group_commit import completed
from memhive_contracts import subjects
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_embed.indexer import IndexRequest, LaneIndexer, indexed_together
from memhive_ports import BusUnavailable, DocumentTerms

from tests.fakes import FakeEmbedder, FakePublisher, FakeStore, FakeTermWeights, FixedClock

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class RecordingLanes:
    """Both lanes in one: what each holds, by memory id."""

    def __init__(self) -> None:
        self.held: dict[str, Memory] = {}
        self.terms: dict[str, DocumentTerms | None] = {}  # as the vector lane last got them

    async def upsert(self, items, terms=None) -> None:
        for item in items:
            memory = item[0] if isinstance(item, tuple) else item
            self.held[memory.id] = memory
            if isinstance(item, tuple):
                self.terms[memory.id] = (terms or {}).get(memory.id)

    async def delete(self, workspace_id: str, ids) -> None:
        for i in ids:
            self.held.pop(i, None)

    def persisted(self):
        return completed()


def memory(memory_id: str, revision: int = 1, **changes: object) -> Memory:
    draft = MemoryDraft(kind="fact", body=f"memory {memory_id}")
    made = create_memory(draft, memory_id=memory_id, principal=Principal("ws", "u"), now=NOW)
    return dataclasses.replace(made, revision=revision, **changes)


def request(m: Memory, *, redelivered: bool = False) -> IndexRequest:
    return IndexRequest(f"e-{m.id}-{m.revision}", "ws", m.id, m.revision, None, m, redelivered)


def indexer(store: FakeStore, lanes: RecordingLanes, *, trust: bool) -> LaneIndexer:
    return LaneIndexer(
        store, lanes, lanes, FakeEmbedder(), FakePublisher(), FixedClock(NOW), trust_events=trust
    )


async def test_a_first_delivery_to_embedded_lanes_is_indexed_from_the_event_without_a_read():
    store, lanes = FakeStore(), RecordingLanes()
    saved = memory("m1")
    store.put(saved)
    index = indexer(store, lanes, trust=True)
    await index.index([request(saved)])
    assert store.reads == [] and index.records_read == 0
    assert lanes.held["m1"] == saved


async def test_shared_lanes_read_the_record_for_every_event():
    store, lanes = FakeStore(), RecordingLanes()
    store.put(memory("m1", 2, forgotten=True))  # forgotten since the save was announced
    index = indexer(store, lanes, trust=False)
    await index.index([request(memory("m1"))])
    assert store.reads == [["m1"]]
    assert "m1" not in lanes.held


async def test_a_redelivered_save_reads_the_record_and_never_resurrects_a_forgotten_memory():
    store, lanes = FakeStore(), RecordingLanes()
    store.put(memory("m1", 2, forgotten=True))
    index = indexer(store, lanes, trust=True)
    await index.index([request(memory("m1"), redelivered=True)])
    assert store.reads == [["m1"]]
    assert "m1" not in lanes.held


async def test_an_event_older_than_the_revision_indexed_here_reads_the_record():
    store, lanes = FakeStore(), RecordingLanes()
    newer = memory("m1", 3, body="the newest body")
    store.put(newer)
    index = indexer(store, lanes, trust=True)
    await index.index([request(newer)])
    await index.index([request(memory("m1", 2, body="an older body"))])  # out of order
    assert store.reads == [["m1"]]
    assert lanes.held["m1"] == newer


async def test_the_newest_event_of_a_memory_in_a_batch_decides():
    store, lanes = FakeStore(), RecordingLanes()
    saved, forgotten = memory("m1"), memory("m1", 2, forgotten=True)
    store.put(forgotten)
    index = indexer(store, lanes, trust=True)
    await index.index([request(saved), request(forgotten)])
    assert store.reads == []
    assert "m1" not in lanes.held


async def test_a_purge_carries_no_memory_and_reads_the_record():
    store, lanes = FakeStore(), RecordingLanes()
    lanes.held["m1"] = memory("m1")
    index = indexer(store, lanes, trust=True)
    await index.index([IndexRequest("e-purge", "ws", "m1", 0, None)])
    assert store.reads == [["m1"]]
    assert "m1" not in lanes.held


async def test_a_save_checked_with_its_vector_announces_the_check_only_with_that_vector():
    """The check was a search with the save's own vector: a vector embed computed again
    (another encoder, another revision) was never checked."""
    store, lanes, publisher = FakeStore(), RecordingLanes(), FakePublisher()
    index = LaneIndexer(
        store, lanes, lanes, FakeEmbedder(), publisher, FixedClock(NOW), trust_events=True
    )
    own = pb.Embedding(model="fake-embedder", values=[1.0, 0.0, 0.0])
    other = pb.Embedding(model="another-encoder", values=[1.0, 0.0, 0.0])
    checked = [memory("m1"), memory("m2"), memory("m3")]
    check = {"near_duplicate_check": 0.85, "near_duplicates": [pb.Neighbour(memory_id="n")]}
    await index.index(
        [
            dataclasses.replace(request(checked[0]), embedding=own, **check),
            dataclasses.replace(request(checked[1]), embedding=other, **check),
            dataclasses.replace(request(checked[2]), embedding=own),
        ]
    )
    announced = {e.memory.id: e for e in publisher.events()}
    assert announced["m1"].near_duplicate_check == 0.85
    assert [n.memory_id for n in announced["m1"].near_duplicates] == ["n"]
    for unchecked in ("m2", "m3"):
        assert not announced[unchecked].HasField("near_duplicate_check")
        assert not announced[unchecked].near_duplicates


async def test_with_document_terms_each_live_memory_of_a_batch_keeps_its_own():
    store, lanes = FakeStore(), RecordingLanes()
    kept, gone = memory("m1", body="clarinet and violin"), memory("m2", body="violin")
    store.put(kept)
    store.put(gone)
    terms = FakeTermWeights(frozenset({"clarinet", "violin"}))
    index = LaneIndexer(
        store, lanes, lanes, FakeEmbedder(), FakePublisher(), FixedClock(NOW), terms=terms
    )
    await (await index.index([request(kept), request(gone)]))
    assert lanes.terms == {
        "m1": DocumentTerms((0, 1), (1.0, 1.0)),
        "m2": DocumentTerms((1,), (1.0,)),
    }


async def test_without_document_terms_a_memory_is_written_without_any():
    store, lanes = FakeStore(), RecordingLanes()
    store.put(memory("m1"))
    await (await indexer(store, lanes, trust=False).index([request(memory("m1"))]))
    assert lanes.terms == {"m1": None}


class AcknowledgedTogether:
    """A publisher whose acknowledgements come only once `expected` publishes are out, as a
    busy bus answers: announcing one event at a time never gets past the first."""

    def __init__(self, expected: int, fail_on: str | None = None) -> None:
        self._expected, self._fail_on = expected, fail_on
        self._all_out = asyncio.Event()
        self.sent: list[str] = []
        self.acknowledged: list[str] = []

    async def publish(self, subject: str, message, *, msg_id: str) -> None:
        self.sent.append(msg_id)
        if len(self.sent) == self._expected:
            self._all_out.set()
        await self._all_out.wait()
        if msg_id == self._fail_on:
            raise BusUnavailable("the bus did not store it")
        await asyncio.sleep(0.05)  # the others' acknowledgements come after the refusal
        self.acknowledged.append(msg_id)


def announcing(store: FakeStore, publisher: AcknowledgedTogether) -> LaneIndexer:
    lanes = RecordingLanes()
    return LaneIndexer(store, lanes, lanes, FakeEmbedder(), publisher, FixedClock(NOW))


def in_workspace(m: Memory, workspace_id: str) -> Memory:
    return dataclasses.replace(m, workspace_id=workspace_id)


def workspaces_request(m: Memory) -> IndexRequest:
    return IndexRequest(f"e-{m.id}-{m.revision}", m.workspace_id, m.id, m.revision, None, m)


async def test_each_workspaces_announcement_goes_side_by_side_with_the_others():
    """Each announcement waits for its acknowledgement beside the others, not in turn: a
    batch of 64 in turn waited 64 round trips behind the event loop's other work."""
    saved = [in_workspace(memory(f"m{n}"), f"ws{n}") for n in range(5)]
    store = FakeStore()
    for m in saved:
        store.put(m)
    publisher = AcknowledgedTogether(expected=len(saved))
    index = announcing(store, publisher)
    await asyncio.wait_for(index.index([workspaces_request(m) for m in saved]), 2)
    assert publisher.sent == [f"e-m{n}-1:indexed" for n in range(5)]
    assert sorted(publisher.acknowledged) == sorted(publisher.sent)


async def test_a_failed_announcement_fails_the_batch_once_the_others_are_acknowledged():
    saved = [in_workspace(memory(f"m{n}"), f"ws{n}") for n in range(3)]
    store = FakeStore()
    for m in saved:
        store.put(m)
    publisher = AcknowledgedTogether(expected=3, fail_on="e-m0-1:indexed")
    index = announcing(store, publisher)
    with pytest.raises(BusUnavailable):
        await asyncio.wait_for(index.index([workspaces_request(m) for m in saved]), 2)
    assert sorted(publisher.acknowledged) == ["e-m1-1:indexed", "e-m2-1:indexed"]


async def test_a_workspaces_memories_are_announced_together_each_as_itself():
    """One MemoriesIndexed for a workspace's memories of a batch, in order (each consumer
    then takes one delivery for them); a lone memory, and what is gone, on their own."""
    store, lanes, publisher = FakeStore(), RecordingLanes(), FakePublisher()
    index = LaneIndexer(
        store, lanes, lanes, FakeEmbedder(), publisher, FixedClock(NOW), trust_events=True
    )
    ours = [memory(f"m{n}") for n in range(3)]
    theirs = in_workspace(memory("t1"), "ws-other")
    gone = memory("m9", forgotten=True)
    batch = [request(ours[0]), workspaces_request(theirs), request(ours[1])]
    await index.index([*batch, request(gone), request(ours[2])])
    by_subject = [(subject, type(message).__name__) for subject, message, _ in publisher.sent]
    assert by_subject == [
        (subjects.for_workspace(subjects.MEMORY_UNINDEXED, "ws"), "MemoryUnindexed"),
        (subjects.for_workspace(subjects.MEMORIES_INDEXED, "ws"), "MemoriesIndexed"),
        (subjects.for_workspace(subjects.MEMORY_INDEXED, "ws-other"), "MemoryIndexed"),
    ]
    together = publisher.sent[1][1]
    assert [e.memory.id for e in together.indexed] == ["m0", "m1", "m2"]
    assert [e.event_id for e in together.indexed] == [f"e-m{n}-1:indexed" for n in range(3)]
    assert all(len(e.embedding.values) == 3 for e in together.indexed)
    # The same batch again announces the same message, which the bus drops as a duplicate.
    again = FakePublisher()
    index._publisher = again
    await index.index([*batch, request(gone), request(ours[2])])
    assert [msg_id for *_, msg_id in again.sent] == [msg_id for *_, msg_id in publisher.sent]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=400), max_size=40), st.integers(200, 2000))
def test_events_go_together_in_order_each_group_within_its_bound(
    bodies: list[int], max_bytes: int
) -> None:
    events = [
        events_pb2.MemoryIndexed(event_id=f"e{n}", memory=pb.Memory(id=f"m{n}", body="x" * size))
        for n, size in enumerate(bodies)
    ]
    groups = indexed_together(events, max_bytes)
    assert [e.event_id for group in groups for e in group] == [e.event_id for e in events]
    for group in groups:
        assert group
        assert len(group) == 1 or sum(e.ByteSize() for e in group) <= max_bytes
    for earlier, later in itertools.pairwise(groups):  # a group is cut only where it must be
        assert sum(e.ByteSize() for e in earlier) + later[0].ByteSize() > max_bytes
