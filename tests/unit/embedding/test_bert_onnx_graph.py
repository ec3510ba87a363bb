"""The ONNX graph against the NumPy pass, on a small BERT (and a small MPNet) with random
weights: every operator of the graph is checked without the 90 MB model (or MPNet's 440 MB),
and on shapes neither has."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from memhive_adapters.embedding.bert_encoder import encode
from memhive_adapters.embedding.bert_onnx_graph import build_sentence_graph
from memhive_adapters.embedding.bert_weights import (
    BertWeights,
    EncoderLayerWeights,
    LayerNormWeights,
)
from memhive_adapters.embedding.pooling import l2_normalise, mean_pool
from memhive_adapters.embedding.word_pieces import pad

WIDTH, HEADS, INNER, VOCAB, POSITIONS = 16, 4, 32, 50, 24


def _random_weights(layers: int, seed: int = 3) -> BertWeights:
    rng = np.random.default_rng(seed)

    def array(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def norm() -> LayerNormWeights:
        return LayerNormWeights(1 + array(WIDTH, scale=0.1), array(WIDTH, scale=0.1))

    def layer() -> EncoderLayerWeights:
        return EncoderLayerWeights(
            array(WIDTH, 3 * WIDTH),
            array(3 * WIDTH),
            array(WIDTH, WIDTH),
            array(WIDTH),
            norm(),
            array(WIDTH, INNER),
            array(INNER),
            array(INNER, WIDTH),
            array(WIDTH),
            norm(),
        )

    return BertWeights(
        array(VOCAB, WIDTH),
        array(POSITIONS, WIDTH),
        array(2, WIDTH),
        norm(),
        tuple(layer() for _ in range(layers)),
        HEADS,
        1e-12,
    )


def _random_mpnet(layers: int) -> BertWeights:
    """MPNet's shape: no token types, positions from 2 (its padding index + 1), and a
    relative-position bias of 32 buckets per head."""
    rng = np.random.default_rng(11)
    bias = (rng.standard_normal((32, HEADS)) * 2).astype(np.float32)
    return replace(
        _random_weights(layers),
        token_type_embeddings=None,
        position_offset=2,
        relative_attention_bias=bias,
    )


def _numpy_sentences(weights: BertWeights, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return l2_normalise(mean_pool(encode(weights, ids, mask), mask))


def _onnx_sentences(model: onnx.ModelProto, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


@pytest.mark.parametrize("layers", [1, 3])
def test_the_graph_computes_what_the_numpy_pass_computes(layers: int) -> None:
    weights = _random_weights(layers)
    ids, mask = pad([[1, 7, 9, 2], [1, 30, 2], [1, *range(3, 23), 2], [1, 2]])
    expected = _numpy_sentences(weights, ids, mask)
    np.testing.assert_allclose(
        _onnx_sentences(build_sentence_graph(weights), ids, mask), expected, atol=2e-6
    )


def test_padding_does_not_reach_the_real_tokens() -> None:
    model = build_sentence_graph(_random_weights(2))
    alone = _onnx_sentences(model, *pad([[1, 5, 6, 2]]))
    padded = _onnx_sentences(model, *pad([[1, 5, 6, 2], [1, *range(3, 20), 2]]))[:1]
    np.testing.assert_allclose(padded, alone, atol=1e-6)


def test_the_graph_is_valid_onnx_with_the_declared_interface() -> None:
    model = build_sentence_graph(_random_weights(1))
    onnx.checker.check_model(model, full_check=True)
    assert [i.name for i in model.graph.input] == ["input_ids", "attention_mask"]
    assert [o.name for o in model.graph.output] == ["sentence_embedding"]
    assert {o.version for o in model.opset_import if o.domain in ("", "ai.onnx")} == {17}


@pytest.mark.parametrize("layers", [1, 3])
def test_an_mpnet_graph_computes_what_the_numpy_pass_computes(layers: int) -> None:
    weights = _random_mpnet(layers)
    # Past 16 tokens the buckets turn logarithmic: the longest sentence reaches them.
    ids, mask = pad([[0, 7, 9, 2], [0, 30, 2], [0, *range(3, 20), 2], [0, 2]], pad_id=1)
    expected = _numpy_sentences(weights, ids, mask)
    np.testing.assert_allclose(
        _onnx_sentences(build_sentence_graph(weights), ids, mask), expected, atol=2e-6
    )


def test_mpnet_s_position_bias_and_offset_change_its_vectors() -> None:
    """So the comparison above cannot pass with both sides leaving them out."""
    weights = _random_mpnet(2)
    ids, mask = pad([[0, *range(3, 20), 2]])
    graph = _onnx_sentences(build_sentence_graph(weights), ids, mask)
    for without in (
        replace(weights, relative_attention_bias=None),
        replace(weights, position_offset=0),
    ):
        assert not np.allclose(_numpy_sentences(without, ids, mask), graph, atol=1e-3)


def test_an_mpnet_graph_is_valid_onnx() -> None:
    onnx.checker.check_model(build_sentence_graph(_random_mpnet(1)), full_check=True)
