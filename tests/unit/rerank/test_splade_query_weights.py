"""A query's weights restricted to some words are the whole-vocabulary vector's weights on
those words (the brute-force reference: every logit, log(1 + relu), max over tokens), and
computing them reads only those words' embeddings."""

from __future__ import annotations

import threading

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from memhive_adapters.rerank.splade_query import SpladeQuery, weights_on


@st.composite
def _query_and_words(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    seed = draw(st.integers(0, 2**32 - 1))
    tokens, width, vocabulary = draw(st.integers(1, 12)), draw(st.integers(1, 16)), 300
    rng = np.random.default_rng(seed)
    query = rng.normal(size=(tokens, width)).astype(np.float32)
    embeddings = rng.normal(size=(vocabulary, width)).astype(np.float32)
    bias = rng.normal(scale=2.0, size=vocabulary).astype(np.float32)
    words = draw(st.lists(st.integers(0, vocabulary - 1), max_size=80, unique=True))
    return query, embeddings, bias, np.array(sorted(words), dtype=np.int64)


def _whole_vocabulary(query: np.ndarray, embeddings: np.ndarray, bias: np.ndarray) -> np.ndarray:
    logits = query.astype(np.float64) @ embeddings.T.astype(np.float64) + bias
    return np.log1p(np.maximum(logits, 0.0)).max(axis=0)


# No deadline: a shared machine's load is not the code's speed.
@settings(max_examples=200, deadline=None)
@given(_query_and_words())
def test_restricted_weights_are_the_whole_vectors_on_those_words(case) -> None:
    query, embeddings, bias, words = case

    restricted = weights_on(query, embeddings, bias, words)

    np.testing.assert_allclose(
        restricted, _whole_vocabulary(query, embeddings, bias)[words], rtol=1e-4, atol=1e-5
    )


@settings(deadline=None)
@given(_query_and_words())
def test_only_the_asked_words_embeddings_are_read(case) -> None:
    query, embeddings, bias, words = case
    others = np.setdiff1d(np.arange(len(bias)), words)
    poisoned_embeddings, poisoned_bias = embeddings.copy(), bias.copy()
    poisoned_embeddings[others], poisoned_bias[others] = np.nan, np.nan

    restricted = weights_on(query, poisoned_embeddings, poisoned_bias, words)

    assert np.array_equal(restricted, weights_on(query, embeddings, bias, words))


def test_a_query_weighs_the_words_asked_by_id_and_ignores_ids_outside_the_vocabulary() -> None:
    rng = np.random.default_rng(7)
    query = rng.normal(size=(5, 8)).astype(np.float32)
    embeddings = rng.normal(size=(50, 8)).astype(np.float32)
    bias = rng.normal(size=50).astype(np.float32)
    whole = _whole_vocabulary(query, embeddings, bias)
    reading = SpladeQuery(query, embeddings, bias, threading.Lock(), 1)

    found = reading.weights_of_sync([49, 3, 3, -1, 50, 10**9, 17])

    positive = [w for w in (3, 17, 49) if whole[w] > 0]
    assert list(found.word_ids) == positive
    np.testing.assert_allclose(found.weights, whole[positive], rtol=1e-5)
    assert reading.weights_of_sync([]).word_ids == ()
