"""The embedded vector lane, as `memhive run` builds it, searches on its caller's thread:
a search wakes none of qdrant-edge's search threads (its pool, a thread per CPU, woke ~67
a search). On two cores those wake-ups cost more CPU than searching segments side by side
saved (docs/benchmarks.md, "One search thread")."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.runtime.lane_builders import build_vector_index
from memhive_domain.recall import MemoryFilter
from memhive_settings import MemhiveSettings

from tests.fakes import FakeEmbedder
from tests.integration.lanes.memories import a_memory

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads thread names in /proc")

DIMS = 8


def search_threads_woken() -> int:
    """How many times the threads of qdrant-edge's search pools in this process were
    switched to (each time a search hands them a segment, and once as they start)."""
    woken = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            if not (task / "comm").read_text().startswith("edge-search"):
                continue
            status = (task / "status").read_text().splitlines()
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
        woken += sum(int(line.split(":")[1]) for line in status if "ctxt_switches" in line)
    return woken


async def woken_by_searches(data_dir: Path, searches: int = 50, **vector: int) -> int:
    settings = MemhiveSettings(data_dir=data_dir, vector=vector)
    lane = build_vector_index(settings, FakeEmbedder(vector=[1.0] + [0.0] * (DIMS - 1)))
    points = np.random.default_rng(3).standard_normal((200, DIMS)).astype(np.float32)
    await lane.upsert([(a_memory(), list(v)) for v in points])
    anywhere = MemoryFilter(workspace_id="ws-1")
    await lane.search(list(points[0]), anywhere, 5)  # the pool, if any, has started
    before = search_threads_woken()
    for v in points[:searches]:
        await lane.search(list(v), anywhere, 5)
    woken = search_threads_woken() - before
    await lane.close()
    return woken


async def test_the_default_lane_searches_on_its_callers_thread(tmp_path: Path) -> None:
    assert await woken_by_searches(tmp_path) == 0


async def test_a_lane_given_no_bound_searches_in_qdrant_edges_pool(tmp_path: Path) -> None:
    # What the test above would see if the default went back to qdrant-edge's pool.
    assert await woken_by_searches(tmp_path, search_threads=0) >= 50
