"""MPNet's relative-position score bias: each head adds a learned value to the score of a
query token and a key token, by the bucket of their distance (T5's buckets, as Hugging Face's
MPNetEncoder computes them: exact up to 8 tokens, logarithmic to 128, each side apart)."""

from __future__ import annotations

import numpy as np

NUM_BUCKETS = 32
MAX_DISTANCE = 128


def relative_buckets(
    relative: np.ndarray, num_buckets: int = NUM_BUCKETS, max_distance: int = MAX_DISTANCE
) -> np.ndarray:
    """The bucket of each key position minus query position (int64 array, any shape)."""
    half = num_buckets // 2
    distance = -relative
    buckets = (distance < 0).astype(np.int64) * half
    distance = np.abs(distance)
    exact = half // 2
    # float32 as torch computes it, so a distance on a bucket's edge lands where it does there;
    # distances under `exact` take their own bucket, so their log (of 0 too) is never used.
    logged = np.log(np.maximum(distance, 1).astype(np.float32) / exact)
    scaled = logged / np.float32(np.log(max_distance / exact))
    large = exact + (scaled * (half - exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return buckets + np.where(distance < exact, distance, large)


def bias_by_distance(table: np.ndarray, max_tokens: int) -> np.ndarray:
    """(heads, 2 * max_tokens - 1) float32: column `max_tokens - 1 + k` is the bias a head
    adds for a key `k` tokens after its query (k < 0: before). `table` is (buckets, heads)."""
    relative = np.arange(-(max_tokens - 1), max_tokens, dtype=np.int64)
    return np.ascontiguousarray(table[relative_buckets(relative)].T, dtype=np.float32)


def position_bias(table: np.ndarray, tokens: int) -> np.ndarray:
    """(1, heads, tokens, tokens): the bias added to each head's scores."""
    positions = np.arange(tokens, dtype=np.int64)
    relative = positions[None, :] - positions[:, None]
    return np.ascontiguousarray(table[relative_buckets(relative)].transpose(2, 0, 1)[None])
