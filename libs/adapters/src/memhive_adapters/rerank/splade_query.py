"""A query read by SPLADE once (its encoder pass), then weighed on the words a recall's
candidates hold, and on those alone: a candidate's score is the dot of the query's vector
with its stored terms, so only the query's weight on their words counts. The logits for a
few thousand words instead of 30,522 (docs/benchmarks.md, "The option's cost on both
sides"); each weight is the one the whole-vocabulary vector gives that word."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Collection

import numpy as np
from memhive_ports import DocumentTerms

from memhive_adapters.embedding.blas_threads import blas_threads


class SpladeQuery:
    """QueryTerms over one query's tokens as the masked-LM head reads them (tokens, width),
    the word embeddings (vocabulary, width) and the head's bias (vocabulary,)."""

    def __init__(
        self,
        tokens: np.ndarray,
        embeddings: np.ndarray,
        bias: np.ndarray,
        lock: threading.Lock,
        threads: int,
    ) -> None:
        self._tokens, self._embeddings, self._bias = tokens, embeddings, bias
        self._lock, self._threads = lock, threads

    async def weights_of(self, word_ids: Collection[int]) -> DocumentTerms:
        return await asyncio.to_thread(self.weights_of_sync, word_ids)

    def weights_of_sync(self, word_ids: Collection[int]) -> DocumentTerms:
        """The query's positive weights among `word_ids` (ids outside the vocabulary have
        none), by word id."""
        words = np.array(sorted(set(word_ids)), dtype=np.int64)
        words = words[(words >= 0) & (words < len(self._bias))]
        with self._lock, blas_threads(self._threads):
            weights = weights_on(self._tokens, self._embeddings, self._bias, words)
        positive = weights > 0
        return DocumentTerms(
            tuple(words[positive].tolist()), tuple(weights[positive].astype(float).tolist())
        )


def weights_on(
    tokens: np.ndarray, embeddings: np.ndarray, bias: np.ndarray, words: np.ndarray
) -> np.ndarray:
    """log(1 + relu(max over tokens of each word's logit)) for `words` alone: only their
    rows of the embeddings are read (tokens x len(words) multiply-adds)."""
    logits = (embeddings[words] @ tokens.T).max(axis=1, initial=-np.inf) + bias[words]
    return log1p_of_positive(logits)


def log1p_of_positive(logits: np.ndarray) -> np.ndarray:
    """log(1 + relu(logits)), the logarithm taken only where a logit is positive: a text's
    positive words are a few dozen of 30,522, and every other word is 0 either way."""
    activated = np.zeros_like(logits)
    positive = logits > 0
    activated[positive] = np.log1p(logits[positive])
    return activated
