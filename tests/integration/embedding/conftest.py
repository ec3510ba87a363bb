from __future__ import annotations

from pathlib import Path

import pytest
from memhive_adapters.embedding.minilm import MiniLmEmbedder
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLmEmbedder:
    return MiniLmEmbedder()


@pytest.fixture(scope="session")
def onnx_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One graph cache for the session: the graph is built once, by the first embedder."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def onnx_minilm(onnx_cache_dir: Path) -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(onnx_cache_dir)
