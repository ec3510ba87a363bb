"""A learned sparse reranker (SPLADE) from weights a registry package ships: its encoder
in onnxruntime (`splade_onnx_graph`), the vocabulary projection and the rest in NumPy.

SPLADE reads a text with BERT and its masked-language-model head, and keeps for each word
of the vocabulary the most any token predicts it: log(1 + relu(logit)), max over tokens.
The query's vector names its words and the words it implies ("instruments" -> guitar,
strings, music); a candidate's relevance is the dot product of the two vectors. Only the
query's strongest `query_terms` words are kept, so a candidate's head is computed for those
columns alone (the full vocabulary projection is what costs: 30,522 columns per token).

A candidate's vector does not depend on the query: `document_terms` computes it once, when
a memory is indexed (its strongest `document_terms` words), and recall reads the query
once (`read_query`, its encoder pass) and weighs it on the words the candidates kept
(`splade_query`); `score` stays for candidates that have none.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from memhive_ports import DocumentTerms
from tokenizers import Tokenizer

from memhive_adapters.embedding.blas_threads import blas_threads
from memhive_adapters.embedding.word_pieces import pad
from memhive_adapters.rerank.splade_onnx_graph import head_input, open_head_input_session
from memhive_adapters.rerank.splade_query import SpladeQuery, log1p_of_positive
from memhive_adapters.rerank.splade_weights import MaskedLmHead, load_splade_weights

MAX_TOKENS = 128  # a candidate is read up to here (a turn of chat fits; the start of a page)
# Cut before tokenizing, which reads the whole text before it truncates (a body may be
# 128 KiB): ordinary words reach 128 word pieces long before this many characters.
MAX_CHARS = 16 * MAX_TOKENS
QUERY_TERMS = 64  # the query's strongest vocabulary words kept for scoring
DOCUMENT_TERMS = 256  # a document's strongest words kept with it (docs/benchmarks.md)
BATCH = 16  # candidates per forward pass


class SpladeReranker:
    """Reranker and TermWeights over a SPLADE checkpoint (`model.safetensors`,
    `config.json`, `tokenizer.json` in `model_dir`), from local files only. The forward
    pass runs in a worker thread; callers take turns (an option, off the default path: its
    passes were not measured side by side as the embedder's were)."""

    def __init__(
        self,
        model_dir: Path,
        *,
        max_tokens: int = MAX_TOKENS,
        query_terms: int = QUERY_TERMS,
        document_terms: int = DOCUMENT_TERMS,
        threads: int = 1,
    ) -> None:
        self._weights = load_splade_weights(model_dir)
        self._session = open_head_input_session(self._weights, threads)
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._query_terms, self._threads = query_terms, threads
        self._document_terms = document_terms
        self._name = f"splade:{model_dir.name}"
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self._name

    async def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        return await asyncio.to_thread(self.score_sync, query, texts)

    def score_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        query_ids, *ids = self._token_ids((query, *texts))
        scores = np.zeros(len(ids), dtype=np.float32)
        with self._lock, blas_threads(self._threads):
            terms, weights = self._query_vector(query_ids)
            if terms.size == 0:
                return scores.astype(float).tolist()
            for batch in _by_length(ids, BATCH):
                scores[batch] = self._activations([ids[i] for i in batch], terms) @ weights
        return scores.astype(float).tolist()

    async def document_terms(self, texts: Sequence[str]) -> list[DocumentTerms]:
        if not texts:
            return []
        return await asyncio.to_thread(self.document_terms_sync, texts)

    def document_terms_sync(self, texts: Sequence[str]) -> list[DocumentTerms]:
        """Each text's strongest `document_terms` words over the whole vocabulary."""
        ids = self._token_ids(texts)
        found: list[DocumentTerms | None] = [None] * len(ids)
        with self._lock, blas_threads(self._threads):
            for batch in _by_length(ids, BATCH):
                vectors = self._activations([ids[i] for i in batch], None)
                for i, vector in zip(batch, vectors, strict=True):
                    found[i] = _terms(*self._strongest(vector, self._document_terms))
        return [t for t in found if t is not None]

    async def query_terms(self, text: str) -> DocumentTerms:
        return await asyncio.to_thread(self.query_terms_sync, text)

    def query_terms_sync(self, text: str) -> DocumentTerms:
        """The query's strongest `query_terms` words, as `score` weighs them."""
        (ids,) = self._token_ids([text])
        with self._lock, blas_threads(self._threads):
            return _terms(*self._query_vector(ids))

    async def read_query(self, text: str) -> SpladeQuery:
        return await asyncio.to_thread(self.read_query_sync, text)

    def read_query_sync(self, text: str) -> SpladeQuery:
        """The query's encoder pass; its weights on given words come after, from those
        words' columns alone (`SpladeQuery.weights_of`)."""
        (ids,) = self._token_ids([text])
        padded, mask = pad([ids])
        with self._lock:
            tokens = head_input(self._session, padded, mask)[0]
        head = self._weights.head
        embeddings = self._weights.encoder.word_embeddings
        return SpladeQuery(tokens, embeddings, head.vocabulary_bias, self._lock, self._threads)

    def _query_vector(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        return self._strongest(self._activations([ids], None)[0], self._query_terms)

    def _token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._tokenizer.encode_batch([t[:MAX_CHARS] for t in texts])]

    @staticmethod
    def _strongest(vector: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The `count` strongest words (vocabulary ids) and their weights, zeros left out:
        only the positive words are sorted (a few dozen of 30,522), ties by word id."""
        positive = np.flatnonzero(vector > 0)
        kept = positive[np.argsort(-vector[positive], kind="stable")[:count]]
        return kept, vector[kept]

    def _activations(self, sequences: Sequence[Sequence[int]], terms: np.ndarray | None):
        """(batch, words): max over real tokens of log(1 + relu(logit)) for `terms` (all
        of the vocabulary when None)."""
        padded, mask = pad(sequences)
        transformed, head = head_input(self._session, padded, mask), self._weights.head
        if terms is None:
            return _whole_vocabulary(head, transformed, mask)
        logits = transformed @ head.vocabulary[:, terms] + head.vocabulary_bias[terms]
        activated = np.log1p(np.maximum(logits, 0.0)) * mask[:, :, None]
        return activated.max(axis=1)


def _by_length(ids: Sequence[Sequence[int]], size: int) -> list[list[int]]:
    """Positions batched by length, so a batch pads little; results go back by position."""
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    return [order[start : start + size] for start in range(0, len(order), size)]


def _terms(word_ids: np.ndarray, weights: np.ndarray) -> DocumentTerms:
    return DocumentTerms(tuple(word_ids.tolist()), tuple(weights.astype(float).tolist()))


def _whole_vocabulary(head: MaskedLmHead, transformed: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(batch, vocabulary) activations. A text at a time, and the max over its real tokens
    taken before the bias and log(1 + relu), which all rise with the logit (the same
    result): its tokens x 30,522 logits are reduced as they come, never held for a batch
    nor run through log1p (half the cost of a memory's terms, measured)."""
    strongest = np.stack(
        [(transformed[i, mask[i] > 0] @ head.vocabulary).max(axis=0) for i in range(len(mask))]
    )
    strongest += head.vocabulary_bias
    return log1p_of_positive(strongest)
