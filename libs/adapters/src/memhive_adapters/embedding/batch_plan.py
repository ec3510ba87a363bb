"""Mini-batches of similar length, so padding to the longest in a batch wastes little work."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

MAX_BATCH = 64
# Padded tokens per forward pass: 64 texts of 128 pieces; keeps attention scores near 50 MB.
MAX_BATCH_TOKENS = 64 * 128


def plan_batches(lengths: Sequence[int], max_batch: int, max_tokens: int) -> list[list[int]]:
    """Indices into `lengths`, longest first, cut into batches of at most `max_batch` items
    whose padded size (items × longest) stays within `max_tokens`; never an empty batch."""
    order = sorted(range(len(lengths)), key=lambda index: -lengths[index])
    batches: list[list[int]] = []
    for index in order:
        if batches and _fits(batches[-1], lengths, max_batch, max_tokens):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def _fits(batch: list[int], lengths: Sequence[int], max_batch: int, max_tokens: int) -> bool:
    # Longest first, so the batch's first item fixes its padded length.
    return len(batch) < max_batch and (len(batch) + 1) * lengths[batch[0]] <= max_tokens


def embed_in_batches(
    sequences: Sequence[Sequence[int]],
    width: int,
    embed_batch: Callable[[list[Sequence[int]]], np.ndarray],
) -> np.ndarray:
    """(len(sequences), width) float32 rows in input order, `embed_batch` called once per
    planned mini-batch (MAX_BATCH, MAX_BATCH_TOKENS)."""
    vectors = np.empty((len(sequences), width), dtype=np.float32)
    for batch in plan_batches([len(seq) for seq in sequences], MAX_BATCH, MAX_BATCH_TOKENS):
        vectors[batch] = embed_batch([sequences[index] for index in batch])
    return vectors
