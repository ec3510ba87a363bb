from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


class ModelNotAvailable(FileNotFoundError):
    """A model the settings name cannot be loaded here (not installed, or not one this
    provider has): raised at start, its message says what to do."""


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


@runtime_checkable
class BackgroundEmbedder(Protocol):
    """An embedder that runs passes nobody is waiting on (embed's backlog) apart from the
    passes a caller waits on (a recall, a save waiting for `indexed`), so that a caller's
    never queues behind a backlog's batch."""

    async def embed_in_background(self, texts: Sequence[str]) -> list[list[float]]:
        """As `embed`."""
        ...


@runtime_checkable
class ReaderEmbedder(Protocol):
    """An embedder whose callers' passes take turns, and a reader's (a recall, which an
    agent waits on to go on) goes before the writers' waiting (saves, updates, imports):
    a burst of saves never holds a recall up for longer than a pass or two."""

    async def embed_for_reader(self, texts: Sequence[str]) -> list[list[float]]:
        """As `embed`."""
        ...


class EncodedVector(list[float]):
    """A vector that names the encoder it came from (an Embedder's `model_name`) and keeps
    the text it encodes, when known. Lanes that swap generations read both: a vector never
    meets the vectors of another encoder; the text is embedded again with theirs instead.
    To every other reader it is a plain list of floats."""

    __slots__ = ("encoder", "text")

    def __init__(self, values: Sequence[float], encoder: str, text: str | None = None) -> None:
        super().__init__(values)
        self.encoder = encoder
        self.text = text
