"""VectorIndex, LexicalIndex and Embedder views that always act on a LaneSet's current
generation (and mirror writes into the one being built). The embedder's vectors name their
encoder, so the vector views keep each to lanes of that encoder (encoder_match.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from enum import Enum

from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports import BackgroundEmbedder, DocumentTerms, EncodedVector, ReaderEmbedder
from memhive_ports.lanes import LaneHit

from memhive_adapters.runtime.encoder_match import items_in_encoder, query_in_encoder
from memhive_adapters.runtime.lane_set import LaneSet


class SwappableVectorIndex:
    def __init__(self, lanes: LaneSet) -> None:
        self._lanes = lanes

    async def ensure_ready(self) -> None:
        await self._lanes.current.vector.ensure_ready()

    async def upsert(
        self,
        items: Sequence[tuple[Memory, Sequence[float]]],
        terms: Mapping[str, DocumentTerms] | None = None,
    ) -> None:
        async with self._lanes.using() as (current, building):
            encoder = current.embedder.model_name
            matched = await items_in_encoder(current.embedder, items, encoder)
            await current.vector.upsert(matched, terms)
            if building is not None:
                await self._lanes.mirror_vectors(building, items, encoder, terms)

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        async with self._lanes.using() as (current, building):
            await current.vector.delete(workspace_id, memory_ids)
            if building is not None:
                await self._lanes.mirror_delete(building, "vector", workspace_id, memory_ids)

    async def search(
        self, vector: Sequence[float], memory_filter: MemoryFilter, limit: int
    ) -> list[LaneHit]:
        async with self._lanes.using() as (current, _):
            embedder = current.embedder
            matched = await query_in_encoder(embedder, vector, embedder.model_name)
            if matched is None:  # never compared with another encoder's vectors
                return []
            return await current.vector.search(matched, memory_filter, limit)

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        async with self._lanes.using() as (current, _):
            return await current.vector.present(workspace_id, memory_ids)

    async def vectors(self, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        async with self._lanes.using() as (current, _):
            return await current.vector.vectors(memory_ids)

    async def document_terms(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, DocumentTerms]:
        async with self._lanes.using() as (current, _):
            return await current.vector.document_terms(workspace_id, memory_ids)

    async def count(self, workspace_id: str | None = None) -> int:
        async with self._lanes.using() as (current, _):
            return await current.vector.count(workspace_id)

    async def close(self) -> None:
        """The LaneSet owns the generations and closes them."""


class SwappableLexicalIndex:
    def __init__(self, lanes: LaneSet) -> None:
        self._lanes = lanes

    async def ensure_ready(self) -> None:
        await self._lanes.current.lexical.ensure_ready()

    async def upsert(self, memories: Sequence[Memory]) -> None:
        async with self._lanes.using() as (current, building):
            await current.lexical.upsert(memories)
            if building is not None:
                await self._lanes.mirror_lexical(building, memories)

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        async with self._lanes.using() as (current, building):
            await current.lexical.delete(workspace_id, memory_ids)
            if building is not None:
                await self._lanes.mirror_delete(building, "lexical", workspace_id, memory_ids)

    def persisted(self) -> Awaitable[None]:
        """The current generation's writes and those mirrored into the one being built
        (a generation swapped out meanwhile commits what it holds when it closes)."""
        current, building = self._lanes.current, self._lanes.building
        waits = [current.lexical.persisted()]
        if building is not None:
            waits.append(building.lexical.persisted())
        return asyncio.gather(*waits)

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        async with self._lanes.using() as (current, _):
            return await current.lexical.search(text, memory_filter, limit)

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        async with self._lanes.using() as (current, _):
            return await current.lexical.list_ids(memory_filter, after, limit)

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        async with self._lanes.using() as (current, _):
            return await current.lexical.present(workspace_id, memory_ids)

    async def count(self, workspace_id: str | None = None) -> int:
        async with self._lanes.using() as (current, _):
            return await current.lexical.count(workspace_id)

    async def count_matching(self, memory_filter: MemoryFilter) -> int:
        async with self._lanes.using() as (current, _):
            return await current.lexical.count_matching(memory_filter)

    async def close(self) -> None:
        """The LaneSet owns the generations and closes them."""


class Passes(Enum):
    """Whose passes a view of the embedder runs: a writer's (a save, an update, an import);
    a reader's (a recall's), before writers' where the embedder can (ReaderEmbedder); or
    nobody's wait (embed's indexing), apart from callers' where it can (BackgroundEmbedder)."""

    WRITER = "writer"
    READER = "reader"
    BACKGROUND = "background"


class SwappableEmbedder:
    """The current generation's embedder: queries are embedded like the vectors they meet,
    as `passes` says whose they are."""

    def __init__(self, lanes: LaneSet, passes: Passes = Passes.WRITER) -> None:
        self._lanes, self._passes = lanes, passes

    @property
    def model_name(self) -> str:
        return self._lanes.current.embedder.model_name

    @property
    def dimensions(self) -> int:
        return self._lanes.current.embedder.dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors that name their encoder and text (EncodedVector), so a swap between this
        call and their use never lets them meet another encoder's."""
        embedder = self._lanes.current.embedder
        if self._passes is Passes.BACKGROUND and isinstance(embedder, BackgroundEmbedder):
            vectors = await embedder.embed_in_background(texts)
        elif self._passes is Passes.READER and isinstance(embedder, ReaderEmbedder):
            vectors = await embedder.embed_for_reader(texts)
        else:
            vectors = await embedder.embed(texts)
        return [
            EncodedVector(v, embedder.model_name, t) for v, t in zip(vectors, texts, strict=True)
        ]
