"""Passes nobody waits on (embed's backlog) on the real bundled model: the same vectors as a
caller's pass, and a caller's pass never queued behind them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.onnx_minilm import INT8, OnnxMiniLmEmbedder

from tests.integration.embedding.test_onnx_minilm import VARIED


@pytest.fixture(scope="module")
def int8(onnx_cache_dir: Path) -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8)


@pytest.mark.parametrize("encoder", ["int8", "onnx_minilm"])
async def test_a_background_pass_gives_the_callers_vectors(
    encoder: str, request: pytest.FixtureRequest
) -> None:
    embedder: OnnxMiniLmEmbedder = request.getfixturevalue(encoder)
    background = await embedder.embed_in_background(VARIED)
    np.testing.assert_array_equal(np.array(background), embedder.embed_sync(VARIED))
    assert await embedder.embed_in_background([]) == []


async def test_a_callers_pass_does_not_queue_behind_a_background_backlog(
    int8: OnnxMiniLmEmbedder,
) -> None:
    backlog = asyncio.create_task(int8.embed_in_background(VARIED * 20))
    await asyncio.sleep(0.05)  # the backlog's passes under way
    await int8.embed([VARIED[0]])
    assert not backlog.done()  # answered while the backlog's passes were still running
    await backlog
