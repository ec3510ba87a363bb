"""BERT word pieces from a `tokenizer.json`, truncated like sentence-transformers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer


def load_word_piece_tokenizer(model_dir: Path) -> Tokenizer:
    """The model's tokenizer: no padding (we pad per mini-batch), truncated to the model's
    `max_seq_length` from `sentence_bert_config.json`, special tokens included."""
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_sequence_length(model_dir))
    return tokenizer


def max_sequence_length(model_dir: Path) -> int:
    config = json.loads((model_dir / "sentence_bert_config.json").read_text())
    return int(config["max_seq_length"])


def token_ids(tokenizer: Tokenizer, texts: Sequence[str]) -> list[list[int]]:
    return [encoding.ids for encoding in tokenizer.encode_batch(list(texts))]


def token_ids_on_this_thread(tokenizer: Tokenizer, texts: Sequence[str]) -> list[list[int]]:
    """As `token_ids`, without the tokenizers' shared thread pool: that pool's threads are
    created by its first user and keep that thread's priority, so a thread at low priority
    (embed's backlog) must never be the one to start it."""
    return [tokenizer.encode(text).ids for text in texts]


def pad(sequences: Sequence[Sequence[int]], pad_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Ids (batch, longest) right-padded with `pad_id`, and the mask of real tokens."""
    longest = max(len(sequence) for sequence in sequences)
    ids = np.full((len(sequences), longest), pad_id, dtype=np.int64)
    mask = np.zeros((len(sequences), longest), dtype=np.int64)
    for row, sequence in enumerate(sequences):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = 1
    return ids, mask
