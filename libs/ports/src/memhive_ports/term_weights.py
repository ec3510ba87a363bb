"""A text as weighted vocabulary words (a learned sparse encoder's output), kept with a
memory when it is indexed so that recall's reranker reads it instead of the body."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class DocumentTerms:
    """Vocabulary word ids and their weights (> 0), the same length, strongest first."""

    word_ids: tuple[int, ...]
    weights: tuple[float, ...]

    def dot(self, other: DocumentTerms) -> float:
        """The sparse dot product: the sum over the word ids both hold."""
        mine = dict(zip(self.word_ids, self.weights, strict=True))
        theirs = zip(other.word_ids, other.weights, strict=True)
        return sum(w * mine[i] for i, w in theirs if i in mine)


class TermWeights(Protocol):
    """Texts as weighted vocabulary words, the query side and the document side of one
    model: a query's terms dotted with a document's score it as the model's reranker would
    (within the loss of keeping only the strongest words). `model_name` names the model;
    terms of two models never meet."""

    @property
    def model_name(self) -> str: ...

    async def document_terms(self, texts: Sequence[str]) -> list[DocumentTerms]:
        """One per text, in order: each text's strongest words (a fixed number at most)."""
        ...

    async def query_terms(self, text: str) -> DocumentTerms:
        """The query's strongest words."""
        ...
