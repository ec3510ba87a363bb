"""MPNet's relative-position buckets, against what Hugging Face's MPNetEncoder computes."""

from __future__ import annotations

import numpy as np
from memhive_adapters.embedding.relative_positions import (
    bias_by_distance,
    position_bias,
    relative_buckets,
)

# MPNetEncoder.relative_position_bucket (transformers, torch) for key minus query positions
# -20..19, then far before and far after: exact within 8 tokens, logarithmic beyond,
# keys before the query in buckets 0-15 and after it in 16-31.
NEAR = [10] * 5 + [9] * 4 + [8] * 4 + [7, 6, 5, 4, 3, 2, 1, 0, 17, 18, 19, 20, 21, 22, 23]
NEAR += [24] * 4 + [25] * 4 + [26] * 4


def test_buckets_are_hugging_face_s() -> None:
    assert relative_buckets(np.arange(-20, 20)).tolist() == NEAR
    assert relative_buckets(np.array([-127, -128, -600, 127, 128, 600])).tolist() == [
        15,
        15,
        15,
        31,
        31,
        31,
    ]


def test_the_bias_by_distance_is_the_bias_of_each_pair() -> None:
    """The graph gathers from the table by distance; NumPy looks each pair up."""
    table = np.random.default_rng(5).standard_normal((32, 3)).astype(np.float32)
    by_distance = bias_by_distance(table, max_tokens=40)
    tokens = 25
    positions = np.arange(tokens)
    gathered = by_distance[:, positions[None, :] - positions[:, None] + 39]
    np.testing.assert_array_equal(gathered[None], position_bias(table, tokens))
    assert position_bias(table, tokens)[0, 1, 0, 1] == table[17, 1]  # one after: bucket 17
