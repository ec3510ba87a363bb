"""OnnxMiniLmEmbedder on the real bundled model: the NumPy pass's vectors, the naive float64
reference, batching, threads, and no network."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.minilm import MiniLmEmbedder, bundled_model_dir
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder, session_options

from tests.integration.embedding.naive_bert import NaiveMiniLm
from tests.integration.embedding.test_minilm import PARAPHRASES, SENTENCES

# Varied on purpose: lengths from 0 to past the model's window, case, digits, non-ASCII.
VARIED = (
    SENTENCES
    + [
        f"{subject} {event} (ticket {n})."
        for n, (subject, event) in enumerate(
            (s, e)
            for s in ("The deploy", "Alice's review", "Our NATS cluster", "nightly BACKUP")
            for e in ("was rolled back", "moved to Thursday after the incident review", "ok")
        )
    ]
    + ["memhive keeps shared memories for agents. " * 40, "数据库迁移超时了", "a"]
)


async def test_names_and_shape_are_the_numpy_embedders(
    onnx_minilm: OnnxMiniLmEmbedder, minilm: MiniLmEmbedder
) -> None:
    assert (onnx_minilm.model_name, onnx_minilm.dimensions) == (
        minilm.model_name,
        minilm.dimensions,
    )
    result = await onnx_minilm.embed(SENTENCES)
    assert len(result) == len(SENTENCES)
    assert all(len(vector) == 384 and isinstance(vector[0], float) for vector in result)


async def test_no_texts_no_vectors(onnx_minilm: OnnxMiniLmEmbedder) -> None:
    assert await onnx_minilm.embed([]) == []


@pytest.fixture(scope="module")
def varied_vectors(onnx_minilm: OnnxMiniLmEmbedder) -> np.ndarray:
    return onnx_minilm.embed_sync(VARIED)


def test_the_same_vectors_as_the_numpy_pass(
    varied_vectors: np.ndarray, minilm: MiniLmEmbedder
) -> None:
    # Measured: max |difference| ~3e-7 over 394 LoCoMo sentences (docs/benchmarks.md).
    numpy_vectors = minilm.embed_sync(VARIED)
    np.testing.assert_allclose(varied_vectors, numpy_vectors, atol=2e-6)
    assert np.min(np.sum(varied_vectors * numpy_vectors, axis=1)) > 0.99999


def test_agrees_with_a_naive_token_by_token_reference(onnx_minilm: OnnxMiniLmEmbedder) -> None:
    reference = NaiveMiniLm(bundled_model_dir())
    sentences = ["A man is eating food.", "Forget means gone from every index.", "ok"]
    expected = np.array([reference.embed(sentence) for sentence in sentences])
    np.testing.assert_allclose(onnx_minilm.embed_sync(sentences), expected, atol=1e-4)


def test_vectors_are_unit_length(varied_vectors: np.ndarray) -> None:
    norms = np.linalg.norm(varied_vectors, axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)


def test_batch_equals_one_by_one(
    onnx_minilm: OnnxMiniLmEmbedder, varied_vectors: np.ndarray
) -> None:
    singles = np.array([onnx_minilm.embed_sync([text])[0] for text in VARIED])
    np.testing.assert_allclose(varied_vectors, singles, atol=1e-5)


def test_order_is_kept_across_several_batches(onnx_minilm: OnnxMiniLmEmbedder) -> None:
    texts = [f"note {i}: " + "detail " * (i % 17) for i in range(150)]
    batched = onnx_minilm.embed_sync(texts)
    for index in (0, 16, 77, 149):
        np.testing.assert_allclose(
            batched[index], onnx_minilm.embed_sync([texts[index]])[0], atol=1e-5
        )


async def test_concurrent_callers_get_their_own_answers(onnx_minilm: OnnxMiniLmEmbedder) -> None:
    expected = onnx_minilm.embed_sync(SENTENCES)
    results = await asyncio.gather(*(onnx_minilm.embed([text]) for text in SENTENCES))
    np.testing.assert_allclose([r[0] for r in results], expected, atol=1e-5)


@pytest.mark.parametrize(("anchor", "paraphrase", "unrelated"), PARAPHRASES)
def test_a_paraphrase_is_closer_than_an_unrelated_sentence(
    onnx_minilm: OnnxMiniLmEmbedder, anchor: str, paraphrase: str, unrelated: str
) -> None:
    a, p, u = onnx_minilm.embed_sync([anchor, paraphrase, unrelated])
    assert a @ p > 0.5
    assert a @ p > a @ u + 0.3


@pytest.mark.parametrize("threads", [1, 2, 0])
def test_thread_settings_reach_the_session_and_keep_the_vectors(
    onnx_cache_dir: Path, onnx_minilm: OnnxMiniLmEmbedder, threads: int
) -> None:
    options = session_options(threads)
    assert (options.intra_op_num_threads, options.inter_op_num_threads) == (threads, 1)
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    embedder = OnnxMiniLmEmbedder(onnx_cache_dir, threads=threads)
    np.testing.assert_allclose(
        embedder.embed_sync(SENTENCES), onnx_minilm.embed_sync(SENTENCES), atol=1e-5
    )


def test_building_and_loading_never_touch_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the embedder tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    built = OnnxMiniLmEmbedder(tmp_path)  # an empty cache: the graph is built here
    loaded = OnnxMiniLmEmbedder(tmp_path)
    assert built.embed_sync(["offline"]).shape == loaded.embed_sync(["offline"]).shape == (1, 384)
