"""Use case: bring both lanes in line with the record for a batch of memory events.

The record, not the event, decides where the event may be stale: each memory is re-read,
so a late MemorySaved can never resurrect a memory forgotten in the meantime, and the
newest revision is indexed. A memory with no record any more (purged) leaves both lanes.

An event is not stale when it is delivered for the first time to the only writer of its
lanes (`trust_events`: embedded lanes, which one process owns): the events of one memory
reach it in the order ingest wrote the record, so the last event of a memory in a batch
is its newest revision, and a later change comes as a later event. Then the event's copy
is the record, and the read (a round trip on the bus per batch) is skipped. A redelivery
(a nak, an ack that timed out: later events may have been handled since), an event older
than a revision already indexed here, and every event when the lanes are shared by other
writers (Qdrant server, OpenSearch) still read the record.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memhive.v1 import events_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts import streams, subjects
from memhive_contracts.mapping import memory_to_pb, to_timestamp
from memhive_domain.memory import Memory
from memhive_ports import (
    Clock,
    DocumentTerms,
    Embedder,
    EncodedVector,
    EventPublisher,
    LexicalIndex,
    MemoryStore,
    TermWeights,
    VectorIndex,
)

from memhive_embed.document_terms import terms_of


@dataclass(frozen=True, slots=True)
class IndexRequest:
    """One memory event to reflect in the lanes: its id, and a vector if one travelled with it."""

    event_id: str
    workspace_id: str
    memory_id: str
    revision: int
    embedding: pb.Embedding | None
    memory: Memory | None = None  # as the event carries it (None: a purge carries none)
    redelivered: bool = False  # delivered before: later events may have been handled since
    near_duplicate_check: float | None = None  # the event's, passed on with its own vector
    near_duplicates: Sequence[pb.Neighbour] = ()  # with near_duplicate_check, the same way


# Revisions remembered per memory for the guard against an older event (a bound on memory).
REVISIONS_KEPT = 100_000


class LaneIndexer:
    def __init__(
        self,
        store: MemoryStore,
        vector: VectorIndex,
        lexical: LexicalIndex,
        embedder: Embedder,
        publisher: EventPublisher,
        clock: Clock,
        *,
        trust_events: bool = False,
        terms: TermWeights | None = None,
    ) -> None:
        """trust_events: this process is its lanes' only writer (see the module's note).
        terms: the reranker's document terms, kept with each live memory when given."""
        self._store, self._vector, self._lexical = store, vector, lexical
        self._embedder, self._publisher, self._clock = embedder, publisher, clock
        self._trust_events, self._terms = trust_events, terms
        self._indexed: OrderedDict[str, int] = OrderedDict()  # memory id -> revision
        self.records_read = 0  # memories read from the record (the figure trust saves)

    async def index(self, requests: Sequence[IndexRequest]) -> Awaitable[None]:
        """Both lanes written and MemoryIndexed announced (the memory is recallable); the
        awaitable returned completes once the lexical lane's writes are durable too (its
        commits are grouped): only then may the events be acknowledged."""
        latest = await self._current_records(requests)
        self._remember(latest.values())
        live = {k: m for k, m in latest.items() if not m.forgotten}
        gone = [(m.workspace_id, m.id) for m in latest.values() if m.forgotten]
        gone += {(r.workspace_id, r.memory_id) for r in requests if r.memory_id not in latest}
        vectors = await self._vectors_for(requests, live)
        terms = await terms_of(self._terms, list(live.values()))
        await self._write_lanes(live, vectors, terms, gone)
        await self._announce(requests, latest, vectors)
        return self._lexical.persisted()

    def needs_pass(self, request: IndexRequest) -> bool:
        """The event's memory is live and no vector of the current encoder came with it:
        indexing it takes an encoder pass (as the event says; the record may differ)."""
        m = request.memory
        return m is not None and not m.forgotten and not self._reusable(request, m)

    async def _current_records(self, requests: Sequence[IndexRequest]) -> dict[str, Memory]:
        carried = self._carried(requests)
        by_workspace: dict[str, set[str]] = {}
        for r in requests:
            if r.memory_id not in carried:
                by_workspace.setdefault(r.workspace_id, set()).add(r.memory_id)
        found = await asyncio.gather(
            *(self._store.get_many(ws, sorted(ids)) for ws, ids in by_workspace.items())
        )
        self.records_read += sum(len(ids) for ids in by_workspace.values())
        return carried | {m.memory.id: m.memory for batch in found for m in batch.values()}

    def _carried(self, requests: Sequence[IndexRequest]) -> dict[str, Memory]:
        """The memories whose events may stand for the record: each one's newest copy."""
        if not self._trust_events:
            return {}
        newest: dict[str, Memory] = {}
        doubtful: set[str] = set()
        for r in requests:
            if r.memory is None or r.redelivered or r.revision < self._indexed.get(r.memory_id, 0):
                doubtful.add(r.memory_id)
            elif r.memory_id not in newest or r.revision >= newest[r.memory_id].revision:
                newest[r.memory_id] = r.memory
        return {i: m for i, m in newest.items() if i not in doubtful}

    def _remember(self, memories: Iterable[Memory]) -> None:
        for m in memories:
            self._indexed[m.id] = max(m.revision, self._indexed.get(m.id, 0))
            self._indexed.move_to_end(m.id)
        while len(self._indexed) > REVISIONS_KEPT:
            self._indexed.popitem(last=False)

    async def _vectors_for(
        self, requests: Sequence[IndexRequest], live: dict[str, Memory]
    ) -> dict[str, list[float]]:
        vectors: dict[str, list[float]] = {}
        for r in requests:
            memory = live.get(r.memory_id)
            if memory is not None and self._reusable(r, memory):
                e = r.embedding
                vectors[r.memory_id] = EncodedVector(e.values, e.model, memory.body)
        missing = [m for m in live.values() if m.id not in vectors]
        if missing:
            computed = await self._embedder.embed([m.body for m in missing])
            vectors.update({m.id: v for m, v in zip(missing, computed, strict=True)})
        return vectors

    def _checked_vector(self, request: IndexRequest, memory: Memory) -> bool:
        """The event announces the vector the save was checked with."""
        return (
            request.near_duplicate_check is not None
            and not memory.forgotten
            and self._reusable(request, memory)
        )

    def _reusable(self, request: IndexRequest, memory: Memory) -> bool:
        """Embed once: reuse the vector that travelled with the event when it is for this body."""
        e = request.embedding
        return (
            e is not None
            and e.model == self._embedder.model_name
            and len(e.values) == self._embedder.dimensions
            and request.revision == memory.revision
        )

    async def _write_lanes(
        self,
        live: dict[str, Memory],
        vectors: dict[str, list[float]],
        terms: Mapping[str, DocumentTerms] | None,
        gone: list[tuple[str, str]],
    ) -> None:
        """gone: (workspace, id) of forgotten and purged memories."""
        if live:
            await self._vector.upsert([(m, vectors[m.id]) for m in live.values()], terms)
            await self._lexical.upsert(list(live.values()))
        for workspace_id in {ws for ws, _ in gone}:
            ids = [i for ws, i in gone if ws == workspace_id]
            await self._vector.delete(workspace_id, ids)
            await self._lexical.delete(workspace_id, ids)

    async def _announce(
        self, requests: Sequence[IndexRequest], latest: dict[str, Memory], vectors
    ) -> None:
        """MemoryUnindexed for each memory gone; the memories indexed, one MemoriesIndexed per
        workspace (a lone one as its MemoryIndexed): each consumer then takes one delivery
        and one ack for the batch instead of one per memory."""
        now = to_timestamp(self._clock.now())
        publishing = []
        indexed: dict[str, list[events_pb2.MemoryIndexed]] = {}
        for r in requests:
            memory = latest.get(r.memory_id)
            if memory is None:
                continue
            event_id = f"{r.event_id}:{'unindexed' if memory.forgotten else 'indexed'}"
            subject, event = _lane_event(event_id, memory, vectors, self._embedder.model_name, now)
            if memory.forgotten:
                publishing.append(self._publisher.publish(subject, event, msg_id=event_id))
                continue
            if self._checked_vector(r, memory):
                event.near_duplicate_check = r.near_duplicate_check
                event.near_duplicates.extend(r.near_duplicates)
            indexed.setdefault(memory.workspace_id, []).append(event)
        for workspace_id, events in indexed.items():
            for together in indexed_together(events):
                subject, event, event_id = _indexed_event(workspace_id, together)
                publishing.append(self._publisher.publish(subject, event, msg_id=event_id))
        # Side by side: one after the other, a batch of 64 waited for 64 acknowledgements in
        # turn, each behind whatever else the event loop had to do (docs/benchmarks.md).
        outcomes = await asyncio.gather(*publishing, return_exceptions=True)
        if failed := next((o for o in outcomes if isinstance(o, BaseException)), None):
            raise failed


# A MemoriesIndexed stays far below the bus's payload limit (1 MiB by default), whatever
# the batch: a memory's event is ~3 KB with its vector, ~20 KB with the longest body.
MAX_TOGETHER_BYTES = 256 * 1024


def indexed_together(
    events: Sequence[events_pb2.MemoryIndexed], max_bytes: int = MAX_TOGETHER_BYTES
) -> list[list[events_pb2.MemoryIndexed]]:
    """One workspace's events in order, in groups of at most `max_bytes` (a group holds one
    event at least, whatever its size)."""
    groups: list[list[events_pb2.MemoryIndexed]] = []
    size = max_bytes
    for event in events:
        length = event.ByteSize()
        if groups and size + length <= max_bytes:
            groups[-1].append(event)
            size += length
        else:
            groups.append([event])
            size = length
    return groups


def _indexed_event(workspace_id: str, events: Sequence[events_pb2.MemoryIndexed]):
    """(subject, event, event id) announcing `events`: a lone one as itself, several
    together under a digest of their ids (`streams.batch_msg_id`)."""
    if len(events) == 1:
        return (
            subjects.for_workspace(subjects.MEMORY_INDEXED, workspace_id),
            events[0],
            events[0].event_id,
        )
    event_id = streams.batch_msg_id("indexed", (e.event_id for e in events))
    together = events_pb2.MemoriesIndexed(event_id=event_id, indexed=events)
    return subjects.for_workspace(subjects.MEMORIES_INDEXED, workspace_id), together, event_id


def _lane_event(event_id: str, memory: Memory, vectors, current_model: str, now):
    if memory.forgotten:
        event = events_pb2.MemoryUnindexed(
            event_id=event_id,
            workspace_id=memory.workspace_id,
            memory_id=memory.id,
            occurred_at=now,
        )
        return subjects.for_workspace(subjects.MEMORY_UNINDEXED, memory.workspace_id), event
    event = events_pb2.MemoryIndexed(
        event_id=event_id,
        memory=memory_to_pb(memory),
        # The vector's own encoder: a swap may have come between its embedding and now.
        embedding=pb.Embedding(
            model=getattr(vectors[memory.id], "encoder", current_model), values=vectors[memory.id]
        ),
        occurred_at=now,
    )
    return subjects.for_workspace(subjects.MEMORY_INDEXED, memory.workspace_id), event
