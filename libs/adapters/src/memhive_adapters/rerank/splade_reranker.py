"""A learned sparse reranker (SPLADE) run in NumPy from weights a registry package ships.

SPLADE reads a text with BERT and its masked-language-model head, and keeps for each word
of the vocabulary the most any token predicts it: log(1 + relu(logit)), max over tokens.
The query's vector names its words and the words it implies ("instruments" -> guitar,
strings, music); a candidate's relevance is the dot product of the two vectors. Only the
query's strongest `query_terms` words are kept, so a candidate's head is computed for those
columns alone (the full vocabulary projection is what costs: 30,522 columns per token).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from memhive_adapters.embedding.activations import gelu, layer_norm
from memhive_adapters.embedding.bert_encoder import encode
from memhive_adapters.embedding.blas_threads import blas_threads
from memhive_adapters.embedding.word_pieces import pad
from memhive_adapters.rerank.splade_weights import SpladeWeights, load_splade_weights

MAX_TOKENS = 128  # a candidate is read up to here (a turn of chat fits; the start of a page)
# Cut before tokenizing, which reads the whole text before it truncates (a body may be
# 128 KiB): ordinary words reach 128 word pieces long before this many characters.
MAX_CHARS = 16 * MAX_TOKENS
QUERY_TERMS = 64  # the query's strongest vocabulary words kept for scoring
BATCH = 16  # candidates per forward pass


class SpladeReranker:
    """Reranker over a SPLADE checkpoint (`model.safetensors`, `config.json`,
    `tokenizer.json` in `model_dir`), from local files only. The forward pass runs in a
    worker thread; callers take turns, as the embedder's do."""

    def __init__(
        self,
        model_dir: Path,
        *,
        max_tokens: int = MAX_TOKENS,
        query_terms: int = QUERY_TERMS,
        threads: int = 1,
    ) -> None:
        self._weights = load_splade_weights(model_dir)
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._query_terms, self._threads = query_terms, threads
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
        cut = [text[:MAX_CHARS] for text in (query, *texts)]
        query_ids, *ids = [e.ids for e in self._tokenizer.encode_batch(cut)]
        # Batched by length, so a batch pads little; scores go back in the texts' order.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        scores = np.zeros(len(ids), dtype=np.float32)
        with self._lock, blas_threads(self._threads):
            terms, weights = self._query_vector(query_ids)
            if terms.size == 0:
                return scores.astype(float).tolist()
            for start in range(0, len(order), BATCH):
                batch = order[start : start + BATCH]
                scores[batch] = self._activations([ids[i] for i in batch], terms) @ weights
        return scores.astype(float).tolist()

    def _query_vector(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The query's strongest words (vocabulary ids) and their weights, zeros left out."""
        vector = self._activations([ids], None)[0]
        strongest = np.argsort(-vector)[: self._query_terms]
        kept = strongest[vector[strongest] > 0]
        return kept, vector[kept]

    def _activations(self, sequences: Sequence[Sequence[int]], terms: np.ndarray | None):
        """(batch, words): max over real tokens of log(1 + relu(logit)) for `terms` (all
        of the vocabulary when None)."""
        padded, mask = pad(sequences)
        hidden = encode(self._weights.encoder, padded, mask)
        logits = _head_logits(self._weights, hidden, terms)
        activated = np.log1p(np.maximum(logits, 0.0)) * mask[:, :, None]
        return activated.max(axis=1)


def _head_logits(weights: SpladeWeights, hidden: np.ndarray, terms: np.ndarray | None):
    head = weights.head
    eps = weights.encoder.layer_norm_eps
    transformed = layer_norm(
        gelu(hidden @ head.transform + head.transform_bias), head.norm_scale, head.norm_shift, eps
    )
    if terms is None:
        return transformed @ head.vocabulary + head.vocabulary_bias
    return transformed @ head.vocabulary[:, terms] + head.vocabulary_bias[terms]
