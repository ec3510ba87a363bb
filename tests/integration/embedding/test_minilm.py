"""The bundled MiniLM embedder, loaded offline, checked without torch."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from memhive_adapters.embedding.minilm import MiniLmEmbedder, bundled_model_dir
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "The iOS app targets Swift 6",
    "We deploy the web app every Friday after the standup",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
]


@pytest.fixture(scope="module")
def embedder() -> MiniLmEmbedder:
    return MiniLmEmbedder()


def _naive_embedding(text: str) -> np.ndarray:
    """The same model computed the plainest way: one sentence, float64, math.erf, no padding."""
    model = bundled_model_dir()
    w = {k: v.astype(np.float64) for k, v in load_file(str(model / "model.safetensors")).items()}
    config = json.loads((model / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.no_padding()  # the bundled tokenizer.json pads to a fixed length by default
    ids = tokenizer.encode(text).ids
    eps, heads = config["layer_norm_eps"], config["num_attention_heads"]

    def norm(x, p):
        return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * w[
            p + "weight"
        ] + w[p + "bias"]

    def dense(x, p):
        return x @ w[p + "weight"].T + w[p + "bias"]

    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][: len(ids)]
    )
    x = norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm.")
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        size = x.shape[1] // heads
        heads_out = []
        for h in range(heads):
            cols = slice(h * size, (h + 1) * size)
            q, k, v = (
                dense(x, p + f"attention.self.{n}.")[:, cols] for n in ("query", "key", "value")
            )
            scores = q @ k.T / math.sqrt(size)
            probs = np.exp(scores - scores.max(1, keepdims=True))
            heads_out.append(probs / probs.sum(1, keepdims=True) @ v)
        x = norm(
            x + dense(np.concatenate(heads_out, 1), p + "attention.output.dense."),
            p + "attention.output.LayerNorm.",
        )
        x = norm(
            x + dense(gelu(dense(x, p + "intermediate.dense.")), p + "output.dense."),
            p + "output.LayerNorm.",
        )
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def test_matches_a_naive_reference_implementation(embedder: MiniLmEmbedder) -> None:
    fast = embedder.embed_sync(SENTENCES)
    for row, text in enumerate(SENTENCES):
        np.testing.assert_allclose(fast[row], _naive_embedding(text), atol=1e-4)


async def test_vectors_are_unit_length_and_of_the_declared_size(embedder: MiniLmEmbedder) -> None:
    vectors = np.array(await embedder.embed(SENTENCES))
    assert vectors.shape == (len(SENTENCES), embedder.dimensions) == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


async def test_a_batch_equals_one_by_one_whatever_the_padding(embedder: MiniLmEmbedder) -> None:
    texts = [*SENTENCES, "ok", "a much longer sentence " * 20]
    batch = np.array(await embedder.embed(texts))
    singles = np.array([(await embedder.embed([t]))[0] for t in texts])
    np.testing.assert_allclose(batch, singles, atol=1e-5)


@pytest.mark.parametrize(
    ("query", "paraphrase", "unrelated"),
    [
        (
            "Which Swift version does the iPhone app use?",
            "The iOS app targets Swift 6",
            "We deploy the web app every Friday",
        ),
        (
            "Who owns the billing service?",
            "The payments team is responsible for billing",
            "The iOS app targets Swift 6",
        ),
        (
            "How often do we release?",
            "We ship a new version every two weeks",
            "Alice prefers tabs over spaces",
        ),
    ],
)
def test_paraphrases_are_closer_than_unrelated_sentences(
    embedder, query, paraphrase, unrelated
) -> None:
    q, p, u = embedder.embed_sync([query, paraphrase, unrelated])
    assert q @ p > q @ u + 0.2


def test_long_inputs_are_truncated_not_rejected(embedder: MiniLmEmbedder) -> None:
    vector = embedder.embed_sync(["word " * 5000])[0]
    assert np.isfinite(vector).all()
