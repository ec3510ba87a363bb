from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Turns texts into vectors of `dimensions` floats.

    Vectors are unit length, so cosine similarity is their dot product, in [-1, 1].
    `model_name` names the model and its version: vectors from different names never mix.
    """

    @property
    def model_name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order. Batches are faster per text than single calls."""
        ...
