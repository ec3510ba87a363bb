"""`MEMHIVE_EMBEDDING__RUNTIME` picks how the local model runs; both give the same model."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.minilm import MiniLmEmbedder
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder
from memhive_adapters.runtime.lane_builders import build_embedder
from memhive_settings import MemhiveSettings

INT8S = ("all-MiniLM-L6-v2/int8-per-text-v2", "all-MiniLM-L6-v2/int8-per-text-v1")


@pytest.mark.parametrize(
    ("runtime", "kind"), [("onnx", OnnxMiniLmEmbedder), ("numpy", MiniLmEmbedder)]
)
def test_the_setting_picks_the_runtime(
    tmp_path: Path, onnx_cache_dir: Path, runtime: str, kind: type
) -> None:
    embedding = {"runtime": runtime, "cache_dir": onnx_cache_dir, "model": "all-MiniLM-L6-v2"}
    embedder = build_embedder(MemhiveSettings(data_dir=tmp_path, embedding=embedding))
    assert isinstance(embedder, kind)
    assert embedder.model_name == "all-MiniLM-L6-v2"


@pytest.mark.parametrize("runtime", ["onnx", "numpy"])
@pytest.mark.parametrize("int8", INT8S)
def test_the_int8_encoders_run_under_onnxruntime_whatever_the_runtime(
    tmp_path: Path, onnx_cache_dir: Path, runtime: str, int8: str
) -> None:
    embedding = {"runtime": runtime, "cache_dir": onnx_cache_dir, "model": int8}
    embedder = build_embedder(MemhiveSettings(data_dir=tmp_path, embedding=embedding))
    assert isinstance(embedder, OnnxMiniLmEmbedder)
    assert embedder.model_name == int8


def test_either_runtime_serves_lanes_the_other_built(
    onnx_minilm: OnnxMiniLmEmbedder, minilm: MiniLmEmbedder
) -> None:
    # The lane generations compare model names only: equal names must mean equal vectors.
    texts = ["Saves embed once.", "The vector travels with the event."]
    assert onnx_minilm.model_name == minilm.model_name
    np.testing.assert_allclose(onnx_minilm.embed_sync(texts), minilm.embed_sync(texts), atol=2e-6)


def test_the_graph_is_cached_where_the_settings_say(tmp_path: Path) -> None:
    settings = MemhiveSettings(data_dir=tmp_path / "data", embedding={"runtime": "onnx"})
    settings.embedding.cache_dir = None
    build_embedder(settings)
    assert [p.suffix for p in (tmp_path / "data" / "models").iterdir()] == [".onnx"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
@pytest.mark.parametrize(("told", "expected"), [(None, 19), (0, None)])
async def test_the_backlog_thread_is_as_nice_as_the_settings_say(
    tmp_path: Path, onnx_cache_dir: Path, told: int | None, expected: int | None
) -> None:
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    embedding = {"cache_dir": onnx_cache_dir}
    if told is not None:
        embedding["background_niceness"] = told
    embedder = build_embedder(MemhiveSettings(data_dir=tmp_path, embedding=embedding))
    backlogs = {t for t in threading.enumerate() if t.name.startswith("memhive-backlog")}
    await embedder.embed_in_background(["a pass nobody waits on"])
    (backlog,) = {
        t for t in threading.enumerate() if t.name.startswith("memhive-backlog")
    } - backlogs
    assert os.getpriority(os.PRIO_PROCESS, backlog.native_id) == max(own, expected or own)
