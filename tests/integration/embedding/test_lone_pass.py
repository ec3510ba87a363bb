"""A caller's pass of one text that starts while no other pass runs (a sequential save's, a
recall's) runs on a second session with more threads: on the real bundled model, the same
vectors, and only when it is alone."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.onnx_minilm import FP32, INT8, OnnxMiniLmEmbedder

from tests.integration.embedding.test_onnx_minilm import VARIED


class _RecordingSession:
    """The real session, noting each pass under `name`; a pass may be held at its start."""

    def __init__(self, session, name: str, passes: list[str], hold: threading.Event | None):
        self._session, self._name, self._passes, self._hold = session, name, passes, hold

    def run(self, *args, **kwargs):
        self._passes.append(self._name)
        if self._hold is not None:
            assert self._hold.wait(10), "the held pass was never released"
        return self._session.run(*args, **kwargs)


@pytest.fixture
def lone(onnx_cache_dir: Path) -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, threads=1, lone_threads=2)


def _recorded(embedder: OnnxMiniLmEmbedder, hold_lone: threading.Event | None = None):
    passes: list[str] = []
    embedder._session = _RecordingSession(embedder._session, "one thread", passes, None)
    embedder._lone_session = _RecordingSession(embedder._lone_session, "lone", passes, hold_lone)
    return passes


@pytest.mark.parametrize("variant", [INT8, FP32], ids=["int8", "fp32"])
async def test_a_lone_pass_runs_on_two_threads_and_gives_the_same_vector(
    onnx_cache_dir: Path, variant
) -> None:
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, variant=variant, threads=1, lone_threads=2)
    assert embedder._lone_session.get_session_options().intra_op_num_threads == 2
    one_thread = embedder.embed_sync(VARIED)
    passes = _recorded(embedder)
    lone_vectors = [(await embedder.embed([text]))[0] for text in VARIED]
    assert passes == ["lone"] * len(VARIED)
    np.testing.assert_allclose(np.array(lone_vectors), one_thread, atol=1e-6)


async def test_a_pass_that_starts_beside_a_lone_one_keeps_one_thread(
    lone: OnnxMiniLmEmbedder,
) -> None:
    hold = threading.Event()
    passes = _recorded(lone, hold_lone=hold)
    first = asyncio.create_task(lone.embed([VARIED[0]]))
    for _ in range(1000):  # until the first pass is under way (and held)
        if passes:
            break
        await asyncio.sleep(0.01)
    second = await lone.embed([VARIED[1]])  # answered while the lone pass is held
    assert not first.done()
    hold.set()
    await first
    assert passes == ["lone", "one thread"]
    np.testing.assert_allclose(second[0], lone.embed_sync([VARIED[1]])[0], atol=1e-6)


async def test_batches_and_background_passes_never_take_the_lone_session(
    lone: OnnxMiniLmEmbedder,
) -> None:
    passes = _recorded(lone)
    await lone.embed(VARIED[:3])  # several texts: a batch, not a caller waiting on one
    await lone.embed_in_background([VARIED[0]])
    lone.embed_sync([VARIED[0]])
    assert set(passes) == {"one thread"}


def test_no_second_session_unless_it_has_more_threads(onnx_cache_dir: Path) -> None:
    assert OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8)._lone_session is None
    same = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, threads=2, lone_threads=2)
    assert same._lone_session is None
    every_core = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, threads=0, lone_threads=2)
    assert every_core._lone_session is None  # 0: onnxruntime's default, every core already
