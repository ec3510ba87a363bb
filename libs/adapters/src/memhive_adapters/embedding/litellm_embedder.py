"""Remote embedding providers (OpenAI, Ollama, TEI, vLLM, any OpenAI-compatible server)
through litellm."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memhive_adapters.embedding.pooling import l2_normalise
from memhive_adapters.llm.litellm_module import import_litellm


class EmbeddingDimensionError(ValueError):
    """The provider answered with vectors of another size than the one configured."""


class LiteLlmEmbedder:
    """Embedder over `litellm.aembedding`; vectors are scaled to unit length here, since not
    every provider normalises. `model` is litellm's name ("openai/text-embedding-3-small",
    "ollama/nomic-embed-text"), `dimensions` what the model returns (the index is sized by it).
    """

    def __init__(
        self,
        model: str,
        dimensions: int,
        api_base: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self._model, self._dimensions = model, dimensions
        self._api_base, self._api_key = api_base, api_key
        self._litellm = import_litellm()

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        response = await self._litellm.aembedding(
            model=self._model, input=list(texts), api_base=self._api_base, api_key=self._api_key
        )
        vectors = _vectors_in_input_order(response.data, len(texts))
        self._check_dimensions(vectors)
        return l2_normalise(np.asarray(vectors, dtype=np.float32)).tolist()

    def _check_dimensions(self, vectors: list[list[float]]) -> None:
        sizes = {len(vector) for vector in vectors}
        if sizes != {self._dimensions}:
            raise EmbeddingDimensionError(
                f"{self._model} returned vectors of {sorted(sizes)} dimensions, "
                f"configured for {self._dimensions}: set the embedding dimensions to match "
                "the model (and reindex), or choose another model"
            )


def _vectors_in_input_order(data: list[Any], expected: int) -> list[list[float]]:
    # The OpenAI API gives each item its input index; order is not promised otherwise.
    items = sorted(data, key=lambda item: item["index"])
    if [item["index"] for item in items] != list(range(expected)):
        raise ValueError(f"provider returned {len(items)} embeddings for {expected} inputs")
    return [item["embedding"] for item in items]
