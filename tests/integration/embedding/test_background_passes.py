"""Passes nobody waits on (embed's backlog) on the real bundled model: the same vectors as a
caller's pass, and a caller's pass never queued behind them; callers' passes side by side,
one per core."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
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


def _backlog_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("memhive-backlog")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
async def test_the_backlog_runs_on_a_nicer_thread_than_the_callers(onnx_cache_dir: Path) -> None:
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    niceness = max(own + 1, 19)
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, background_niceness=niceness)
    others = _backlog_threads()
    await embedder.embed_in_background(VARIED[:2])
    (backlog,) = _backlog_threads() - others

    def callers_niceness(texts):  # a caller's pass runs on asyncio's default workers
        embedder.embed_sync(texts)
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    assert os.getpriority(os.PRIO_PROCESS, backlog.native_id) == niceness
    assert await asyncio.to_thread(callers_niceness, VARIED[:1]) == own
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own


# A fresh process: the tokenizers' shared pool is created once per process, by its first user.
_FIRST_PASS_IN_THE_BACKLOG = """
import asyncio, os, sys
from pathlib import Path
from memhive_adapters.embedding.onnx_minilm import INT8, OnnxMiniLmEmbedder

def niceness(task):
    return int(open(f"/proc/self/task/{task}/stat").read().rsplit(")", 1)[1].split()[16])

async def main():
    embedder = OnnxMiniLmEmbedder(Path(sys.argv[1]), variant=INT8, background_niceness=19)
    await embedder.embed_in_background(["the first pass of this process", "and a second text"])
    await embedder.embed(["a caller's pass after it"])
    print(sum(niceness(task) == 19 for task in os.listdir("/proc/self/task")))

asyncio.run(main())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_backlog_lowers_no_thread_but_its_own(onnx_cache_dir: Path) -> None:
    # A thread inherits the priority of the thread that creates it: had the backlog's pass
    # started the tokenizers' pool, callers' passes would tokenize on threads at nice 19.
    OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8)  # the graph built and cached here
    run = subprocess.run(
        [sys.executable, "-c", _FIRST_PASS_IN_THE_BACKLOG, str(onnx_cache_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1"]


class _MeetingSession:
    """The real session, but each pass waits until `parties` passes are under way at once:
    passes that take turns never meet, and the barrier breaks."""

    def __init__(self, session, parties: int, timeout_s: float) -> None:
        self._session, self._barrier = session, threading.Barrier(parties, timeout=timeout_s)

    def run(self, *args, **kwargs):
        self._barrier.wait()
        return self._session.run(*args, **kwargs)


async def test_two_callers_passes_run_side_by_side_on_two_cores(
    onnx_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, threads=1)
    alone = embedder.embed_sync(VARIED[:2])
    embedder._session = _MeetingSession(embedder._session, parties=2, timeout_s=10)
    vectors = await asyncio.gather(embedder.embed([VARIED[0]]), embedder.embed([VARIED[1]]))
    np.testing.assert_array_equal(np.array([v[0] for v in vectors]), alone)


async def test_passes_whose_threads_fill_the_cores_take_turns(
    onnx_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, variant=INT8, threads=2)
    embedder._session = _MeetingSession(embedder._session, parties=2, timeout_s=0.5)
    with pytest.raises(threading.BrokenBarrierError):  # one pass at a time: they never meet
        await asyncio.gather(embedder.embed([VARIED[0]]), embedder.embed([VARIED[1]]))
