"""The VectorIndex contract, run against every backend (see conftest.py)."""

from __future__ import annotations

import uuid
from dataclasses import replace

import numpy as np
import pytest
from memhive.v1 import memory_pb2 as pb
from memhive_domain.recall import MemoryFilter
from memhive_ports import DocumentTerms, EncodedVector

from tests.integration.lanes.conftest import Backend
from tests.integration.lanes.filter_cases import (
    FILTER_CASES,
    FilterCase,
    population,
    vector_for,
)
from tests.integration.lanes.memories import a_memory, axis, blend

ANYWHERE = MemoryFilter(workspace_id="ws-1")


async def test_search_ranks_by_cosine_best_first(vector_index) -> None:
    near, middle, far = a_memory(), a_memory(), a_memory()
    await vector_index.upsert([(far, axis(1)), (near, axis(0)), (middle, blend({0: 0.8, 1: 0.6}))])

    hits = await vector_index.search(axis(0), ANYWHERE, 10)

    assert [h.memory_id for h in hits] == [near.id, middle.id, far.id]
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert hits[1].score == pytest.approx(0.8, abs=1e-4)
    assert hits[2].score == pytest.approx(0.0, abs=1e-4)


async def test_a_vector_is_read_from_whatever_sequence_carries_it(vector_index) -> None:
    """Vectors come as lists of floats, an event's repeated field, an encoder's float32 row
    or an EncodedVector: each is stored as the same vector."""
    carriers = {
        "list": axis(0),
        "event": pb.Embedding(model="m", values=axis(0)).values,
        "float32 row": np.asarray(axis(0), dtype=np.float32),
        "encoded": EncodedVector(axis(0), "m", "a body"),
        "tuple": tuple(axis(0)),
    }
    memories = {name: a_memory() for name in carriers}
    await vector_index.upsert([(memories[name], v) for name, v in carriers.items()])

    hits = await vector_index.search(axis(0), ANYWHERE, 10)

    assert {h.memory_id for h in hits} == {m.id for m in memories.values()}
    assert all(h.score == pytest.approx(1.0, abs=1e-4) for h in hits)


async def test_search_returns_at_most_limit(vector_index) -> None:
    await vector_index.upsert([(a_memory(), vector_for(i)) for i in range(5)])

    assert len(await vector_index.search(axis(0), ANYWHERE, 3)) == 3


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
async def test_search_applies_the_whole_filter(vector_index, case: FilterCase) -> None:
    memories = population()
    await vector_index.upsert([(m, vector_for(i)) for i, m in enumerate(memories.values())])
    names = {m.id: name for name, m in memories.items()}

    hits = await vector_index.search(axis(0), case.memory_filter, 50)

    assert {names[h.memory_id] for h in hits} == case.expected


async def test_a_small_scope_fills_its_top_k_among_many_closer_outsiders(vector_index) -> None:
    outsiders = [(a_memory(product_id="big"), blend({0: 1.0, 1: 0.01 * i})) for i in range(300)]
    insiders = [(a_memory(product_id="small"), blend({0: 0.2, 2: 1.0})) for _ in range(4)]
    await vector_index.upsert(outsiders + insiders)

    scoped = MemoryFilter(workspace_id="ws-1", product_id="small")
    hits = await vector_index.search(axis(0), scoped, 3)

    assert len(hits) == 3
    assert {h.memory_id for h in hits} <= {m.id for m, _ in insiders}


async def test_upsert_twice_replaces_the_vector(vector_index) -> None:
    memory, other = a_memory(), a_memory()
    await vector_index.upsert([(memory, axis(1)), (other, blend({0: 0.5, 1: 0.5}))])
    await vector_index.upsert([(replace(memory, body="changed", revision=2), axis(0))])

    hits = await vector_index.search(axis(0), ANYWHERE, 10)

    assert hits[0].memory_id == memory.id
    assert await vector_index.count() == 2


async def test_upserting_a_forgotten_memory_removes_it(vector_index) -> None:
    memory = a_memory()
    await vector_index.upsert([(memory, axis(0))])
    await vector_index.upsert([(replace(memory, forgotten=True), axis(0))])

    assert await vector_index.search(axis(0), ANYWHERE, 10) == []
    assert await vector_index.present("ws-1", [memory.id]) == set()


async def test_delete_removes_only_that_workspace_and_ignores_unknown_ids(vector_index) -> None:
    kept, doomed, foreign = a_memory(), a_memory(), a_memory(workspace_id="ws-2")
    await vector_index.upsert([(kept, axis(0)), (doomed, axis(0)), (foreign, axis(0))])

    await vector_index.delete("ws-1", [doomed.id, foreign.id, str(uuid.uuid4())])

    assert {h.memory_id for h in await vector_index.search(axis(0), ANYWHERE, 10)} == {kept.id}
    assert await vector_index.present("ws-2", [foreign.id]) == {foreign.id}
    await vector_index.delete("ws-1", [])


async def test_present_answers_for_one_workspace(vector_index) -> None:
    mine, theirs = a_memory(), a_memory(workspace_id="ws-2")
    await vector_index.upsert([(mine, axis(0)), (theirs, axis(1))])
    unknown = str(uuid.uuid4())

    assert await vector_index.present("ws-1", [mine.id, theirs.id, unknown]) == {mine.id}
    assert await vector_index.present("ws-1", []) == set()


async def test_vectors_come_back_as_stored_for_the_ids_held(vector_index) -> None:
    first, second = a_memory(), a_memory(workspace_id="ws-2")
    await vector_index.upsert([(first, blend({0: 3.0, 1: 4.0})), (second, axis(2))])

    found = await vector_index.vectors([first.id, second.id, str(uuid.uuid4())])

    assert set(found) == {first.id, second.id}
    # Cosine engines keep unit vectors: (3, 4) is stored as (0.6, 0.8).
    assert found[first.id] == pytest.approx(blend({0: 0.6, 1: 0.8}), abs=1e-6)
    assert found[second.id] == pytest.approx(axis(2), abs=1e-6)
    assert await vector_index.vectors([]) == {}


TERMS = DocumentTerms((2023, 7, 30521), (2.5, 1.25, 0.1))


async def test_document_terms_come_back_for_the_memories_written_with_them(vector_index) -> None:
    with_terms, without, foreign = a_memory(), a_memory(), a_memory(workspace_id="ws-2")
    await vector_index.upsert(
        [(with_terms, axis(0)), (without, axis(1)), (foreign, axis(2))],
        {with_terms.id: TERMS, foreign.id: TERMS},
    )

    found = await vector_index.document_terms(
        "ws-1", [with_terms.id, without.id, foreign.id, str(uuid.uuid4())]
    )

    assert set(found) == {with_terms.id}  # the other workspace's terms are not read
    assert found[with_terms.id].word_ids == TERMS.word_ids
    assert found[with_terms.id].weights == pytest.approx(TERMS.weights, abs=2.5 / 510)
    assert set(await vector_index.document_terms("ws-2", [foreign.id])) == {foreign.id}
    assert await vector_index.document_terms("ws-1", []) == {}


async def test_a_memory_written_again_without_terms_keeps_none(vector_index) -> None:
    memory = a_memory()
    await vector_index.upsert([(memory, axis(0))], {memory.id: TERMS})
    await vector_index.upsert([(replace(memory, body="another body", revision=2), axis(0))])

    assert await vector_index.document_terms("ws-1", [memory.id]) == {}
    assert await vector_index.present("ws-1", [memory.id]) == {memory.id}


async def test_a_memory_written_again_with_other_terms_keeps_the_new_ones(vector_index) -> None:
    memory, other = a_memory(), DocumentTerms((11,), (0.5,))
    await vector_index.upsert([(memory, axis(0))], {memory.id: TERMS})
    await vector_index.upsert([(memory, axis(0))], {memory.id: other})

    found = await vector_index.document_terms("ws-1", [memory.id])
    assert found[memory.id].word_ids == (11,)


async def test_count_all_or_one_workspace(vector_index) -> None:
    await vector_index.upsert(
        [(a_memory(), axis(0)), (a_memory(), axis(1)), (a_memory(workspace_id="ws-2"), axis(2))]
    )

    assert await vector_index.count() == 3
    assert await vector_index.count("ws-1") == 2
    assert await vector_index.count("ws-3") == 0


async def test_data_survives_close_and_reopen(vector_backend: Backend) -> None:
    if not vector_backend.persistent:
        pytest.skip(f"{vector_backend.name} keeps nothing after close")
    first = await vector_backend.open()
    memory = a_memory()
    await first.upsert([(memory, axis(3))])
    await first.close()

    second = await vector_backend.open()

    assert [h.memory_id for h in await second.search(axis(3), ANYWHERE, 5)] == [memory.id]
    assert await second.count("ws-1") == 1


async def test_drop_deletes_the_collection(
    vector_backend: Backend,
) -> None:
    first = await vector_backend.open()
    await first.upsert([(a_memory(), axis(0))])

    await first.drop()
    again = await vector_backend.open()  # the same name: a new, empty collection

    assert await again.count() == 0
    assert await again.search(axis(0), ANYWHERE, 5) == []
