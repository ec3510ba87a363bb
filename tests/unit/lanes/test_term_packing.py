"""Document terms packed into one payload string come back as they went in: the same word
ids in the same order, each weight within the quantisation error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhive_adapters.vector.term_packing import (
    MAX_WORD_ID,
    pack_terms,
    quantisation_error,
    unpack_terms,
)
from memhive_adapters.vector.term_payload import TERMS_FIELD, terms_in
from memhive_ports import DocumentTerms

_terms = st.lists(
    st.tuples(
        st.integers(0, MAX_WORD_ID),
        st.floats(0, 50, allow_nan=False, allow_infinity=False, allow_subnormal=False),
    ),
    max_size=300,
    unique_by=lambda pair: pair[0],
).map(lambda pairs: DocumentTerms(tuple(i for i, _ in pairs), tuple(w for _, w in pairs)))


@given(_terms)
def test_a_round_trip_keeps_ids_and_weights_within_the_quantisation_error(
    terms: DocumentTerms,
) -> None:
    back = unpack_terms(pack_terms(terms))
    assert back.word_ids == terms.word_ids
    error = quantisation_error(terms)
    assert all(abs(b - w) <= error for b, w in zip(back.weights, terms.weights, strict=True))


@given(_terms, _terms)
def test_a_dot_product_moves_at_most_by_the_error_times_the_other_side(
    doc: DocumentTerms, query: DocumentTerms
) -> None:
    moved = abs(unpack_terms(pack_terms(doc)).dot(query) - doc.dot(query))
    assert moved <= quantisation_error(doc) * sum(query.weights) + 1e-9


def test_three_bytes_a_word() -> None:
    terms = DocumentTerms(tuple(range(256)), tuple([1.0] * 256))
    assert len(pack_terms(terms)) == 4 * -(-(4 + 3 * 256) // 3)  # base64 of 772 bytes


@pytest.mark.parametrize(
    ("ids", "weights"),
    [((MAX_WORD_ID + 1,), (1.0,)), ((-1,), (1.0,)), ((3,), (-0.5,)), ((3,), (float("nan"),))],
)
def test_what_does_not_fit_is_refused(ids, weights) -> None:
    with pytest.raises(ValueError):
        pack_terms(DocumentTerms(ids, weights))


@pytest.mark.parametrize("packed", ["", "AAAA", "not base64!"])
def test_a_string_it_did_not_make_is_refused(packed: str) -> None:
    with pytest.raises(ValueError):
        unpack_terms(packed)


def test_a_point_whose_terms_do_not_unpack_is_read_as_having_none() -> None:
    packed = pack_terms(DocumentTerms((7,), (1.0,)))
    records = [("a", {TERMS_FIELD: packed}), ("b", {TERMS_FIELD: "garbled!"}), ("c", None)]
    records += [("d", {TERMS_FIELD: 42}), ("e", {"workspace_id": "ws"})]

    assert set(terms_in(records)) == {"a"}
