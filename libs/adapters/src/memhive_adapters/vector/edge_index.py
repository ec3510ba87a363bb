"""VectorIndex on the Qdrant engine embedded in this process (qdrant-edge)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path

import qdrant_edge as qe
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports.lanes import LaneHit

from memhive_adapters.lane_conditions import (
    After,
    AnyGroup,
    AnyOf,
    Between,
    Condition,
    Equals,
    Excludes,
    conditions_of,
    stored_fields,
)

_KEYWORD_FIELDS = ("workspace_id", "scope", "product_id", "kind", "tags")
_NUMBER_FIELDS = {
    "public": qe.PayloadSchemaType.Integer,
    "expires_at": qe.PayloadSchemaType.Float,
    "created_at": qe.PayloadSchemaType.Float,
    "occurred_at": qe.PayloadSchemaType.Float,
}


class EdgeVectorIndex:
    """Cosine nearest neighbours in a qdrant-edge shard stored at `path`.

    One owning process per path. Reads run in worker threads and may overlap; writes are
    serialised by an asyncio.Lock. The search is exact until an HNSW index is built
    (not done here: at 100k points it blocks for minutes). close() flushes and releases
    the shard; a later call on the same object opens it again.
    """

    def __init__(self, path: Path, dimensions: int) -> None:
        self._path = Path(path)
        self._dimensions = dimensions
        self._shard: qe.EdgeShard | None = None
        self._write_lock = asyncio.Lock()

    async def ensure_ready(self) -> None:
        async with self._write_lock:
            if self._shard is None:
                self._shard = await asyncio.to_thread(self._open)

    async def upsert(self, items: Sequence[tuple[Memory, Sequence[float]]]) -> None:
        points = [_point(m, v) for m, v in items if not m.forgotten]
        forgotten = [m.id for m, _ in items if m.forgotten]
        shard = await self._ready()
        async with self._write_lock:
            if points:
                await asyncio.to_thread(shard.update, qe.UpdateOperation.upsert_points(points))
            if forgotten:
                await asyncio.to_thread(shard.update, qe.UpdateOperation.delete_points(forgotten))

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        doomed = qe.Filter(must=[_ids(memory_ids), _workspace(workspace_id)])
        operation = qe.UpdateOperation.delete_points_by_filter(doomed)
        shard = await self._ready()
        async with self._write_lock:
            await asyncio.to_thread(shard.update, operation)

    async def search(
        self, vector: Sequence[float], memory_filter: MemoryFilter, limit: int
    ) -> list[LaneHit]:
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(vector)),
            filter=edge_filter(conditions_of(memory_filter)),
            with_payload=False,
            with_vector=False,
        )
        shard = await self._ready()
        found = await asyncio.to_thread(shard.query, request)
        return [LaneHit(str(p.id), p.score) for p in found]

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        wanted = qe.Filter(must=[_ids(memory_ids), _workspace(workspace_id)])
        request = qe.ScrollRequest(limit=len(memory_ids), filter=wanted, with_payload=False)
        shard = await self._ready()
        records, _ = await asyncio.to_thread(shard.scroll, request)
        return {str(r.id) for r in records}

    async def vectors(self, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        if not memory_ids:
            return {}
        shard = await self._ready()
        records = await asyncio.to_thread(shard.retrieve, list(memory_ids), False, True)
        return {str(r.id): list(r.vector) for r in records if r.vector is not None}

    async def count(self, workspace_id: str | None = None) -> int:
        where = None if workspace_id is None else qe.Filter(must=[_workspace(workspace_id)])
        shard = await self._ready()
        return await asyncio.to_thread(shard.count, qe.CountRequest(exact=True, filter=where))

    async def close(self) -> None:
        async with self._write_lock:
            shard, self._shard = self._shard, None
            if shard is not None:
                await asyncio.to_thread(_flush_and_close, shard)

    async def drop(self) -> None:
        await self.close()
        await asyncio.to_thread(shutil.rmtree, self._path, True)

    async def _ready(self) -> qe.EdgeShard:
        if self._shard is None:
            await self.ensure_ready()
        assert self._shard is not None
        return self._shard

    def _open(self) -> qe.EdgeShard:
        config = qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=self._dimensions, distance=qe.Distance.Cosine)
        )
        if any(self._path.glob("*")):
            return qe.EdgeShard.load(str(self._path), config)
        shard = qe.EdgeShard.create(str(self._path), config)
        for field in _KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
        for field, schema in _NUMBER_FIELDS.items():
            shard.update(qe.UpdateOperation.create_field_index(field, schema))
        return shard


def edge_filter(conditions: Sequence[Condition]) -> qe.Filter:
    return qe.Filter(must=[_edge_condition(c) for c in conditions])


def _edge_condition(condition: Condition) -> qe.FieldCondition | qe.Filter:
    match condition:
        case Equals(field, value):
            return qe.FieldCondition(field, match=qe.MatchValue(value))
        case AnyOf(field, values):
            return qe.FieldCondition(field, match=qe.MatchAny(list(values)))
        case After(field, moment):
            return qe.FieldCondition(field, range=qe.RangeFloat(gt=moment))
        case Between(field, lowest, highest):
            return qe.FieldCondition(field, range=qe.RangeFloat(gte=lowest, lt=highest))
        case Excludes(field, values):
            return qe.Filter(must_not=[qe.FieldCondition(field, match=qe.MatchAny(list(values)))])
        case AnyGroup(groups):
            return qe.Filter(should=[edge_filter(group) for group in groups])
    raise TypeError(f"unknown condition {condition!r}")


def _point(memory: Memory, vector: Sequence[float]) -> qe.Point:
    return qe.Point(memory.id, [float(x) for x in vector], stored_fields(memory))


def _ids(memory_ids: Sequence[str]) -> qe.HasIdCondition:
    return qe.HasIdCondition(set(memory_ids))


def _workspace(workspace_id: str) -> qe.FieldCondition:
    return qe.FieldCondition("workspace_id", match=qe.MatchValue(workspace_id))


def _flush_and_close(shard: qe.EdgeShard) -> None:
    shard.flush()
    shard.close()
