"""Callers' passes on the real bundled model: a reader's pass (a recall's) gives the writers'
vectors and goes before the writers' passes waiting; the passes' threads run at the nice
value the settings give (pass_queue.py)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.onnx_minilm import INT8, OnnxMiniLmEmbedder
from memhive_adapters.runtime.lane_builders import build_embedder
from memhive_settings import MemhiveSettings

from tests.integration.embedding.test_onnx_minilm import VARIED

TIMEOUT_S = 30


async def test_a_readers_pass_gives_the_writers_vectors(onnx_cache_dir: Path) -> None:
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8)
    assert await embedder.embed_for_reader(VARIED) == await embedder.embed(VARIED)
    assert await embedder.embed_for_reader([]) == []


class _HeldSession:
    """The real session; the first pass waits for `release`, and every pass notes its
    text's token ids, in the order the passes ran."""

    def __init__(self, session) -> None:
        self._session, self.ran = session, []
        self.started, self.release = threading.Event(), threading.Event()

    def run(self, outputs, feed):
        if not self.started.is_set():
            self.started.set()
            assert self.release.wait(TIMEOUT_S)
        self.ran.append(tuple(int(i) for i in feed["input_ids"][0]))
        return self._session.run(outputs, feed)


async def test_a_readers_pass_goes_before_the_writers_waiting(
    onnx_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0})  # one pass at a time
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, threads=1)
    ids = {text: tuple(embedder._tokenizer.encode(text).ids) for text in VARIED[:6]}
    held = embedder._session = _HeldSession(embedder._session)
    first = asyncio.create_task(embedder.embed([VARIED[0]]))
    assert await asyncio.to_thread(held.started.wait, TIMEOUT_S)
    writers = [asyncio.create_task(embedder.embed([text])) for text in VARIED[1:5]]
    await asyncio.sleep(0)  # the writers queued before the reader
    reader = asyncio.create_task(embedder.embed_for_reader([VARIED[5]]))
    await asyncio.sleep(0)
    held.release.set()
    await asyncio.wait_for(asyncio.gather(first, reader, *writers), TIMEOUT_S)
    assert held.ran == [ids[VARIED[0]], ids[VARIED[5]], *(ids[t] for t in VARIED[1:5])]
    np.testing.assert_allclose(
        (await reader)[0], embedder.embed_sync([VARIED[5]])[0], rtol=0, atol=0
    )


def _pass_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("memhive-pass")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
@pytest.mark.parametrize(("told", "expected"), [(None, 10), (0, None)])
async def test_the_callers_passes_run_as_nice_as_the_settings_say(
    tmp_path: Path, onnx_cache_dir: Path, told: int | None, expected: int | None
) -> None:
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    embedding = {"cache_dir": onnx_cache_dir}
    if told is not None:
        embedding["callers_niceness"] = told
    embedder = build_embedder(MemhiveSettings(data_dir=tmp_path, embedding=embedding))
    before = _pass_threads()
    await embedder.embed(["a caller's pass"])
    await embedder.embed_for_reader(["a reader's pass"])
    started = _pass_threads() - before
    assert started
    for thread in started:
        assert os.getpriority(os.PRIO_PROCESS, thread.native_id) == max(own, expected or own)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own
