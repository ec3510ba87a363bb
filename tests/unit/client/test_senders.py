"""The async client's default sender writes a query as httpx does (the socket tests are in
tests/integration/clients/test_aiohttp_sender.py)."""

from __future__ import annotations

import httpx
from hypothesis import given
from hypothesis import strategies as st
from memhive_client.senders import query_pairs

scalars = st.one_of(
    st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False)
)


@given(st.dictionaries(st.text(min_size=1, max_size=5), scalars | st.lists(scalars, max_size=3)))
def test_a_query_is_the_one_httpx_writes(params: dict) -> None:
    assert query_pairs(params) == httpx.QueryParams(params).multi_items()
