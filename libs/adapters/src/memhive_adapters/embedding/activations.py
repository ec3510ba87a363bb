"""The elementwise functions of a BERT layer, in float32 NumPy."""

from __future__ import annotations

import numpy as np

# Abramowitz & Stegun 7.1.26: |error| < 1.5e-7, below float32 resolution near 1. NumPy has no
# erf and scipy is not a dependency; BERT's "gelu" is the erf form, not the tanh approximation.
_P = np.float32(0.3275911)
_A = tuple(
    np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
)
_SQRT_HALF = np.float32(np.sqrt(0.5))


def erf(x: np.ndarray) -> np.ndarray:
    magnitude = np.abs(x)
    t = 1.0 / (1.0 + _P * magnitude)
    polynomial = _A[0]
    for coefficient in _A[1:]:
        polynomial = polynomial * t + coefficient
    return np.copysign(1.0 - polynomial * t * np.exp(-magnitude * magnitude), x)


def gelu(x: np.ndarray) -> np.ndarray:
    """x · Φ(x), with Φ through erf, as torch.nn.functional.gelu(approximate="none")."""
    return x * np.float32(0.5) * (np.float32(1.0) + erf(x * _SQRT_HALF))


def layer_norm(x: np.ndarray, scale: np.ndarray, shift: np.ndarray, eps: float) -> np.ndarray:
    """Over the last axis with the biased variance, as torch.nn.LayerNorm."""
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(variance + np.float32(eps)) * scale + shift


def softmax(x: np.ndarray) -> np.ndarray:
    """Over the last axis; shifted by the row max so exp never overflows."""
    shifted = np.exp(x - x.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)
