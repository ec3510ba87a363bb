"""The embedded lane in int8: built segments score with an int8 copy of their vectors, and
the best candidates are scored again with the float ones, so every score a search returns is
exact (the near-duplicate check and the link classifier compare it with their floors).

Real qdrant-edge shards and the real build child; a tiny indexing threshold so a few hundred
points make qdrant-edge build at all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe
from memhive_adapters.runtime.lane_builders import build_vector_index
from memhive_adapters.vector import optimize_shard, shard_config, shard_dirs
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


def int8_copies_mapped(lane: Path) -> tuple[set[Path], set[Path]]:
    """(the int8 copies of the active shard's built segments, those this process reads
    through a mapping of their file, as /proc/self/smaps lists them). A copy loaded onto
    the heap is read from its file once and never mapped."""
    segments = (shard_dirs.active_shard(lane) / "segments").iterdir()
    copies = {s / "vector_storage" / "quantized.data" for s in segments}
    copies = {c.resolve() for c in copies if c.exists()}
    mapped = set()
    for line in Path("/proc/self/smaps").read_text().splitlines():
        path = line.split(maxsplit=5)[5:]  # "start-end perms offset dev inode [path]"
        if path and path[0].endswith("quantized.data"):
            mapped.add(Path(path[0]))
    return copies, copies & mapped


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


async def test_the_int8_copy_is_read_through_its_file_not_held_on_the_heap(
    tmp_path: Path,
) -> None:
    """The kernel keeps a mapped copy's pages in its cache and can take them back; a heap
    copy (qdrant-edge's default) counts against the process whatever the pressure."""
    lane = tmp_path / "lane"
    index = a_lane(lane, int8=True)
    stored = await built(index, 400, seed=31)
    await assert_exact(index, stored, seed=32)
    copies, mapped = int8_copies_mapped(lane)
    assert copies and mapped == copies
    await index.close()


def cached_bytes(path: Path) -> tuple[int, int]:
    """(bytes of the file in the kernel's page cache, its size), as util-linux's fincore
    reads them with mincore(2)."""
    out = subprocess.run(
        ["fincore", "--bytes", "--noheadings", "--output", "RES,SIZE", str(path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.skipif(shutil.which("fincore") is None, reason="needs util-linux's fincore")
async def test_a_lane_opening_reads_its_mapped_files_into_the_kernels_cache(
    tmp_path: Path,
) -> None:
    """Mapped, not loaded: without a read, the first searches after a restart would fault
    the int8 copies and the numeric payload indexes in from disk page by page."""
    lane = tmp_path / "lane"
    index = a_lane(lane, int8=True)
    stored = await built(index, 400, seed=37)
    await index.close()
    copies, _ = int8_copies_mapped(lane)
    numeric = set(shard_dirs.active_shard(lane).glob("segments/*/payload_index/*-numeric/data.bin"))
    mapped_files = copies | numeric
    assert copies and numeric
    os.sync()  # written back, so the kernel may drop the pages as asked
    for mapped in mapped_files:
        descriptor = os.open(mapped, os.O_RDONLY)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(descriptor)
    if any(cached_bytes(m)[0] for m in mapped_files):  # a tmpfs keeps them: its pages are the file
        pytest.skip(f"{tmp_path} cannot drop a file's pages from memory (tmpfs?)")

    index = a_lane(lane, int8=True)
    await index.ensure_ready()
    assert all(cached_bytes(m)[0] >= cached_bytes(m)[1] for m in mapped_files)  # whole pages
    await assert_exact(index, stored, seed=38)
    await index.close()


async def test_a_lane_with_its_int8_copy_on_the_heap_maps_it_from_its_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lane built by an earlier release (the copy on the heap) is served as it is, and
    its next build re-indexes its older segments with the copy in their files."""
    lane = tmp_path / "lane"
    on_heap = qe.ScalarQuantizationConfig(qe.ScalarType.Int8, quantile=0.99, always_ram=True)
    with monkeypatch.context() as earlier_release:
        earlier_release.setattr(shard_config, "INT8", on_heap)
        earlier = EdgeVectorIndex(lane, DIMS, int8=True)  # no builds: built here, as then
        memories = [(a_memory(), v) for v in vectors(400, 33)]
        await earlier.upsert(memories)
        await earlier.close()
        optimize_shard.optimize(str(shard_dirs.active_shard(lane)), DIMS, True, 1)
    stored = {m.id: v for m, v in memories}

    index = a_lane(lane, int8=True)
    await assert_exact(index, stored, seed=34)  # served as built until the next build
    copies, mapped = int8_copies_mapped(lane)
    assert copies and not mapped
    stored |= await built(index, 350, seed=35)
    await assert_exact(index, stored, seed=36)
    copies, mapped = int8_copies_mapped(lane)
    assert len(copies) == int8_segments(lane)[0] and mapped == copies  # the older ones too
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
