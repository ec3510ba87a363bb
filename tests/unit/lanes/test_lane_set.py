"""LaneSet and its swappable views, over in-memory lanes: swaps wait for calls in flight,
writes during a build are mirrored, and the replay never undoes a newer mirrored write."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime

import pytest
from memhive_adapters.runtime.lane_generations import GenerationSpec, LaneGeneration
from memhive_adapters.runtime.lane_set import LaneSet
from memhive_adapters.runtime.swappable_lanes import (
    Passes,
    SwappableEmbedder,
    SwappableLexicalIndex,
    SwappableVectorIndex,
)
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_ports import DocumentTerms, EncodedVector
from memhive_ports.lanes import LaneHit

from tests.fakes import FakeEmbedder

NOW = datetime(2026, 1, 5, tzinfo=UTC)
VECTORS = {"old": [1.0, 0.0], "new": [0.0, 1.0]}  # each model's vector for every text


class FakeLane:
    """Both lane ports at once: ids and what was written, and a gate to hold searches."""

    def __init__(self) -> None:
        self.held: dict[str, object] = {}
        self.terms: dict[str, DocumentTerms] = {}
        self.queries: list[object] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.closed = False

    async def ensure_ready(self) -> None: ...

    async def upsert(self, items, terms=None) -> None:
        for item in items:
            memory, vector = item if isinstance(item, tuple) else (item, None)
            self.held[memory.id] = (memory.revision, vector)
            if terms is not None and memory.id in terms:
                self.terms[memory.id] = terms[memory.id]

    async def delete(self, workspace_id, memory_ids) -> None:
        for memory_id in memory_ids:
            self.held.pop(memory_id, None)

    async def search(self, query, memory_filter, limit):
        self.queries.append(list(query) if isinstance(query, list) else query)
        await self.gate.wait()
        return [LaneHit(memory_id, 1.0) for memory_id in sorted(self.held)[:limit]]

    async def present(self, workspace_id, memory_ids):
        return set(memory_ids) & set(self.held)

    async def count(self, workspace_id=None) -> int:
        return len(self.held)

    async def close(self) -> None:
        self.closed = True


def generation(number: int, model: str = "old") -> LaneGeneration:
    spec = GenerationSpec(number, model)
    embedder = FakeEmbedder(model, VECTORS[model])
    return LaneGeneration(spec, embedder, FakeLane(), FakeLane())


def memory(memory_id: str, revision: int = 1, body: str = "a body"):
    draft = MemoryDraft(kind="fact", body=body)
    made = create_memory(draft, memory_id=memory_id, principal=Principal("ws", "u"), now=NOW)
    return dataclasses.replace(made, revision=revision)


async def test_a_swap_waits_for_searches_in_flight_on_the_old_generation() -> None:
    old, new = generation(0), generation(1)
    lanes = LaneSet(old)
    vector = SwappableVectorIndex(lanes)
    await vector.upsert([(memory("m1"), [1.0, 0.0])])
    old.vector.gate.clear()
    search = asyncio.create_task(vector.search([1.0, 0.0], None, 5))
    await asyncio.sleep(0)  # the search has entered the old generation and waits there
    lanes.begin_build(new)
    swap = asyncio.create_task(lanes.swap())
    await asyncio.sleep(0)
    assert lanes.current is new and not swap.done()
    assert await vector.search([1.0, 0.0], None, 5) == []  # new calls use the new lanes
    old.vector.gate.set()
    assert [h.memory_id for h in await search] == ["m1"]
    assert await swap is old


async def test_writes_during_a_build_reach_both_generations() -> None:
    old, new = generation(0), generation(1)
    lanes = LaneSet(old)
    vector, lexical = SwappableVectorIndex(lanes), SwappableLexicalIndex(lanes)
    lanes.begin_build(new)
    await vector.upsert([(memory("m1"), [1.0, 0.0])])
    await lexical.upsert([memory("m1")])
    await vector.delete("ws", ["gone"])
    assert set(new.vector.held) == set(old.vector.held) == {"m1"}
    assert set(new.lexical.held) == {"m1"}


async def test_document_terms_reach_both_generations_during_a_build() -> None:
    old, new = generation(0, "old"), generation(1, "new")
    lanes = LaneSet(old)
    lanes.begin_build(new)
    terms = DocumentTerms((5, 9), (1.5, 0.5))
    await SwappableVectorIndex(lanes).upsert([(memory("m1"), [1.0, 0.0])], {"m1": terms})
    assert old.vector.terms == new.vector.terms == {"m1": terms}  # not tied to an encoder


async def test_mirrored_vectors_are_re_embedded_with_the_new_model() -> None:
    lanes = LaneSet(generation(0, "old"))
    new = generation(1, "new")
    lanes.begin_build(new)
    await SwappableVectorIndex(lanes).upsert([(memory("m1", body="four"), [9.0, 9.0])])
    assert new.vector.held["m1"] == (1, VECTORS["new"])
    assert lanes.current.vector.held["m1"] == (1, [9.0, 9.0])


async def test_the_replay_never_overwrites_a_newer_mirrored_write_or_a_delete() -> None:
    lanes = LaneSet(generation(0))
    new = generation(1)
    lanes.begin_build(new)
    vector = SwappableVectorIndex(lanes)
    await vector.upsert([(memory("m1", revision=3), [1.0, 0.0])])
    await vector.delete("ws", ["m2"])
    replayed = [
        (memory("m1", revision=2), [0.0, 0.0]),
        (memory("m2"), [0.0, 0.0]),
        (memory("m3"), [0.0, 0.0]),
    ]
    assert await lanes.write_rebuilt(replayed, new) == 1
    assert new.vector.held == {"m1": (3, [1.0, 0.0]), "m3": (1, [0.0, 0.0])}
    assert set(new.lexical.held) == {"m3"}


async def test_the_embedder_follows_the_current_generation() -> None:
    lanes = LaneSet(generation(0, "old"))
    embedder = SwappableEmbedder(lanes)
    assert embedder.model_name == "old"
    lanes.begin_build(generation(1, "new"))
    assert embedder.model_name == "old"
    await lanes.swap()
    assert embedder.model_name == "new" and (await embedder.embed(["ab"]))[0] == VECTORS["new"]


class RoutedFakeEmbedder(FakeEmbedder):
    """Notes which passes came as background ones, which as a reader's (the rest, as
    FakeEmbedder does, in `texts`)."""

    def __init__(self, model_name: str) -> None:
        super().__init__(model_name, VECTORS[model_name])
        self.routed: dict[str, list[str]] = {"background": [], "reader": []}

    async def embed_in_background(self, texts):
        return self._noted("background", texts)

    async def embed_for_reader(self, texts):
        return self._noted("reader", texts)

    def _noted(self, route: str, texts):
        self.routed[route] += texts
        return [list(self.vector) for _ in texts]


@pytest.mark.parametrize("passes", [Passes.BACKGROUND, Passes.READER])
async def test_a_view_runs_its_passes_its_own_way_and_the_callers_view_as_usual(
    passes: Passes,
) -> None:
    route = passes.value
    fake = RoutedFakeEmbedder("old")
    lanes = LaneSet(LaneGeneration(GenerationSpec(0, "old"), fake, FakeLane(), FakeLane()))
    [vector] = await SwappableEmbedder(lanes, passes).embed(["its own text"])
    await SwappableEmbedder(lanes).embed(["a save's body"])
    assert fake.routed == {"background": [], "reader": []} | {route: ["its own text"]}
    assert fake.texts == ["a save's body"]
    assert (vector, vector.encoder) == (VECTORS["old"], "old")


async def test_a_reader_view_of_an_embedder_without_turns_embeds_as_usual() -> None:
    lanes = LaneSet(generation(0))
    [vector] = await SwappableEmbedder(lanes, Passes.READER).embed(["a recall's query"])
    assert vector.encoder == lanes.current.embedder.model_name


async def test_only_one_build_at_a_time_and_abandoning_clears_it() -> None:
    lanes = LaneSet(generation(0))
    first = generation(1)
    lanes.begin_build(first)
    with pytest.raises(RuntimeError, match="already being built"):
        lanes.begin_build(generation(2))
    assert lanes.abandon_build() is first and lanes.building is None
    with pytest.raises(RuntimeError, match="no lane generation"):
        await lanes.swap()


async def test_a_query_embedded_just_before_a_swap_meets_the_new_lanes_in_their_encoder() -> None:
    lanes = LaneSet(generation(0, "old"))
    new = generation(1, "new")
    query = (await SwappableEmbedder(lanes).embed(["where is the API"]))[0]
    lanes.begin_build(new)
    await lanes.swap()
    await SwappableVectorIndex(lanes).search(query, None, 5)
    assert new.vector.queries == [VECTORS["new"]]


async def test_a_vector_of_another_encoder_without_its_text_is_never_compared() -> None:
    lanes = LaneSet(generation(1, "new"))
    hits = await SwappableVectorIndex(lanes).search(EncodedVector([1.0, 0.0], "old"), None, 5)
    assert hits == [] and lanes.current.vector.queries == []


async def test_vectors_written_after_a_swap_are_embedded_again_when_another_encoder_made_them() -> (
    None
):
    lanes = LaneSet(generation(0, "old"))
    new = generation(1, "new")
    made_before = (await SwappableEmbedder(lanes).embed(["four"]))[0]
    lanes.begin_build(new)
    await lanes.swap()
    await SwappableVectorIndex(lanes).upsert([(memory("m1", body="four"), made_before)])
    assert new.vector.held["m1"] == (1, VECTORS["new"])
