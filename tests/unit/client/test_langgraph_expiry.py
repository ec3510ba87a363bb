"""LangGraph TTLs (minutes) as memhive's expiries (whole seconds)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhive_client.langgraph.expiry import (
    MAX_TTL_MINUTES,
    REFRESH_STEP,
    expiry,
    refresh_due,
    ttl_seconds,
)

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
minutes = st.floats(min_value=1e-6, max_value=MAX_TTL_MINUTES, allow_nan=False)


@given(minutes)
def test_an_entry_lives_at_least_its_ttl_and_under_a_second_more(ttl: float) -> None:
    seconds = ttl_seconds(ttl)
    assert seconds >= ttl * 60 and seconds >= 1
    assert seconds < max(ttl * 60, 1) + 1
    assert expiry(ttl, NOW) == NOW + timedelta(seconds=seconds)


@pytest.mark.parametrize("ttl", [0, -0.5, MAX_TTL_MINUTES + 1, float("inf"), True, "5", None])
def test_what_memhive_cannot_keep_is_refused(ttl) -> None:
    with pytest.raises(ValueError, match="ttl"):
        ttl_seconds(ttl)


@given(st.floats(min_value=1 / 60, max_value=MAX_TTL_MINUTES), st.floats(0, 1))
def test_a_read_refreshes_once_the_expiry_would_move_by_a_twentieth(
    ttl: float, elapsed_share: float
) -> None:
    written = expiry(ttl, NOW)
    later = NOW + timedelta(minutes=ttl * elapsed_share)
    if elapsed_share >= REFRESH_STEP * 1.01:
        assert refresh_due(ttl, written, later)
    elif elapsed_share <= REFRESH_STEP * 0.99:
        assert not refresh_due(ttl, written, later)
    assert refresh_due(ttl, None, NOW)  # an entry written before it had a TTL
