"""Passes nobody waits on (embed's indexing) on the real bundled model: the same vectors as a
caller's pass, on a worker thread at a lower CPU priority, and never ahead of a caller's
pass in a queue."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.onnx_minilm import INT8, OnnxMiniLmEmbedder

from tests.integration.embedding.test_onnx_minilm import VARIED


@pytest.fixture(scope="module")
def niced(onnx_cache_dir: Path) -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, background_nice=10)


def nice_values() -> dict[int, int]:
    """Each thread of this process by id, with its nice value."""
    return {
        int(tid): os.getpriority(os.PRIO_PROCESS, int(tid)) for tid in os.listdir("/proc/self/task")
    }


async def test_a_background_pass_gives_the_callers_vectors(niced: OnnxMiniLmEmbedder) -> None:
    background = await niced.embed_in_background(VARIED)
    np.testing.assert_array_equal(np.array(background), niced.embed_sync(VARIED))
    assert await niced.embed_in_background([]) == []


async def test_background_passes_run_on_a_thread_of_their_own_at_a_lower_priority(
    onnx_cache_dir: Path,
) -> None:
    niced = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, background_nice=10)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    before = nice_values()
    await niced.embed_in_background(["a pass that starts the worker"])
    lowered = {t: n for t, n in nice_values().items() if t not in before and n != own}
    assert list(lowered.values()) == [min(own + 10, 19)]  # the worker, and nothing else
    assert os.getpriority(os.PRIO_PROCESS, 0) == own  # the caller's thread keeps its own
    await niced.embed([VARIED[0]])
    assert {t: n for t, n in nice_values().items() if t in before} == before


async def test_a_callers_pass_does_not_queue_behind_a_background_backlog(
    niced: OnnxMiniLmEmbedder,
) -> None:
    backlog = asyncio.create_task(niced.embed_in_background(VARIED * 20))
    await asyncio.sleep(0.05)  # the backlog's passes under way
    await niced.embed([VARIED[0]])
    assert not backlog.done()  # answered while the backlog's passes were still running
    await backlog
