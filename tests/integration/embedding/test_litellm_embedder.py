"""LiteLlmEmbedder against a real OpenAI-compatible HTTP server on loopback."""

from __future__ import annotations

import numpy as np
import pytest
from memhive_adapters.embedding.litellm_embedder import EmbeddingDimensionError, LiteLlmEmbedder

from tests.integration.embedding.openai_compatible_server import (
    raw_vector,
    running_embedding_server,
)

TEXTS = ["first memory", "a second, longer memory body", "3"]


async def test_vectors_come_back_normalised_and_in_input_order() -> None:
    async with running_embedding_server(dimensions=8) as server:
        embedder = LiteLlmEmbedder("openai/test-embedder", 8, server.url, "sk-test")
        vectors = np.array(await embedder.embed(TEXTS))
    expected = np.array([raw_vector(text, 8) for text in TEXTS])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert (embedder.model_name, embedder.dimensions) == ("openai/test-embedder", 8)


async def test_the_request_carries_the_model_texts_and_key() -> None:
    async with running_embedding_server(dimensions=4) as server:
        await LiteLlmEmbedder("openai/test-embedder", 4, server.url, "sk-test").embed(TEXTS)
    assert [request["input"] for request in server.requests] == [TEXTS]
    assert server.requests[0]["model"] == "test-embedder"
    assert server.authorizations == ["Bearer sk-test"]


async def test_a_wrong_dimension_is_a_clear_error() -> None:
    async with running_embedding_server(dimensions=5) as server:
        embedder = LiteLlmEmbedder("openai/test-embedder", 384, server.url, "sk-test")
        with pytest.raises(EmbeddingDimensionError, match=r"\[5\] dimensions.*384"):
            await embedder.embed(TEXTS)


async def test_no_texts_make_no_request() -> None:
    async with running_embedding_server(dimensions=4) as server:
        assert await LiteLlmEmbedder("openai/x", 4, server.url, "sk-test").embed([]) == []
    assert server.requests == []
