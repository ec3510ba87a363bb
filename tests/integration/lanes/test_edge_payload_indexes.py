"""The embedded lane's payload indexes: the numeric fields' read through their files, the
keywords' on the heap (payload_indexes.py says why), and a lane an earlier release built
with every index on the heap is served as built until its next build moves them.

Real qdrant-edge shards and the real build child. What each built segment holds is read
from qdrant-edge's own record of it (`payload_index/config.json`: each index's storage, and
whether it is read from disk).
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe
from memhive_adapters.vector import edge_index, optimize_shard, shard_dirs
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_adapters.vector.payload_indexes import KEYWORD_FIELDS, NUMBER_FIELDS
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Visibility
from memhive_domain.time_range import TimeRange

from tests.integration.lanes.memories import NOW, a_memory
from tests.integration.lanes.test_edge_hnsw import DIMS, exact_top, vectors

EARLIER_NUMBER_FIELDS = {
    "public": qe.PayloadSchemaType.Integer,
    "expires_at": qe.PayloadSchemaType.Float,
    "created_at": qe.PayloadSchemaType.Float,
    "occurred_at": qe.PayloadSchemaType.Float,
}


def a_lane(path: Path) -> EdgeVectorIndex:
    return EdgeVectorIndex(path, DIMS, hnsw_after=300, indexing_threshold_kb=1)


def visibility(i: int) -> Visibility:
    return Visibility.PUBLIC if i % 3 == 0 else Visibility.PRIVATE


def dated(count: int, seed: int) -> list[tuple[Memory, np.ndarray]]:
    """Memories saved one hour apart, every third of them public."""
    return [
        (a_memory(created_at=NOW - timedelta(hours=i), visibility=visibility(i)), v)
        for i, v in enumerate(vectors(count, seed))
    ]


def built_indexes(lane: Path) -> dict[str, bool]:
    """Each indexed field of the active shard's built segments: read from disk (True) or
    held on the heap (False), as qdrant-edge recorded it. Every built segment must agree."""
    held: dict[str, set[bool]] = {}
    for segment in (shard_dirs.active_shard(lane) / "segments").iterdir():
        config = json.loads((segment / "payload_index" / "config.json").read_text())
        for field, indexes in config["indexed_types"].items():
            for index in indexes:
                if index["mutability"] == "immutable" and index["index_type"] != "null_index":
                    held.setdefault(field, set()).add(index["storage_type"]["mmap"]["is_on_disk"])
    assert all(len(places) == 1 for places in held.values()), held
    return {field: places.pop() for field, places in held.items()}


async def assert_filtered_exact(
    index: EdgeVectorIndex, memories: list[tuple[Memory, np.ndarray]], seed: int
) -> None:
    """A date range and public-only pick exactly the memories they name, nearest first."""
    since = NOW - timedelta(hours=200)
    wanted = MemoryFilter(workspace_id="ws-1", public_only=True, created=TimeRange(after=since))
    inside = {
        m.id: v for m, v in memories if m.visibility is Visibility.PUBLIC and m.created_at >= since
    }
    assert len(inside) >= 30
    for query in vectors(10, seed):
        hits = await index.search(query.tolist(), wanted, 10)
        assert {h.memory_id for h in hits} <= set(inside)
        assert len({h.memory_id for h in hits} & set(exact_top(inside, query, 10))) >= 9


async def test_a_built_lanes_numeric_indexes_are_read_from_disk_and_its_keywords_held(
    tmp_path: Path,
) -> None:
    lane = tmp_path / "lane"
    index = a_lane(lane)
    memories = dated(400, seed=41)
    await index.upsert(memories)
    await index.settled()
    assert (await index.hnsw_coverage())[1] > 0
    await assert_filtered_exact(index, memories, seed=42)
    assert built_indexes(lane) == {f: f in NUMBER_FIELDS for f in [*KEYWORD_FIELDS, *NUMBER_FIELDS]}
    await index.close()


def earlier_indexes(shard: qe.EdgeShard) -> None:
    """The payload indexes as releases before this one made them: every one on the heap."""
    for field in KEYWORD_FIELDS:
        shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
    for field, schema in EARLIER_NUMBER_FIELDS.items():
        shard.update(qe.UpdateOperation.create_field_index(field, schema))


async def test_an_earlier_releases_lane_has_its_numeric_indexes_moved_by_its_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Served as built until then: making them again in the serving process would hold the
    GIL over every segment. The build child makes them again on its copy."""
    lane = tmp_path / "lane"
    memories = dated(400, seed=43)
    with monkeypatch.context() as earlier_release:
        earlier_release.setattr(edge_index, "ensure_payload_indexes", earlier_indexes)
        earlier = EdgeVectorIndex(lane, DIMS)  # no builds: built here, as then
        await earlier.upsert(memories)
        await earlier.close()
        earlier_release.setattr(optimize_shard, "ensure_payload_indexes", earlier_indexes)
        optimize_shard.optimize(str(shard_dirs.active_shard(lane)), DIMS, True, 1)
    every_field = [*KEYWORD_FIELDS, *NUMBER_FIELDS]
    assert built_indexes(lane) == dict.fromkeys(every_field, False)

    caplog.set_level(logging.INFO, logger="memhive_adapters.vector.edge_index")
    index = a_lane(lane)
    await assert_filtered_exact(index, memories, seed=44)
    assert built_indexes(lane) == dict.fromkeys(every_field, False)  # served as built
    more = dated(350, seed=45)
    await index.upsert(more)
    await index.settled()
    made_again = "public, expires_at, created_at, occurred_at made again through their files"
    assert made_again in caplog.text  # the build child's line, in the serving process's log
    await assert_filtered_exact(index, memories + more, seed=46)
    assert built_indexes(lane) == {f: f in NUMBER_FIELDS for f in every_field}  # older ones too
    await index.close()
