"""The embedded lane in int8: built segments score with an int8 copy of their vectors, and
the best candidates are scored again with the float ones, so every score a search returns is
exact (the near-duplicate check and the link classifier compare it with their floors).

Real qdrant-edge shards and the real build child; a tiny indexing threshold so a few hundred
points make qdrant-edge build at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.runtime.lane_builders import build_vector_index
from memhive_adapters.vector import shard_dirs
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_settings import MemhiveSettings

from tests.fakes import FakeEmbedder
from tests.integration.lanes.memories import a_memory
from tests.integration.lanes.test_edge_hnsw import ANYWHERE, DIMS, exact_top, vectors


def a_lane(path: Path, *, int8: bool) -> EdgeVectorIndex:
    return EdgeVectorIndex(path, DIMS, hnsw_after=300, indexing_threshold_kb=1, int8=int8)


def int8_segments(lane: Path) -> tuple[int, int]:
    """(built segments, of them with an int8 copy) of the lane's active shard; the
    appendable segment, points not built yet, is scored in floats either way."""
    segments = (shard_dirs.active_shard(lane) / "segments").iterdir()
    built = [s for s in segments if (s / "vector_storage" / "matrix.dat").exists()]
    quantized = [s for s in built if (s / "vector_storage" / "quantized.data").exists()]
    return len(built), len(quantized)


async def assert_exact(index: EdgeVectorIndex, stored: dict[str, np.ndarray], seed: int) -> None:
    """Each search finds the exact nearest, with the exact cosine as its score."""
    for query in vectors(20, seed):
        hits = await index.search(query.tolist(), ANYWHERE, 10)
        assert len({h.memory_id for h in hits} & set(exact_top(stored, query, 10))) >= 9
        for hit in hits:
            assert abs(hit.score - float(stored[hit.memory_id] @ query)) < 1e-4, hit


async def built(index: EdgeVectorIndex, points: int, seed: int) -> dict[str, np.ndarray]:
    """`points` more written to the lane, and its build (which they start) finished."""
    memories = [(a_memory(), v) for v in vectors(points, seed)]
    await index.upsert(memories)
    await index.settled()
    assert (await index.hnsw_coverage())[1] > 0
    return {m.id: v for m, v in memories}


async def test_a_built_int8_lane_scores_in_int8_and_returns_exact_scores(tmp_path: Path) -> None:
    lane = tmp_path / "lane"
    index = a_lane(lane, int8=True)
    stored = await built(index, 400, seed=21)
    segments, quantized = int8_segments(lane)
    assert segments > 0 and quantized == segments
    await assert_exact(index, stored, seed=22)
    await index.close()


async def test_a_float_lane_switches_to_int8_at_its_next_build(tmp_path: Path) -> None:
    lane = tmp_path / "lane"
    floats = a_lane(lane, int8=False)
    stored = await built(floats, 400, seed=23)
    assert int8_segments(lane)[1] == 0  # the float lane keeps no int8 copy
    await floats.close()

    index = a_lane(lane, int8=True)
    await assert_exact(index, stored, seed=24)  # served as built until the next build
    stored |= await built(index, 350, seed=25)
    assert await index.count() == 750
    segments, quantized = int8_segments(lane)
    assert segments > 0 and quantized == segments  # the older segments rebuilt too
    await assert_exact(index, stored, seed=26)
    await index.close()


@pytest.mark.parametrize(("setting", "int8"), [(None, True), ("float", False), ("int8", True)])
async def test_the_lane_memhive_builds_follows_its_setting(
    tmp_path: Path, setting: str | None, int8: bool
) -> None:
    """int8 by default (`MEMHIVE_VECTOR__VECTORS`), float vectors alone when set so. (Its
    segments are built past qdrant-edge's own threshold, ~6,600 points of 384 dimensions:
    the shard's configuration is what is read here.)"""
    vector = {"vectors": setting} if setting else {}
    settings = MemhiveSettings(data_dir=tmp_path, vector=vector)
    lane = build_vector_index(settings, FakeEmbedder(vector=[1.0] + [0.0] * (DIMS - 1)))
    memories = [(a_memory(), v) for v in vectors(50, 27)]
    await lane.upsert(memories)
    await assert_exact(lane, {m.id: v for m, v in memories}, seed=28)
    await lane.close()
    config = json.loads(
        (shard_dirs.active_shard(settings.vector_dir) / "edge_config.json").read_text()
    )
    assert ("quantization_config" in config["vectors"][""]) is int8, config
    assert config["vectors"][""].get("on_disk", False) is int8  # floats read back when rescoring
