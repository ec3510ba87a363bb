"""A text as weighted vocabulary words (a learned sparse encoder's output), kept with a
memory when it is indexed so that recall's reranker reads it instead of the body."""

from __future__ import annotations

from collections.abc import Collection, Sequence
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


class QueryTerms(Protocol):
    """A query read by the model once (its encoder pass), weighed on given words after:
    a dot with a document's terms needs the query's weight on the document's words only,
    so a recall asks for its candidates' words alone."""

    async def weights_of(self, word_ids: Collection[int]) -> DocumentTerms:
        """The query's weights (> 0) among these words, as its whole vector holds them."""
        ...


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

    async def read_query(self, text: str) -> QueryTerms:
        """The query read by the model, to be weighed on its candidates' words."""
        ...
