"""The elementwise pieces of the NumPy BERT pass against their textbook definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from memhive_adapters.embedding.activations import erf, gelu, layer_norm, softmax
from memhive_adapters.embedding.pooling import l2_normalise, mean_pool

GRID = np.linspace(-8.0, 8.0, 4001, dtype=np.float32)


def test_erf_matches_math_erf_to_float32_resolution() -> None:
    exact = np.array([math.erf(float(x)) for x in GRID])
    assert np.max(np.abs(erf(GRID) - exact)) < 5e-7


def test_gelu_is_the_erf_form_not_the_tanh_approximation() -> None:
    exact = np.array([x * 0.5 * (1 + math.erf(x / math.sqrt(2))) for x in map(float, GRID)])
    tanh_form = 0.5 * GRID * (1 + np.tanh(math.sqrt(2 / math.pi) * (GRID + 0.044715 * GRID**3)))
    assert np.max(np.abs(gelu(GRID) - exact)) < 2e-6
    assert np.max(np.abs(tanh_form - exact)) > 1e-4  # so the check above can tell them apart


def test_gelu_keeps_float32() -> None:
    assert gelu(GRID).dtype == np.float32


def test_layer_norm_uses_biased_variance_and_eps() -> None:
    x = np.array([[1.0, 2.0, 4.0, 9.0]], dtype=np.float32)
    scale, shift = np.array([1, 2, 1, 1], np.float32), np.array([0, 0, 1, 0], np.float32)
    mean, variance = 4.0, ((3**2) + (2**2) + 0 + (5**2)) / 4
    expected = (x - mean) / math.sqrt(variance + 0.5) * scale + shift
    np.testing.assert_allclose(layer_norm(x, scale, shift, 0.5), expected, rtol=1e-6)


def test_softmax_rows_sum_to_one_and_survive_huge_negative_scores() -> None:
    scores = np.array([[2.0, 1.0, np.finfo(np.float32).min]], dtype=np.float32)
    probabilities = softmax(scores)
    assert probabilities[0, 2] == 0.0
    np.testing.assert_allclose(probabilities[0, :2], [math.e / (math.e + 1), 1 / (math.e + 1)])


def test_mean_pool_ignores_padding() -> None:
    hidden = np.array([[[1.0, 3.0], [3.0, 5.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]])
    np.testing.assert_allclose(mean_pool(hidden, mask), [[2.0, 4.0]])


@pytest.mark.parametrize("row", [[3.0, 4.0], [0.0, 0.0], [-1e-3, 2e-3]])
def test_l2_normalise(row: list[float]) -> None:
    vector = l2_normalise(np.array([row], dtype=np.float32))[0]
    norm = math.hypot(*row)
    expected = [0.0, 0.0] if norm == 0 else [value / norm for value in row]
    np.testing.assert_allclose(vector, expected, rtol=1e-6)
