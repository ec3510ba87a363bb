"""The reranker's score of each candidate of one recall (docs/architecture.md, "Recall")."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from memhive_domain.memory import Memory
from memhive_ports import DocumentTerms, QueryTerms, Reranker, TermWeights, VectorIndex


class RerankScores:
    """Each candidate scored once per recall, over both passes: where the vector lane keeps
    the candidate's document terms, their dot product with the query's weights on those
    words (the query read by the model once, from `start` on, beside the lanes' searches;
    weighed on the candidates' words alone; the terms read from the lane in one call);
    where it keeps none (indexed before the option was on, a lane rebuilt without it), the
    reranker reads the body. Both give the same scores within the terms kept and their
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
        self._reading: asyncio.Future[QueryTerms] | None = None
        self._query_weights: dict[int, float] = {}  # the words weighed so far (0: none)
        self._scores: dict[str, float] = {}

    def start(self) -> None:
        """The query's model pass begins now, in a worker thread, while the lanes search;
        `close` ends what a recall did not wait for."""
        if self._terms is not None and self._reading is None:
            self._reading = asyncio.ensure_future(self._terms.read_query(self._query))

    def close(self) -> None:
        if self._reading is None:
            return
        if not self._reading.done():
            self._reading.cancel()
        elif not self._reading.cancelled():
            self._reading.exception()  # a failure nobody waited for is not logged as lost

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
        self.start()
        stored = await self._vector.document_terms(self._workspace_id, ids)
        if stored:
            await self._weigh({w for terms in stored.values() for w in terms.word_ids})
        return {i: self._dot(terms) for i, terms in stored.items()}

    async def _weigh(self, words: set[int]) -> None:
        """The query's weights on these words, those not weighed yet (a recall's second
        pass brings new candidates, most of their words already weighed)."""
        new = words.difference(self._query_weights)
        if not new:
            return
        assert self._reading is not None
        weighed = await (await self._reading).weights_of(new)
        self._query_weights.update(dict.fromkeys(new, 0.0))
        self._query_weights.update(zip(weighed.word_ids, weighed.weights, strict=True))

    def _dot(self, terms: DocumentTerms) -> float:
        weights = self._query_weights
        return sum(w * weights[i] for i, w in zip(terms.word_ids, terms.weights, strict=True))
