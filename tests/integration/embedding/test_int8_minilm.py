"""The int8 encoders on the real bundled model: one vector per text whatever it is embedded
with (bit for bit), close to fp32, each its own name, and each graph cached beside fp32's."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import onnx
import pytest
from memhive_adapters.embedding import int8_graph
from memhive_adapters.embedding.minilm import bundled_model_dir
from memhive_adapters.embedding.onnx_minilm import INT8, INT8_V1, VARIANTS, OnnxMiniLmEmbedder
from onnx import numpy_helper

from tests.integration.embedding.test_onnx_minilm import VARIED


@pytest.fixture(scope="module", params=[INT8.encoder, INT8_V1.encoder])
def int8_minilm(onnx_cache_dir: Path, request: pytest.FixtureRequest) -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(onnx_cache_dir, variant=VARIANTS[request.param])


def test_a_texts_vector_does_not_depend_on_what_it_is_embedded_with(
    int8_minilm: OnnxMiniLmEmbedder,
) -> None:
    alone = np.stack([int8_minilm.embed_sync([text])[0] for text in VARIED])
    together = int8_minilm.embed_sync(VARIED)
    reversed_order = int8_minilm.embed_sync(VARIED[::-1])[::-1]
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(reversed_order, alone)


def test_vectors_are_unit_length_and_close_to_fp32_under_their_own_name(
    int8_minilm: OnnxMiniLmEmbedder, onnx_minilm: OnnxMiniLmEmbedder
) -> None:
    int8, fp32 = int8_minilm.embed_sync(VARIED), onnx_minilm.embed_sync(VARIED)
    np.testing.assert_allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(int8 * fp32, axis=1)
    assert cosines.min() > 0.96 and np.median(cosines) > 0.985
    assert int8_minilm.model_name.startswith("all-MiniLM-L6-v2/int8-per-text-v")
    assert int8_minilm.model_name != onnx_minilm.model_name


def test_the_two_weight_codings_are_two_encoders(onnx_cache_dir: Path) -> None:
    """Their vectors differ, so a lane records which one wrote it: never compared."""
    v2, v1 = (OnnxMiniLmEmbedder(onnx_cache_dir, variant=v) for v in (INT8, INT8_V1))
    assert v2.model_name == "all-MiniLM-L6-v2/int8-per-text-v2" != v1.model_name
    cosines = np.sum(v2.embed_sync(VARIED) * v1.embed_sync(VARIED), axis=1)
    assert cosines.min() > 0.95 and not np.allclose(cosines, 1.0, atol=1e-4)


@pytest.mark.parametrize(
    ("coding", "dtype"), [(int8_graph.SEVEN_BIT, np.int8), (int8_graph.UINT8, np.uint8)]
)
def test_the_weights_are_stored_as_their_coding_says(
    coding: int8_graph.WeightCoding, dtype: type
) -> None:
    """v2's in 7 bits (|w| <= 64), so an AVX2 u8 x s8 kernel's int16 pair sums cannot
    saturate; blocks 1-5's four matmuls quantised, block 0's kept fp32."""
    graph = onnx.load_from_string(
        int8_graph.serialised_int8_graph(bundled_model_dir(), "k", coding)
    )
    weights = {
        t.name: numpy_helper.to_array(t).astype(np.int32)
        for t in graph.graph.initializer
        if t.name.endswith(".weight_quantized")
    }
    assert sorted(weights) == sorted(
        f"layer{block}.{name}.weight_quantized"
        for block in range(1, 6)
        for name in ("qkv", "attention_out", "intermediate", "output")
    )
    stored = {numpy_helper.to_array(t).dtype for t in graph.graph.initializer if t.name in weights}
    assert stored == {np.dtype(dtype)}
    largest = max(int(np.abs(values).max()) for values in weights.values())
    assert (largest <= 64) == coding.seven_bits


def test_the_int8_graph_is_built_once_and_named_by_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[str] = []
    build = int8_graph.serialised_int8_graph

    def counting(model_dir: Path, key: str, coding: int8_graph.WeightCoding) -> bytes:
        builds.append(key)
        return build(model_dir, key, coding)

    monkeypatch.setattr(int8_graph, "serialised_int8_graph", counting)
    OnnxMiniLmEmbedder(tmp_path, variant=INT8)
    OnnxMiniLmEmbedder(tmp_path, variant=INT8)
    OnnxMiniLmEmbedder(tmp_path, variant=INT8_V1)
    codings = (int8_graph.SEVEN_BIT, int8_graph.UINT8)
    keys = [int8_graph.int8_cache_key(bundled_model_dir(), coding) for coding in codings]
    assert builds == keys and keys[0] != keys[1]
    paths = [int8_graph.int8_cache_path(tmp_path, k, c) for k, c in zip(keys, codings, strict=True)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)


def test_quantising_leaves_a_first_starts_log_to_memhive(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    logging.getLogger("memhive_adapters.embedding").info("ours, beside the build")

    int8_graph.serialised_int8_graph(bundled_model_dir(), "a-key", int8_graph.SEVEN_BIT)

    assert [r.getMessage() for r in caplog.records] == ["ours, beside the build"]
    assert logging.getLogger().filters == []  # the quiet ends with the build
