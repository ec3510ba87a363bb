"""SPLADE's last steps taken over a text's positive words only give what the plain
definition gives over the whole vocabulary: log(1 + relu) of every logit, and the strongest
words by a stable sort of the whole vector (ties by word id), zeros left out."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from memhive_adapters.rerank.splade_query import log1p_of_positive
from memhive_adapters.rerank.splade_reranker import SpladeReranker

# Few distinct values, so ties (among positive words too), zeros and negatives are common.
_logits = arrays(
    np.float32,
    st.integers(0, 300),
    elements=st.sampled_from([-3.5, -1.0, -0.0, 0.0, 1e-30, 0.25, 0.5, 2.0, 7.75, 30.0]),
)


@given(_logits)
def test_log1p_of_positive_is_log1p_of_relu_bit_for_bit(logits: np.ndarray) -> None:
    plain = np.log1p(np.maximum(logits, 0.0))
    assert np.array_equal(log1p_of_positive(logits), plain)


@given(_logits, st.integers(0, 400))
def test_the_strongest_words_are_the_plain_stable_sort_of_the_whole_vector(
    logits: np.ndarray, count: int
) -> None:
    vector = np.log1p(np.maximum(logits, 0.0))
    plain = np.argsort(-vector, kind="stable")[:count]
    plain = plain[vector[plain] > 0]

    kept, weights = SpladeReranker._strongest(vector, count)

    assert kept.tolist() == plain.tolist()
    assert np.array_equal(weights, vector[plain])
