"""MiniLmEmbedder on the real bundled model: geometry, batching, semantics, a naive reference."""

from __future__ import annotations

import asyncio
import socket

import numpy as np
import pytest
from memhive_adapters.embedding.minilm import MiniLmEmbedder, bundled_model_dir
from memhive_adapters.embedding.word_pieces import load_word_piece_tokenizer

from tests.integration.embedding.naive_bert import NaiveMiniLm

SENTENCES = [
    "The deploy failed because the database migration timed out.",
    "Use uv, never pip, to add dependencies to this repository.",
    "Alice prefers short answers with code first.",
    "ok",
    "",
    "The staging cluster runs three NATS servers behind one load balancer in eu-west-1, "
    "and every service reads its configuration from environment variables with a MEMHIVE_ prefix.",
    "Ünïcödé, emoji 🚀 and punctuation!?!",
]

PARAPHRASES = [
    ("The cat sat on the mat.", "A cat was sitting on the rug.", "Quarterly revenue grew by 8%."),
    (
        "How do I reset my password?",
        "I forgot my password and need to change it.",
        "The train to Lyon leaves at noon.",
    ),
    (
        "The build broke after upgrading numpy.",
        "Upgrading numpy caused the build to fail.",
        "She planted tomatoes in the garden.",
    ),
    (
        "The meeting moved to Thursday afternoon.",
        "We rescheduled the meeting for Thursday after lunch.",
        "Penguins live in the southern hemisphere.",
    ),
]


async def test_names_and_shape(minilm: MiniLmEmbedder) -> None:
    result = await minilm.embed(SENTENCES)
    assert (minilm.model_name, minilm.dimensions) == ("all-MiniLM-L6-v2", 384)
    assert len(result) == len(SENTENCES)
    assert all(len(vector) == 384 and isinstance(vector[0], float) for vector in result)


async def test_vectors_are_unit_length(minilm: MiniLmEmbedder) -> None:
    norms = np.linalg.norm(np.array(await minilm.embed(SENTENCES)), axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)


async def test_no_texts_no_vectors(minilm: MiniLmEmbedder) -> None:
    assert await minilm.embed([]) == []


async def test_batch_equals_one_by_one(minilm: MiniLmEmbedder) -> None:
    batched = np.array(await minilm.embed(SENTENCES))
    singles = np.array([(await minilm.embed([text]))[0] for text in SENTENCES])
    np.testing.assert_allclose(batched, singles, atol=1e-5)


async def test_deterministic_across_calls(minilm: MiniLmEmbedder) -> None:
    first, second = await minilm.embed(SENTENCES), await minilm.embed(SENTENCES)
    np.testing.assert_allclose(first, second, atol=1e-6)


async def test_padding_does_not_change_a_short_text(minilm: MiniLmEmbedder) -> None:
    short = "Alice prefers short answers with code first."
    alone = (await minilm.embed([short]))[0]
    beside_long = (await minilm.embed([short, "word " * 200]))[0]
    np.testing.assert_allclose(alone, beside_long, atol=1e-5)


async def test_order_is_kept_when_batches_are_sorted_by_length(minilm: MiniLmEmbedder) -> None:
    texts = [f"note {i}: " + "detail " * (i % 17) for i in range(150)]  # more than one batch
    batched = np.array(await minilm.embed(texts))
    for index in (0, 16, 77, 149):
        np.testing.assert_allclose(
            batched[index], (await minilm.embed([texts[index]]))[0], atol=1e-5
        )


async def test_long_texts_are_truncated_to_the_model_window(minilm: MiniLmEmbedder) -> None:
    head = "memhive keeps shared memories for agents. " * 60  # well past 256 word pieces
    a, b = await minilm.embed([head, head + " and then something else entirely " * 20])
    np.testing.assert_allclose(a, b, atol=1e-5)


async def test_concurrent_callers_get_their_own_answers(minilm: MiniLmEmbedder) -> None:
    expected = [(await minilm.embed([text]))[0] for text in SENTENCES]
    results = await asyncio.gather(*(minilm.embed([text]) for text in SENTENCES))
    np.testing.assert_allclose([r[0] for r in results], expected, atol=1e-5)


@pytest.mark.parametrize(("anchor", "paraphrase", "unrelated"), PARAPHRASES)
async def test_a_paraphrase_is_closer_than_an_unrelated_sentence(
    minilm: MiniLmEmbedder, anchor: str, paraphrase: str, unrelated: str
) -> None:
    a, p, u = np.array(await minilm.embed([anchor, paraphrase, unrelated]))
    assert a @ p > 0.5
    assert a @ p > a @ u + 0.3


def test_agrees_with_a_naive_token_by_token_reference(minilm: MiniLmEmbedder) -> None:
    reference = NaiveMiniLm(bundled_model_dir())
    sentences = ["A man is eating food.", "Forget means gone from every index.", "ok"]
    expected = np.array([reference.embed(sentence) for sentence in sentences])
    np.testing.assert_allclose(minilm.embed_sync(sentences), expected, atol=1e-4)


def test_tokenizer_round_trip() -> None:
    tokenizer = load_word_piece_tokenizer(bundled_model_dir())
    encoding = tokenizer.encode("Memhive recalls memories, scoped to the right place.")
    assert encoding.tokens[0] == "[CLS]" and encoding.tokens[-1] == "[SEP]"
    assert tokenizer.decode(encoding.ids) == "memhive recalls memories, scoped to the right place."
    assert len(tokenizer.encode("word " * 1000).ids) == 256


def test_loading_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the embedder tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    embedder = MiniLmEmbedder(threads=1)
    assert embedder.embed_sync(["offline"]).shape == (1, 384)
