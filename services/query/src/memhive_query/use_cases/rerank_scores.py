"""The reranker's score of each candidate of one recall (docs/architecture.md, "Recall")."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from memhive_domain.memory import Memory
from memhive_ports import DocumentTerms, Reranker, TermWeights, VectorIndex


class RerankScores:
    """Each candidate scored once per recall, over both passes: where the vector lane keeps
    the candidate's document terms, their dot product with the query's terms (the query
    read by the model once, the candidates' terms read from the lane in one call); where it
    keeps none (indexed before the option was on, a lane rebuilt without it), the reranker
    reads the body. Both give the same scores within the terms kept and their
    quantisation, so what is stored changes the cost of a recall, not its answer."""

    def __init__(
        self,
        reranker: Reranker,
        terms: TermWeights | None,
        vector: VectorIndex,
        workspace_id: str,
        query: str,
    ) -> None:
        self._reranker, self._terms, self._vector = reranker, terms, vector
        self._workspace_id, self._query = workspace_id, query
        self._query_terms: DocumentTerms | None = None
        self._scores: dict[str, float] = {}

    async def of(self, candidates: Mapping[str, Memory]) -> dict[str, float]:
        """The scores of these candidates (only those the caller may get: a forgotten or
        hidden memory is never read to the model)."""
        new = [i for i in candidates if i not in self._scores]
        if new:
            stored = await self._from_stored_terms(new)
            rest = [i for i in new if i not in stored]
            bodies = [candidates[i].body for i in rest]
            read = await self._reranker.score(self._query, bodies) if rest else []
            self._scores.update(stored)
            self._scores.update(zip(rest, read, strict=True))
        return {i: self._scores[i] for i in candidates}

    async def _from_stored_terms(self, ids: Sequence[str]) -> dict[str, float]:
        if self._terms is None:
            return {}
        query_terms, stored = await asyncio.gather(
            self._query_terms_once(), self._vector.document_terms(self._workspace_id, ids)
        )
        return {i: terms.dot(query_terms) for i, terms in stored.items()}

    async def _query_terms_once(self) -> DocumentTerms:
        assert self._terms is not None
        if self._query_terms is None:
            self._query_terms = await self._terms.query_terms(self._query)
        return self._query_terms
