"""The optional all-mpnet-base-v2 against sentence-transformers' own vectors, from the five
registry packages that carry it (`make mpnet-model`): skipped where they are not installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.mpnet_parts import parts_missing
from memhive_adapters.embedding.onnx_minilm import MPNET, OnnxMiniLmEmbedder

if missing := parts_missing():
    pytest.skip(f"{missing}; make mpnet-model installs them", allow_module_level=True)

TEXTS = [
    "We moved the billing service to Postgres 16 last Tuesday.",
    "Melanie plays the clarinet and the violin.",
    "Who owns the release branch?",
]
# SentenceTransformer(all-mpnet-base-v2).encode(TEXTS, normalize_embeddings=True), torch
# 2.13 on the CPU: each vector's first six components, and the cosines between them.
LEADING = [
    [-0.006319, 0.074492, 0.015789, -0.042634, 0.06318, 0.028252],
    [-0.005432, -0.002937, -0.048594, 0.046436, 0.041312, -0.003252],
    [0.059955, 0.006545, -0.025264, -0.008046, -0.036876, -0.01055],
]
COSINES = [[1.0, -0.038079, 0.102987], [-0.038079, 1.0, -0.010306], [0.102987, -0.010306, 1.0]]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def mpnet(cache_dir: Path) -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(cache_dir, variant=MPNET)


def test_its_vectors_are_sentence_transformers(mpnet: OnnxMiniLmEmbedder) -> None:
    vectors = mpnet.embed_sync(TEXTS)
    assert vectors.shape == (3, 768)
    np.testing.assert_allclose(vectors[:, :6], LEADING, atol=2e-5)
    np.testing.assert_allclose(vectors @ vectors.T, COSINES, atol=2e-5)


def test_a_batch_gives_each_text_its_own_vector(mpnet: OnnxMiniLmEmbedder) -> None:
    """Padded to the longest and masked (positions never read the padding's ids): alone or
    together, the same."""
    together = mpnet.embed_sync(TEXTS)
    alone = np.concatenate([mpnet.embed_sync([text]) for text in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_it_is_named_for_the_lanes_it_builds_and_cached_once(
    mpnet: OnnxMiniLmEmbedder, cache_dir: Path
) -> None:
    assert (mpnet.model_name, mpnet.dimensions) == ("all-mpnet-base-v2", 768)
    cached = sorted(p.name for p in cache_dir.iterdir())
    assert len(cached) == 2 and all(name.startswith("all-mpnet-base-v2.") for name in cached)
    assert len([name for name in cached if name.endswith(".onnx")]) == 1  # and the weights
    again = OnnxMiniLmEmbedder(cache_dir, variant=MPNET)  # finds both: builds nothing
    assert sorted(p.name for p in cache_dir.iterdir()) == cached
    np.testing.assert_allclose(again.embed_sync(TEXTS[:1]), mpnet.embed_sync(TEXTS[:1]))
