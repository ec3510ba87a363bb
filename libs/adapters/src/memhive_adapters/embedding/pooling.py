"""From token states to one unit-length sentence vector, as sentence-transformers' Pooling
(mean over real tokens) followed by its Normalize module."""

from __future__ import annotations

import numpy as np


def mean_pool(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Mean of the hidden states (batch, tokens, width) over tokens whose mask is 1."""
    weights = attention_mask[:, :, None].astype(hidden.dtype)
    counts = np.maximum(weights.sum(axis=1), np.float32(1e-9))
    return (hidden * weights).sum(axis=1) / counts


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; a zero row stays zero (torch.nn.functional.normalize)."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))
