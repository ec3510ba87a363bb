"""VectorIndex on a Qdrant server (distributed mode) through qdrant-client's async client."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Mapping, Sequence

from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports import DocumentTerms
from memhive_ports.lanes import LaneHit
from qdrant_client import AsyncQdrantClient, models

from memhive_adapters.lane_conditions import (
    After,
    AnyGroup,
    AnyOf,
    Between,
    Condition,
    Equals,
    Excludes,
    conditions_of,
)
from memhive_adapters.vector.term_payload import TERMS_FIELD, payload_of, terms_in

_PAYLOAD_INDEXES = {
    "workspace_id": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
    "scope": models.PayloadSchemaType.KEYWORD,
    "product_id": models.PayloadSchemaType.KEYWORD,
    "kind": models.PayloadSchemaType.KEYWORD,
    "tags": models.PayloadSchemaType.KEYWORD,
    "public": models.PayloadSchemaType.INTEGER,
    "expires_at": models.PayloadSchemaType.FLOAT,
    "created_at": models.PayloadSchemaType.FLOAT,
    "occurred_at": models.PayloadSchemaType.FLOAT,
}


class QdrantVectorIndex:
    """Cosine nearest neighbours in one Qdrant collection.

    Safe to share between tasks; writes wait for the server to apply them (wait=True) and
    are serialised by an asyncio.Lock. close() closes the client it was given.
    """

    def __init__(self, client: AsyncQdrantClient, collection: str, dimensions: int) -> None:
        self._client = client
        self._collection = collection
        self._dimensions = dimensions
        self._write_lock = asyncio.Lock()

    @classmethod
    def from_url(
        cls, url: str, api_key: str | None, collection: str, dimensions: int
    ) -> QdrantVectorIndex:
        return cls(AsyncQdrantClient(url=url, api_key=api_key), collection, dimensions)

    async def ensure_ready(self) -> None:
        async with self._write_lock:
            if not await self._client.collection_exists(self._collection):
                await self._create_collection()

    async def upsert(
        self,
        items: Sequence[tuple[Memory, Sequence[float]]],
        terms: Mapping[str, DocumentTerms] | None = None,
    ) -> None:
        # A point is written whole (payload included): no terms of an earlier write stay.
        points = [_point(m, v, terms) for m, v in items if not m.forgotten]
        forgotten: list[models.ExtendedPointId] = [m.id for m, _ in items if m.forgotten]
        async with self._write_lock:
            if points:
                await self._client.upsert(self._collection, points, wait=True)
            if forgotten:
                await self._client.delete(
                    self._collection, models.PointIdsList(points=forgotten), wait=True
                )

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        doomed = models.FilterSelector(filter=_ids_in_workspace(workspace_id, memory_ids))
        async with self._write_lock:
            await self._client.delete(self._collection, doomed, wait=True)

    async def search(
        self, vector: Sequence[float], memory_filter: MemoryFilter, limit: int
    ) -> list[LaneHit]:
        response = await self._client.query_points(
            self._collection,
            query=[float(x) for x in vector],
            query_filter=qdrant_filter(conditions_of(memory_filter)),
            limit=limit,
            with_payload=False,
        )
        return [LaneHit(str(p.id), p.score) for p in response.points]

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        records, _ = await self._client.scroll(
            self._collection,
            scroll_filter=_ids_in_workspace(workspace_id, memory_ids),
            limit=len(memory_ids),
            with_payload=False,
        )
        return {str(r.id) for r in records}

    async def vectors(self, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        if not memory_ids:
            return {}
        records = await self._client.retrieve(
            self._collection, ids=list(memory_ids), with_payload=False, with_vectors=True
        )
        return {str(r.id): list(r.vector) for r in records if isinstance(r.vector, list)}

    async def document_terms(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, DocumentTerms]:
        if not memory_ids:
            return {}
        records, _ = await self._client.scroll(
            self._collection,
            scroll_filter=_ids_in_workspace(workspace_id, memory_ids),
            limit=len(memory_ids),
            with_payload=[TERMS_FIELD],
            with_vectors=False,
        )
        return terms_in((str(r.id), r.payload) for r in records)

    async def count(self, workspace_id: str | None = None) -> int:
        where = None
        if workspace_id is not None:
            where = qdrant_filter([Equals("workspace_id", workspace_id)])
        result = await self._client.count(self._collection, count_filter=where, exact=True)
        return result.count

    async def close(self) -> None:
        await self._client.close()

    async def drop(self) -> None:
        async with self._write_lock:
            if await self._client.collection_exists(self._collection):
                await self._client.delete_collection(self._collection)
        await self.close()

    async def _create_collection(self) -> None:
        vectors = models.VectorParams(size=self._dimensions, distance=models.Distance.COSINE)
        await self._client.create_collection(self._collection, vectors_config=vectors)
        with warnings.catch_warnings():
            # qdrant-client's local mode (used by tests) warns that it has no payload
            # indexes; a server builds them, and that is where they matter.
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            for field, schema in _PAYLOAD_INDEXES.items():
                await self._client.create_payload_index(self._collection, field, schema)


def qdrant_filter(conditions: Sequence[Condition]) -> models.Filter:
    return models.Filter(must=[_qdrant_condition(c) for c in conditions])


def _qdrant_condition(condition: Condition) -> models.FieldCondition | models.Filter:
    match condition:
        case Equals(field, value):
            return models.FieldCondition(key=field, match=models.MatchValue(value=value))
        case AnyOf(field, values):
            return models.FieldCondition(key=field, match=models.MatchAny(any=list(values)))
        case After(field, moment):
            return models.FieldCondition(key=field, range=models.Range(gt=moment))
        case Between(field, lowest, highest):
            return models.FieldCondition(key=field, range=models.Range(gte=lowest, lt=highest))
        case Excludes(field, values):
            excluded = models.FieldCondition(key=field, match=models.MatchAny(any=list(values)))
            return models.Filter(must_not=[excluded])
        case AnyGroup(groups):
            return models.Filter(should=[qdrant_filter(group) for group in groups])
    raise TypeError(f"unknown condition {condition!r}")


def _ids_in_workspace(workspace_id: str, memory_ids: Sequence[str]) -> models.Filter:
    return models.Filter(
        must=[
            models.HasIdCondition(has_id=list(memory_ids)),
            _qdrant_condition(Equals("workspace_id", workspace_id)),
        ]
    )


def _point(
    memory: Memory, vector: Sequence[float], terms: Mapping[str, DocumentTerms] | None
) -> models.PointStruct:
    return models.PointStruct(
        id=memory.id, vector=[float(x) for x in vector], payload=payload_of(memory, terms)
    )
