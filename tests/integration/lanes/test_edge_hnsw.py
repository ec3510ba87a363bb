"""HNSW for the embedded vector lane, built on a copy in a child process and swapped in.

Real qdrant-edge shards and a real child process; a tiny indexing threshold so a few hundred
32-dimensional points make qdrant-edge build HNSW at all.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe
from memhive_adapters.process_lifetime import command_line
from memhive_adapters.vector import edge_index, shard_dirs
from memhive_adapters.vector.build_journal import BuildJournal
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Scope, ScopeRef

from tests.integration.lanes.memories import a_memory

DIMS = 32
ANYWHERE = MemoryFilter(workspace_id="ws-1")


def vectors(count: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((count, DIMS)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def an_index(path: Path, hnsw_after: int = 300, **when_idle: float) -> EdgeVectorIndex:
    return EdgeVectorIndex(path, DIMS, hnsw_after=hnsw_after, indexing_threshold_kb=1, **when_idle)


async def a_lane_left_unbuilt(lane: Path, points: int, seed: int) -> Path:
    """A closed lane with `points` outside HNSW (as a load that stopped short leaves it)."""
    unbuilt = an_index(lane, hnsw_after=0)
    await unbuilt.upsert([(a_memory(), v) for v in vectors(points, seed)])
    await unbuilt.close()
    return lane


def exact_top(stored: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    ids = list(stored)
    scores = np.stack([stored[i] for i in ids]) @ query
    return [ids[j] for j in np.argsort(-scores)[:k]]


async def test_writes_during_the_build_survive_the_swap_and_searches_agree_with_exact(
    tmp_path: Path,
) -> None:
    lane = tmp_path / "lane"
    index = an_index(lane)
    first = [(a_memory(), v) for v in vectors(400, 1)]
    await index.upsert(first)  # 400 unindexed points: the build starts in the background
    assert await index.hnsw_coverage() == (400, 0)
    while not (lane / "shard-1").exists():  # noqa: ASYNC110 - a directory, not an event
        await asyncio.sleep(0.005)  # the copy holds the write lock: later writes are journaled

    later = [(a_memory(), v) for v in vectors(150, 2)]
    await index.upsert(later)  # while the child optimises: kept in the journal
    doomed = [m for m, _ in first[:20]]
    await index.upsert([(replace(m, forgotten=True), [0.0] * DIMS) for m in doomed])
    await index.delete("ws-1", [m.id for m, _ in first[20:30]])
    await index.settled()

    points, indexed = await index.hnsw_coverage()
    assert points == 520 and indexed > 0  # the copy was swapped in, every write with it
    stored = {m.id: np.asarray(v) for m, v in first[30:] + later}
    assert await index.count() == len(stored)
    for query in vectors(20, 3):
        hits = [h.memory_id for h in await index.search(query.tolist(), ANYWHERE, 10)]
        assert len(set(hits) & set(exact_top(stored, query, 10))) >= 9
    await index.close()


@pytest.mark.parametrize("in_memory", [None, 3], ids=["journal in memory", "journal spilled"])
async def test_writes_throughout_the_build_and_the_replay_into_it_all_land(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_memory: int | None
) -> None:
    """A writer saves, saves again with another vector, and forgets, from before the copy
    until after the swap, while the journal is replayed into the built shard slowly, in
    rounds (while writes go on, then the rest while they wait). The lane ends holding
    exactly what was last written, whether the journal held the writes or spilled all but
    the first `in_memory` points of each round to disk (and then nothing is left on disk)."""
    monkeypatch.setattr(edge_index, "_REPLAYED_UNDER_LOCK", 5)
    rebuilt: list[str] = []
    if in_memory is not None:
        monkeypatch.setattr(edge_index, "_JOURNAL_HELD", in_memory)
        operation_of = edge_index._operation_of

        def counted(plain):
            rebuilt.append(plain[0])
            return operation_of(plain)

        monkeypatch.setattr(edge_index, "_operation_of", counted)
    replay_into = BuildJournal.replay_into

    def slowly(journal: BuildJournal, apply: Callable[[qe.UpdateOperation], None]) -> int:
        def apply_slowly(write: qe.UpdateOperation) -> None:
            time.sleep(0.0002)  # writes come between the replayed ones (a fifth as often)
            apply(write)

        return replay_into(journal, apply_slowly)

    monkeypatch.setattr(BuildJournal, "replay_into", slowly)
    lane = tmp_path / "lane"
    index = an_index(lane)
    memories = [a_memory() for _ in range(120)]
    stored: dict[str, np.ndarray] = {}
    rng = np.random.default_rng(7)
    pool = (v for seed in itertools.count(8) for v in vectors(500, seed))

    async def write_once() -> None:
        memory = memories[int(rng.integers(len(memories)))]
        if memory.id in stored and rng.random() < 0.3:
            if rng.random() < 0.5:  # forgotten by its event, or deleted by id (a purge)
                await index.upsert([(replace(memory, forgotten=True), [0.0] * DIMS)])
            else:
                await index.delete(memory.workspace_id, [memory.id])
            del stored[memory.id]
        else:
            vector = next(pool)
            await index.upsert([(memory, vector)])
            stored[memory.id] = vector

    await index.upsert([(a_memory(), v) for v in vectors(400, 1)])  # the build starts
    for memory in memories:  # points of the copy, some rewritten or forgotten below
        vector = next(pool)
        await index.upsert([(memory, vector)])
        stored[memory.id] = vector
    first = shard_dirs.active_shard(lane)
    writes = 0
    while shard_dirs.active_shard(lane) == first:  # the whole build, swap included
        await write_once()
        writes += 1
        await asyncio.sleep(0.001)
    assert writes > 20

    held = await index.vectors([m.id for m in memories])
    assert set(held) == set(stored)
    for memory_id, vector in stored.items():
        np.testing.assert_allclose(held[memory_id], vector, atol=1e-5)
    forgotten = {m.id for m in memories} - set(stored)
    assert not await index.present("ws-1", sorted(forgotten))
    assert await index.count() == 400 + len(stored)
    if in_memory is not None:  # the spilled writes were replayed, upserts and deletes alike
        assert set(rebuilt) == {"upsert", "delete", "delete_in"}, rebuilt
    assert not list(lane.glob("*.journal*"))
    await index.close()


async def test_the_writes_made_during_a_build_are_built_next_without_another_write(
    tmp_path: Path,
) -> None:
    """A bulk load that ends while a build runs: what it wrote meanwhile was searched
    exactly, for good, until some later write (measured at 1M: 205k points, recall 80 ms)."""
    lane = tmp_path / "lane"
    index = an_index(lane)
    await index.upsert([(a_memory(), v) for v in vectors(400, 11)])
    while not (lane / "shard-1").exists():  # noqa: ASYNC110 - a directory, not an event
        await asyncio.sleep(0.005)
    await index.upsert([(a_memory(), v) for v in vectors(350, 12)])  # journaled: >= 300
    await index.settled()

    assert await index.hnsw_coverage() == (750, 750)
    assert shard_dirs.active_shard(lane).name == "shard-2"  # a second build, then no third
    await index.close()


async def test_a_swap_gives_the_memory_it_freed_back_once_the_old_shard_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replaced shard and the journal are freed below the new shard's allocations,
    where glibc keeps the pages until asked (test_free_heap.py: what asking gives back)."""
    lane = tmp_path / "lane"
    shards_when_released: list[list[str]] = []

    def release() -> bool:
        shards_when_released.append(sorted(p.name for p in lane.glob("shard-*")))
        return True

    monkeypatch.setattr(edge_index, "release_free_heap", release)
    index = an_index(lane)
    await index.upsert([(a_memory(), v) for v in vectors(400, 21)])
    await index.settled()

    assert shards_when_released == [["shard-1"]]  # once a swap, after the old one is gone
    await index.close()


async def test_a_lane_opened_with_many_points_outside_hnsw_builds_them(tmp_path: Path) -> None:
    lane = await a_lane_left_unbuilt(tmp_path / "lane", points=400, seed=13)
    again = an_index(lane)
    await again.ensure_ready()  # a start: no write comes
    await again.settled()
    assert await again.hnsw_coverage() == (400, 400)
    await again.close()


async def test_a_reopened_lane_serves_the_built_copy_and_leftovers_are_removed(
    tmp_path: Path,
) -> None:
    lane = tmp_path / "lane"
    index = an_index(lane)
    memories = [(a_memory(), v) for v in vectors(350, 4)]
    await index.upsert(memories)
    await index.settled()
    query = vectors(1, 5)[0].tolist()
    before = [h.memory_id for h in await index.search(query, ANYWHERE, 5)]
    await index.close()
    (lane / "shard-9").mkdir()  # a build a crash interrupted

    again = an_index(lane)
    assert [h.memory_id for h in await again.search(query, ANYWHERE, 5)] == before
    assert (await again.hnsw_coverage())[1] > 0
    await again.close()
    assert sorted(p.name for p in lane.iterdir()) == ["active", "shard-1"]


async def test_a_lane_of_the_older_layout_moves_into_its_first_copy(tmp_path: Path) -> None:
    lane = tmp_path / "lane"
    lane.mkdir()
    config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=DIMS, distance=qe.Distance.Cosine))
    old = qe.EdgeShard.create(str(lane), config)  # the shard in the lane directory itself
    old.flush()
    old.close()

    index = an_index(lane)
    memories = [(a_memory(), v) for v in vectors(320, 6)]
    await index.upsert(memories)
    await index.settled()

    assert await index.count() == 320 and (await index.hnsw_coverage())[1] > 0
    await index.close()
    assert sorted(p.name for p in lane.iterdir()) == ["active", "shard-1"]


async def test_builds_are_off_below_the_threshold_and_when_zero(tmp_path: Path) -> None:
    for hnsw_after, path in ((1000, tmp_path / "a"), (0, tmp_path / "b")):
        index = an_index(path, hnsw_after=hnsw_after)
        await index.upsert([(a_memory(), v) for v in vectors(400, 7)])
        await index.settled()
        assert await index.hnsw_coverage() == (400, 0)
        await index.close()


async def test_a_lane_that_goes_quiet_is_built_below_the_threshold(tmp_path: Path) -> None:
    """`hnsw_after` bounds what a lane under writes searches exactly; once writes stop, what
    is left outside HNSW is built too (a store quiet after a load searched up to 20k points
    exactly: 3-4x a search's CPU at 100k)."""
    lane = tmp_path / "lane"
    index = an_index(lane, hnsw_after=1000, hnsw_when_idle=100, idle_s=1.0)
    for seed in range(5):  # writes closer together than idle_s: no build meanwhile
        await index.upsert([(a_memory(), v) for v in vectors(30, 20 + seed)])
        await asyncio.sleep(0.1)
        assert not (lane / "shard-1").exists()
    async with asyncio.timeout(60):
        while not (lane / "shard-1").exists():  # noqa: ASYNC110 - a directory, not an event
            await asyncio.sleep(0.02)
    await index.settled()
    assert await index.hnsw_coverage() == (150, 150)
    await index.close()


async def test_a_quiet_lane_is_left_alone_below_the_idle_threshold_and_after_close(
    tmp_path: Path,
) -> None:
    few, closed = tmp_path / "few", tmp_path / "closed"
    index = an_index(few, hnsw_after=1000, hnsw_when_idle=100, idle_s=0.2)
    await index.upsert([(a_memory(), v) for v in vectors(60, 30)])
    shut = an_index(closed, hnsw_after=1000, hnsw_when_idle=100, idle_s=0.2)
    await shut.upsert([(a_memory(), v) for v in vectors(150, 31)])
    await shut.close()  # before the lane went quiet: nothing may start after
    await asyncio.sleep(1.0)

    assert await index.hnsw_coverage() == (60, 0)
    assert sorted(p.name for p in closed.iterdir()) == ["active", "shard-0"]
    assert builders_of(closed) == []
    await index.close()


async def test_a_lane_reopened_with_a_few_points_outside_hnsw_builds_them_once_quiet(
    tmp_path: Path,
) -> None:
    lane = await a_lane_left_unbuilt(tmp_path / "lane", points=150, seed=32)
    again = an_index(lane, hnsw_after=1000, hnsw_when_idle=100, idle_s=0.3)
    await again.ensure_ready()  # a restart after a load: no write comes
    async with asyncio.timeout(60):
        while (await again.hnsw_coverage())[1] < 150:  # noqa: ASYNC110 - a build, polled
            await asyncio.sleep(0.05)
    await again.close()


async def test_close_during_a_build_kills_the_child_and_the_lane_opens_as_before(
    tmp_path: Path,
) -> None:
    lane = tmp_path / "lane"
    index = an_index(lane)
    await index.upsert([(a_memory(), v) for v in vectors(400, 8)])
    while not builders_of(lane):  # noqa: ASYNC110 - another process, not an event
        await asyncio.sleep(0.005)
    await index.close()  # the child is killed, its copy removed

    assert builders_of(lane) == []
    assert sorted(p.name for p in lane.iterdir()) == ["active", "shard-0"]
    again = an_index(lane, hnsw_after=0)
    assert await again.count() == 400
    await again.close()


def builders_of(lane: Path) -> list[int]:
    """Live optimize_shard processes working on a copy in `lane`."""
    found = []
    for pid in (int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()):
        argv = command_line(pid) or []
        if "memhive_adapters.vector.optimize_shard" in argv and str(lane) in " ".join(argv):
            found.append(pid)
    return found


async def test_searches_started_together_find_what_each_finds_alone(tmp_path: Path) -> None:
    """They reach the shard as one `query_batch`: the same hits, each to its own caller."""
    index = an_index(tmp_path / "lane", hnsw_after=0)
    products = [f"product-{n}" for n in range(3)]
    points = vectors(600, 7)
    await index.upsert([(a_memory(product_id=products[i % 3]), v) for i, v in enumerate(points)])
    asked = [
        (query.tolist(), MemoryFilter("ws-1", node=ScopeRef(Scope.PRODUCT, products[n % 3])))
        for n, query in enumerate(vectors(12, 8))
    ]
    alone = [await index.search(query, where, 5) for query, where in asked]
    together = await asyncio.gather(*(index.search(query, where, 5) for query, where in asked))
    assert together == alone and all(len(hits) == 5 for hits in alone)
    await index.close()
