"""The ONNX graph cache: built once, reused, rebuilt when damaged or when the weights change,
written whole or not at all, and not needed when the cache directory cannot be written."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding import onnx_graph_cache
from memhive_adapters.embedding.minilm import bundled_model_dir
from memhive_adapters.embedding.onnx_graph_cache import (
    graph_cache_key,
    graph_cache_path,
    write_atomically,
)
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder

PROBE = ["Forget means gone from every index.", "ok"]


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every graph build, by key."""
    seen: list[str] = []
    build = onnx_graph_cache.serialised_graph

    def counting(model_dir: Path, key: str) -> bytes:
        seen.append(key)
        return build(model_dir, key)

    monkeypatch.setattr(onnx_graph_cache, "serialised_graph", counting)
    return seen


@pytest.fixture
def cached(onnx_cache_dir: Path, onnx_minilm: OnnxMiniLmEmbedder, tmp_path: Path) -> Path:
    """A cache dir of our own holding the session's already-built fp32 graph (copied, not
    rebuilt; the session's dir may hold the int8 graph too)."""
    copy = tmp_path / "models"
    copy.mkdir()
    graph = graph_cache_path(onnx_cache_dir, graph_cache_key(bundled_model_dir()))
    shutil.copy2(graph, graph_cache_path(copy, graph_cache_key(bundled_model_dir())))
    return copy


def _only_graph(cache_dir: Path) -> Path:
    (graph,) = cache_dir.iterdir()  # no partial file left behind either
    return graph


def test_built_once_then_reused(tmp_path: Path, builds: list[str]) -> None:
    first = OnnxMiniLmEmbedder(tmp_path)
    graph = _only_graph(tmp_path)
    written = graph.stat().st_mtime_ns
    second = OnnxMiniLmEmbedder(tmp_path)
    assert builds == [graph_cache_key(bundled_model_dir())]
    assert graph == graph_cache_path(tmp_path, builds[0])
    assert graph.stat().st_mtime_ns == written
    np.testing.assert_array_equal(first.embed_sync(PROBE), second.embed_sync(PROBE))


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="cut-in-half"),
        pytest.param(lambda data: data[:-3], id="last-bytes-missing"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: os.urandom(4096), id="garbage"),
    ],
)
def test_a_damaged_file_is_rebuilt(
    cached: Path, builds: list[str], onnx_minilm: OnnxMiniLmEmbedder, damage, caplog
) -> None:
    graph = _only_graph(cached)
    graph.write_bytes(damage(graph.read_bytes()))
    with caplog.at_level(logging.WARNING, logger=onnx_graph_cache.__name__):
        embedder = OnnxMiniLmEmbedder(cached)
    assert len(builds) == 1 and "damaged" in caplog.text
    np.testing.assert_allclose(embedder.embed_sync(PROBE), onnx_minilm.embed_sync(PROBE), atol=1e-6)
    assert OnnxMiniLmEmbedder(cached) and len(builds) == 1  # and the rebuilt file is reused


def test_a_file_that_is_another_graph_is_rebuilt(cached: Path, builds: list[str]) -> None:
    _stamp_key(_only_graph(cached), "0" * 32)  # the right name, another graph inside
    OnnxMiniLmEmbedder(cached)
    assert len(builds) == 1


def _stamp_key(path: Path, key: str) -> None:
    import onnx
    from onnx import helper

    model = onnx.load(path)
    del model.metadata_props[:]
    helper.set_model_props(model, {onnx_graph_cache.CACHE_KEY_PROPERTY: key})
    path.write_bytes(model.SerializeToString())


def test_other_weights_get_another_key(tmp_path: Path) -> None:
    bundled = bundled_model_dir()
    other = tmp_path / "other-model"
    other.mkdir()
    for item in bundled.iterdir():
        if item.is_file():
            (other / item.name).symlink_to(item)
    (other / "config.json").unlink()
    config = (bundled / "config.json").read_text()
    (other / "config.json").write_text(
        config.replace('"initializer_range": 0.02', '"initializer_range": 0.03')
    )
    assert graph_cache_key(other) != graph_cache_key(bundled)


def test_an_unwritable_cache_directory_costs_a_build_not_an_error(
    tmp_path: Path, builds: list[str], onnx_minilm: OnnxMiniLmEmbedder, caplog
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory should be")
    with caplog.at_level(logging.WARNING, logger=onnx_graph_cache.__name__):
        embedder = OnnxMiniLmEmbedder(blocked / "models")
    assert len(builds) == 1 and "from memory" in caplog.text
    np.testing.assert_allclose(embedder.embed_sync(PROBE), onnx_minilm.embed_sync(PROBE), atol=1e-6)


def test_a_failed_write_leaves_neither_a_file_nor_a_partial_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space"):
        write_atomically(tmp_path / "graph.onnx", b"0123456789")
    assert list(tmp_path.iterdir()) == []


def test_a_write_replaces_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "graph.onnx"
    target.write_bytes(b"old")
    write_atomically(target, b"new and longer")
    assert target.read_bytes() == b"new and longer"
    assert list(tmp_path.iterdir()) == [target]
