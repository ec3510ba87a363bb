"""The embedded lexical lane leaves out of a query the terms nearly every memory holds:
they weigh next to nothing in BM25 but cost a walk over the whole index."""

from __future__ import annotations

from pathlib import Path

from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_domain.recall import MemoryFilter

from tests.integration.lanes.memories import a_memory

ANYWHERE = MemoryFilter(workspace_id="ws-1")


async def test_a_term_in_every_memory_matches_only_when_it_is_all_the_query_has(
    tmp_path: Path,
) -> None:
    index = TantivyLexicalIndex(tmp_path / "lexical")
    rotas = [a_memory(f"the platform team owns rota {n}") for n in range(3)]
    others = [a_memory(f"the platform team ships release {n}") for n in range(200)]
    await index.upsert(rotas + others)
    await index.persisted()  # committed: the index's own statistics count them

    with_rota = await index.search("platform rota", ANYWHERE, 50)
    alone = await index.search("platform", ANYWHERE, 50)

    assert {h.memory_id for h in with_rota} == {m.id for m in rotas}
    assert len(alone) == 50
    await index.close()


async def test_in_a_store_of_a_few_memories_every_term_still_counts(tmp_path: Path) -> None:
    index = TantivyLexicalIndex(tmp_path / "lexical")
    only = a_memory("the platform team owns rota 1")
    await index.upsert([only])  # "platform" is in every memory, but its idf is 0.29 here
    await index.persisted()

    hits = await index.search("platform banana", ANYWHERE, 5)

    assert [h.memory_id for h in hits] == [only.id]
    await index.close()
