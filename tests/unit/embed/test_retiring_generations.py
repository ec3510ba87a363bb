"""After a reindex swap, the superseded generation is dropped: at once when its lanes are this
process's own (embedded), and only after the grace period when they live on a server that
other replicas read (Qdrant, OpenSearch), by which time those replicas have moved off.

The real Reindexer, LaneSets and GenerationFollower; the servers, the bus pointer and the
replay are in-memory fakes. Two processes share the "server": the reindexing embed replica
and a query replica that follows the pointer while a slow recall of its own still reads the
old generation."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from memhive_adapters.lexical.group_commit import completed
from memhive_adapters.runtime.generation_follower import GenerationFollower
from memhive_adapters.runtime.lane_generations import GenerationSpec, LaneGeneration
from memhive_adapters.runtime.lane_set import LaneSet
from memhive_adapters.runtime.swappable_lanes import SwappableVectorIndex
from memhive_domain.lane_generation import newest
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_embed import reindex
from memhive_embed.reindex import Progress, Reindexer
from memhive_ports import DocumentTerms
from memhive_ports.lanes import LaneHit

from tests.fakes import ChangeFeed, FakeTermWeights
from tests.waiting import until

GRACE_S = 0.3  # MEMHIVE_EMBEDDER__RETIRE_AFTER_S, shortened
NOW = datetime(2026, 1, 5, tzinfo=UTC)


@dataclass
class ServerCollection:
    """A collection (or index) on a lane server, read by every process's client."""

    held: dict[str, int] = field(default_factory=dict)
    terms: dict[str, DocumentTerms] = field(default_factory=dict)  # as last written
    dropped_at: float | None = None  # loop time
    drops: int = 0


class ClientLane:
    """One process's client of a ServerCollection: both lane ports the lanes use. A
    dropped collection answers nothing any more; `gate` holds this client's searches."""

    def __init__(self, collection: ServerCollection) -> None:
        self.collection, self.closed = collection, False
        self.gate = asyncio.Event()
        self.gate.set()

    async def ensure_ready(self) -> None:
        self._check()

    async def upsert(self, items, terms=None) -> None:
        self._check()
        for item in items:
            memory = item[0] if isinstance(item, tuple) else item
            self.collection.held[memory.id] = memory.revision
            if (kept := (terms or {}).get(memory.id)) is not None:
                self.collection.terms[memory.id] = kept

    def persisted(self) -> asyncio.Future[None]:
        self._check()
        return completed()

    async def search(self, query, memory_filter, limit) -> list[LaneHit]:
        await self.gate.wait()
        self._check()
        return [LaneHit(memory_id, 1.0) for memory_id in sorted(self.collection.held)[:limit]]

    async def drop(self) -> None:
        self.collection.dropped_at = asyncio.get_running_loop().time()
        self.collection.drops += 1

    async def close(self) -> None:
        self.closed = True

    def _check(self) -> None:
        if self.collection.dropped_at is not None:
            raise LookupError("the collection was dropped")


class FakeEmbedder:
    model_name, dimensions = "minilm", 2

    async def embed(self, texts):
        return [[1.0, 0.0] for _ in texts]


Server = dict[int, tuple[ServerCollection, ServerCollection]]


class ServerGenerations:
    """LaneGenerations for lanes on `server` (shared), or a process's own (not shared)."""

    def __init__(self, server: Server, *, shared: bool = True) -> None:
        self._server, self.shared = server, shared
        self._spec = GenerationSpec(0, FakeEmbedder.model_name)

    def current_spec(self) -> GenerationSpec:
        return self._spec

    def next_spec(self, embedding_model: str | None = None) -> GenerationSpec:
        return GenerationSpec(self._spec.number + 1, embedding_model or self._spec.embedding_model)

    def learn(self, spec: GenerationSpec | None) -> None:
        self._spec = newest(self._spec, spec)

    def commit(self, spec: GenerationSpec) -> None:
        self.learn(spec)

    def build(self, spec: GenerationSpec, embedder=None) -> LaneGeneration:
        # A dropped collection is created anew, as a server does at ensure_ready.
        held = self._server.get(spec.number)
        if held is None or held[0].dropped_at is not None:
            held = self._server[spec.number] = (ServerCollection(), ServerCollection())
        vector, lexical = held
        lanes = ClientLane(vector), ClientLane(lexical)
        return LaneGeneration(spec, embedder or FakeEmbedder(), *lanes)


class BusPointer:
    """The generation pointer on the bus: advancing it reaches every watcher."""

    def __init__(self) -> None:
        self._feed: ChangeFeed[GenerationSpec] = ChangeFeed()

    async def advance(self, spec: GenerationSpec) -> bool:
        self._feed.tell(spec)
        return True

    async def changes(self) -> AsyncIterator[GenerationSpec]:
        return await self._feed.changes()


@dataclass
class Batch:
    memories: list[Memory]
    read: int
    total: int
    sequence: int


class Replay:
    def __init__(self, memories: list[Memory]) -> None:
        self._memories = memories

    async def batches(self, workspace_ids=(), after_sequence=None) -> AsyncIterator[Batch]:
        if after_sequence is None:  # nothing was written after the snapshot
            n = len(self._memories)
            yield Batch(self._memories, n, n, 1)


def memory(memory_id: str) -> Memory:
    draft = MemoryDraft(kind="fact", body=f"memory {memory_id}")
    made = create_memory(draft, memory_id=memory_id, principal=Principal("ws", "u"), now=NOW)
    return dataclasses.replace(made, revision=1)


def swap_times(loop: asyncio.AbstractEventLoop, into: list[float]):
    async def report(progress: Progress) -> None:
        if progress.state == "swapped":
            into.append(loop.time())

    return report


@pytest.fixture(autouse=True)
def _no_settling(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pause before the catch-up is for other embed replicas; none here."""
    monkeypatch.setattr(reindex, "SETTLE_S", 0.0)


async def test_a_server_generation_outlives_the_swap_by_the_grace_period_then_is_dropped() -> None:
    server: Server = {}
    pointer = BusPointer()
    ours = ServerGenerations(server)  # the embed replica that reindexes
    our_lanes = LaneSet(ours.build(ours.current_spec()))
    theirs = ServerGenerations(server)  # a query replica on its own clients
    their_lanes = LaneSet(theirs.build(theirs.current_spec()))
    follower = GenerationFollower(pointer, theirs, their_lanes)
    await follower.start()
    await SwappableVectorIndex(our_lanes).upsert([(memory("m1"), [1.0, 0.0])])
    their_recall = SwappableVectorIndex(their_lanes)
    their_old_client = their_lanes.current.vector
    their_old_client.gate.clear()  # a slow recall, still reading generation 0
    slow = asyncio.create_task(their_recall.search([1.0, 0.0], None, 5))
    await asyncio.sleep(0)
    reindexer = Reindexer(Replay([memory("m1")]), our_lanes, ours, pointer, retire_after_s=GRACE_S)
    loop, swapped_at = asyncio.get_running_loop(), []

    done = await reindexer.rebuild(None, swap_times(loop, swapped_at))

    old_vector, old_lexical = server[0]
    assert (done.state, done.generation, our_lanes.current.spec.number) == ("done", 1, 1)
    assert old_vector.dropped_at is None, "the rebuild returns without waiting for the drop"
    await until(lambda: their_lanes.current.spec.number == 1)  # the replica followed
    assert [h.memory_id for h in await their_recall.search([1.0, 0.0], None, 5)] == ["m1"]
    assert not slow.done()
    their_old_client.gate.set()
    assert [h.memory_id for h in await slow] == ["m1"], "answered by generation 0, still there"
    await until(lambda: their_old_client.closed)  # the replica let go of it, without dropping

    await until(lambda: old_vector.dropped_at is not None and old_lexical.dropped_at is not None)
    assert old_vector.dropped_at - swapped_at[0] >= GRACE_S
    assert (old_vector.drops, old_lexical.drops) == (1, 1)  # by the reindexer alone
    assert server[1][0].dropped_at is None and server[1][0].held == {"m1": 1}
    with pytest.raises(LookupError):
        await their_old_client.search([1.0, 0.0], None, 5)
    await follower.stop()
    await reindexer.close()


async def test_stopping_within_the_grace_period_closes_the_old_generation_without_dropping() -> (
    None
):
    server: Server = {}
    generations = ServerGenerations(server)
    lanes = LaneSet(generations.build(generations.current_spec()))
    old = lanes.current
    reindexer = Reindexer(
        Replay([memory("m1")]), lanes, generations, BusPointer(), retire_after_s=60
    )

    await reindexer.rebuild(None, swap_times(asyncio.get_running_loop(), []))
    await reindexer.close()

    assert server[0][0].drops == server[0][1].drops == 0  # left for the operator to drop
    assert old.vector.closed and old.lexical.closed


async def test_a_process_own_embedded_generation_is_dropped_at_the_swap() -> None:
    server: Server = {}  # here: this process's own directories
    generations = ServerGenerations(server, shared=False)
    lanes = LaneSet(generations.build(generations.current_spec()))
    reindexer = Reindexer(Replay([memory("m1")]), lanes, generations, retire_after_s=60)

    await reindexer.rebuild(None, swap_times(asyncio.get_running_loop(), []))

    assert server[0][0].drops == server[0][1].drops == 1  # no replica reads it: no grace
    assert server[1][0].drops == 0


async def test_a_rebuild_and_a_repair_compute_each_memorys_document_terms_again() -> None:
    server: Server = {}
    generations = ServerGenerations(server, shared=False)
    lanes = LaneSet(generations.build(generations.current_spec()))
    terms = FakeTermWeights(frozenset({"m1", "m2"}))
    reindexer = Reindexer(Replay([memory("m1"), memory("m2")]), lanes, generations, terms=terms)
    expected = {"m1": DocumentTerms((0,), (1.0,)), "m2": DocumentTerms((1,), (1.0,))}

    await reindexer.rebuild(None, swap_times(asyncio.get_running_loop(), []))
    assert server[1][0].terms == expected  # the new generation's vector lane
    server[1][0].terms.clear()
    await reindexer.repair(["ws"], swap_times(asyncio.get_running_loop(), []))
    assert server[1][0].terms == expected
